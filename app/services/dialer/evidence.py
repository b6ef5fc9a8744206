"""Why a call was allowed: the evidence `startCall` keeps with each call it places.

Written once, in the call's own transaction, the moment the contact rules let the call be
placed (after its contact-limit marks, under their locks), and never changed afterwards: a
window changed, a limit removed or a consent revoked later leaves it as it was. It is a
record, kept as a JSON document in the form `taskAttempts` and the evidence CSV show:

- `checkedAt`: the moment (ISO 8601, UTC); `rules`: every contact rule checked, by name.
- `zones`: each zone the task is called in, with the local time there (ISO 8601 with its
  offset); the calling window (`callingWindow`, `any time` without one) held in each.
- `regions`: the task's regions; `regionalRules`: the tenant's calling rules of those
  regions, each allowing the call in every zone (its id, its words, its source).
- `queueHours`: the task's queue's schedule, open at that moment (null: no schedule).
- `doNotCall`: the number was checked against the tenant's list (false: not on it).
- `limits`: each contact limit counting the call: its id and words, the scope counted, how
  many calls (or contacts) it counts in its window, this call included, and its maximum.
- `consent`: whether the campaign requires consent for the number, and the consent given
  it relied on (its record id, when, source, campaign, purpose).
- `attempts`: the task's attempts before this one and its campaign's attempt limit.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from app.models import CallingRule, Task
from app.services.calling_rules import rules as calling_rules
from app.services.consent import ledger as consent
from app.services.consent import requirements as consent_required
from app.services.contact_limits.counts import Count
from app.services.contact_limits.limits import limit_words
from app.services.contact_rules import engine
from app.services.schedules import calling_windows
from app.services.values import unwrapped


def _iso(moment: datetime, zone: str = "UTC") -> str:
    shown = moment.astimezone(UTC if zone == "UTC" else ZoneInfo(zone))
    text = shown.isoformat(timespec="seconds")
    return text.replace("+00:00", "Z") if zone == "UTC" else text


def _consent(task: Task, key: str, number: str, now: datetime) -> dict[str, Any]:
    if not consent_required.requirement_of(task.campaign).covers(key):
        return {"required": False}
    relied = consent.in_force(task.campaign.tenant_id, number, task.campaign_id, now)
    if relied is None:  # the rule let it through: it cannot be missing, but say so if it is
        return {"required": True, "recordId": None}
    return {
        "required": True,
        "recordId": relied.id,
        "givenAt": _iso(relied.at),
        "source": relied.source,
        "campaign": relied.campaign.name if relied.campaign is not None else None,
        "purpose": relied.purpose,
    }


def _regional_rules(task: Task, rules: list[CallingRule]) -> list[dict[str, Any]]:
    """The tenant's calling rules (`rules`) of the task's regions (each held in the task's
    zone)."""
    where = set(unwrapped(task.regions))
    return [
        {"ruleId": rule.id, "rule": calling_rules.rule_words(rule), "source": rule.source}
        for rule in sorted(rules, key=lambda rule: (rule.region, rule.id))
        if rule.region in where
    ]


def evidence_of(
    task: Task,
    key: str,
    number: str,
    now: datetime,
    *,
    counted: list[Count],
    rules: list[CallingRule],
) -> dict[str, Any]:
    """The evidence of a call to `number` (phone item `key`) of `task` allowed at `now`:
    `counted`, each limit's count with the call (`admit_call`'s); `rules`, the tenant's
    calling rules the contact rules read (listed by region, then oldest first)."""
    campaign = task.campaign
    schedule = task.skill_queue.schedule
    limits = [
        {
            "limitId": count.limit.id,
            "limit": limit_words(count.limit),
            "scope": count.scope,
            "count": count.count,
            "max": count.limit.max_count,
        }
        for count in counted
    ]
    return {
        "checkedAt": _iso(now),
        "rules": list(engine.NAMES),
        "phoneKey": key,
        "phoneNumber": number,
        "zones": [
            {"zone": zone, "localTime": _iso(now, zone)} for zone in calling_windows.zones_of(task)
        ],
        "regions": unwrapped(task.regions),
        "callingWindow": calling_windows.window_text(campaign),
        "regionalRules": _regional_rules(task, rules),
        "queueHours": None if schedule is None else {"schedule": schedule.name, "open": True},
        "doNotCall": False,
        "limits": limits,
        "consent": _consent(task, key, number, now),
        "attempts": {"before": task.work_attempts or 0, "max": campaign.max_attempts},
    }

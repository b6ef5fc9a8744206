"""Every call of a report's scope with the evidence of why it was allowed, as CSV.

One row per call started in the scope's [start, end) (UTC) of its campaigns, queue and agent,
oldest first: the call, its task and agent, the evidence's main facts in words (the zones
and local times, the calling window, the queue's hours, each limit's count and maximum, the
consent relied on) and the whole evidence document as JSON. The evidence is read as it was
written when the call was placed; nothing here changes it. Every cell goes through the
spreadsheet guard (csv_files); the file is written a chunk of calls at a time.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

from sqlalchemy import select

from app.extensions import db
from app.models import Attempt, Call, Campaign, Task
from app.services.audit.reading import wire_time
from app.services.csv_files import GuardedWriter
from app.services.reports.scope import ReportScope

HEADER = (
    "callId",
    "startedAt",
    "campaign",
    "previewRecordID",
    "agent",
    "phoneKey",
    "phoneNumber",
    "result",
    "zones",
    "regions",
    "callingWindow",
    "queueHours",
    "limits",
    "consent",
    "evidence",
)
CHUNK = 2000
NOT_KEPT = "not kept (placed before evidence was kept)"


def _zones(evidence: dict[str, Any]) -> str:
    return "; ".join(f"{z['zone']} {z['localTime']}" for z in evidence.get("zones", []))


def _hours(evidence: dict[str, Any]) -> str:
    hours = evidence.get("queueHours")
    return "no schedule" if hours is None else f"{hours['schedule']}: open"


def _limits(evidence: dict[str, Any]) -> str:
    return "; ".join(
        f"limit {c['limitId']}: {c['count']} of {c['max']} for {c['scope']} ({c['limit']})"
        for c in evidence.get("limits", [])
    )


def _consent(evidence: dict[str, Any]) -> str:
    found = evidence.get("consent") or {}
    if not found.get("required"):
        return "not required"
    if found.get("recordId") is None:
        return "required; no record"
    source = f" ({found['source']})" if found.get("source") else ""
    return f"record {found['recordId']} given {found['givenAt']}{source}"


def _row(call: Call, campaign: str, record_id: str | None, agent: str) -> tuple:
    head = (
        call.call_id,
        wire_time(call.started_at),
        campaign,
        record_id or "",
        agent,
        call.phone_key,
        call.phone_number,
        call.result or "",
    )
    evidence = call.evidence
    if evidence is None:
        return (*head, "", "", "", "", "", "", NOT_KEPT)
    facts = (
        _zones(evidence),
        " ".join(evidence.get("regions", [])),
        evidence.get("callingWindow", ""),
        _hours(evidence),
        _limits(evidence),
        _consent(evidence),
        json.dumps(evidence, sort_keys=True),
    )
    return (*head, *facts)


def evidence_csv(scope: ReportScope) -> Iterator[str]:
    """The scope's calls with their evidence as CSV text, in chunks."""
    buffer = io.StringIO()
    writer = GuardedWriter(buffer)
    writer.writerow(HEADER)
    last = 0
    while True:
        rows = db.session.execute(
            select(Call, Campaign.name, Task.record_id, Attempt.agent_login)
            .join(Attempt, Attempt.id == Call.attempt_id)
            .join(Campaign, Campaign.id == Attempt.campaign_id)
            .outerjoin(Task, Task.id == Call.task_id)
            .where(
                Call.started_at >= scope.start,
                Call.started_at < scope.end,
                Call.id > last,
                *scope.narrowing(),
            )
            .order_by(Call.id)
            .limit(CHUNK)
        ).all()
        for call, campaign, record_id, agent in rows:
            writer.writerow(_row(call, campaign, record_id, agent))
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        if len(rows) < CHUNK:
            return
        last = rows[-1][0].id

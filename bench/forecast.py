"""The dry run of a campaign at scale: campaignForecast over 7 days hourly (168 intervals)
on a campaign of 1,000,000 open tasks, every rule of the contact rules at work.

python -m bench.forecast             # 1,000,000 tasks, SQLite in a temporary folder
BENCH_FORECAST_TASKS=20000 python -m bench.forecast

The campaign is bulk-loaded as bench/delivery.py loads it (1 in 10 tasks due in 1 to 30
days), with delivery's hours, calling window and do-not-call list (every 100th number);
then the tasks are spread over 12 US states (their State and regions) and four zones, every
7th spanning two zones (a number whose area code does); the US pack of calling rules is
loaded; every 50th number was called three times in the last three hours, which a limit of
3 calls in 24 hours per number holds back until those calls age out (the forecast asks
those 20,000 tasks again at each interval's start until none is held). Then the forecast is
read twice through the Reports API (the first warms the caches) and timed. On PostgreSQL
too when TEST_DATABASE_URL is set.
"""

from __future__ import annotations

import os
import time
from datetime import timedelta

from sqlalchemy import text

from app import create_app
from app.config import test_settings
from app.extensions import db
from app.models.types import utcnow
from app.services.calling_rules import pack as calling_pack
from app.services.contact_limits import limits
from app.services.contact_rules import engine
from app.wire.times import to_epoch_ms
from bench import delivery, delivery_pull, servers
from bench.databases import on_both

SIZE = int(os.environ.get("BENCH_FORECAST_TASKS", 1_000_000))
CEILING_S = 10.0
SETUP = delivery.SETUP
STATES = ("FL", "CA", "TX", "NY", "GA", "WA", "AZ", "IN", "LA", "OK", "UT", "WY")
ZONES = ("America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles")
SPANNING = ",America/Chicago,America/Denver,"


def _spread(campaign) -> None:
    """Regions, zones and the calls that limits count, written in a few UPDATEs."""
    states = " ".join(f"WHEN {n} THEN 'US-{s}'" for n, s in enumerate(STATES))
    zones = " ".join(f"WHEN {n} THEN '{z}'" for n, z in enumerate(ZONES))
    db.session.execute(
        text(
            f"UPDATE tasks SET regions = ',' || (CASE id % {len(STATES)} {states} END) || ',',"
            f" time_zone = CASE id % {len(ZONES)} {zones} END,"  # noqa: S608 - the bench's SQL
            f" zones = CASE WHEN id % 7 = 0 THEN '{SPANNING}' ELSE '' END"
            " WHERE campaign_id = :campaign"
        ),
        {"campaign": campaign.id},
    )
    dialect = db.session.connection().dialect.name
    now = utcnow().replace(tzinfo=None).isoformat(sep=" ", timespec="seconds")
    for hours in (1, 2, 3):
        at = (
            f"CAST(:now AS timestamp) - interval '{hours} hour'"
            if dialect == "postgresql"
            else f"datetime(:now, '-{hours} hours')"
        )
        db.session.execute(
            text(
                "INSERT INTO contact_marks (tenant_id, scope_key, kind, campaign_id, at)"
                f" SELECT :tenant, 'number:' || i.value, 'call', t.campaign_id, {at}"  # noqa: S608
                " FROM tasks t JOIN task_items i ON i.task_id = t.id AND i.key = 'Phone'"
                " WHERE t.campaign_id = :campaign AND t.id % 50 = 0"
            ),
            {"tenant": campaign.tenant_id, "campaign": campaign.id, "now": now},
        )
    db.session.commit()
    calling_pack.load_us(campaign.tenant, actor=SETUP)
    limits.add_limit(campaign.tenant, limits.NewLimit(3, "24h", "number"), actor=SETUP)
    db.session.commit()
    db.session.execute(text("ANALYZE"))
    db.session.commit()


def _measure(url: str) -> dict:
    app = create_app(test_settings(url))
    with app.app_context():
        db.drop_all()
        db.create_all()
        campaign, key = delivery._setup()
        loaded = delivery._bulk_load(campaign, SIZE)
        started = time.perf_counter()
        rules = delivery._switch_rules_on(campaign, SIZE)
        _spread(campaign)
        loaded += time.perf_counter() - started
        client = app.test_client()
        now = utcnow().replace(minute=0, second=0, microsecond=0)
        body = {
            "tenant": delivery_pull.TENANT,
            "campaignName": campaign.name,
            "from": to_epoch_ms(now),
            "to": to_epoch_ms(now + timedelta(days=7)),
            "intervalMinutes": 60,
        }
        times, answer = [], {}
        for _ in range(2):
            started = time.perf_counter()
            answer = client.post(
                "/reports-api/v1/campaignForecast", json=body, headers=servers.headers(key)
            ).get_json()
            times.append(time.perf_counter() - started)
            assert answer["result"] == "SUCCESS", answer
        db.session.remove()
        for bound in db.engines.values():
            bound.dispose()
    return {"load": loaded, "rules": rules, "times": times, "answer": answer}


def _report(name: str, url: str) -> None:
    print(f"forecast: campaignForecast, 7 days hourly, through the Reports API, {name}")
    found = _measure(url)
    answer = found["answer"]
    intervals = answer["intervals"]
    print(
        f"{SIZE:,} open tasks loaded in {found['load']:.0f} s; {found['rules']};"
        f" the US pack; every 50th number held by 3 calls in 24 hours"
    )
    callable_ = [i["callable"] for i in intervals]
    held: dict[str, int] = {}
    for interval in intervals:
        for part in interval["heldBack"]:
            held[part["rule"]] = max(held.get(part["rule"], 0), part["count"])
    print(
        f"{len(intervals)} intervals: callable from {min(callable_):,} to {max(callable_):,};"
        " most held back by "
        + ", ".join(f"{rule} {held[rule]:,}" for rule in engine.NAMES if rule in held)
    )
    first, warm = found["times"]
    verdict = "within" if warm <= CEILING_S else "OVER"
    print(f"first read {first:.1f} s, second {warm:.1f} s: {verdict} the {CEILING_S:.0f} s ceiling")


def main() -> None:
    on_both("forecast", _report)


if __name__ == "__main__":
    main()

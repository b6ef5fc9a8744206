"""Search at scale: a campaign of many tasks, searched through the whole API stack.

make bench                       # SQLite in a temporary folder
BENCH_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test make bench
BENCH_TASKS=200000 make bench
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
import uuid

from sqlalchemy import insert

from app import create_app
from app.config import test_settings
from app.extensions import db
from app.models import Task, TaskItem
from app.models.types import utcnow
from app.services import campaigns, keys, tenants
from app.services.actors import Actor
from app.services.rules import parse_number
from app.services.tasks import add_or_update_task
from app.services.validation import ItemInput

PREVIEW = "/service-previewcontact-service/svc/rs/PreviewContactServiceExternal/"
TASKS = int(os.environ.get("BENCH_TASKS", 100_000))
PLANS = ("Basic", "Plus", "Premium", "Gold")
STATES = ("NOTWORKED", "WORKED", "COMPLETED")


def _setup():
    tenant = tenants.create_tenant(
        "AWS Connect", "Bench", "prod", "us-east-1", "saml", actor=Actor.operator()
    )
    key = keys.issue_key(tenant, actor=Actor.operator())
    tenants.create_skill_queue(tenant, "Sales", actor=Actor.operator())
    db.session.flush()
    campaign = campaigns.create_campaign(tenant, "Big", "Sales", "UTC", actor=Actor.operator())
    db.session.commit()
    return campaign, key


def _bulk_load(campaign, count: int) -> float:
    """Insert `count` tasks of 8 items each with executemany; returns seconds."""
    rng = random.Random(7)
    started = time.perf_counter()
    now = utcnow()
    for first in range(0, count, 5000):
        rows = range(first, min(first + 5000, count))
        task_rows = [
            {
                "record_id": str(uuid.uuid4()), "campaign_id": campaign.id,
                "client_id": f"C{n:08d}", "skill_queue_id": campaign.default_skill_queue_id,
                "time_zone": "UTC", "worked_state": STATES[n % 3], "work_attempts": n % 4,
                "created_at": now, "updated_at": now,
            }
            for n in rows
        ]  # fmt: skip
        ids = db.session.scalars(
            insert(Task).returning(Task.id, sort_by_parameter_order=True), task_rows
        ).all()
        items = []
        for task_id, n in zip(ids, rows, strict=True):
            values = {
                "Id": f"C{n:08d}",
                "Name": f"Customer {n}",
                "Phone": f"+1415{n:07d}",
                "Plan": PLANS[n % 4],
                "Balance": str(rng.randint(0, 10_000)),
                "City": rng.choice(("Paris", "Lima", "Oslo", "Pune", "Kyiv")),
                "Notes": f"account {n} note_{n % 100}",
                "Score": str(n % 1000),
            }
            items += [
                {"task_id": task_id, "campaign_id": campaign.id, "key": k, "value": v,
                 "number": parse_number(v), "display_order": None, "position": p}
                for p, (k, v) in enumerate(values.items())
            ]  # fmt: skip
        db.session.execute(insert(TaskItem), items)
        db.session.commit()
    return time.perf_counter() - started


def _service_adds(campaign, count: int) -> float:
    started = time.perf_counter()
    for n in range(count):
        add_or_update_task(
            campaign,
            f"S{n}",
            [ItemInput("Name", f"N{n}"), ItemInput("Plan", "Plus")],
            actor=Actor.operator(),
        )
        db.session.commit()
    return time.perf_counter() - started


def _timed(client, headers, body, runs: int = 7) -> tuple[float, int]:
    times, found = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        answer = client.post(
            PREVIEW + "searchPreviewCampaign", json=body, headers=headers
        ).get_json()
        times.append(time.perf_counter() - started)
        assert answer["previewResult"]["previewResultStatus"] == "SUCCESS", answer
        found = len(answer["previewRecordClientData"])
    return statistics.median(times) * 1000, found


def main() -> None:
    url = os.environ.get("BENCH_DATABASE_URL")
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(test_settings(url or f"sqlite:///{folder}/bench.db"))
        with app.app_context():
            db.drop_all()
            db.create_all()
            campaign, key = _setup()
            print(f"database: {db.engine.dialect.name}; tasks: {TASKS:,} x 8 data items")
            seconds = _bulk_load(campaign, TASKS)
            print(f"bulk load (executemany):      {TASKS / seconds:10,.0f} tasks/s")
            seconds = _service_adds(campaign, 500)
            print(f"add via service, 1 tx each:   {500 / seconds:10,.0f} tasks/s")
            headers = {
                "X-sc-platform-code": "AWS Connect", "X-sc-company-code": "Bench",
                "X-sc-company-environment": "prod", "X-sc-secrets-region": "us-east-1",
                "X-sc-company-api-key": key,
            }  # fmt: skip
            common = {
                "platform": "AWS Connect", "companyCode": "Bench", "environment": "prod",
                "region": "us-east-1", "campaignName": "Big",
            }  # fmt: skip
            client = app.test_client()
            cases = {
                "lookup by clientId": {"clientId": f"C{TASKS // 2:08d}"},
                "EQUALS City (1/5 match)": _crit(("City", "EQUALS", "Oslo")),
                "EQUALS Name (1 match)": _crit(("Name", "EQUALS", f"Customer {TASKS - 3}")),
                "GREATERTHAN Balance 9990": _crit(("Balance", "GREATERTHAN", "9990")),
                "BEGINSWITH Name 'Customer 99'": _crit(("Name", "BEGINSWITH", "Customer 99")),
                "CONTAINS Notes 'note_42'": _crit(("Notes", "CONTAINS", "note_42")),
                "sys_worked_state + Plan": _crit(
                    ("sys_worked_state", "EQUALS", "WORKED"), ("Plan", "EQUALS", "Gold")
                ),
                "NOTEQUALS Plan Basic": _crit(("Plan", "NOTEQUALS", "Basic")),
            }
            print(f"{'search (maxRecords 1000, median of 7)':40} {'ms':>8} {'found':>6}")
            for label, fields in cases.items():
                ms, found = _timed(client, headers, {**common, **fields})
                print(f"{label:40} {ms:8.1f} {found:6}")
            db.session.remove()
            db.drop_all()
            for engine in db.engines.values():
                engine.dispose()


def _crit(*criteria: tuple[str, str, str]) -> dict:
    return {"previewRecordData": [{"key": k, "condition": c, "value": v} for k, c, v in criteria]}


if __name__ == "__main__":
    main()

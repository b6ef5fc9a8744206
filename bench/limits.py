"""Contact limits at scale: nextTask and startCall through the Desk API on a campaign of
1,000,000 tasks whose ledger holds 3,000,000 calls, with two limits on and without.

python -m bench.limits             # 1,000,000 tasks, SQLite in a temporary folder
BENCH_LIMITS_TASKS=10000 BENCH_LIMITS_ROUNDS=50 python -m bench.limits

The campaign is bulk-loaded as bench/delivery.py loads it; each task then has one finished
attempt with three calls to its number and the contact marks those calls left (its number,
person and task: nine rows per task), over the last 30 days: 13 and 26 hours apart, and
every 50th task's three in the last three hours, which the limit per number holds back.
Each task is in the region its number's area code gives (California, as intake would
store it), and every 10th one also in Florida (as a State item of FL puts it): the US
pack's rules of Florida (hours, and at most 3 calls per person in 24 hours) enter
delivery's query and hold those tasks back when they apply. Then ANALYZE. The limits are
Regulation F's (at most 7 calls in 7 days per person) and one
per number (at most 3 calls in 24 hours), across every campaign.

Agent `ann` works tasks: nextTask is timed with the two limits on and with none, in
alternating blocks (drift falls on both alike), each task then closed or released; then
nextTask likewise with the US pack of calling rules loaded and without (the rules of the
regions an open task is in are read: here Florida's); then startCall and its callEvents with
the limits on, as the desk sends them (each startCall
takes the scopes' locks, counts both limits and writes the call's three marks). On
PostgreSQL too when TEST_DATABASE_URL is set (a database named after it with
`_limits_bench` appended; it is emptied).
"""

from __future__ import annotations

import os
import statistics
import time

from sqlalchemy import text

from app import create_app
from app.config import test_settings
from app.extensions import db
from app.models.types import utcnow
from app.services.calling_rules import pack as calling_pack
from app.services.calling_rules import rules as calling_rules
from app.services.contact_limits import limits
from bench import calls, delivery
from bench.databases import on_both

SIZE = int(os.environ.get("BENCH_LIMITS_TASKS", 1_000_000))
ROUNDS = int(os.environ.get("BENCH_LIMITS_ROUNDS", 200))
CALLS_PER_TASK = 3
LIMITS = (limits.NewLimit(7, "7d", "person"), limits.NewLimit(3, "24h", "number"))
# Ceilings: nextTask with the limits on / without; startCall's median with them on.
NEXT_TASK_CEILING = 1.2
START_CALL_CEILING_MS = 20.0
SETUP = delivery.SETUP
PACK = "pack"


def _hours_ago(dialect: str) -> str:
    """SQL of the k-th call's time (k from the joined `calls_k`) of the attempt `a`."""
    hours = (
        "(CASE WHEN a.task_id % 50 = 0 THEN k.k"
        " ELSE (a.task_id * 7 + k.k * 13) % 720 END)"
    )  # fmt: skip
    if dialect == "postgresql":
        return f"CAST(:now AS timestamp) - {hours} * interval '1 hour'"
    return f"datetime(:now, '-' || {hours} || ' hours')"


def _load_calls(campaign) -> float:
    """Three calls per attempt and their marks (INSERT ... SELECT), then ANALYZE; seconds."""
    started = time.perf_counter()
    dialect = db.session.connection().dialect.name
    at = _hours_ago(dialect)
    now = utcnow().replace(tzinfo=None).isoformat(sep=" ", timespec="seconds")
    ks = " UNION ALL ".join(f"SELECT {k} AS k" for k in range(CALLS_PER_TASK))
    db.session.execute(
        text(
            "INSERT INTO calls (attempt_id, task_id, call_id, phone_key, phone_number,"
            " placed_by, started_at, ended_at, result)"
            f" SELECT a.id, a.task_id, a.call_id || '-' || k.k, 'Phone', a.phone_number,"
            f" 'desk', {at}, {at}, 'NO_ANSWER'"  # noqa: S608 - the bench's own SQL
            f" FROM attempts a CROSS JOIN ({ks}) k WHERE a.campaign_id = :campaign"
        ),
        {"campaign": campaign.id, "now": now},
    )
    scopes = (
        "'number:' || c.phone_number",
        "'person:' || t.client_id",
        "'task:' || CAST(c.task_id AS TEXT)",
    )
    for scope in scopes:
        db.session.execute(
            text(
                "INSERT INTO contact_marks (tenant_id, scope_key, kind, campaign_id, at)"
                f" SELECT :tenant, {scope}, 'call', t.campaign_id, c.started_at"  # noqa: S608
                " FROM calls c JOIN tasks t ON t.id = c.task_id WHERE t.campaign_id = :campaign"
            ),
            {"tenant": campaign.tenant_id, "campaign": campaign.id},
        )
    db.session.execute(
        text(
            "UPDATE tasks SET regions = CASE WHEN id % 10 = 0 THEN ',US-CA,US-FL,'"
            " ELSE ',US-CA,' END WHERE campaign_id = :campaign"
        ),
        {"campaign": campaign.id},
    )
    db.session.commit()
    db.session.execute(text("ANALYZE"))
    db.session.commit()
    return time.perf_counter() - started


def _switch(tenant, on: bool | str) -> None:
    """The two limits on (True), the US pack of calling rules ("pack"), or neither."""
    for rule in calling_rules.list_rules(tenant):
        calling_rules.remove_rule(tenant, rule.id, actor=SETUP)
    for limit in limits.list_limits(tenant):
        limits.remove_limit(tenant, limit.id, actor=SETUP)
    if on == PACK:
        calling_pack.load_us(tenant, actor=SETUP)
    elif on:
        for new in LIMITS:
            limits.add_limit(tenant, new, actor=SETUP)
    db.session.commit()


def _next_task(call, tenant, rounds: int, rules: bool | str = True) -> tuple[list, list]:
    """nextTask's (seconds, this thread's CPU seconds) with the `rules` on (the limits, or
    the US pack) and without, in alternating blocks."""
    with_limits: list[tuple[float, float]] = []
    without: list[tuple[float, float]] = []
    block = max(1, rounds // 8)
    for n in range(8):
        on = n % 2 == 0
        _switch(tenant, rules if on else False)
        kept = with_limits if on else without
        kept += [delivery._work_one(call, k) for k in range(block)]
    return with_limits, without


def _measure(url: str) -> dict:
    app = create_app(test_settings(url))
    with app.app_context():
        db.drop_all()
        db.create_all()
        campaign, key = delivery._setup()
        tenant = campaign.tenant
        loaded = delivery._bulk_load(campaign, SIZE)
        ledger = calls._load_ledger(campaign) + _load_calls(campaign)
        counted = db.session.scalar(text("SELECT count(*) FROM calls"))
        marks = db.session.scalar(text("SELECT count(*) FROM contact_marks"))
        call = delivery._caller(app.test_client(), key)
        call("setAgentState", delivery.ALONE, state="AVAILABLE")
        _switch(tenant, True)
        calls._work_calls(call, 3)  # the first calls fill the caches
        next_on, next_off = _next_task(call, tenant, ROUNDS)
        pack_on, pack_off = _next_task(call, tenant, ROUNDS, PACK)
        _switch(tenant, True)
        times = calls._work_calls(call, ROUNDS)
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()
    return {
        "load": loaded + ledger, "calls": counted, "marks": marks,
        "on": next_on, "off": next_off, "times": times, "pack": (pack_on, pack_off),
    }  # fmt: skip


def _ms(seconds: list[float]) -> tuple[float, float]:
    ordered = sorted(seconds)
    return statistics.median(ordered) * 1000, ordered[round(0.95 * (len(ordered) - 1))] * 1000


def _compare(what_on: str, with_rules: list, without: list) -> None:
    for index, what in ((0, "time"), (1, "CPU")):
        on, on_p95 = _ms([pair[index] for pair in with_rules])
        off, off_p95 = _ms([pair[index] for pair in without])
        ratio = on / off
        verdict = "within" if ratio <= NEXT_TASK_CEILING else "OVER"
        print(
            f"{what:>10} with {what_on} {on:.1f} ({on_p95:.1f}), without {off:.1f}"
            f" ({off_p95:.1f}): {ratio:.2f}x, {verdict} the {NEXT_TASK_CEILING:.1f}x ceiling"
        )


def _report(name: str, url: str) -> None:
    print(f"limits: nextTask and startCall through the Desk API (test client), {name}")
    found = _measure(url)
    print(
        f"{SIZE:,} tasks, {found['calls']:,} calls, {found['marks']:,} contact marks,"
        f" loaded in {found['load']:.0f} s; limits: "
        + "; ".join(f"{n.max} per {n.per} in {n.within}" for n in LIMITS)
    )
    print(
        f"nextTask, {len(found['on'])} calls with the limits and {len(found['off'])} without:"
        " median (p95) ms, and this thread's CPU (what an idle machine would take on SQLite)"
    )
    _compare("the limits", found["on"], found["off"])
    pack_on, pack_off = found["pack"]
    print(f"nextTask with the US pack of calling rules ({len(pack_on)} calls) and without:")
    _compare("the pack", pack_on, pack_off)
    for event in ("startCall", "CONNECTED", "ENDED"):
        median, p95 = _ms(found["times"][event])
        print(f"{event:>10} median {median:.1f} ms, p95 {p95:.1f} ms", end="")
        if event == "startCall":
            verdict = "within" if median < START_CALL_CEILING_MS else "OVER"
            print(f", {verdict} the {START_CALL_CEILING_MS:.0f} ms ceiling", end="")
        print()


def main() -> None:
    on_both("limits", _report)


if __name__ == "__main__":
    main()

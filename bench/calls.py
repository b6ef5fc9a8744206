"""Calls at scale: `startCall` and `callEvent` through the Desk API on a large campaign with
as many attempts in its ledger, and what the ledger costs a delivery.

python -m bench.calls             # 10,000 and 1,000,000 tasks, SQLite in a temporary folder
BENCH_CALLS_TASKS=10000 BENCH_CALLS_ROUNDS=50 python -m bench.calls

Each campaign is bulk-loaded as bench/delivery.py loads it, then its ledger is given one
finished attempt per task (a call placed, answered and closed), then ANALYZE. Agent `ann`
works tasks as a softphone does: nextTask, startCall, callEvent CONNECTED, callEvent ENDED
(ANSWERED), closeTask. Each startCall and callEvent is timed through the test client. Then
nextTask alone is timed with the ledger written and with its writes switched off (the
delivery's and the close's), in alternating blocks so drift falls on both alike: the
ledger's cost on a delivery. On PostgreSQL too when TEST_DATABASE_URL is set (a database
named after it with `_calls_bench` appended; it is emptied).
"""

from __future__ import annotations

import os
import statistics
import time
from contextlib import contextmanager

from sqlalchemy import text

from app import create_app
from app.config import test_settings
from app.extensions import db
from app.services.delivery import closing, offers
from bench import delivery
from bench.databases import on_both

SIZES = [int(n) for n in os.environ.get("BENCH_CALLS_TASKS", "10000,1000000").split(",")]
ROUNDS = int(os.environ.get("BENCH_CALLS_ROUNDS", 200))
ALONE = delivery.ALONE
# Ceilings: a call's start or event, median, on SQLite at 1M tasks and 1M attempts; the
# ledger's cost on nextTask at 1M tasks.
CALL_CEILING_MS = 20.0
LEDGER_CEILING = 1.15


def _load_ledger(campaign) -> float:
    """One finished attempt per task of the campaign (INSERT ... SELECT); seconds taken."""
    started = time.perf_counter()
    json = "'[]'::json" if db.session.connection().dialect.name == "postgresql" else "'[]'"
    db.session.execute(
        text(
            "INSERT INTO attempts (task_id, campaign_id, skill_queue_id, agent_id, agent_login,"
            " delivered_at, call_started_at, call_id, phone_key, phone_number, placed_by,"
            " connected_at, call_ended_at, call_result, closed_at, outcome, work_codes,"
            " ended_how, ended_at)"
            " SELECT id, campaign_id, skill_queue_id, 1, 'agent00', created_at, created_at,"
            " 'bench-' || id, 'Phone', '+1415' || substr(client_id, 3), 'desk', created_at,"
            " created_at, 'ANSWERED', created_at, 'COMPLETE', "
            + json
            + ", 'CLOSED', created_at FROM tasks WHERE campaign_id = :campaign"
        ),
        {"campaign": campaign.id},
    )
    db.session.commit()
    db.session.execute(text("ANALYZE"))
    db.session.commit()
    return time.perf_counter() - started


def _timed(call, action: str, **fields) -> tuple[dict, float]:
    started = time.perf_counter()
    answer = call(action, ALONE, **fields)
    return answer, time.perf_counter() - started


def _work_calls(call, rounds: int) -> dict[str, list[float]]:
    """`rounds` tasks worked with a call each; the seconds of each startCall and callEvent."""
    times: dict[str, list[float]] = {"startCall": [], "CONNECTED": [], "ENDED": []}
    for _ in range(rounds):
        record_id = call("nextTask", ALONE)["task"]["previewRecordID"]
        answer, seconds = _timed(call, "startCall", previewRecordID=record_id)
        times["startCall"].append(seconds)
        call_id = answer["call"]["callId"]
        _, seconds = _timed(
            call, "callEvent", previewRecordID=record_id, callId=call_id, event="CONNECTED"
        )
        times["CONNECTED"].append(seconds)
        _, seconds = _timed(
            call,
            "callEvent",
            previewRecordID=record_id,
            callId=call_id,
            event="ENDED",
            result="ANSWERED",
        )
        times["ENDED"].append(seconds)
        call("closeTask", ALONE, previewRecordID=record_id, outcome="COMPLETE")
    return times


@contextmanager
def _ledger_off():
    """The delivery and the close write no attempt (the engine as it was before the ledger)."""
    kept = offers.open_attempt, closing.end_attempt
    offers.open_attempt = lambda *_args, **_kwargs: None
    closing.end_attempt = lambda *_args, **_kwargs: None
    try:
        yield
    finally:
        offers.open_attempt, closing.end_attempt = kept


def _ledger_cost(call, rounds: int) -> tuple[float, float]:
    """nextTask's median (s) with the ledger written and without, in alternating blocks."""
    with_ledger, without = [], []
    block = max(1, rounds // 8)
    for n in range(8):
        kept = without if n % 2 else with_ledger
        if n % 2:
            with _ledger_off():
                kept += [delivery._work_one(call, k)[0] for k in range(block)]
        else:
            kept += [delivery._work_one(call, k)[0] for k in range(block)]
    return statistics.median(with_ledger), statistics.median(without)


def _measure(url: str, size: int) -> dict:
    app = create_app(test_settings(url))
    with app.app_context():
        db.drop_all()
        db.create_all()
        campaign, key = delivery._setup()
        loaded = delivery._bulk_load(campaign, size)
        ledger = _load_ledger(campaign)
        call = delivery._caller(app.test_client(), key)
        call("setAgentState", ALONE, state="AVAILABLE")
        _work_calls(call, 3)  # the first calls fill the caches
        times = _work_calls(call, ROUNDS)
        cost = _ledger_cost(call, ROUNDS)
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()
    return {"load": loaded, "ledger": ledger, "times": times, "cost": cost}


def _ms(seconds: list[float]) -> tuple[float, float]:
    ordered = sorted(seconds)
    return statistics.median(ordered) * 1000, ordered[round(0.95 * (len(ordered) - 1))] * 1000


def _report(name: str, url: str) -> None:
    print(f"calls: startCall and callEvent through the Desk API (test client), {name}")
    results = {}
    for size in SIZES:
        results[size] = _measure(url, size)
    print(f"{ROUNDS} tasks worked with a call each: median and p95 (ms); ceiling: median under"
          f" {CALL_CEILING_MS:.0f} ms")  # fmt: skip
    print(
        f"{'tasks':>10} {'attempts':>10} {'load s':>7}"
        f" {'startCall':>10} {'p95':>7} {'CONNECTED':>10} {'p95':>7} {'ENDED':>10} {'p95':>7}"
    )
    for size, found in results.items():
        cells = "".join(
            f" {median:>10.1f} {p95:>7.1f}"
            for median, p95 in (_ms(found["times"][k]) for k in ("startCall", "CONNECTED", "ENDED"))
        )
        load = found["load"] + found["ledger"]
        print(f"{size:>10,} {size:>10,} {load:>7.1f}{cells}")
    largest = results[SIZES[-1]]
    worst = max(_ms(largest["times"][k])[0] for k in largest["times"])
    verdict = "within" if worst < CALL_CEILING_MS else "OVER"
    print(f"slowest median at {SIZES[-1]:,}: {worst:.1f} ms, {verdict} the {CALL_CEILING_MS:.0f} ms"
          " ceiling")  # fmt: skip
    if len(SIZES) > 1:
        for k in ("startCall", "CONNECTED", "ENDED"):
            small, large = (_ms(results[s]["times"][k])[0] for s in (SIZES[0], SIZES[-1]))
            print(
                f"  {k} median {SIZES[-1]:,} / {SIZES[0]:,}: {large / small:.2f} (flat is near 1)"
            )
    print(
        "the ledger's cost on a delivery: nextTask median with the attempt written / without;"
        f" ceiling {LEDGER_CEILING:.2f}"
    )
    for size, found in results.items():
        on, off = found["cost"]
        ratio = on / off
        verdict = "within" if ratio <= LEDGER_CEILING else "OVER"
        print(
            f"{size:>10,} tasks: {on * 1000:.1f} ms / {off * 1000:.1f} ms = {ratio:.2f},"
            f" {verdict} the ceiling"
        )


def main() -> None:
    on_both("calls", _report)


if __name__ == "__main__":
    main()

"""Reports at scale: each report of the reports service over a large campaign's attempt
ledger, for a one-day and a 90-day range, beside its ceiling.

python -m bench.reports           # 1,000,000 tasks, 3 attempts each over 120 days
BENCH_REPORTS_TASKS=20000 BENCH_REPORTS_ATTEMPTS=2 python -m bench.reports

The campaign is bulk-loaded as bench/delivery.py loads it; its ledger is given
BENCH_REPORTS_ATTEMPTS attempts per task (INSERT ... SELECT, one statement per round),
spread evenly over the BENCH_REPORTS_DAYS days before the run and over the campaign's 21
agents: 40% answered, about 41% contacts, 10% successes, 1 in 23 released unworked, each
closed one with one work code; the agents' state spans (a working day a day: Available,
Away at lunch, Available, Offline); the reports' rollups are recounted from those rows (the
operators' `reports rebuild-rollups`, the migration's backfill), then ANALYZE. Each report
(campaign summary, attempts per 15-minute interval, best hours, agents) is timed on the
campaign's scope, the median of three runs after a first: for the last full day and for the
last 90 days. On PostgreSQL too when TEST_DATABASE_URL is set (a database named after it
with `_reports_bench` appended; it is emptied).
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import insert, select, text

from app import create_app
from app.config import test_settings
from app.extensions import db
from app.models import AgentStateSpan, User
from app.services import reports
from app.services.reports.recount import recount
from bench import delivery
from bench.databases import on_both

TASKS = int(os.environ.get("BENCH_REPORTS_TASKS", 1_000_000))
ATTEMPTS = int(os.environ.get("BENCH_REPORTS_ATTEMPTS", 3))  # per task
DAYS = int(os.environ.get("BENCH_REPORTS_DAYS", 120))
RUNS = 3
# An agent's working day (UTC hours at which each state begins).
DAY_SPANS = ((8, "AVAILABLE"), (12, "AWAY"), (12.75, "AVAILABLE"), (17, "OFFLINE"))
# Ceilings (seconds) per report: a one-day range, a 90-day range.
CEILINGS = {1: 1.0, 90: 3.0}
REPORTS: dict[str, Callable] = {
    "campaignSummary": reports.campaign_summary,
    "attemptsByInterval": lambda scope: reports.attempts_by_interval(scope, 15),
    "bestHours": reports.best_hours,
    "agentSummary": reports.agent_summary,
}


def _instant(dialect: str, seconds: str) -> str:
    """SQL for the instant `seconds` (an SQL expression) after :base, as the column stores it."""
    if dialect == "postgresql":
        return f"(CAST(:base AS timestamp) + ({seconds}) * INTERVAL '1 second')"
    return f"(strftime('%Y-%m-%d %H:%M:%S', :base, '+' || ({seconds}) || ' seconds') || '.000000')"


def _load_ledger(campaign, base: datetime) -> float:
    """ATTEMPTS attempts per task of the campaign (one INSERT ... SELECT a round); seconds."""
    started = time.perf_counter()
    dialect = db.session.connection().dialect.name
    agents = list(db.session.execute(select(User.id, User.login_user_id).order_by(User.id)))
    pick = "(t.id + :k) % " + str(len(agents))
    agent_id = "CASE " + pick + "".join(f" WHEN {n} THEN {a.id}" for n, a in enumerate(agents))
    agent_login = "CASE " + pick + "".join(f" WHEN {n} THEN :a{n}" for n in range(len(agents)))
    logins = {f"a{n}": a.login_user_id for n, a in enumerate(agents)}

    def at(seconds: str) -> str:
        return _instant(dialect, seconds)

    spread = f"((t.id * 7919 + :k * 104729) % {DAYS * 86400})"
    call = f"({spread} + 10 + t.id % 30)"
    ended = f"({call} + 15 + (t.id * 7) % 300)"
    closed = f"({ended} + 5 + t.id % 60)"
    answered = "((t.id + :k) % 5 < 2)"
    released = "((t.id + :k) % 23 = 0)"
    success = f"({answered} AND t.id % 4 = 0 AND NOT {released})"
    json = "CAST({} AS JSON)" if dialect == "postgresql" else "{}"
    code = json.format(
        f'CASE WHEN {success} THEN \'[{{"key": "Result", "value": "Sale"}}]\''
        f' WHEN {answered} THEN \'[{{"key": "Result", "value": "Not interested"}}]\''
        ' ELSE \'[{"key": "Result", "value": "No answer"}]\' END'
    )
    sql = (
        "INSERT INTO attempts (task_id, campaign_id, skill_queue_id, agent_id, agent_login,"
        " time_zone, delivered_at, call_started_at, call_id, phone_key, phone_number, placed_by,"
        " connected_at, call_ended_at, call_result, closed_at, outcome, work_codes,"
        " contact, success, ended_how, ended_at)"
        f" SELECT t.id, t.campaign_id, t.skill_queue_id, {agent_id} END, {agent_login} END,"
        f" t.time_zone, {at(spread)}, {at(call)},"
        " 'r' || CAST(t.id AS VARCHAR) || '-' || CAST(:k AS VARCHAR),"
        " 'Phone', '+1415555' || CAST(t.id % 10000 AS VARCHAR), 'desk',"
        f" CASE WHEN {answered} THEN {at(call + ' + 12')} END, {at(ended)},"
        " CASE (t.id + :k) % 5 WHEN 0 THEN 'ANSWERED' WHEN 1 THEN 'ANSWERED'"
        " WHEN 2 THEN 'NO_ANSWER' WHEN 3 THEN 'BUSY' ELSE 'VOICEMAIL' END,"
        f" CASE WHEN NOT {released} THEN {at(closed)} END,"
        f" CASE WHEN {released} THEN NULL WHEN {success} THEN 'COMPLETE'"
        "  WHEN t.id % 9 = 0 THEN 'REMOVE' ELSE 'RESCHEDULE' END,"
        f" {code}, {answered} OR (t.id + :k) % 50 = 7, {success},"
        f" CASE WHEN {released} THEN 'RELEASED' ELSE 'CLOSED' END, {at(closed)}"
        " FROM tasks t WHERE t.campaign_id = :campaign"
    )
    stamp = base.replace(tzinfo=None).strftime("%Y-%m-%d %H:%M:%S")
    for k in range(ATTEMPTS):  # the round, written into the SQL: an int of this module's
        statement = text(sql.replace(":k", str(k)))
        db.session.execute(statement, {"campaign": campaign.id, "base": stamp, **logins})
        db.session.commit()
    db.session.execute(insert(AgentStateSpan), _spans(campaign.tenant_id, agents, base))
    db.session.commit()
    return time.perf_counter() - started


def _roll_up(campaign) -> float:
    """The rollups of the plain rows loaded, by the operators' recount (the backfill's
    statements), then ANALYZE (and VACUUM on PostgreSQL: the index-only counts read the
    visibility map a real database's autovacuum keeps); seconds."""
    started = time.perf_counter()
    recount([campaign.id])
    db.session.commit()
    if db.session.connection().dialect.name == "postgresql":
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("VACUUM ANALYZE"))
    else:
        db.session.execute(text("ANALYZE"))
        db.session.commit()
    return time.perf_counter() - started


def _spans(tenant_id: int, agents: list, base: datetime) -> list[dict]:
    """A working day a day for every agent: Available 08:00, Away 12:00, Available 12:45,
    Offline 17:00 (UTC); the last Offline stays open."""
    rows = []
    for agent in agents:
        own = []
        for day in range(DAYS):
            midnight = base + timedelta(days=day)
            for hours, state in DAY_SPANS:
                own.append(
                    {
                        "tenant_id": tenant_id,
                        "agent_id": agent.id,
                        "agent_login": agent.login_user_id,
                        "state": state,
                        "started_at": midnight + timedelta(hours=hours),
                        "ended_at": None,
                    }
                )
        for span, following in zip(own, own[1:], strict=False):
            span["ended_at"] = following["started_at"]
        rows += own
    return rows


def _timed(report: Callable, scope) -> float:
    report(scope)  # the first run fills the caches
    runs = []
    for _ in range(RUNS):
        started = time.perf_counter()
        report(scope)
        runs.append(time.perf_counter() - started)
    return statistics.median(runs)


def _measure(url: str) -> tuple[dict, float, float]:
    app = create_app(test_settings(url))
    with app.app_context():
        db.drop_all()
        db.create_all()
        campaign, _key = delivery._setup()
        loaded = delivery._bulk_load(campaign, TASKS)
        today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        base = today - timedelta(days=DAYS)
        ledger = _load_ledger(campaign, base)
        rolled = _roll_up(campaign)
        figures = {}
        for days in CEILINGS:
            scope = reports.report_scope(
                campaign.tenant, today - timedelta(days=days), today, campaign_name="Big"
            )
            for name, report in REPORTS.items():
                figures[(name, days)] = _timed(report, scope)
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()
    return figures, loaded, ledger, rolled


def _report(name: str, url: str) -> None:
    print(f"reports: each report on campaign Big, {name}")
    figures, loaded, ledger, rolled = _measure(url)
    print(
        f"{TASKS:,} tasks (loaded in {loaded:.0f} s), {TASKS * ATTEMPTS:,} attempts over"
        f" {DAYS} days (loaded in {ledger:.0f} s, rollups recounted in {rolled:.0f} s);"
        f" median of {RUNS} runs after a first"
    )
    print(f"{'report':<20} {'range':>8} {'seconds':>8} {'ceiling':>8}  verdict")
    for (report, days), seconds in figures.items():
        ceiling = CEILINGS[days]
        verdict = "within" if seconds < ceiling else "OVER"
        span = f"{days} day{'s' if days > 1 else ''}"
        print(f"{report:<20} {span:>8} {seconds:>8.3f} {ceiling:>8.1f}  {verdict}")


def main() -> None:
    on_both("reports", _report)


if __name__ == "__main__":
    main()

"""The export benchmark's three exports, each run in a child process of its own.

The service through `flask intake export -o FILE` (the CLI) and through the campaign page's
download (the UI, a signed-in supervisor's GET), and the ceiling, `plain_export`: the same
three ordered cursors as plain driver cursors merged in a loop, on a new connection of the
app's engine. Each `child_…` prepares in the child and returns the export to time;
`peak_mib` is what the child reports of its memory.
"""

from __future__ import annotations

import csv
import resource
from contextlib import suppress
from datetime import timedelta
from pathlib import Path

from sqlalchemy import select

from bench.export_data import SUPERVISOR, make_app


def child_cli(url: str, campaign: str, out: Path):
    """`flask intake export Bench prod CAMPAIGN -o FILE`, in this process."""
    app = make_app(url)

    def export() -> None:
        with app.app_context():  # as the `flask` command runs its commands
            result = app.test_cli_runner().invoke(
                args=["intake", "export", "Bench", "prod", campaign, "-o", str(out)]
            )
        if result.exit_code:
            raise SystemExit(f"{result.output}{result.exception!r}")

    return export


def child_download(url: str, campaign: str, out: Path):
    """The campaign page's "Download these tasks (CSV)", as a signed-in supervisor."""
    from app.admin.sessions import TOKEN_KEY
    from app.extensions import db
    from app.models import Campaign, Supervisor
    from app.services.people.sessions import SessionLimits, start_session

    app = make_app(url)
    client = app.test_client()
    with app.app_context():
        target = db.session.scalar(select(Campaign).where(Campaign.name == campaign))
        link = f"/tenants/{target.tenant_id}/campaigns/{target.id}/export.csv"
        boss = db.session.scalar(select(Supervisor).where(Supervisor.email == SUPERVISOR))
        token = start_session(boss, SessionLimits(timedelta(hours=1), timedelta(hours=1)))
        db.session.commit()
    with client.session_transaction() as session:
        session[TOKEN_KEY] = token
        session["_fresh"] = True

    def export() -> None:
        response = client.get(link, buffered=False)
        if response.status_code != 200:
            raise SystemExit(f"download: {response.status_code}")
        with out.open("wb") as handle:
            for part in response.response:
                handle.write(part)
        response.close()

    return export


def child_ceiling(url: str, campaign: str, out: Path):
    """plain_export on a new driver connection with the app's settings (its pragmas on
    SQLite, its options on PostgreSQL), as the service's export gets."""
    from app.extensions import db
    from app.models import Campaign

    app = make_app(url)
    with app.app_context():
        target = db.session.scalar(select(Campaign).where(Campaign.name == campaign))
        campaign_id, field = target.id, target.client_id_field_name
        db.session.remove()
        db.engine.dispose()  # a new connection, with SQLite's page cache as cold as the CLI's

    def export() -> None:
        with app.app_context():
            connection = db.engine.raw_connection()
            with out.open("w", newline="", encoding="utf-8") as handle:
                plain_export(connection.driver_connection, campaign_id, field, handle)
            connection.close()

    return export


RISKY = frozenset("'=@+-\t\r")
FORMULA = frozenset("=@+-\t\r")


def _guard(cell: str) -> str:
    """A `'` before any number of `'` then a formula's first character."""
    if cell[:1] in RISKY and cell.lstrip("'")[:1] in FORMULA:
        return "'" + cell
    return cell


def plain_export(connection, campaign_id: int, field: str, handle) -> None:
    """The export as a short script would write it: a grouping query for the columns, then
    tasks, items and work codes, each by one cursor in task id order, merged in step."""
    sqlite = not hasattr(connection, "pgconn")
    mark = "?" if sqlite else "%s"
    if sqlite:
        connection.execute("BEGIN")

        def cursor(name, sql, *args):
            return iter(connection.execute(sql, args))

        def moment(value):  # stored as 'YYYY-MM-DD HH:MM:SS.ffffff'
            return value[:23] if value else ""
    else:

        def cursor(name, sql, *args):
            named = connection.cursor(name=name)
            named.itersize = 1000
            named.execute(sql, args)
            return iter(named)

        def moment(value):
            return f"{value:%Y-%m-%d %H:%M:%S}.{value.microsecond // 1000:03d}" if value else ""

    keys = [key for key, _ in cursor("keys",
        f"SELECT key, min(position) FROM task_items WHERE campaign_id = {mark} AND key <> {mark}"
        " GROUP BY key ORDER BY min(position), key", campaign_id, field)]  # fmt: skip
    tasks = cursor("tasks",
        "SELECT t.id, t.client_id, t.record_id, t.worked_state, t.work_attempts,"
        " t.last_attempt_agent, t.last_attempt_at, t.next_earliest_work_at, q.name,"
        " t.preferred_agent FROM tasks t JOIN skill_queues q ON q.id = t.skill_queue_id"
        f" WHERE t.campaign_id = {mark} ORDER BY t.id", campaign_id)  # fmt: skip
    items = cursor("items",
        "SELECT i.task_id, i.key, i.value FROM tasks t JOIN task_items i ON i.task_id = t.id"
        f" WHERE t.campaign_id = {mark} ORDER BY t.id, i.position", campaign_id)  # fmt: skip
    codes = cursor("codes",
        "SELECT c.task_id, c.key, c.value FROM tasks t JOIN work_codes c ON c.task_id = t.id"
        f" WHERE t.campaign_id = {mark} ORDER BY t.id, c.position", campaign_id)  # fmt: skip
    writer = csv.writer(handle)
    writer.writerow([_guard(cell) for cell in (field, *keys, "previewRecordID", "workedState",
        "workAttempts", "lastAttemptAgent", "lastAttemptTime", "nextEarliestWorkTime",
        "skillQueue", "preferredAgent", "workCodes")])  # fmt: skip
    item = next(items, None)
    code = next(codes, None)
    for task_id, client_id, record, state, attempts, agent, last, after, queue, preferred in tasks:
        values = {}
        while item is not None and item[0] == task_id:
            values[item[1]] = item[2]
            item = next(items, None)
        work_codes = []
        while code is not None and code[0] == task_id:
            work_codes.append(f"{code[1]}={code[2]}")
            code = next(codes, None)
        cells = [client_id, *[values.get(key, "") for key in keys], record, state]
        tail = [
            agent or "",
            moment(last),
            moment(after),
            queue,
            preferred or "",
            "|".join(work_codes),
        ]
        writer.writerow([*map(_guard, cells), attempts, *map(_guard, tail)])
    connection.rollback() if not sqlite else connection.execute("COMMIT")


def peak_mib() -> float:
    """This process's peak memory (max RSS). Linux's VmHWM is the process's own; getrusage's
    ru_maxrss also counts the parent's memory at the fork, which the benchmark's has grown."""
    with suppress(OSError), open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


CHILDREN = {"cli": child_cli, "download": child_download, "ceiling": child_ceiling}

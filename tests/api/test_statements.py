"""What one Preview API request sends to the database: the fewest statements it needs, and on
SQLite the write lock taken only once the request is checked and ready to write.

Counted as production runs: the API rate limit on (its count kept in the database), each
request in a session of its own. A regression here is a request that sends more.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import event

from app.extensions import db
from tests.conftest import Api

LIMITED = {"RATELIMIT_ENABLED": True, "API_RATE_LIMIT": "6000 per minute"}
CONTROL = re.compile(r"(BEGIN|COMMIT|ROLLBACK)\b")
DATA = [{"key": "Name", "value": "Ada"}, {"key": "Phone", "value": "+14155550123"}]


@pytest.fixture
def settings(settings) -> dict:
    return {**settings, **LIMITED}


def _label(statement: str) -> str:
    """`SELECT tasks`, `INSERT task_items`, `BEGIN IMMEDIATE`: the verb and its first table."""
    words = statement.split()
    if CONTROL.match(statement):
        return " ".join(words[:2]) if words[:2] == ["BEGIN", "IMMEDIATE"] else words[0]
    table = re.search(r"\b(?:FROM|INTO|UPDATE)\s+(\w+)", statement)
    return f"{words[0]} {table.group(1) if table else '?'}"


@contextmanager
def sent() -> Iterator[list[str]]:
    """The statements sent meanwhile, on any connection of the app, as `_label`s."""
    seen: list[str] = []

    def keep(_conn, _cursor, statement, _parameters, _context, _many) -> None:
        seen.append(_label(statement))

    db.session.remove()  # each request reads in a session of its own, as a server's does
    event.listen(db.engine, "before_cursor_execute", keep)
    try:
        yield seen
    finally:
        event.remove(db.engine, "before_cursor_execute", keep)


def without_control(statements: list[str]) -> list[str]:
    return [label for label in statements if not CONTROL.match(label)]


@pytest.fixture
def warm(api: Api) -> Api:
    """The API after one request: this process holds a lease of the tenant's count."""
    api.add("C1", {"Name": "Ann"})
    return api


def test_a_search_by_client_id_sends_four_reads(warm):
    with sent() as statements:
        assert warm.find("C1")["clientId"] == "C1"
    assert without_control(statements) == [
        "SELECT api_keys",  # who calls (and the tenant's region)
        "SELECT campaigns",
        "SELECT tasks",  # with its queue's name
        "SELECT task_items",  # UNION ALL its work codes
    ]


def test_an_add_of_a_new_client_id_sends_two_reads_and_four_inserts(warm):
    with sent() as statements:
        warm.add("C2", DATA)
    assert without_control(statements) == [
        "SELECT api_keys",
        "SELECT campaigns",  # with its default queue, the new task's
        "INSERT tasks",  # yields to a task holding the clientId: no lookup before it
        "INSERT task_items",
        "INSERT audit_records",
        "INSERT events",
    ]


# Every statement an add sends, BEGIN and ROLLBACK too: on SQLite the reads' deferred BEGIN,
# ended when the write lock is taken; on PostgreSQL the driver begins by itself. (Both commit
# through the driver's connection, no statement.)
ADD_ON = {
    "sqlite": ["BEGIN", "SELECT api_keys", "SELECT campaigns", "ROLLBACK", "BEGIN IMMEDIATE",
               "INSERT tasks", "INSERT task_items", "INSERT audit_records", "INSERT events"],
    "postgresql": ["SELECT api_keys", "SELECT campaigns", "INSERT tasks", "INSERT task_items",
                   "INSERT audit_records", "INSERT events"],
}  # fmt: skip


def test_an_add_sends_no_statement_beyond_its_reads_and_writes(warm):
    """A second lookup of the key, tenant or campaign, a savepoint or another BEGIN fails here."""
    for n in range(3):  # the same for every add, not only the first after a warm-up
        with sent() as statements:
            warm.add(f"N{n}", DATA)
        assert statements == ADD_ON[db.engine.dialect.name]


def test_an_update_reads_the_task_it_replaces(warm):
    with sent() as statements:
        warm.add("C1", DATA)
    assert without_control(statements) == [
        "SELECT api_keys",
        "SELECT campaigns",
        "INSERT tasks",  # inserts nothing: the clientId is taken
        "SELECT tasks",
        "SELECT campaigns",  # as a model, with its queue: what the update's trail shows
        "SELECT task_items",  # the task as it was, for its audit record
        "SELECT work_codes",
        "UPDATE tasks",
        "DELETE task_items",
        "INSERT task_items",
        "INSERT audit_records",
        "INSERT events",
    ]


def test_the_rate_limit_is_written_once_per_lease_not_per_request(api):
    with sent() as statements:
        for _ in range(20):
            assert api.find("C1") is None
    assert statements.count("INSERT rate_limits") == 1


# --- SQLite: the write lock, taken late ---------------------------------------------------


@pytest.fixture
def sqlite_api(warm):
    if db.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's write lock")
    return warm


def _writes(statements: list[str]) -> list[int]:
    return [
        n
        for n, label in enumerate(statements)
        if label.split()[0] in ("INSERT", "UPDATE", "DELETE")
    ]


ACTIONS = {
    "add": lambda api: api.add("C2", DATA),
    "update": lambda api: api.add("C1", DATA),
    "change status": lambda api: api.status(
        "changeCampaignRecordStatus", clientId="C1", previewRecordStateEnum="COMPLETED"
    ),
    "transfer": lambda api: api.status(
        "transferCampaignRecord", clientId="C1", transferToCampaign="Winback"
    ),
    "delete": lambda api: api.status("deleteRecordFromCampaign", clientId="C1"),
}


@pytest.mark.parametrize("action", ACTIONS.values(), ids=ACTIONS.keys())
def test_a_write_takes_the_lock_after_its_checks_and_before_its_first_write(sqlite_api, action):
    with sent() as statements:
        action(sqlite_api)
    lock = statements.index("BEGIN IMMEDIATE")
    assert statements[0] == "BEGIN"  # as a reader
    assert lock > statements.index("SELECT campaigns") > statements.index("SELECT api_keys")
    assert statements.count("BEGIN IMMEDIATE") == 1
    assert _writes(statements) and min(_writes(statements)) > lock


REFUSED = {
    "unknown campaign": {"campaignName": "Nope"},
    "data key": {"previewRecordData": [{"key": "Id", "value": "x"}]},
    "bad phone": {"previewRecordData": [{"key": "Phone", "value": "555"}]},
    "unknown queue": {"previewRecordData": [{"key": "SkillQueue", "value": "Nope"}]},
}


@pytest.mark.parametrize("fields", REFUSED.values(), ids=REFUSED.keys())
def test_a_refused_add_never_takes_the_write_lock(sqlite_api, fields):
    with sent() as statements:
        answer = sqlite_api.call(
            "addOrUpdateCampaignRecord", **{"clientId": "C2", "previewRecordData": DATA, **fields}
        )
    assert answer["previewResult"]["previewResultStatus"] != "SUCCESS"
    assert "BEGIN IMMEDIATE" not in statements
    assert not _writes(statements)

"""A full disk: writes answer 507 (JSON on the APIs, a page elsewhere) and change nothing,
reads go on, and the log says it once a minute, not a traceback per request.

The database is made full for real: on SQLite by capping the file at its size
(`PRAGMA max_page_count`) once its free pages are used up; on PostgreSQL by a trigger that
raises the server's own disk_full error (SQLSTATE 53100) on the tables the writes touch.
"""

from __future__ import annotations

import errno
import logging
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import timedelta

import pytest
from sqlalchemy import event, text, update
from sqlalchemy.exc import OperationalError

from app.db.full_disk import FullStorageNotices, storage_full
from app.extensions import db
from app.models import LoginSession
from app.models.types import utcnow
from tests.admin.conftest import make_supervisor, session_for, soup
from tests.dnc.test_pages import upload as dnc_upload
from tests.dnc.test_pages import url as dnc_url

FULL_TABLES = ("task_items", "dnc_numbers", "login_sessions")
PG_DISK_FULL = (
    "CREATE OR REPLACE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS "
    "$$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' "
    "USING ERRCODE = 'disk_full'; END $$"
)
BIG_ITEMS = [{"key": f"Note{n}", "value": "n" * 1900} for n in range(40)]  # ~76 KB


def _fill_sqlite(path: str) -> None:
    """Use up the free pages of the file, capped at its size: the next page cannot be had."""
    raw = sqlite3.connect(path, isolation_level=None)
    try:
        raw.execute("CREATE TABLE IF NOT EXISTS disk_filler (blob BLOB)")
        raw.execute(f"PRAGMA max_page_count = {raw.execute('PRAGMA page_count').fetchone()[0]}")
        for size in (4000, 1000, 100, 1):
            try:
                while True:
                    raw.execute("INSERT INTO disk_filler VALUES (zeroblob(?))", (size,))
            except sqlite3.OperationalError as error:
                assert error.sqlite_errorcode == sqlite3.SQLITE_FULL
    finally:
        raw.close()


@contextmanager
def full(engine) -> Iterator[None]:
    """The database full, for real, until the block ends."""
    if engine.dialect.name == "sqlite":
        engine.dispose()
        _fill_sqlite(engine.url.database)

        def capped(dbapi_connection, _record):
            pages = dbapi_connection.execute("PRAGMA page_count").fetchone()[0]
            dbapi_connection.execute(f"PRAGMA max_page_count = {pages}")

        event.listen(engine, "connect", capped)
        try:
            yield
        finally:
            event.remove(engine, "connect", capped)
            db.session.remove()
            engine.dispose()
            with closing(sqlite3.connect(engine.url.database)) as raw:
                raw.execute("DROP TABLE disk_filler")
        return
    with engine.begin() as connection:
        connection.execute(text(PG_DISK_FULL))
        for table in FULL_TABLES:
            connection.execute(
                text(
                    f"CREATE TRIGGER disk_full BEFORE INSERT OR UPDATE ON {table} "
                    "FOR EACH ROW EXECUTE FUNCTION disk_full()"
                )
            )
    try:
        yield
    finally:
        db.session.rollback()
        with engine.begin() as connection:
            for table in FULL_TABLES:
                connection.execute(text(f"DROP TRIGGER disk_full ON {table}"))
            connection.execute(text("DROP FUNCTION disk_full()"))


def full_notices(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if "storage is full" in r.getMessage()]


def test_an_api_write_answers_507_json_changes_nothing_and_reads_go_on(api, caplog):
    api.add("KEPT", {"Name": "Kept"})
    with full(db.engine):
        refused = api.post("addOrUpdateCampaignRecord", clientId="NEW", previewRecordData=BIG_ITEMS)
        assert refused.status_code == 507
        body = refused.get_json()
        assert (body["status"], body["error"]) == (507, "Insufficient Storage")
        assert "storage is full" in body["message"] and "nothing was changed" in body["message"]
        assert api.find("NEW") is None  # reads go on
        kept = api.find("KEPT")["previewRecordData"]
        assert {"key": "Name", "value": "Kept"}.items() <= next(
            item for item in kept if item["key"] == "Name"
        ).items()
    assert "Unhandled error" not in caplog.text
    [notice] = full_notices(caplog)
    assert notice.levelno == logging.ERROR and notice.exc_info is None


def test_many_refused_writes_are_said_once_without_a_traceback(api, caplog):
    with full(db.engine):
        for n in range(5):
            response = api.post(
                "addOrUpdateCampaignRecord", clientId=f"N{n}", previewRecordData=BIG_ITEMS
            )
            assert response.status_code == 507
    assert len(full_notices(caplog)) == 1
    assert "Traceback" not in caplog.text


def test_a_page_write_answers_a_507_page_and_the_pages_still_read(client, acme, caplog):
    signed_in = session_for(client, make_supervisor())
    numbers = "".join(f"+1415555{n:04d}\n" for n in range(3000)).encode()
    with full(db.engine):
        response = dnc_upload(signed_in, acme, numbers)
        assert response.status_code == 507
        shown = soup(response)
        assert shown.h1.get_text() == "507 Insufficient Storage"
        assert "storage is full" in shown.get_text()
        listing = signed_in.get(dnc_url(acme))
        assert listing.status_code == 200
        assert not soup(listing).select("table.dnc tr[data-number]")


def test_a_signed_in_supervisor_still_reads_when_the_session_stamp_cannot_be_written(client, acme):
    """The session's last-seen stamp is a write on every read past a minute."""
    signed_in = session_for(client, make_supervisor())
    db.session.execute(update(LoginSession).values(last_seen_at=utcnow() - timedelta(minutes=5)))
    db.session.commit()
    with full(db.engine):
        assert signed_in.get(dnc_url(acme)).status_code == 200


def test_a_notice_is_said_once_per_interval_with_the_count_since_the_last():
    notices = FullStorageNotices(interval=60)
    said = [notices.refused(now) for now in (0, 10, 59, 60, 61, 200)]
    assert said == [1, None, None, 3, None, 2]


def test_what_counts_as_a_full_storage():
    with pytest.raises(OSError) as no_space, open("/dev/full", "wb") as device:
        device.write(b"x")
        device.flush()
    assert no_space.value.errno == errno.ENOSPC
    assert storage_full(no_space.value)
    memory = sqlite3.connect(":memory:")
    memory.execute("CREATE TABLE t (x)")
    memory.execute("PRAGMA max_page_count = 2")
    with pytest.raises(sqlite3.OperationalError) as sqlite_full:
        memory.executemany("INSERT INTO t VALUES (zeroblob(5000))", [()] * 10)
    wrapped = OperationalError("INSERT", {}, sqlite_full.value)
    assert storage_full(wrapped)
    assert storage_full(RuntimeError("while saving")) is False
    locked = OperationalError("INSERT", {}, sqlite3.OperationalError("database is locked"))
    assert storage_full(locked) is False
    assert storage_full(FileNotFoundError(errno.ENOENT, "gone")) is False

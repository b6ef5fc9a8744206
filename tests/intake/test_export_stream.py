"""A streamed export reads one moment of the campaign in a transaction of its own: writers
go on beside it, the request's transaction may end under it, and a download cut off gives
its connection back. The CLI and the download write the service's bytes."""

from __future__ import annotations

import csv
import io

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Task, TaskItem
from app.services.intake.export import export_csv
from tests.admin.conftest import make_supervisor, session_for
from tests.intake.test_ui import campaign_url, download


@pytest.fixture
def settings(settings):
    """A writer blocked by the export fails at once instead of after 15 s."""
    return {**settings, "SQLITE_BUSY_TIMEOUT_MS": 200}


@pytest.fixture
def many(renewals, write, load):
    """2,500 tasks in Renewals: three chunks of an export."""
    rows = "".join(f"T{n:05d},Customer {n},{n % 7}\n" for n in range(2500))
    counts, _ = load(renewals, write("Id,Name,Group\n" + rows))
    assert counts.added == 2500
    return renewals


def rows_of(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


def test_writers_go_on_while_an_export_streams_and_it_reads_one_moment(api, many):
    stream = export_csv(many, [])
    first = next(stream)
    # The request's transaction ends, a task is added, another's data changes.
    db.session.rollback()
    api.add("ZZZ", {"Name": "Added"})
    item = db.session.scalar(
        select(TaskItem).join(Task).where(Task.client_id == "T02400", TaskItem.key == "Name")
    )
    item.value = "Changed"
    db.session.commit()

    rows = rows_of(first + "".join(stream))
    assert len(rows) == 2500
    assert rows[-1]["Id"] == "T02499"
    assert rows[2400]["Name"] == "Customer 2400"  # as it was when the export began
    assert rows_of("".join(export_csv(many, [])))[2400]["Name"] == "Changed"


def test_a_download_cut_off_gives_its_connection_back(many):
    pool = db.engine.pool
    stream = export_csv(many, [])
    before = pool.checkedout()  # the request's own
    next(stream)
    assert pool.checkedout() == before + 1
    stream.close()
    assert pool.checkedout() == before
    assert len(rows_of("".join(export_csv(many, [])))) == 2500
    assert pool.checkedout() == before


def test_the_callers_transaction_is_not_left_idle_beside_the_stream(many):
    db.session.scalar(select(Task.id))  # what the caller read first
    assert db.session().in_transaction()
    stream = export_csv(many, [])
    first = next(stream)
    assert not db.session().in_transaction()
    assert len(rows_of(first + "".join(stream))) == 2500
    assert not db.session().in_transaction()


def test_a_download_streams_with_no_transaction_of_its_request_open(app, acme, many):
    client = session_for(app.test_client(), make_supervisor())  # leaves the session as it is
    response = client.get(f"{campaign_url(many)}/export.csv", buffered=False)
    try:
        assert response.status_code == 200
        assert not db.session().in_transaction()  # the view's reads ended, its stream begun
        assert len(rows_of(response.get_data(as_text=True))) == 2500
    finally:
        response.close()


def test_the_cli_and_the_download_write_the_services_bytes(
    api, renewals, runner, signed_in, tmp_path
):
    api.add("A", {"Name": "=Ann", "Notes": 'said "hi",\nthen left'}, preferredAgent="+ann")
    api.add("B", {"Name": "Zoë 東京", "Plan": "Gold"})
    expected = "".join(export_csv(renewals, [])).encode()
    out = tmp_path / "out.csv"
    result = runner.invoke(args=["intake", "export", "Acme", "prod", "Renewals", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == expected
    status, _, text = download(signed_in, f"{campaign_url(renewals)}/export.csv")
    assert (status, text.encode()) == (200, expected)

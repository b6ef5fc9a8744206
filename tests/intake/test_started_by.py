"""Who started a load: each door records its actor on the load, the load's audit records
and events name that actor through the load, and the pages show it ("not recorded" for a
load from before it was kept)."""

from __future__ import annotations

import io

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, Event, IntakeLoad
from app.services.intake.folder_drop import FolderDrop
from app.services.intake.runs import run_load
from app.services.intake.watch import watch_once
from tests.admin.conftest import BOSS, page, submit
from tests.conftest import SETUP
from tests.intake.conftest import start

FILE = "Id,Name\nA,Ann\nB,Bob\n"


def by_upload(signed_in, campaign) -> IntakeLoad:
    url = f"/tenants/{campaign.tenant_id}/campaigns/{campaign.id}"
    submit(signed_in, url, "/intake", {"file": (io.BytesIO(FILE.encode()), "tasks.csv")})
    return db.session.scalars(select(IntakeLoad)).one()


def by_cli(runner, write) -> IntakeLoad:
    result = runner.invoke(args=["intake", "load", "Acme", "prod", "Renewals", str(write(FILE))])
    assert result.exit_code == 0, result.output
    return db.session.scalars(select(IntakeLoad)).one()


def by_watcher(tmp_path) -> IntakeLoad:
    folder = tmp_path / "drop" / "Acme" / "prod" / "Renewals"
    folder.mkdir(parents=True)
    (folder / "tasks.csv").write_text(FILE, encoding="utf-8")
    watch_once(FolderDrop(tmp_path / "drop"))
    return db.session.scalars(select(IntakeLoad)).one()


DOORS = {
    "upload page": ("supervisor", BOSS, f"supervisor {BOSS}"),
    "command line": ("operator", SETUP.id, f"operator {SETUP.id}"),
    "drop watcher": ("system", "intake-watch", "system intake-watch"),
}


@pytest.fixture(params=list(DOORS))
def door(request, signed_in, runner, renewals, write, tmp_path):
    """(the load a door started, who it should name: kind, id, as the pages say it)."""
    name = request.param
    if name == "upload page":
        load = by_upload(signed_in, renewals)
    elif name == "command line":
        load = by_cli(runner, write)
    else:
        load = by_watcher(tmp_path)
    db.session.refresh(load)
    assert load.status == "done"
    return load, DOORS[name]


def test_each_door_records_who_started_the_load(door):
    load, (kind, actor_id, _) = door
    assert (load.started_by_kind, load.started_by_id) == (kind, actor_id)


def test_the_records_and_events_of_a_load_name_who_started_it(door):
    load, (kind, actor_id, _) = door
    records = db.session.scalars(select(AuditRecord).order_by(AuditRecord.id)).all()
    records = [r for r in records if r.entity_kind in ("task", "intake_load")]
    assert [r.action for r in records] == ["task.added", "task.added", "intake.load_finished"]
    via = f"intake load {load.id}"
    assert {(r.actor_kind, r.actor_id, r.actor_via) for r in records} == {(kind, actor_id, via)}
    types = ("task.added", "intake.load_finished")
    events = db.session.scalars(select(Event).where(Event.type.in_(types))).all()
    assert len(events) == 3
    assert {tuple(e.payload["data"]["actor"].values()) for e in events} == {(kind, actor_id, via)}


def test_the_load_page_and_the_loads_list_show_who_started_it(door, signed_in, acme, renewals):
    load, (_, _, shown) = door
    started = page(signed_in, f"/tenants/{acme.id}/loads/{load.id}").select_one(".started-by")
    when = load.created_at.strftime("%Y-%m-%d %H:%M:%S UTC")
    assert started.get_text(" ", strip=True) == f"Started by {shown} on {when}"
    listed = page(signed_in, f"/tenants/{acme.id}/campaigns/{renewals.id}")
    [row] = listed.select("table.loads tbody tr")
    assert row.select_one(".started-by").get_text(" ", strip=True) == f"by {shown}"
    assert when in row.find_all("td")[1].get_text()


def test_a_load_from_before_who_started_it_was_kept_says_not_recorded(
    signed_in, acme, renewals, write
):
    load = start(renewals, write(FILE))
    load.started_by_kind = load.started_by_id = None  # as the migration leaves older rows
    db.session.commit()
    started = page(signed_in, f"/tenants/{acme.id}/loads/{load.id}").select_one(".started-by")
    when = load.created_at.strftime("%Y-%m-%d %H:%M:%S UTC")
    assert started.get_text(" ", strip=True) == f"Started on {when}; who started it: not recorded"
    listed = page(signed_in, f"/tenants/{acme.id}/campaigns/{renewals.id}")
    [row] = listed.select("table.loads tbody tr")
    assert row.select_one(".started-by").get_text(" ", strip=True) == "started by: not recorded"


def test_a_load_from_before_who_started_it_was_kept_acts_as_itself(renewals, write):
    load = start(renewals, write(FILE))
    load.started_by_kind = load.started_by_id = None
    db.session.commit()
    run_load(load.id)
    records = db.session.scalars(select(AuditRecord).where(AuditRecord.entity_kind == "task"))
    assert {(r.actor_kind, r.actor_id, r.actor_via) for r in records} == {("intake", load.id, None)}

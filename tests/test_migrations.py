"""The Alembic migrations build exactly the models' schema on a fresh database, and undo it."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import flask_migrate
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import func, inspect, select, text, update

from app.extensions import db
from app.models import (
    Attempt,
    AttemptRollup,
    Campaign,
    EndedHow,
    IntakeLoad,
    Role,
    Supervisor,
    Task,
    WorkCodeRollup,
)
from app.models.search_index import is_search_index
from app.services.calls import ledger
from app.services.campaigns.catalogue import find_campaign
from app.services.people import directory_groups, supervisors
from app.services.people.users import NewUser, add_user
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from app.services.tenants import setup as tenants
from tests.conftest import SETUP, make_tenant


def _tables() -> set[str]:
    """The tables, leaving out alembic's and the trigram index's (it lives outside the models)."""
    names = set(inspect(db.engine).get_table_names()) - {"alembic_version"}
    return {name for name in names if not is_search_index(name)}


def _modelled(_object, name, _type, _reflected, _compare_to) -> bool:
    return not is_search_index(name)


def test_upgrade_builds_the_models_schema_and_downgrade_removes_it(fresh_app):
    flask_migrate.upgrade()
    assert _tables() == set(db.metadata.tables)
    with db.engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "include_object": _modelled}
        )
        assert compare_metadata(context, db.metadata) == []
    flask_migrate.downgrade(revision="base")
    assert set(inspect(db.engine).get_table_names()) == {"alembic_version"}


def test_upgrade_twice_changes_nothing(fresh_app):
    flask_migrate.upgrade()
    flask_migrate.upgrade()
    with db.engine.connect() as connection:
        head = MigrationContext.configure(connection).get_current_revision()
    assert head is not None
    assert _tables() == set(db.metadata.tables)


def test_intake_loads_from_before_0018_keep_no_starter(fresh_app):
    """Adding who started a load keeps every load there is (batch mode copies the table on
    SQLite), with no starter: the pages say "not recorded"."""
    flask_migrate.upgrade()
    tenant, _ = make_tenant()
    campaign = find_campaign(tenant, "Renewals")
    load = IntakeLoad(id=str(uuid.uuid4()), campaign=campaign, file_name="f.csv", source="cli")
    load.started_by_kind, load.started_by_id = "operator", "root"
    db.session.add(load)
    db.session.commit()
    load_id = load.id
    db.session.remove()
    flask_migrate.downgrade(revision="0017")
    flask_migrate.upgrade()
    kept = db.session.get(IntakeLoad, load_id)
    assert (kept.file_name, kept.started_by_kind, kept.started_by_id) == ("f.csv", None, None)


def test_tasks_worked_before_0019_get_no_invented_attempts(fresh_app):
    """The ledger starts empty: a task worked (and one held) before it keeps its counts and
    gets no attempt, as no agent, time or result of those attempts was recorded. (Made at
    head, then taken back to 0018: the models describe the newest schema only.)"""
    flask_migrate.upgrade()
    tenant, _ = make_tenant()
    items = [ItemInput("Phone", "+14155550100")]
    add_or_update_task(find_campaign(tenant, "Renewals"), "c1", items, actor=SETUP)
    db.session.execute(
        update(Task).values(worked_state="WORKED", work_attempts=2, reserved_by_id=1)
    )
    db.session.commit()
    worked = db.session.scalar(select(func.count()).select_from(Task))
    db.session.remove()
    flask_migrate.downgrade(revision="0018")
    flask_migrate.upgrade()
    assert worked > 0
    assert db.session.scalar(select(func.count()).select_from(Task)) == worked
    assert db.session.scalar(select(func.count()).select_from(Attempt)) == 0
    assert db.session.scalar(select(func.min(Task.work_attempts))) == 2


def test_rows_from_before_0020_keep_their_children_and_today_behaviour(fresh_app):
    """Adding the dialling columns to the parents (tenants, campaigns) copies no table, so
    no child row is lost (a copy would cascade its DROP TABLE on SQLite), and campaigns
    from before keep today's behaviour: no countdown, skipping allowed, the desk dials."""
    flask_migrate.upgrade()
    tenant, _ = make_tenant()
    campaign = find_campaign(tenant, "Renewals")
    add_or_update_task(campaign, "c1", [ItemInput("Phone", "+14155550100")], actor=SETUP)
    db.session.add(IntakeLoad(id=str(uuid.uuid4()), campaign=campaign, file_name="f.csv",
                              source="cli"))  # fmt: skip
    db.session.commit()
    counts = _row_counts("tasks", "intake_loads", "campaigns", "users", "skill_queues")
    db.session.remove()
    flask_migrate.downgrade(revision="0019")
    flask_migrate.upgrade()
    assert _row_counts("tasks", "intake_loads", "campaigns", "users", "skill_queues") == counts
    kept = db.session.scalar(select(Campaign).filter_by(name="Renewals"))
    assert (kept.auto_dial_seconds, kept.can_skip, kept.call_placement) == (None, True, "desk")


def _row_counts(*tables: str) -> dict[str, int]:
    with db.engine.connect() as connection:
        return {t: connection.execute(text(f"SELECT count(*) FROM {t}")).scalar() for t in tables}


def test_attempts_made_before_0023_are_rolled_up_by_the_upgrade(fresh_app):
    """The upgrade counts the rollups of the attempts already made (set-based SQL on both
    databases) and gives each its customer's zone: the same rows the ledger keeps. (Made at
    head, then taken back to 0022.)"""
    flask_migrate.upgrade()
    tenant, _ = make_tenant()
    tenants.create_user_template(tenant, "Agent", actor=SETUP)
    ann = add_user(tenant, NewUser("ann", "Ann", "Agent", "Agent"), actor=SETUP)
    campaign = find_campaign(tenant, "Renewals")
    base = datetime(2026, 3, 28, 23, 50, 7, 250000, tzinfo=UTC)
    for n in range(6):
        items = [ItemInput("Phone", "+14155550100")]
        task, _ = add_or_update_task(campaign, f"c{n}", items, actor=SETUP)
        task.time_zone = "Asia/Kolkata"
        db.session.flush()
        at = base + timedelta(minutes=11 * n)
        ledger.open_attempt(task, ann, at)
        if n % 3:
            codes = [("Reason", "Sold"), ("Mood", "Ok")]
            closed = at + timedelta(seconds=95)
            ledger.end_attempt(task, EndedHow.CLOSED, closed, outcome="COMPLETE", codes=codes)
        else:
            ledger.end_attempt(task, EndedHow.RELEASED, at + timedelta(seconds=40))
    db.session.commit()

    def rows(model) -> list[tuple]:
        with db.engine.connect() as connection:
            return sorted(map(tuple, connection.execute(select(model.__table__)).all()))

    kept = rows(AttemptRollup), rows(WorkCodeRollup)
    assert len(kept[0]) > 1 and sum(r[5] for r in kept[0]) == 6
    db.session.remove()
    flask_migrate.downgrade(revision="0022")
    assert {"attempt_rollups", "work_code_rollups"}.isdisjoint(inspect(db.engine).get_table_names())
    flask_migrate.upgrade()
    assert (rows(AttemptRollup), rows(WorkCodeRollup)) == kept
    zones = db.session.scalars(select(Attempt.time_zone).distinct()).all()
    assert zones == ["Asia/Kolkata"]


def test_attempts_made_before_0025_get_their_ending_counts_from_the_upgrade(fresh_app):
    """The upgrade counts the attempts taken back, changed elsewhere and still open into
    the rollups (one UPDATE ... FROM on both databases): the rows the ledger keeps. (Made at
    head, then taken back to 0023 and up again.)"""
    flask_migrate.upgrade()
    tenant, _ = make_tenant()
    tenants.create_user_template(tenant, "Agent", actor=SETUP)
    ann = add_user(tenant, NewUser("ann", "Ann", "Agent", "Agent"), actor=SETUP)
    campaign = find_campaign(tenant, "Renewals")
    base = datetime(2026, 3, 28, 23, 50, 7, 250000, tzinfo=UTC)
    endings = [EndedHow.TAKEN_BACK, EndedHow.CHANGED_ELSEWHERE, None, EndedHow.RELEASED]
    for n in range(8):
        items = [ItemInput("Phone", "+14155550100")]
        task, _ = add_or_update_task(campaign, f"c{n}", items, actor=SETUP)
        db.session.flush()
        at = base + timedelta(minutes=7 * n)
        ledger.open_attempt(task, ann, at)
        if endings[n % 4] is not None:
            ledger.end_attempt(task, endings[n % 4], at + timedelta(seconds=40))
    db.session.commit()

    def rows() -> list[tuple]:
        with db.engine.connect() as connection:
            return sorted(map(tuple, connection.execute(select(AttemptRollup.__table__)).all()))

    def totals() -> tuple[int, ...]:
        names = ("taken_back", "changed_elsewhere", "in_progress")
        return tuple(sum(getattr(r, name) for r in db.session.scalars(select(AttemptRollup)))
                     for name in names)  # fmt: skip

    kept = rows()
    assert totals() == (2, 2, 2) and len(kept) > 1
    db.session.remove()
    flask_migrate.downgrade(revision="0023")
    columns = {c["name"] for c in inspect(db.engine).get_columns("attempt_rollups")}
    assert {"taken_back", "changed_elsewhere", "in_progress"}.isdisjoint(columns)
    assert "deleted_task_id" not in {c["name"] for c in inspect(db.engine).get_columns("attempts")}
    flask_migrate.upgrade()
    assert rows() == kept
    assert totals() == (2, 2, 2)


def test_attempts_with_a_call_before_0031_get_one_call_each(fresh_app):
    """The upgrade gives every attempt that placed a call one call (its call columns), so
    its call id stays known and its number counts for the task's rotation; an attempt
    without a call gets none. (Made at head, then taken back to 0029 and up again.)"""
    flask_migrate.upgrade()
    tenant, _ = make_tenant()
    tenants.create_user_template(tenant, "Agent", actor=SETUP)
    ann = add_user(tenant, NewUser("ann", "Ann", "Agent", "Agent"), actor=SETUP)
    campaign = find_campaign(tenant, "Renewals")
    at = datetime(2026, 11, 30, 9, 0, 0, 125000, tzinfo=UTC)
    for n in range(3):
        items = [ItemInput("Phone", "+14155550100")]
        task, _ = add_or_update_task(campaign, f"c{n}", items, actor=SETUP)
        db.session.flush()
        attempt = ledger.open_attempt(task, ann, at)
        if n:
            ledger.begin_call(
                attempt, task, "Phone", "+14155550100", "desk", at + timedelta(seconds=5)
            )
    db.session.commit()

    def calls() -> list[tuple]:
        with db.engine.connect() as connection:
            return sorted(
                connection.execute(
                    text("SELECT attempt_id, task_id, call_id, phone_key, started_at FROM calls")
                ).all()
            )

    kept = calls()
    assert len(kept) == 2
    db.session.remove()
    flask_migrate.downgrade(revision="0029")
    assert "calls" not in inspect(db.engine).get_table_names()
    flask_migrate.upgrade()
    assert calls() == kept


def test_phone_items_stored_before_0032_learn_whether_their_number_exists(fresh_app):
    """The upgrade marks each phone item valid or not from its stored value, and leaves
    every other item's mark empty. (Made at head, then taken back to 0031 and up again.)"""
    flask_migrate.upgrade()
    tenant, _ = make_tenant()
    campaign = find_campaign(tenant, "Renewals")
    items = [ItemInput("Phone", "+14155550100"), ItemInput("Mobile Phone", "+99999"),
             ItemInput("Name", "Ann"), ItemInput("Work Phone", "")]  # fmt: skip
    add_or_update_task(campaign, "c1", items, actor=SETUP)
    db.session.commit()

    def marks() -> list[tuple]:
        with db.engine.connect() as connection:
            return sorted(
                connection.execute(text("SELECT key, valid_number FROM task_items")).all()
            )

    kept = marks()
    assert kept == [
        ("Id", None), ("Mobile Phone", False), ("Name", None), ("Phone", True),
        ("Work Phone", None),
    ]  # fmt: skip
    db.session.remove()
    flask_migrate.downgrade(revision="0031")
    assert "valid_number" not in {c["name"] for c in inspect(db.engine).get_columns("task_items")}
    flask_migrate.upgrade()
    assert marks() == kept


def test_users_from_before_0039_get_an_id_of_their_own_and_stay_active(fresh_app):
    """The upgrade gives each existing user a random resource id (distinct), active, and
    its two addresses in the e-mail index, keeping its queues: no table is copied. (Made
    at head, then taken back to 0038 and up again.)"""
    flask_migrate.upgrade()
    tenant, _ = make_tenant()
    tenants.create_user_template(tenant, "Agent", skill_queues=["Sales"], actor=SETUP)
    add_user(tenant, NewUser("ann", "Ann", "Agent", "Agent", secondary_email="Ann@Home.example"),
             actor=SETUP)  # fmt: skip
    add_user(tenant, NewUser("bob", "Bob", "Agent", "Agent"), actor=SETUP)
    db.session.commit()
    counts = _row_counts("users", "agent_skill_queues", "api_keys")
    db.session.remove()
    flask_migrate.downgrade(revision="0038")
    assert "resource_id" not in {c["name"] for c in inspect(db.engine).get_columns("users")}
    flask_migrate.upgrade()
    assert _row_counts("users", "agent_skill_queues", "api_keys") == counts
    with db.engine.connect() as connection:
        rows = connection.execute(
            text(
                "SELECT login_user_id, resource_id, active, email_index FROM users "
                "ORDER BY login_user_id"
            )  # fmt: skip
        ).all()
        purposes = connection.execute(text("SELECT DISTINCT purpose FROM api_keys")).all()
    assert [(r[0], bool(r[2]), r[3]) for r in rows] == [
        ("ann", True, ",ann@home.example,"), ("bob", True, ""),
    ]  # fmt: skip
    assert len({r[1] for r in rows}) == 2 and all(len(r[1]) == 36 for r in rows)
    assert purposes == [("api",)]


def test_supervisors_from_before_0042_become_supervisors_of_their_tenants(fresh_app):
    """Each tenant an account saw before roles becomes a supervisor's; an account of every
    tenant stays one (an administrator of every tenant). Made at head as an administrator,
    taken back to 0041 and up again."""
    flask_migrate.upgrade()
    tenant, _ = make_tenant()
    deputy = supervisors.create_supervisor(
        "deputy@example.com", "correct horse battery", [tenant], role=Role.ADMINISTRATOR,
        actor=SETUP,
    )  # fmt: skip
    supervisors.create_supervisor("boss@example.com", "correct horse battery", actor=SETUP)
    db.session.commit()
    deputy_id, tenant_id = deputy.id, tenant.id
    db.session.remove()
    flask_migrate.downgrade(revision="0041")
    assert "role" not in {c["name"] for c in inspect(db.engine).get_columns("supervisor_tenants")}
    flask_migrate.upgrade()
    deputy = db.session.get(Supervisor, deputy_id)
    assert deputy.role_in(tenant_id) is Role.SUPERVISOR
    boss = db.session.scalar(select(Supervisor).filter_by(email="boss@example.com"))
    assert boss.role_in(tenant_id) is Role.ADMINISTRATOR


def test_mappings_and_roles_from_before_0043_keep_what_they_gave(fresh_app):
    """A queue's mapping and a person's grant stay across 0043 (a grant is a grant); going
    back drops what only 0043 can hold: role mappings and the roles SCIM gave."""
    flask_migrate.upgrade()
    tenant, _ = make_tenant()
    directory_groups.map_group(tenant, "Sales team", "Sales", actor=SETUP)
    directory_groups.map_group(tenant, "Leads", None, role=Role.SUPERVISOR, actor=SETUP)
    supervisors.create_supervisor(
        "deputy@example.com", "correct horse battery", [tenant], role=Role.ANALYST, actor=SETUP
    )
    db.session.commit()
    db.session.remove()
    flask_migrate.downgrade(revision="0042")
    with db.engine.connect() as connection:
        mapped = connection.execute(text("SELECT group_name FROM group_mappings")).all()
    assert mapped == [("Sales team",)]
    flask_migrate.upgrade()
    deputy = db.session.scalar(select(Supervisor).filter_by(email="deputy@example.com"))
    assert (deputy.roles[0].role, deputy.roles[0].given_by) == ("analyst", "grant")

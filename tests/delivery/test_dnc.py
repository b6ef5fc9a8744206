"""Delivery and the list: a task whose every phone number is listed is kept back, with the
desk's reason; any unlisted number, or no phone item at all, lets it through. Controlled
clock (`offer(agent, now)`)."""

from __future__ import annotations

import pytest
from sqlalchemy import True_, select

from app.extensions import db
from app.models import Task
from app.services.contactability.seat import Seat
from app.services.delivery import rules
from app.services.delivery.progress import campaign_progress
from app.services.dnc import numbers as dnc
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from tests.conftest import SETUP, make_tenant
from tests.delivery.delivery_support import (  # noqa: F401 - settings: short desk timings
    available,
    client_id,
    offer,
    settings,
    start,
)
from tests.dnc.dnc_support import E164, OTHER, put

THIRD = "+14155550142"


def task(campaign, client_id_: str, **data: str) -> Task:
    items = [ItemInput("Name", client_id_.title())] + [ItemInput(k, v) for k, v in data.items()]
    found, _ = add_or_update_task(campaign, client_id_, items, actor=SETUP)
    db.session.commit()
    return found


def first_offer(agent):
    now = start()
    return offer(available(agent, now), now)


@pytest.mark.parametrize(
    ("data", "delivered"),
    [
        pytest.param({"Phone": E164}, False, id="its-one-number-listed"),
        pytest.param({"Phone": E164, "MobilePhone": OTHER}, False, id="every-number-listed"),
        pytest.param({"PHONE": E164, "cellphone": OTHER}, False, id="keys-in-any-case"),
        pytest.param({"Phone": E164, "WorkPhone": ""}, False, id="an-empty-number-is-none"),
        pytest.param({"Phone": E164, "MobilePhone": THIRD}, True, id="one-number-unlisted"),
        pytest.param({"Phone": THIRD}, True, id="unlisted"),
        pytest.param({"City": "Oslo"}, True, id="no-phone-item"),
        pytest.param({"Fax": E164}, True, id="listed-value-under-no-phone-key"),
    ],
)
def test_a_task_is_delivered_unless_every_phone_number_is_listed(
    acme, renewals, ann, data, delivered
):
    put(acme, E164, OTHER)
    task(renewals, "c1", **data)
    found = first_offer(ann)
    assert client_id(found) == ("c1" if delivered else None)
    if not delivered:
        assert (found.reason, found.next_due) == (dnc.ALL_LISTED, None)


def test_listed_tasks_are_passed_over_for_the_next_callable_one(acme, renewals, ann):
    put(acme, E164)
    task(renewals, "c1", Phone=E164)
    task(renewals, "c2", Phone=E164, Mobile_Phone=E164)
    task(renewals, "c3", Phone=THIRD)
    assert client_id(first_offer(ann)) == "c3"


def test_another_tenants_list_is_ignored(acme, renewals, ann):
    globex = make_tenant("Globex", "test")[0]
    put(globex, E164)
    task(renewals, "c1", Phone=E164)
    assert client_id(first_offer(ann)) == "c1"


def test_taking_the_number_off_the_list_delivers_the_task_again(acme, renewals, ann):
    put(acme, E164)
    task(renewals, "c1", Phone=E164)
    now = start()
    available(ann, now)
    assert offer(ann, now).reason == dnc.ALL_LISTED
    dnc.remove_numbers(acme, [E164], actor=SETUP)
    db.session.commit()
    assert client_id(offer(ann, now)) == "c1"


def test_the_list_is_no_reason_when_nothing_is_ready(acme, renewals, ann):
    """An empty queue is "no tasks", not the list's doing."""
    put(acme, E164)
    assert first_offer(ann).reason != dnc.ALL_LISTED


def seat(agent, tenant) -> Seat:
    return Seat(agent.id, agent.login_user_id, (agent.skill_queues[0].id,), start(), tenant.id)


def test_an_empty_list_adds_no_condition_at_all(acme, ann):
    put(make_tenant("Globex", "test")[0], E164)  # another tenant's list is no reason either
    assert isinstance(dnc.has_callable_number(seat(ann, acme)), True_)
    assert dnc.all_listed(seat(ann, acme), rules.ready(seat(ann, acme))) is None


def test_the_blocker_speaks_only_when_every_ready_task_is_listed(acme, renewals, ann):
    put(acme, E164)
    task(renewals, "c1", Phone=E164)
    here = seat(ann, acme)
    assert dnc.all_listed(here, rules.ready(here)).reason == dnc.ALL_LISTED
    task(renewals, "c2", Phone=THIRD)
    assert dnc.all_listed(here, rules.ready(here)) is None


def test_the_supervisors_progress_counts_listed_tasks_as_kept_back(acme, renewals):
    put(acme, E164)
    task(renewals, "c1", Phone=E164)
    task(renewals, "c2", Phone=THIRD)
    task(renewals, "c3", City="Oslo")
    progress = campaign_progress(renewals, start())
    assert (progress.deliverable, progress.kept_back) == (2, 1)


def test_the_condition_is_the_same_whoever_asks(acme, renewals, ann):
    """The per-tenant form and the form for any tenant (counts) pick the same tasks."""
    put(acme, E164)
    put(make_tenant("Globex", "test")[0], THIRD)
    for n, phone in enumerate([E164, THIRD, OTHER]):
        task(renewals, f"c{n}", Phone=phone)
    for tenant_id in (acme.id, 0):
        ids = db.session.scalars(
            select(Task.client_id).where(dnc.callable_condition(tenant_id)).order_by(Task.id)
        )
        assert list(ids) == ["c1", "c2"], tenant_id

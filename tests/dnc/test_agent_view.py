"""A listed number in the agent view: shown, marked "do not call", never a `tel:` link."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from flask import render_template

from app.services.tasks.display import agent_view, agent_view_of
from app.services.tasks.validation import ItemInput
from tests.admin.conftest import add_task
from tests.conftest import make_tenant
from tests.dnc.dnc_support import E164, OTHER, put

DATA = {"Name": "Ann", "Phone": E164, "MobilePhone": OTHER, "City": "Oslo"}


def items(data: dict[str, str]) -> list[ItemInput]:
    return [ItemInput(k, v) for k, v in data.items()]


def kinds(view) -> dict[str, tuple[str, str | None]]:
    return {d.key: (d.kind, d.href) for d in view.details}


def test_a_listed_number_is_blocked_and_has_no_link():
    view = agent_view(items(DATA), {E164})
    assert kinds(view) == {
        "Phone": ("blocked", None),
        "MobilePhone": ("phone", f"tel:{OTHER}"),
        "City": ("text", None),
    }
    blocked = view.details[0]
    assert (blocked.label, blocked.value) == ("Phone", E164)


def test_without_a_list_every_number_dials():
    assert kinds(agent_view(items(DATA)))["Phone"] == ("phone", f"tel:{E164}")


def test_a_listed_number_keeps_the_other_rules():
    data = {**DATA, "Highlight": "Phone", "Hidden": "MobilePhone"}
    view = agent_view(items(data), {E164, OTHER})
    assert [(d.key, d.kind, d.highlighted) for d in view.details] == [
        ("Phone", "blocked", True), ("City", "text", False)
    ]  # fmt: skip


def test_agent_view_of_looks_up_the_tasks_own_tenant(acme, renewals):
    task = add_task(renewals, "C1", DATA)
    put(make_tenant("Globex", "test")[0], OTHER)
    assert kinds(agent_view_of(task))["Phone"][0] == "phone"
    put(acme, E164)
    view = agent_view_of(task)
    assert {k: kind for k, (kind, _) in kinds(view).items()} == {
        "Id": "text", "Phone": "blocked", "MobilePhone": "phone", "City": "text"
    }  # fmt: skip


def test_agent_view_of_takes_items_already_read(acme, renewals):
    task = add_task(renewals, "C1", DATA)
    put(acme, OTHER)
    view = agent_view_of(task, items({"Phone": OTHER}))
    assert kinds(view) == {"Phone": ("blocked", None)}


@pytest.fixture
def rendered(app):
    def render(view) -> BeautifulSoup:
        with app.test_request_context():
            return BeautifulSoup(
                render_template("admin/_agent_view.html", view=view), "html.parser"
            )

    return render


def test_the_view_shows_a_listed_number_marked_and_without_a_call_link(rendered):
    html = rendered(agent_view(items(DATA), {E164}))
    blocked = html.select_one('div.detail[data-key="Phone"]')
    assert blocked.dd.get_text(" ", strip=True) == f"{E164} Do not call"
    assert blocked.find("a") is None
    assert "tel:" not in str(blocked)
    links = [a["href"] for a in html.find_all("a")]
    assert links == [f"tel:{OTHER}"]

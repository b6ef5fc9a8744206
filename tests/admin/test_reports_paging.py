"""The Reports page over long ranges and by agent: the intervals table shows a week of
intervals a page (its CSV every row), and the agent filter is a choice of the tenant's agents
(the API's `agent` field stays free)."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest

from app.admin.reports import INTERVAL_DAYS_A_PAGE
from app.extensions import db
from app.services.people.users import NewUser, add_user
from tests.admin.conftest import page
from tests.admin.test_reports_page import shown, url
from tests.conftest import SETUP, make_tenant
from tests.delivery.delivery_support import make_agent
from tests.reports.generated import START, generate

# 20 days around the generated data's 4: three pages of a week at 15 minutes.
LONG = {
    "from": (START - timedelta(days=8)).date().isoformat(),
    "to": (START + timedelta(days=11)).date().isoformat(),
    "zone": "UTC",
}
ROWS = 20 * 24 * 4
A_PAGE = INTERVAL_DAYS_A_PAGE * 24 * 4


@pytest.fixture
def data(acme):
    for login in ("ann", "bob", "cy"):
        make_agent(acme, login)
    return generate(acme)


def pager(document):
    return document.find("nav", attrs={"aria-label": "Pages of attempts per 15 minutes (utc)"})


def test_a_long_range_shows_its_intervals_a_week_a_page(signed_in, acme, data):
    first = page(signed_in, url(acme, **LONG, interval=15))
    rows = shown(first, "intervals")[1:]
    assert len(rows) == A_PAGE
    assert rows[0][0] == LONG["from"] + " 00:00"
    nav = pager(first)
    assert "Rows 1–672 of 1,920 (page 1 of 3)" in nav.get_text(" ", strip=True)

    second = page(signed_in, nav.find("a", rel="next")["href"])
    rows = shown(second, "intervals")[1:]
    assert rows[0][0] == (START - timedelta(days=1)).strftime("%Y-%m-%d 00:00")
    assert len(rows) == A_PAGE
    assert second.find(attrs={"name": "interval"}).find(selected=True)["value"] == "15"

    last = page(signed_in, pager(second).find("a", string="Last")["href"])
    assert len(shown(last, "intervals")[1:]) == ROWS - 2 * A_PAGE
    assert pager(last).find("a", rel="next") is None
    assert (
        page(signed_in, url(acme, **LONG, interval=15, intervals_page=99))
        .find("table", id="intervals-table")
        .find_all("tr")[1:]
        == last.find("table", id="intervals-table").find_all("tr")[1:]
    )


def test_the_intervals_csv_holds_every_row_whatever_the_page(signed_in, acme, data):
    document = page(signed_in, url(acme, **LONG, interval=15, intervals_page=2))
    link = document.find("a", href=lambda h: h and "/reports/intervals.csv" in h)
    assert "intervals_page" not in link["href"]
    response = signed_in.get(link["href"])
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True), newline="")))
    assert len(rows) == 1 + ROWS
    assert rows[1][0] == LONG["from"] + " 00:00"


def test_a_range_within_a_week_shows_every_interval_with_no_pages(signed_in, acme, data):
    document = page(signed_in, url(acme, **LONG, interval=60))
    assert len(shown(document, "intervals")[1:]) == INTERVAL_DAYS_A_PAGE * 24
    short = {**LONG, "from": START.date().isoformat(), "to": START.date().isoformat()}
    document = page(signed_in, url(acme, **short, interval=60))
    assert len(shown(document, "intervals")[1:]) == 24
    assert document.find("nav", attrs={"aria-label": lambda v: v and "Pages of" in v}) is None


def options(document) -> list[tuple[str, str, bool]]:
    select = document.find("select", attrs={"name": "agent"})
    return [
        (option.get("value", option.get_text()), option.get_text(), option.has_attr("selected"))
        for option in select.find_all("option")
    ]


def test_the_agent_filter_offers_the_tenants_agents(signed_in, acme, data):
    add_user(acme, NewUser("not.an.agent", "Not", "Agent", "Agent"), actor=SETUP)
    other, _ = make_tenant("Other")
    make_agent(other, "theirs")
    db.session.commit()
    document = page(signed_in, url(acme, **LONG))
    assert options(document) == [
        ("", "All agents", False),
        ("ann", "ann", False),
        ("bob", "bob", False),
        ("cy", "cy", False),
    ]
    chosen = page(signed_in, url(acme, **LONG, agent="bob"))
    assert ("bob", "bob", True) in options(chosen)
    assert "agent bob" in chosen.get_text()


def test_an_agent_not_offered_stays_chosen_and_is_refused_naming_the_field(signed_in, acme, data):
    document = page(signed_in, url(acme, **LONG, agent="nobody"), status=422)
    assert options(document)[-1] == ("nobody", "nobody", True)
    assert "nobody" in document.find(id="agent-error").get_text()

"""The campaign page's search keeps the API's limits with a message naming the row and the
field at fault, and offers the worked state as a choice."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from app.extensions import db
from app.services.tasks.changes import Locator, TaskChanges, change_status
from app.wire.times import sent_time
from tests.admin.conftest import add_task, page, refusal, soup
from tests.conftest import SETUP

STATES = ["NOTWORKED", "WORKED", "COMPLETED", "REMOVED"]
NEXT_MS = 1893573000000  # 2030-01-02 08:30:00 UTC


def url_of(campaign) -> str:
    return f"/tenants/{campaign.tenant_id}/campaigns/{campaign.id}"


def query(*rows: tuple[str, str, str], **extra: str) -> str:
    """The query string a browser sends: k, c, v per row, then the blank extra row."""
    pairs = [pair for row in [*rows, ("", "EQUALS", "")] for pair in zip("kcv", row, strict=True)]
    return urlencode(pairs + list(extra.items()))


def client_ids(shown) -> list[str]:
    return [row.td.get_text(strip=True) for row in shown.select("table.tasks tbody tr")]


@pytest.fixture
def tasks(renewals):
    add_task(renewals, "R1", {"Name": "Ann", "Plan": "Gold"})
    add_task(renewals, "R2", {"Name": "Bob", "Plan": "Gold"})
    change_status(
        renewals,
        Locator(client_id="R2"),
        "COMPLETED",
        TaskChanges(next_earliest=sent_time(NEXT_MS, "nextEarliestWorkTimeUTC")),
        actor=SETUP,
    )
    db.session.commit()
    return renewals


GOLD = ("Plan", "EQUALS", "Gold")
LONG_KEY = "K" * 256
EURO_VALUE = "€" * 667  # 667 characters, 2,001 bytes


@pytest.mark.parametrize(
    ("rows", "extra", "message", "fault"),
    [
        ([GOLD] * 51, {}, "A search has at most 50 rows; this one has 51.", None),
        ([GOLD] * 50, {"s": "WORKED"}, "A search has at most 50 rows; this one has 51.", None),
        ([(LONG_KEY, "EQUALS", "x")], {}, "Row 1: the key must be at most 255 characters.",
         "input[name=k]"),
        ([GOLD, ("Plan", "EQUALS", "x" * 2001)], {},
         "Row 2: the value must be at most 2,000 bytes.", ".criterion:nth-of-type(2) [name=v]"),
        ([("Plan", "EQUALS", EURO_VALUE)], {}, "Row 1: the value must be at most 2,000 bytes.",
         "input[name=v]"),
        ([("Plan", "LIKE", "Gold")], {}, "Row 1: 'LIKE' is not a search condition.",
         "select[name=c]"),
        ([("sys_worked_state", "EQUALS", "done")], {},
         "Row 1: the state must be one of NOTWORKED, WORKED, COMPLETED, REMOVED.",
         "select[name=v]"),
        ([], {"s": "done"}, "State must be one of NOTWORKED, WORKED, COMPLETED, REMOVED.",
         "select[name=s]"),
    ],
    ids=["51-rows", "50-rows-and-a-state", "long-key", "long-value", "value-in-bytes",
         "unknown-condition", "state-row-not-a-state", "state-choice-not-a-state"],
)  # fmt: skip
def test_a_search_outside_the_limits_is_refused_with_the_field_at_fault(
    signed_in, tasks, rows, extra, message, fault
):
    response = signed_in.get(f"{url_of(tasks)}?{query(*rows, **extra)}")
    assert message in refusal(response)
    shown = soup(response)
    assert client_ids(shown) == []
    if fault:
        assert shown.select_one(f"form.search {fault}")["aria-invalid"] == "true"
    # The download of the same search is refused too, not cut short or run unchecked.
    assert signed_in.get(f"{url_of(tasks)}/export.csv?{query(*rows, **extra)}").status_code == 400


@pytest.mark.parametrize(
    "rows",
    [[GOLD] * 50, [("K" * 255, "EQUALS", "x")], [("Plan", "EQUALS", "x" * 2000)]],
    ids=["50-rows", "key-of-255", "value-of-2000-bytes"],
)
def test_a_search_at_the_limits_runs(signed_in, tasks, rows):
    shown = page(signed_in, f"{url_of(tasks)}?{query(*rows)}")
    assert shown.find(role="alert") is None


def test_the_state_is_a_choice_of_the_four_states(signed_in, tasks):
    choice = page(signed_in, url_of(tasks)).select_one("form.search select[name=s]")
    assert [option["value"] for option in choice("option")] == ["", *STATES]


def test_choosing_a_state_filters_and_stays_chosen_on_every_link(signed_in, tasks):
    shown = page(signed_in, f"{url_of(tasks)}?{query(GOLD, s='COMPLETED')}")
    assert client_ids(shown) == ["R2"]
    chosen = shown.select_one("form.search select[name=s] option[selected]")
    assert chosen["value"] == "COMPLETED"
    download = shown.find("a", string="Download these tasks (CSV)")["href"]
    assert "s=COMPLETED" in download
    assert "R2" in signed_in.get(download).get_data(as_text=True)
    assert "R1," not in signed_in.get(download).get_data(as_text=True)


def test_a_state_row_shows_its_value_as_a_choice(signed_in, tasks):
    shown = page(signed_in, f"{url_of(tasks)}?{query(('sys_worked_state', 'EQUALS', 'NOTWORKED'))}")
    assert client_ids(shown) == ["R1"]
    value = shown.select_one("form.search .criterion select[name=v]")
    assert [option["value"] for option in value("option")] == STATES
    assert value.find("option", selected=True)["value"] == "NOTWORKED"


@pytest.mark.parametrize(
    ("rows", "row", "message"),
    [
        (
            [GOLD, ("Plan", "EQUALS", "x" * 2001)],
            2,
            "Row 2: the value must be at most 2,000 bytes.",
        ),
        ([GOLD, ("Plan", "LIKE", "Gold")], 2, "Row 2: 'LIKE' is not a search condition."),
        (
            [("sys_worked_attempts", "EQUALS", "many")],
            1,
            "Row 1: sys_worked_attempts compares with a whole number, not 'many'.",
        ),
    ],
    ids=["long-value", "unknown-condition", "refused-by-the-service"],
)
def test_a_refused_search_says_why_at_the_row_and_shows_no_count(
    signed_in, tasks, rows, row, message
):
    """The refusal was an alert atop the page, some 800 px above the row, and "0 tasks"
    below the form read as if the search had run."""
    response = signed_in.get(f"{url_of(tasks)}?{query(*rows)}")
    assert response.status_code == 422
    shown = soup(response)
    main = shown.find("main")
    assert main.find(role="alert").find_parent("form", class_="search") is not None
    group = shown.select("form.search .criterion")[row - 1]
    beside = group.select_one(".field-error")
    assert beside.get_text(strip=True) == message
    for field in group.select("[aria-invalid=true]"):
        assert field["aria-describedby"] == beside["id"]
    assert "The search was not run: see row " + str(row) in main.find(role="alert").get_text()
    assert shown.select_one("p.count") is None and "0 tasks" not in main.get_text()

"""The supervisors' task search: "Ignore case" (this page only: the Preview API's conditions
stay exact), "Add a condition" (a submit button: no JavaScript needed), and a value typed
without a key refused at its row with what was typed kept."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from app.services.campaigns import catalogue as campaigns
from app.services.search.criteria import Condition, Criterion
from app.services.search.query import count_tasks, search_tasks
from tests.admin.conftest import add_task, page, soup
from tests.admin.test_campaign_search import client_ids, query, url_of


@pytest.fixture
def tasks(renewals):
    add_task(renewals, "R1", {"Name": "Ann", "Plan": "Gold"})
    add_task(renewals, "R2", {"Name": "Bob", "Plan": "GOLDEN"})
    add_task(renewals, "R3", {"Name": "Cy", "Plan": "silver"})
    return renewals


@pytest.mark.parametrize(
    ("row", "exact", "either_case"),
    [
        (("Plan", "EQUALS", "gold"), [], ["R1"]),
        (("Plan", "BEGINSWITH", "gOl"), [], ["R1", "R2"]),
        (("Plan", "CONTAINS", "OLD"), ["R2"], ["R1", "R2"]),
        (("Plan", "NOTEQUALS", "GOLD"), ["R1", "R2", "R3"], ["R2", "R3"]),
        (("Plan", "LESSTHAN", "h"), ["R1", "R2"], ["R1", "R2"]),
        (("Plan", "GREATERTHAN", "h"), ["R3"], ["R3"]),
        (("sys_skill_queue", "EQUALS", "sales"), [], ["R1", "R2", "R3"]),
    ],
)
def test_ignore_case_matches_letters_in_either_case(signed_in, tasks, row, exact, either_case):
    assert client_ids(page(signed_in, f"{url_of(tasks)}?{query(row)}")) == exact
    shown = page(signed_in, f"{url_of(tasks)}?{query(row, i='1')}")
    assert client_ids(shown) == either_case
    assert shown.select_one("input[name=i]").has_attr("checked")
    # Every page link and the download repeat the option.
    assert "i=1" in shown.find("a", download=True)["href"]


def test_the_service_counts_and_pages_a_search_ignoring_case(tasks):
    criteria = [Criterion("Plan", Condition.BEGINSWITH, "GO", ignore_case=True)]
    assert count_tasks(tasks, criteria) == 2
    assert [t.client_id for t in search_tasks(tasks, criteria, 1, 1)] == ["R2"]
    other = campaigns.find_campaign(tasks.tenant, "Winback")
    add_task(other, "W1", {"Plan": "gold"})
    assert count_tasks(tasks, criteria) == 2  # the campaign's tasks only


def test_the_preview_api_stays_exact(api, tasks):
    assert [r["clientId"] for r in api.search(("Plan", "EQUALS", "gold"))] == []
    assert [r["clientId"] for r in api.search(("Plan", "EQUALS", "Gold"))] == ["R1"]


def rows_of(shown) -> list[tuple[str, str]]:
    return [
        (
            group.select_one("[name=k]").get("value", ""),
            group.select_one("[name=v]").get("value", ""),
        )
        for group in shown.select("form.search .criterion")
    ]


def test_add_a_condition_shows_one_more_row_keeping_what_was_typed(signed_in, tasks):
    shown = page(signed_in, url_of(tasks))
    add = shown.select_one("form.search button[name=add]")
    assert add.get_text(strip=True) == "Add a condition" and add.get("type") == "submit"
    assert rows_of(shown) == [("", ""), ("", "")]
    # The browser sends the filled row, the empty row, and the button.
    shown = page(signed_in, f"{url_of(tasks)}?{query(('Plan', 'EQUALS', 'Gold'), add='1')}")
    assert rows_of(shown) == [("Plan", "Gold"), ("", ""), ("", "")]
    assert client_ids(shown) == ["R1"]  # the search ran as well
    again = urlencode(
        [*zip("kcv", ("Plan", "EQUALS", "Gold"), strict=True)]
        + [pair for _ in range(2) for pair in zip("kcv", ("", "EQUALS", ""), strict=True)]
        + [("add", "1")]
    )
    assert (
        rows_of(page(signed_in, f"{url_of(tasks)}?{again}")) == [("Plan", "Gold")] + [("", "")] * 3
    )


def test_add_a_condition_stops_at_the_limit_of_rows(signed_in, tasks):
    rows = [("Plan", "NOTEQUALS", str(n)) for n in range(49)]
    shown = page(signed_in, f"{url_of(tasks)}?{query(*rows, add='1')}")
    assert len(rows_of(shown)) == 50
    assert shown.select_one("form.search button[name=add]") is None


def test_a_value_without_a_key_is_refused_at_its_row_and_kept(signed_in, tasks):
    response = signed_in.get(
        f"{url_of(tasks)}?{query(('Plan', 'EQUALS', 'Gold'), ('', 'CONTAINS', 'Ann'))}"
    )
    assert response.status_code == 422
    shown = soup(response)
    assert rows_of(shown)[:2] == [("Plan", "Gold"), ("", "Ann")]
    second = shown.select("form.search .criterion")[1]
    said = second.select_one(".field-error")
    assert said.get_text(strip=True) == (
        "Row 2: a value needs a key: type the key, or clear the value."
    )
    key = second.select_one("[name=k]")
    assert key["aria-invalid"] == "true" and key["aria-describedby"] == said["id"]
    assert second.select_one("select[name=c] option[selected]")["value"] == "CONTAINS"
    assert "see row 2" in shown.find(role="alert").get_text()
    assert shown.select_one("p.count") is None

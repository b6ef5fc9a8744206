"""The tenants' pages: campaigns with task counts, new campaigns and skill queues, and the
campaign page's search form, results and paging."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from app.extensions import db
from app.services.campaigns.catalogue import list_campaigns
from app.services.search.criteria import SYSTEM_KEYS, Condition
from app.services.tasks.changes import Locator, TaskChanges, change_status
from app.services.tasks.validation import ItemInput
from app.services.tenants.setup import list_skill_queues
from app.wire.times import sent_time
from tests.admin.conftest import add_task, find_form, page, refusal, submit
from tests.conftest import SETUP

STATES = ["NOTWORKED", "WORKED", "COMPLETED", "REMOVED"]
NEXT_MS = 1893573000000  # 2030-01-02 08:30:00 UTC


def set_state(campaign, client_id: str, state: str) -> None:
    change_status(
        campaign,
        Locator(client_id=client_id),
        state,
        TaskChanges(next_earliest=sent_time(NEXT_MS, "nextEarliestWorkTimeUTC")),
        actor=SETUP,
    )
    db.session.commit()


def campaign_rows(client, tenant) -> dict[str, list[str]]:
    rows = page(client, f"/tenants/{tenant.id}/campaigns").select("table.campaigns tbody tr")
    return {
        cells[0]: cells[1:]
        for cells in ([td.get_text(strip=True) for td in row.find_all("td")] for row in rows)
    }


# --- Campaigns --------------------------------------------------------------------------


def test_campaigns_list_type_queue_zone_and_counts_per_state(signed_in, acme, renewals, winback):
    for n, state in enumerate(["NOTWORKED"] * 3 + ["WORKED"] * 2 + ["COMPLETED"]):
        add_task(renewals, f"R{n}")
        if state != "NOTWORKED":
            set_state(renewals, f"R{n}", state)
    add_task(winback, "W1")
    set_state(winback, "W1", "REMOVED")
    assert campaign_rows(signed_in, acme) == {
        "Renewals": ["ACTIVE", "preview", "Sales", "America/New_York", "3", "2", "1", "0"],
        "Winback": ["ACTIVE", "preview", "Support", "Europe/London", "0", "0", "0", "1"],
    }
    header = page(signed_in, f"/tenants/{acme.id}/campaigns").select("table.campaigns th")
    assert [th.get_text(strip=True) for th in header][5:] == STATES


def test_each_campaign_links_to_its_page(signed_in, acme, renewals):
    link = page(signed_in, f"/tenants/{acme.id}/campaigns").find("a", string="Renewals")
    assert link["href"] == f"/tenants/{acme.id}/campaigns/{renewals.id}"
    assert page(signed_in, link["href"]).h1.get_text() == "Renewals"


def test_the_campaign_form_offers_the_tenants_queues_and_every_zone(signed_in, acme):
    form = find_form(page(signed_in, f"/tenants/{acme.id}/campaigns"), "/campaigns")
    queues = [
        o["value"] for o in form.find("select", attrs={"name": "campaign-skill_queue"})("option")
    ]
    zones = [
        o["value"] for o in form.find("select", attrs={"name": "campaign-time_zone"})("option")
    ]
    assert queues == ["Sales", "Support"]
    assert {"UTC", "Europe/Paris", "America/New_York"} <= set(zones)


def test_create_a_campaign(signed_in, acme):
    url = f"/tenants/{acme.id}/campaigns"
    response = submit(
        signed_in,
        url,
        url,
        {
            "campaign-name": "Spring",
            "campaign-campaign_type": "progressive",
            "campaign-skill_queue": "Support",
            "campaign-time_zone": "Asia/Tokyo",
            "campaign-client_id_field_name": "AccountNo",
        },
    )
    assert (response.status_code, response.location) == (302, url)
    assert campaign_rows(signed_in, acme)["Spring"] == [
        "ACTIVE", "progressive", "Support", "Asia/Tokyo", "0", "0", "0", "0"
    ]  # fmt: skip
    (spring,) = [c for c in list_campaigns(acme) if c.name == "Spring"]
    assert spring.client_id_field_name == "AccountNo"


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"campaign-name": "Renewals"}, "campaign 'Renewals' already exists"),
        ({"campaign-name": ""}, "This field is required."),
        ({"campaign-skill_queue": "Nope"}, "Not a valid choice."),
        ({"campaign-time_zone": "Mars/Olympus"}, "Not a valid choice."),
        ({"campaign-campaign_type": "robocall"}, "Not a valid choice."),
    ],
    ids=["duplicate-name", "no-name", "unknown-queue", "unknown-zone", "unknown-type"],
)
def test_a_refused_campaign_shows_the_reason_and_creates_nothing(signed_in, acme, changes, reason):
    url = f"/tenants/{acme.id}/campaigns"
    response = submit(signed_in, url, url, {"campaign-name": "Spring", **changes})
    assert reason in refusal(response)
    assert [c.name for c in list_campaigns(acme)] == ["Renewals", "Winback"]


def test_create_a_skill_queue(signed_in, acme):
    url = f"/tenants/{acme.id}/campaigns"
    response = submit(signed_in, url, "/queues", {"queue-name": "Billing"})
    assert (response.status_code, response.location) == (302, url)
    shown = page(signed_in, url)
    assert [li.get_text() for li in shown.select("ul.queues li")] == ["Billing", "Sales", "Support"]
    form = find_form(shown, "/campaigns")
    assert "Billing" in [
        o["value"] for o in form.select("select[name=campaign-skill_queue] option")
    ]


@pytest.mark.parametrize(
    ("name", "reason"),
    [("Sales", "skill queue 'Sales' already exists"), ("", "This field is required.")],
    ids=["duplicate", "empty"],
)
def test_a_refused_skill_queue_shows_the_reason_and_creates_nothing(signed_in, acme, name, reason):
    response = submit(signed_in, f"/tenants/{acme.id}/campaigns", "/queues", {"queue-name": name})
    assert reason in refusal(response)
    assert [q.name for q in list_skill_queues(acme)] == ["Sales", "Support"]


# --- The campaign page: search form, results -------------------------------------------


def campaign_url(tenant, campaign) -> str:
    return f"/tenants/{tenant.id}/campaigns/{campaign.id}"


def result_rows(page_) -> list[list[str]]:
    return [
        [td.get_text(" ", strip=True) for td in row.find_all("td")]
        for row in page_.select("table.tasks tbody tr")
    ]


def client_ids(page_) -> list[str]:
    return [row[0] for row in result_rows(page_)]


def test_the_search_form_has_rows_of_key_condition_value(signed_in, acme, renewals):
    form = page(signed_in, campaign_url(acme, renewals)).find("form", class_="search")
    assert form["method"] == "get"
    rows = form.select(".criterion")
    assert len(rows) >= 1
    for row in rows:
        key, condition, value = (
            row.find("input", attrs={"name": "k"}),
            row.select_one("select[name=c]"),
            row.find("input", attrs={"name": "v"}),
        )
        assert key["list"] == "search-keys" and value is not None
        assert [o["value"] for o in condition("option")] == list(Condition)


def test_the_search_form_offers_system_keys_and_the_campaigns_own_keys(
    signed_in, acme, renewals, winback
):
    add_task(renewals, "R1", {"Name": "Ann", "Region": "North", "Balance": "12.5"})
    add_task(winback, "W1", {"Name": "Bob", "OnlyInWinback": "x"})
    datalist = page(signed_in, campaign_url(acme, renewals)).find("datalist", id="search-keys")
    offered = [o["value"] for o in datalist("option")]
    assert set(SYSTEM_KEYS) <= set(offered)
    assert {"Name", "Region", "Balance"} <= set(offered)
    assert "OnlyInWinback" not in offered


def test_results_show_the_tasks_fields_and_link_to_each_task(signed_in, acme, renewals):
    task = add_task(
        renewals,
        "R1",
        [ItemInput("Name", "Ann Lee"), ItemInput("ItemTimeZone", "Europe/Paris")],
        preferred_agent="agent7",
        next_earliest=sent_time(NEXT_MS, "nextEarliestWorkTimeUTC"),
    )
    other = add_task(renewals, "R2", {"Name": "Bob"})
    shown = page(signed_in, campaign_url(acme, renewals))
    headers = [th.get_text(strip=True) for th in shown.select("table.tasks th")]
    assert headers == [
        "clientId", "Name", "State", "Attempts", "Queue", "Preferred agent",
        "Next earliest (UTC)", "Next earliest (task zone)", "Created (UTC)",
    ]  # fmt: skip
    created = [t.created_at.strftime("%Y-%m-%d %H:%M:%S UTC") for t in (task, other)]
    assert result_rows(shown) == [
        ["R1", "Ann Lee", "NOTWORKED", "0", "Sales", "agent7", "2030-01-02 08:30:00 UTC",
         "2030-01-02 09:30 CET", created[0]],
        ["R2", "Bob", "NOTWORKED", "0", "Sales", "", "", "", created[1]],
    ]  # fmt: skip
    links = [a["href"] for a in shown.select("table.tasks tbody tr td:first-child a")]
    assert links == [f"/tenants/{acme.id}/tasks/{t.record_id}" for t in (task, other)]
    assert page(signed_in, links[0]).h1.get_text() == "Task R1"


@pytest.mark.parametrize(
    ("criteria", "expected"),
    [
        ([("Region", "EQUALS", "North")], ["R1", "R3"]),
        ([("Region", "EQUALS", "North"), ("Score", "GREATERTHAN", "5")], ["R3"]),
        ([("Name", "BEGINSWITH", "B")], ["R2"]),
        ([("sys_worked_state", "EQUALS", "COMPLETED")], ["R2"]),
        ([("sys_preferred_agent", "EQUALS", "agent7")], ["R4"]),
        ([("Region", "NOTEQUALS", "North")], ["R2", "R4"]),
        ([], ["R1", "R2", "R3", "R4"]),
    ],
    ids=["custom-key", "two-rows-and", "beginswith", "sys-state", "sys-agent", "notequals", "none"],
)
def test_search_criteria_filter_the_results(signed_in, acme, renewals, criteria, expected):
    add_task(renewals, "R1", {"Name": "Ann", "Region": "North", "Score": "3"})
    add_task(renewals, "R2", {"Name": "Bob", "Region": "South", "Score": "9"})
    add_task(renewals, "R3", {"Name": "Cid", "Region": "North", "Score": "7"})
    add_task(renewals, "R4", {"Name": "Dee", "Region": "East"}, preferred_agent="agent7")
    set_state(renewals, "R2", "COMPLETED")
    # As a browser sends the form: k, c, v per row, then the blank extra row.
    query = [
        pair for row in [*criteria, ("", "EQUALS", "")] for pair in zip("kcv", row, strict=True)
    ]
    shown = page(signed_in, campaign_url(acme, renewals) + "?" + urlencode(query))
    assert client_ids(shown) == expected
    kept = [i.get("value") for i in shown.select("form.search input[name=k]") if i.get("value")]
    assert kept == [k for k, _, _ in criteria]  # the form shows the search it ran


def test_a_bad_search_condition_shows_the_reason(signed_in, acme, renewals):
    add_task(renewals, "R1")
    response = signed_in.get(
        campaign_url(acme, renewals), query_string={"k": "Name", "c": "LIKE", "v": "x"}
    )
    assert "'LIKE' is not a search condition" in refusal(response)


def test_paging_reaches_every_task(signed_in, app, acme, renewals):
    app.config["PAGE_SIZE"] = 5
    for n in range(1, 13):
        add_task(renewals, f"T{n:02}")
    url = campaign_url(acme, renewals)
    last = page(signed_in, url + "?page=3")
    assert client_ids(last) == ["T11", "T12"]
    assert "page 3 of 3" in last.find("p", class_="count").get_text()
    seen, next_url = [], url
    while next_url:
        shown = page(signed_in, next_url)
        seen += client_ids(shown)
        link = shown.find("a", rel="next")
        next_url = link["href"] if link else None
    assert seen == [f"T{n:02}" for n in range(1, 13)]


def test_paging_keeps_the_search_criteria(signed_in, app, acme, renewals):
    app.config["PAGE_SIZE"] = 5
    for n in range(1, 13):
        add_task(renewals, f"T{n:02}", {"Name": "x", "Parity": "even" if n % 2 == 0 else "odd"})
    shown = page(signed_in, campaign_url(acme, renewals) + "?k=Parity&c=EQUALS&v=even")
    assert client_ids(shown) == ["T02", "T04", "T06", "T08", "T10"]
    second = page(signed_in, shown.find("a", rel="next")["href"])
    assert client_ids(second) == ["T12"]
    assert second.find("a", rel="next") is None
    assert client_ids(page(signed_in, second.find("a", rel="prev")["href"]))[0] == "T02"


@pytest.mark.parametrize(
    "query",
    ["page=%C2%B2", "page=99999999999999999999", "page=-3", "tenant_id=2", "_anchor=x",
     "_external=1", "_method=GET"],
)  # fmt: skip
def test_odd_query_strings_still_show_the_campaign_page(signed_in, acme, renewals, query):
    add_task(renewals, "C1", {"Name": "Ada"})
    soup = page(signed_in, f"{campaign_url(acme, renewals)}?{query}")
    assert "C1" in soup.select_one("table.tasks").get_text()


def test_a_bad_criterion_refuses_the_export_before_it_starts(signed_in, acme, renewals):
    add_task(renewals, "C1", {"Name": "Ada"})
    url = f"{campaign_url(acme, renewals)}/export.csv?k=sys_worked_attempts&c=EQUALS&v=abc"
    response = signed_in.get(url)
    assert response.status_code == 400
    assert b"whole number" in response.data

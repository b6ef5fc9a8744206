"""Every door shows a listed number as not callable: the desk page (no tel: link, the Call
button on the unlisted number), the Desk API (`kind: blocked`, no href, valid against the
published schema) and the supervisors' agent preview and task page."""

from __future__ import annotations

import pytest

from tests.admin.conftest import add_task, page
from tests.api.test_openapi import schema_errors
from tests.conftest import PLATFORM, sc_headers
from tests.desk.desk_support import desk_session, make_agent
from tests.dnc.dnc_support import E164, OTHER, put

DATA = {"Name": "Carla Diaz", "Phone": E164, "MobilePhone": OTHER}


@pytest.fixture
def task(acme, renewals):
    put(acme, E164)
    return add_task(renewals, "c1", DATA)


def dial_links(html) -> list[str]:
    return [a["href"] for a in html.select("a[href^='tel:']")]


def test_the_desk_page_offers_only_the_unlisted_number(client, acme, task):
    desk = desk_session(client, make_agent(acme))
    desk.post("/desk/state", data={"state": "AVAILABLE"})
    shown = page(desk, "/desk").find("article", class_="desk-task")
    call = shown.select_one("form[data-call-form]")
    assert call.find("input", attrs={"name": "phone_key"})["value"] == "MobilePhone"
    assert call.find("button", class_="call").find(class_="number").get_text() == OTHER
    assert f"tel:{OTHER}" in dial_links(shown)
    assert all(link == f"tel:{OTHER}" for link in dial_links(shown))
    assert "Do not call" in shown.select_one('div.detail[data-key="Phone"]').get_text()


def test_the_desk_api_says_blocked_without_a_link(client, tenant, acme, task):
    make_agent(acme, "ann")
    headers = sc_headers("Acme", "prod", "us-east-1", tenant[1])
    body = {"tenant": {"platform": PLATFORM, "companyCode": "Acme", "environment": "prod"},
            "agent": "ann"}  # fmt: skip
    client.post("/desk-api/v1/setAgentState", json={**body, "state": "AVAILABLE"}, headers=headers)
    answer = client.post("/desk-api/v1/nextTask", json=body, headers=headers).get_json()
    document = client.get("/openapi.json").get_json()
    assert schema_errors(document, "NextTaskResponse", answer) == []
    details = {d["key"]: (d["kind"], d["href"]) for d in answer["task"]["agentView"]["details"]}
    assert details["Phone"] == ("blocked", None)
    assert details["MobilePhone"] == ("phone", f"tel:{OTHER}")


@pytest.mark.parametrize("end", ["", "/agent"])
def test_the_supervisors_see_the_task_as_the_agent_does(signed_in, acme, task, end):
    shown = page(signed_in, f"/tenants/{acme.id}/tasks/{task.record_id}{end}")
    view = shown.find("section", class_="agent-view")
    assert dial_links(view) == [f"tel:{OTHER}"]
    assert "Do not call" in view.select_one('div.detail[data-key="Phone"]').get_text()

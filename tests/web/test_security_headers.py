"""Response headers: HSTS over HTTPS, and no caching of pages that show tenant data."""

from __future__ import annotations

import pytest

from app.services.campaigns.catalogue import find_campaign
from tests.admin.conftest import RequestClient, add_task, make_supervisor, sign_in
from tests.conftest import PREVIEW, Api

HSTS = "max-age=31536000; includeSubDomains"


@pytest.fixture
def settings(settings, request) -> dict:
    return {**settings, **getattr(request, "param", {})}


@pytest.fixture
def signed_in(app, tenant):
    app.test_client_class = RequestClient
    client = app.test_client()
    make_supervisor()
    assert sign_in(client).status_code == 302
    return client


@pytest.mark.parametrize(
    ("base_url", "forwarded"),
    [("https://localhost", {}), ("http://localhost", {"X-Forwarded-Proto": "https"})],
)
@pytest.mark.parametrize("settings", [{"TRUST_PROXY": True}], indirect=True)
def test_hsts_is_sent_over_https_also_behind_a_trusted_proxy(client, base_url, forwarded):
    for path in ("/login", "/static/app.css", PREVIEW + "searchPreviewCampaign"):
        with client.get(path, base_url=base_url, headers=forwarded) as response:
            assert response.headers["Strict-Transport-Security"] == HSTS, path


@pytest.mark.parametrize(
    ("settings", "forwarded"),
    [({}, {}), ({}, {"X-Forwarded-Proto": "https"}), ({"TRUST_PROXY": True}, {})],
    indirect=["settings"],
)
def test_no_hsts_over_plain_http_nor_on_an_untrusted_header(client, forwarded):
    response = client.get("/login", headers=forwarded)
    assert "Strict-Transport-Security" not in response.headers


def test_every_signed_in_page_is_not_stored(app, signed_in, tenant):
    acme, _key = tenant
    renewals = find_campaign(acme, "Renewals")
    task = add_task(renewals, "C1")
    for path in (
        "/tenants",
        f"/tenants/{acme.id}/campaigns",
        f"/tenants/{acme.id}/campaigns/{renewals.id}",
        f"/tenants/{acme.id}/campaigns/{renewals.id}/export.csv",
        f"/tenants/{acme.id}/tasks/{task.record_id}",
        f"/tenants/{acme.id}/tasks/{task.record_id}/agent",
        f"/tenants/{acme.id}/users",
        f"/tenants/{acme.id}/keys",
        f"/tenants/{acme.id}/tasks/no-such-task",
    ):
        response = signed_in.get(path)
        assert response.headers.get("Cache-Control") == "no-store", (path, response.status)


def test_the_sign_in_page_and_static_assets_may_be_cached(client):
    for path in ("/login", "/static/app.css"):
        with client.get(path) as response:
            assert "no-store" not in response.headers.get("Cache-Control", ""), path


def test_the_json_apis_neither_read_nor_write_the_session_cookie(app, signed_in, tenant):
    """A signed-in browser's cookie goes along to an API path: the API answers by its headers
    alone, sets no cookie and does not vary on the cookie; the pages keep the session."""
    _acme, key = tenant
    api = Api(signed_in, "Acme", "prod", "us-east-1", key)
    added = api.post("addOrUpdateCampaignRecord", clientId="C9",
                     previewRecordData=[{"key": "Name", "value": "Ann"}])  # fmt: skip
    found = api.post("searchPreviewCampaign", clientId="C9")
    refused = Api(signed_in, "Acme", "prod", "us-east-1", "wrong-key").post(
        "searchPreviewCampaign", clientId="C9"
    )
    assert (added.status_code, found.status_code, refused.status_code) == (200, 200, 401)
    for response in (added, found, refused):
        assert "Set-Cookie" not in response.headers
        assert "Cookie" not in response.headers.get("Vary", "")
    assert signed_in.get("/tenants").status_code == 200  # still signed in


def test_every_json_api_answer_is_not_stored(client, tenant):
    """Answers carry tasks and people's names and numbers: no browser or proxy keeps one,
    whether it succeeded, was refused, or never reached an action."""
    acme, key = tenant
    api = Api(client, "Acme", "prod", "us-east-1", key)
    body = {"tenant": {"platform": "AWS Connect", "companyCode": "Acme", "environment": "prod"}}
    answers = {
        "added": api.post("addOrUpdateCampaignRecord", clientId="C1",
                          previewRecordData=[{"key": "Name", "value": "Ann"}]),
        "found": api.post("searchPreviewCampaign", clientId="C1"),
        "failed": api.post("searchPreviewCampaign", campaignName="No such campaign"),
        "wrong key": Api(client, "Acme", "prod", "us-east-1", "x").post("searchPreviewCampaign"),
        "not json": client.post(PREVIEW + "searchPreviewCampaign", data="x",
                                headers={**api.headers, "Content-Type": "text/plain"}),
        "bad json": client.post(PREVIEW + "searchPreviewCampaign", data="{",
                                headers={**api.headers, "Content-Type": "application/json"}),
        "GET": client.get(PREVIEW + "searchPreviewCampaign"),
        "no such action": client.post(PREVIEW + "nothing", json={}, headers=api.headers),
        "user": client.post("/service-admin/api/users/query-existence", headers=api.headers,
                            json={**body, "loginUserId": "ann@acme.example"}),
        "desk": client.post("/desk-api/v1/nextTask", headers=api.headers,
                            json={**body, "agent": "ann@acme.example"}),
    }  # fmt: skip
    statuses = {name: response.status_code for name, response in answers.items()}
    assert set(statuses.values()) >= {200, 400, 401, 404, 405, 415}, statuses
    for name, response in answers.items():
        assert response.mimetype == "application/json", name
        assert response.headers.get("Cache-Control") == "no-store", name

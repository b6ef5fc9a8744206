"""API_RATE_LIMIT: each tenant (company and environment) has its own count of API requests."""

from __future__ import annotations

import pytest

from app.extensions import limiter
from tests.conftest import Api, make_tenant, sc_headers

LIMIT = 3
USERS = "/service-admin/api/users/query-existence"


@pytest.fixture
def settings(settings, request) -> dict:
    limited = {"RATELIMIT_ENABLED": True, "API_RATE_LIMIT": f"{LIMIT} per minute"}
    return {**settings, **limited, **getattr(request, "param", {})}


@pytest.fixture(autouse=True)
def _fresh_counts(app):
    """Counts start at zero in each test (the in-memory storage outlives an app)."""
    limiter.storage.reset()


@pytest.fixture
def globex(client) -> Api:
    _tenant, key = make_tenant("Globex", "prod")
    return Api(client, "Globex", "prod", "us-east-1", key)


def search(api: Api):
    return api.post("searchPreviewCampaign", clientId="C1")


def test_past_the_limit_a_tenant_gets_429_with_retry_after(api):
    for _ in range(LIMIT):
        assert search(api).status_code == 200
    refused = search(api)
    assert refused.status_code == 429
    assert refused.is_json
    assert refused.get_json()["status"] == 429
    assert 1 <= int(refused.headers["Retry-After"]) <= 60


def test_another_tenant_is_not_counted_with_it(api, globex):
    for _ in range(LIMIT + 1):
        search(api)
    assert search(api).status_code == 429
    assert search(globex).status_code == 200


def test_the_users_api_counts_too_and_answers_result_fail(api):
    headers = sc_headers(api.company, api.environment, api.region, api.key)
    body = {"tenant": {"platform": "AWS Connect", "companyCode": "Acme", "environment": "prod"},
            "loginUserId": "ann"}  # fmt: skip
    for _ in range(LIMIT):
        search(api)
    refused = api.client.post(USERS, json=body, headers=headers)
    assert refused.status_code == 429
    assert refused.get_json()["result"] == "FAIL"
    assert "Retry-After" in refused.headers


def test_a_request_that_fails_authentication_is_not_counted(api):
    stranger = Api(api.client, api.company, api.environment, api.region, "wrong-key")
    for _ in range(LIMIT + 2):
        assert search(stranger).status_code == 401
    assert search(api).status_code == 200


@pytest.mark.parametrize("settings", [{"API_RATE_LIMIT": ""}], indirect=True)
def test_an_empty_setting_turns_the_limit_off(api):
    for _ in range(LIMIT + 2):
        assert search(api).status_code == 200


ONE_CONNECTION = {
    "SQLALCHEMY_ENGINE_OPTIONS": {"pool_size": 1, "max_overflow": 0, "pool_timeout": 2}
}


@pytest.mark.parametrize("settings", [ONE_CONNECTION], indirect=True)
def test_a_request_holds_one_pooled_connection_at_a_time(api):
    """The count is written on a connection of its own: the key check gives the request's
    connection back first, or busy threads would each hold one and wait for a second."""
    for _ in range(LIMIT):
        assert search(api).status_code == 200
    assert search(api).status_code == 429


def test_flask_limiter_resolves_no_limit_for_an_api_request_but_does_for_a_page(
    api, client, monkeypatch
):
    """The APIs count their own limit: Flask-Limiter's check before each request leaves
    their paths at once (app/extensions.py), and still runs for the pages."""
    resolved = []
    resolve = limiter.limit_manager.resolve_limits

    def spy(app, endpoint, *args, **kwargs):
        resolved.append(endpoint)
        return resolve(app, endpoint, *args, **kwargs)

    monkeypatch.setattr(limiter.limit_manager, "resolve_limits", spy)
    assert search(api).status_code == 200
    assert resolved == []
    assert client.get("/login").status_code == 200
    assert set(resolved) == {"admin.login"}

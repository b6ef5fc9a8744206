"""Fixtures the whole suite shares (registered by `pytest_plugins` in tests/conftest.py):
Acme's agents ann and bob, the published OpenAPI document, and the Desk API called as
Acme/prod with each answer checked against the published schema.

A package or module that needs them otherwise defines its own under the same name (an
agent of other queues, the desk signed in through the page): the nearer one wins."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from app.models import User
from tests.api.test_openapi import schema_errors
from tests.conftest import PLATFORM, sc_headers
from tests.delivery.delivery_support import make_agent

DESK = "/desk-api/v1/"
DESK_RESPONSES = {
    "setAgentState": "AgentStateResponse",
    "nextTask": "NextTaskResponse",
    "releaseTask": "TaskResponse",
    "closeTask": "TaskResponse",
    "startCall": "StartCallResponse",
    "callEvent": "CallEventResponse",
    "taskAttempts": "TaskAttemptsResponse",
}


@pytest.fixture
def ann(acme) -> User:
    """Agent ann of Acme, working Sales (OFFLINE)."""
    return make_agent(acme, "ann")


@pytest.fixture
def bob(acme) -> User:
    """Agent bob of Acme, working Sales (OFFLINE)."""
    return make_agent(acme, "bob")


@pytest.fixture
def document(client) -> dict:
    """The published OpenAPI document, as /openapi.json serves it."""
    response = client.get("/openapi.json")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    return response.get_json()


@pytest.fixture
def desk_api(client, tenant, document) -> Callable[..., dict]:
    """desk_api(action, **fields): POST a Desk API action as tenant Acme/prod; the JSON
    answer, once its status is 200 and it matches the published schema of the action's
    answer."""
    _tenant, key = tenant
    headers = sc_headers("Acme", "prod", "us-east-1", key)
    identity = {"platform": PLATFORM, "companyCode": "Acme", "environment": "prod"}

    def call(action: str, **fields) -> dict:
        response = client.post(DESK + action, json={"tenant": identity, **fields}, headers=headers)
        assert response.status_code == 200, response.data
        answer = response.get_json()
        assert schema_errors(document, DESK_RESPONSES[action], answer) == [], answer
        return answer

    return call

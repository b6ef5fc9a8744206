"""Calling the User Provisioning API as one tenant, shared by the user and Amazon Connect tests."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

from app.extensions import db
from app.models import LocalInstanceUser, Tenant, User
from app.services.tenants.setup import TemplateSettings, create_user_template
from tests.conftest import PLATFORM, SETUP, sc_headers

USERS = "/service-admin/api/users/"
OPERATIONS = ("add-user", "query-existence", "delete-user")
RESULTS = {
    "SUCCESS",
    "UNAUTHORIZED",
    "INVALID_TENANT",
    "INVALID_ARGUMENTS",
    "ALREADY_EXISTS",
    "NOT_SUPPORTED",
    "NOT_FOUND",
    "FAIL",
}
MISSING = object()  # a field value meaning "leave the field out of the body"
PERSON = {"firstName": "Alice", "lastName": "Smith", "userTemplateName": "Agent"}


@dataclass
class UsersApi:
    """Calls the User Provisioning API with one tenant's headers and `tenant` object."""

    client: Any
    company: str
    environment: str
    key: str
    region: str = "us-east-1"

    @property
    def headers(self) -> dict:
        return sc_headers(self.company, self.environment, self.region, self.key)

    @property
    def tenant(self) -> dict:
        return {"platform": PLATFORM, "companyCode": self.company, "environment": self.environment}

    def post(self, operation: str, **fields):
        """POST `tenant` plus `fields` (MISSING ones left out); the raw response."""
        body = {k: v for k, v in {"tenant": self.tenant, **fields}.items() if v is not MISSING}
        data = json.dumps(body)  # the stdlib encoder, so a test may send integers past 64 bits
        return self.client.post(
            USERS + operation, data=data, content_type="application/json", headers=self.headers
        )

    def call(self, operation: str, **fields) -> dict:
        return answer_of(self.post(operation, **fields), operation)

    def add(self, login: str = "alice", **fields) -> dict:
        return self.call("add-user", **{"loginUserId": login, **PERSON, **fields})

    def query(self, login: str = "alice") -> dict:
        return self.call("query-existence", loginUserId=login)

    def delete(self, login: str = "alice") -> dict:
        return self.call("delete-user", loginUserId=login)


def answer_of(response, operation: str) -> dict:
    """The JSON of an HTTP 200 answer, checked against the common response of the spec."""
    assert response.status_code == 200, response.data
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert body["result"] in RESULTS, body
    assert isinstance(body["message"], str) and body["message"].strip(), body
    if operation == "add-user":
        assert "connectUserId" in body, body
    if operation == "query-existence":
        assert {"amazonConnectStatus", "connectUserId"} <= body.keys(), body
    return body


def users_api(
    client,
    tenant: Tenant,
    key: str,
    template: str = "Agent",
    settings: TemplateSettings | None = None,
) -> UsersApi:
    """A UsersApi for a committed tenant, after giving it a user template."""
    create_user_template(tenant, template, settings, actor=SETUP)
    db.session.commit()
    return UsersApi(client, tenant.company_code, tenant.environment, key)


def stored_user(tenant: Tenant, login: str) -> User | None:
    db.session.expire_all()
    return db.session.scalar(select(User).filter_by(tenant_id=tenant.id, login_user_id=login))


def count(model) -> int:
    db.session.expire_all()
    return db.session.scalar(select(func.count()).select_from(model))


def instance_user(user_id: str) -> LocalInstanceUser | None:
    db.session.expire_all()
    return db.session.scalar(select(LocalInstanceUser).filter_by(user_id=user_id))

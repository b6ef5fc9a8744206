"""A tenant's SCIM endpoints as an identity provider calls them: Acme/prod with a SCIM
token, user templates Agent (Sales) and Lead (Support), Agent the provisioning template."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta

import pytest

from app.extensions import db
from app.services.tenants import api_keys, provisioning
from app.services.tenants import setup as tenants
from tests.conftest import SETUP

BASE = "/scim/v2/Acme/prod"
SCIM_JSON = "application/scim+json"
USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp"


@dataclass
class Scim:
    """The Flask client as an identity provider: its token on every request."""

    client: object
    token: str

    def call(self, method: str, path: str, body=None, headers=None, token=None, query_string=None):
        sent = {"Authorization": f"Bearer {token or self.token}", **(headers or {})}
        data = json.dumps(body) if body is not None else None
        if data is not None:
            sent.setdefault("Content-Type", "application/scim+json")
        url = path if path.startswith("/scim/") else BASE + path
        return self.client.open(
            url, method=method, data=data, headers=sent, query_string=query_string
        )

    def get(self, path, **kw):
        return self.call("GET", path, **kw)

    def post(self, path, body, **kw):
        return self.call("POST", path, body, **kw)

    def put(self, path, body, **kw):
        return self.call("PUT", path, body, **kw)

    def patch(self, path, operations, **kw):
        return self.call("PATCH", path, {"schemas": [PATCH_OP], "Operations": operations}, **kw)

    def delete(self, path, **kw):
        return self.call("DELETE", path, **kw)


def user_body(login: str = "ann@acme.example", **extra) -> dict:
    body = {
        "schemas": [USER_SCHEMA],
        "userName": login,
        "name": {"givenName": "Ann", "familyName": "Agent"},
        "emails": [{"value": login, "type": "work", "primary": True}],
        "active": True,
    }
    return {**body, **extra}


@pytest.fixture
def provisioned(acme):
    tenants.create_user_template(acme, "Agent", skill_queues=["Sales"], actor=SETUP)
    tenants.create_user_template(acme, "Lead", skill_queues=["Support"], actor=SETUP)
    provisioning.set_provisioning(acme, "Agent", False, actor=SETUP)
    db.session.commit()
    return acme


@pytest.fixture
def scim(client, provisioned) -> Scim:
    token = api_keys.rotate_key(provisioned, timedelta(0), actor=SETUP, purpose=api_keys.SCIM)
    db.session.commit()
    return Scim(client, token)

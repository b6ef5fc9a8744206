"""scim2-tester, the SCIM conformance checks (RFC 7643, RFC 7644), against a live server:
discovery, then create, read (with attributes and excludedAttributes), replace, patch
(add, replace, remove of every published attribute) and delete of Users, each answer
checked against the schemas the endpoints publish. Every check passes or is one the
service does not claim (skipped)."""

from __future__ import annotations

import collections

import pytest
from httpx2 import Client
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_tester import Status, check_server

from tests.browser.shared import live_server  # noqa: F401 - the session's gunicorn
from tests.scim.conftest import BASE

pytestmark = pytest.mark.server

PASSED = {Status.SUCCESS, Status.COMPLIANT, Status.SKIPPED}


def test_every_conformance_check_passes_against_a_live_server(scim, live_server):  # noqa: F811
    bearer = {"Authorization": f"Bearer {scim.token}"}
    http = Client(base_url=live_server.url + BASE, headers=bearer, timeout=30)
    with http:
        results = check_server(SyncSCIMClient(http))
    failed = [f"{r.status.name} {r.resource_type} {r.title}: {r.reason}" for r in results
              if r.status not in PASSED]  # fmt: skip
    assert not failed, "\n".join(failed)
    counted = collections.Counter(r.status for r in results)
    # Discovery, CRUD and a patch of each published attribute: far more than a handful.
    assert counted[Status.SUCCESS] >= 40, counted

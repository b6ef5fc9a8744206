"""add-user's e-mail rule: a syntactically valid address is accepted even when its domain is
an internal (special-use) one that directory-linked environments use, like corp.local; a
malformed address, or a domain that is never a mail domain, is refused."""

from __future__ import annotations

import pytest

from app.models import User
from tests.api.users_support import count, stored_user, users_api
from tests.conftest import make_tenant

INTERNAL = [
    "ann@corp.local",
    "ann.lee@ad.corp.local",
    "ann@mail.localhost",
    "ann@router.home.arpa",
    "ann@lab.test",
    "ann@intranet.internal",
    "ann@corp.lan",
    "Ann+alerts@Corp.Local",
]
MALFORMED = [
    "ann@",
    "@corp.local",
    "ann smith@corp.local",
    "ann@corp..local",
    "ann@-corp.local",
    "ann@corp.local.",
    "ann@@corp.local",
    "ann@localhost",  # no period: not a mail domain even inside a network
    "ann@corp.invalid",  # reserved to never exist
    "ann@abc.onion",
]


@pytest.fixture
def directory(client):
    tenant, key = make_tenant("Dir", "prod", auth_mode="directory")
    return tenant, users_api(client, tenant, key)


@pytest.mark.parametrize("address", INTERNAL)
def test_an_address_at_an_internal_domain_is_accepted(directory, address):
    tenant, api = directory
    answer = api.add("ann", primaryEmailAddr=address, secondaryEmailAddr=address)
    assert answer["result"] == "SUCCESS", answer
    user = stored_user(tenant, "ann")
    local, _, domain = address.partition("@")
    assert user.primary_email == user.secondary_email == f"{local}@{domain.lower()}"


@pytest.mark.parametrize("field", ["primaryEmailAddr", "secondaryEmailAddr"])
@pytest.mark.parametrize("address", MALFORMED)
def test_a_malformed_address_is_still_refused(directory, field, address):
    _tenant, api = directory
    fields = {"primaryEmailAddr": "ann@corp.local", field: address}
    answer = api.add("ann", **fields)
    assert answer["result"] == "INVALID_ARGUMENTS", answer
    assert field in answer["message"]
    assert count(User) == 0

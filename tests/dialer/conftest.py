"""The dialler's tests run on the web UI's fixtures (the same app, client and supervisors),
with agents ann and bob of queue Sales, and Amazon Connect stubbed."""

import pytest

from tests.admin.conftest import (  # noqa: F401
    app,
    boss,
    client,
    signed_in,
)
from tests.contact_centre.connect_support import connect_client  # noqa: F401
from tests.delivery.delivery_support import make_agent


@pytest.fixture
def ann(acme):
    return make_agent(acme, "ann")


@pytest.fixture
def bob(acme):
    return make_agent(acme, "bob")

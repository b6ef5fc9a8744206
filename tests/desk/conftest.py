"""The desk's tests run on the web UI's fixtures (the same app, client and supervisors), with
an agent of queue Sales signed in to the desk's page."""

import pytest

from app.models import User
from tests.admin.conftest import (  # noqa: F401
    app,
    boss,
    client,
    settings,
    signed_in,
)
from tests.desk.desk_support import desk_session, make_agent


@pytest.fixture
def agent(acme) -> User:
    """An agent of Acme working Sales, with a desk password (a module may make another)."""
    return make_agent(acme, queues=("Sales",))


@pytest.fixture
def desk(client, agent):  # noqa: F811 - the web UI's client, imported above
    """The client, signed in to the desk as the agent."""
    return desk_session(client, agent)

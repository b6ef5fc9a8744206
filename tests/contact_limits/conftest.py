"""The contact limits' tests run on the calls' fixtures: the web UI's app, client and
supervisors, agents ann and bob of queue Sales (Renewals' queue)."""

from tests.calls.conftest import ann, bob  # noqa: F401
from tests.calls.test_desk_api_calls import desk, document  # noqa: F401 - the Desk API
from tests.ui.conftest import (  # noqa: F401
    app,
    boss,
    client,
    settings,
    signed_in,
)

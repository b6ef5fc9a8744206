"""The calling rules' tests run on the calls' fixtures: the web UI's app, client and
supervisors, agents ann and bob of queue Sales (Renewals' queue)."""

from tests.admin.conftest import (  # noqa: F401
    app,
    boss,
    client,
    settings,
    signed_in,
)
from tests.dialer.test_desk_api_calls import desk  # noqa: F401 - the Desk API

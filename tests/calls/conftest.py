"""The ledger's tests run on the web UI's fixtures: the same app, client and supervisors."""

from tests.calls.connect_support import connect_client  # noqa: F401, E402
from tests.ui.conftest import (  # noqa: F401
    app,
    boss,
    client,
    signed_in,
)

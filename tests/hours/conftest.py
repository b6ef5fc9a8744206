"""The hours tests run on the web UI's fixtures (app, client, supervisors) and the desk's."""

from tests.desk.desk_support import _cheap_agent_hashes  # noqa: F401
from tests.ui.conftest import (  # noqa: F401
    _cheap_password_hashes,
    app,
    boss,
    client,
    settings,
    signed_in,
)

"""The do-not-call tests run on the web UI's fixtures: the same app, client and supervisors."""

from tests.desk.desk_support import _cheap_agent_hashes  # noqa: F401
from tests.ui.conftest import (  # noqa: F401
    _cheap_password_hashes,
    app,
    boss,
    client,
    settings,
    signed_in,
)

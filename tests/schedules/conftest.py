"""The hours tests run on the web UI's fixtures (app, client, supervisors) and the desk's."""

from tests.ui.conftest import (  # noqa: F401
    app,
    boss,
    client,
    settings,
    signed_in,
)

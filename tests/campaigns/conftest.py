"""The campaign life cycle's tests run on the web UI's fixtures: the same app, client and
supervisors as the desk's."""

from tests.admin.conftest import (  # noqa: F401
    app,
    boss,
    client,
    settings,
    signed_in,
)

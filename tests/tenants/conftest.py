"""The tenants' tests run on the web UI's fixtures: the same app, client and supervisors."""

from tests.admin.conftest import (  # noqa: F401
    app,
    boss,
    client,
    settings,
    signed_in,
)

"""The dialler's tests run on the web UI's fixtures (the same app, client and supervisors),
with Amazon Connect stubbed."""

from tests.admin.conftest import (  # noqa: F401
    app,
    boss,
    client,
    signed_in,
)
from tests.contact_centre.connect_support import connect_client  # noqa: F401

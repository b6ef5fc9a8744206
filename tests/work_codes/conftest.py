"""Work codes' tests run on the web UI's fixtures (the desk's), with the groups of `cases`."""

import pytest

from tests.admin.conftest import (  # noqa: F401
    app,
    boss,
    client,
    settings,
    signed_in,
)
from tests.work_codes.cases import make_groups


@pytest.fixture
def groups(acme):
    """Sales offers Result (required, single) and Topics (optional, multiple); Elsewhere
    belongs to the tenant but to no queue of Sales."""
    return make_groups(acme)

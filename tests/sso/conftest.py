"""Single sign-on tests run on the web UI's fixtures: the same app, client and supervisors;
the browser tests of every provider share one Chromium and one live server (fixtures of the
package, imported once here: imported by each module, each would start its own).

The providers these tests run (SAML, OpenID, the directory) listen on this machine, which
the outbound guard refuses by default: here, and only here, the settings allow loopback."""

from collections.abc import Iterator

import pytest

from tests.admin.conftest import (  # noqa: F401
    app,
    boss,
    client,
    signed_in,
)
from tests.browser.conftest import (  # noqa: F401
    WORKERS,
    browser,
    chromium_executable,
    tab,
)
from tests.servers import LiveServer, gunicorn
from tests.sso.ldap_directory import silent_port  # noqa: F401
from tests.sso.outbound_sites import names, sites  # noqa: F401

LOOPBACK = "127.0.0.0/8,::1/128"


@pytest.fixture
def settings(settings, request):
    """The test settings with loopback allowed, changed by a test's indirect parametrize."""
    return {**settings, "OUTBOUND_ALLOW_NETWORKS": LOOPBACK, **getattr(request, "param", {})}


@pytest.fixture(scope="package")
def live_server(database_uri, _schema, tmp_path_factory) -> Iterator[LiveServer]:
    """The browser tests' gunicorn, allowed to reach the providers on loopback."""
    log = tmp_path_factory.mktemp("gunicorn") / "gunicorn.log"
    env = {"OUTBOUND_ALLOW_NETWORKS": LOOPBACK}
    with gunicorn(database_uri, log, WORKERS, "browser-test-secret", env=env) as server:
        yield server

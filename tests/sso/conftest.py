"""Single sign-on tests run on the web UI's fixtures: the same app, client and supervisors;
the browser tests of every provider share the test process's Chromium and a live server
allowed to reach loopback (tests/browser/shared.py), and the OpenID tests one provider.

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
from tests.browser.shared import LOOPBACK
from tests.servers import LiveServer
from tests.sso.ldap_directory import silent_port  # noqa: F401
from tests.sso.oidc_support import OpenIdProvider, running_provider
from tests.sso.outbound_sites import names, sites  # noqa: F401


@pytest.fixture
def settings(settings, request):
    """The test settings with loopback allowed, changed by a test's indirect parametrize."""
    return {**settings, "OUTBOUND_ALLOW_NETWORKS": LOOPBACK, **getattr(request, "param", {})}


@pytest.fixture(scope="session")
def live_server(loopback_live_server) -> LiveServer:
    """The browser tests' gunicorn, allowed to reach the providers on loopback (one per test
    process, tests/browser/shared.py)."""
    return loopback_live_server


@pytest.fixture(scope="session")
def openid_provider(tmp_path_factory) -> Iterator[OpenIdProvider]:
    """The real OpenID provider, started once per test process for every module here."""
    yield from running_provider(tmp_path_factory)

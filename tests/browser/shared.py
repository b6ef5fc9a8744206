"""The browser tests' expensive set-ups, made once per test process and shared by every
package that drives Chromium (tests/browser, tests/sso, tests/work_codes): the browser, and
the gunicorn servers of the settings several files need. A plugin of tests/conftest.py, so
that each is one fixture of the session (a fixture imported into two packages' conftest
files would be two, each started once per package).

Sharing a server is safe because each test seeds the database through `app`, which empties
the tables first, and opens its own browser context (its own cookies and sign-in)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, REPORT_CSP_VIOLATIONS, WORKERS, Tab
from tests.servers import LiveServer, gunicorn

SECRET = "browser-test-secret"
# The providers the sign-in tests run listen on this machine, which the outbound guard
# refuses by default: their server, and only theirs, allows loopback.
LOOPBACK = "127.0.0.0/8,::1/128"


@pytest.fixture(scope="session")
def chromium_executable() -> str:
    if os.environ.get("SKIP_BROWSER_TESTS") == "1":
        pytest.skip("SKIP_BROWSER_TESTS=1")
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(
            f"The browser tests need Debian's Chromium at {CHROMIUM}, which is missing. "
            "Install it with `make browser` (apt-get install chromium), or set "
            "SKIP_BROWSER_TESTS=1 to skip these tests.",
            pytrace=False,
        )
    return CHROMIUM


@pytest.fixture(scope="session")
def browser(chromium_executable) -> Iterator[Browser]:
    """One headless Chromium for the test process; each test gets its own context."""
    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(
            executable_path=chromium_executable, args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield browser
        finally:
            browser.close()
    finally:
        playwright.stop()


def _server(tmp_path_factory, database_uri: str, name: str, workers: int, env: dict):
    log = tmp_path_factory.mktemp(name) / "gunicorn.log"
    with gunicorn(database_uri, log, workers, SECRET, env=env) as server:
        yield server


@pytest.fixture(scope="session")
def live_server(database_uri, _schema, tmp_path_factory) -> Iterator[LiveServer]:
    """gunicorn (2 workers) on a free port of 127.0.0.1, with production settings (CSRF
    and all) on the test database. Each test seeds that database through `app`."""
    yield from _server(tmp_path_factory, database_uri, "gunicorn", WORKERS, {})


@pytest.fixture(scope="session")
def loopback_live_server(database_uri, _schema, tmp_path_factory) -> Iterator[LiveServer]:
    """The sign-in tests' gunicorn: `live_server`, allowed to reach the providers on
    loopback (tests/sso's `live_server`)."""
    env = {"OUTBOUND_ALLOW_NETWORKS": LOOPBACK}
    yield from _server(tmp_path_factory, database_uri, "gunicorn-loopback", WORKERS, env)


@pytest.fixture(scope="session")
def one_stream_server(database_uri, _schema, tmp_path_factory) -> Iterator[LiveServer]:
    """gunicorn (1 worker) allowing one live stream a sign-in (LIVE_STREAMS_PER_SESSION=1):
    the desk's and the wallboard's second tab are refused theirs (429)."""
    env = {"LIVE_STREAMS_PER_SESSION": "1"}
    yield from _server(tmp_path_factory, database_uri, "gunicorn-one-stream", 1, env)


@pytest.fixture
def tab(browser, live_server) -> Iterator[Tab]:
    context = browser.new_context(
        viewport={"width": 1600, "height": 900},
        device_scale_factor=1,
        color_scheme="light",
        locale="en-GB",
        timezone_id="UTC",
    )
    context.set_default_timeout(10_000)
    context.add_init_script(REPORT_CSP_VIOLATIONS)
    try:
        yield Tab(context.new_page(), live_server.url)
    finally:
        context.close()

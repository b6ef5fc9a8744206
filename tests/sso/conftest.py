"""Single sign-on tests run on the web UI's fixtures: the same app, client and supervisors;
the browser tests of every provider share one Chromium and one live server (fixtures of the
package, imported once here: imported by each module, each would start its own)."""

from tests.browser.conftest import (  # noqa: F401
    browser,
    chromium_executable,
    live_server,
    tab,
)
from tests.ui.conftest import (  # noqa: F401
    app,
    boss,
    client,
    settings,
    signed_in,
)

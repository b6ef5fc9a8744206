"""Browser fixtures: Debian's Chromium driven by Playwright, against a real gunicorn.

No browser is ever downloaded: Playwright launches the system Chromium through
`executable_path` (`make browser` installs it). A missing Chromium fails the tests with
a message saying so, unless SKIP_BROWSER_TESTS=1 asks to skip them.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import ConsoleMessage, Error, Page

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-output" / "screenshots"
README_SCREENSHOTS = ROOT / "static" / "readme"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-dev-shm-usage",
]
WORKERS = 2
# Chromium reports a blocked script or style on the console ("Refused to ... because it
# violates the following Content Security Policy directive"); the init script below also
# turns every `securitypolicyviolation` event into a console error, so none goes unseen.
CSP_MARKERS = ("Content Security Policy", "Refused")
REPORT_CSP_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`Content Security Policy violation: ${event.violatedDirective}`
    + ` blocked ${event.blockedURI || "inline code"}`);
});
"""


@dataclass
class Tab:
    """A page of a fresh browser context that notes every console error, page error and
    Content-Security-Policy violation, and saves full-page screenshots."""

    page: Page
    base_url: str
    problems: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.page.on("console", self._console)
        self.page.on("pageerror", self._page_error)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error" or any(marker in message.text for marker in CSP_MARKERS):
            self.problems.append(f"console {message.type} on {self.page.url}: {message.text}")

    def _page_error(self, error: Error) -> None:
        self.problems.append(f"page error on {self.page.url}: {error}")

    def goto(self, path: str):
        return self.page.goto(self.base_url + path)

    def shot(self, name: str) -> Path:
        """Save a full-page screenshot, then check the page so far logged no problem
        (the screenshot's round trip also lets pending console events arrive)."""
        self.page.wait_for_load_state("load")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=path, full_page=True, animations="disabled")
        self.assert_no_problems()
        return path

    def page_width(self) -> list[int]:
        """The page's scroll and client widths, once it has loaded: a page whose text is
        already there may still be waiting for its stylesheet, and lay out unstyled."""
        self.page.wait_for_load_state("load")
        return self.page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )

    def assert_no_problems(self) -> None:
        csp = [p for p in self.problems if any(marker in p for marker in CSP_MARKERS)]
        assert not csp, "Content-Security-Policy violations:\n" + "\n".join(csp)
        assert not self.problems, "console or page errors:\n" + "\n".join(self.problems)


def copy_to_readme(screenshot: Path, name: str) -> None:
    """With UPDATE_README_SCREENSHOTS=1, copy the screenshot to static/readme/NAME."""
    if os.environ.get("UPDATE_README_SCREENSHOTS") == "1":
        README_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(screenshot, README_SCREENSHOTS / name)

"""A refused form in Chromium, at 1280 and 390 px: the focus starts on the summary at the
top (so a screen reader reads it first), and its link puts the focus in the field at fault,
its label in view."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Tab
from tests.browser.test_task_editing import Seed, _open, _refused, seed  # noqa: F401

pytestmark = pytest.mark.server


@pytest.mark.parametrize("width", [1280, 390])
def test_the_focus_is_on_the_summary_and_its_link_goes_to_the_field(tab: Tab, seed: Seed, width):  # noqa: F811
    tab.page.set_viewport_size({"width": width, "height": 800})
    page = _open(tab, seed.url)
    status = page.locator("#status")
    field = status.get_by_label("Next earliest time")
    field.fill("")  # WORKED needs one: refused
    status.get_by_role("button", name="Change status").click()

    summary = page.get_by_role("alert").filter(has_text="There is a problem")
    expect(summary).to_be_focused()
    expect(summary).to_be_in_viewport()
    _refused(tab)
    assert tab.page_width()[0] <= width  # the summary fits the width, no sideways scroll
    tab.shot(f"error-summary-{width}px")

    summary.get_by_role("link", name="Next earliest time").click()
    expect(field).to_be_focused()
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(status.locator("label[for='status-next_time']")).to_be_in_viewport()
    expect(page.locator("#status-next_time-error")).to_contain_text(
        "Next earliest time is required"
    )
    tab.assert_no_problems()

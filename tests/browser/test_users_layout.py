"""The Users page at a phone's width (390 px): the page never scrolls sideways; each user
is a card, its Delete button on screen, and deleting a user asks first."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.services.people import supervisors
from app.services.people.users import NewUser, add_user
from app.services.tenants.setup import create_user_template
from tests.browser.conftest import Tab
from tests.conftest import SETUP, make_tenant

pytestmark = pytest.mark.server

EMAIL = "narrow@acme.example"
PASSWORD = "pocket-screen-390-wide"
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def users_path(app) -> str:
    supervisors.create_supervisor(EMAIL, PASSWORD, actor=SETUP)
    tenant, _key = make_tenant()
    create_user_template(tenant, "Agent", actor=SETUP)
    db.session.commit()
    for number in range(3):
        login = f"agent.number{number}.with.a.long.login@acme-corporation.example"
        add_user(
            tenant,
            NewUser(login, "Alexandra", "Montgomery-Smithson", "Agent", None, None, True),
            actor=SETUP,
        )
    path = f"/tenants/{tenant.id}/users"
    db.session.commit()  # hold no transaction: the server's writes would wait on it
    return path


def test_the_users_page_fits_a_phone_and_its_table_scrolls_in_its_own_box(tab: Tab, users_path):
    page = tab.page
    page.set_viewport_size(PHONE)
    tab.goto(users_path)
    page.locator("#email").fill(EMAIL)
    page.locator("#password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Users", exact=True)).to_be_visible()
    tab.shot("users-390px")

    assert tab.page_width() == [PHONE["width"], PHONE["width"]]
    box = page.locator("table.users").locator("xpath=..")
    scroll_width, client_width = box.evaluate("box => [box.scrollWidth, box.clientWidth]")
    assert scroll_width <= client_width <= PHONE["width"]  # each user a card: nothing aside

    delete = page.get_by_role("button", name="Delete user agent.number0", exact=False)
    delete.scroll_into_view_if_needed()
    delete.click()
    expect(
        page.get_by_role("heading", name="Delete user agent.number0", exact=False)
    ).to_be_visible()
    assert tab.page_width()[0] == PHONE["width"]
    tab.shot("user-delete-390px")

"""An agent of a directory tenant, in headless Chromium against a real gunicorn and a real
OpenLDAP: signs in on the tenant's own page with the directory's user name and password
(StartTLS, the directory's certificate checked), takes a task and closes it with a work code;
the page fits a phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.services.sso import ldap, providers
from tests.admin.conftest import BOSS, PASSWORD, add_task, make_supervisor
from tests.browser.conftest import Tab
from tests.browser.test_desk_flow import state_button
from tests.conftest import SETUP
from tests.desk.desk_support import AGENT, make_agent
from tests.sso.ldap_directory import PEOPLE, TEMPLATE, directory  # noqa: F401
from tests.work_codes.cases import make_groups
from tests.work_codes.test_browser import stored

pytestmark = pytest.mark.server

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def seeded(acme, renewals, directory):  # noqa: F811
    """Ann of Sales (her desk password unused: the directory's is asked), Acme's directory,
    the work codes of Sales and one task, committed (the server writes next)."""
    make_groups(acme)
    make_agent(acme, queues=("Sales",))
    settings = ldap.settings_from(directory.ldap_url, TEMPLATE, True, 3, directory.ca_file)
    providers.set_provider(acme, "ldap", settings, actor=SETUP)
    record_id = add_task(renewals, "c1", {"Name": "Carla Diaz", "Phone": "+14155550100"}).record_id
    db.session.commit()  # hold no transaction: on SQLite it would block the server's writes
    return record_id


def test_an_agent_signs_in_with_the_directory_and_closes_a_task(tab: Tab, seeded):  # noqa: F811
    page = tab.page
    page.set_viewport_size(PHONE)
    tab.goto("/desk/login/Acme/prod")
    expect(
        page.get_by_text("Your company user name and password, or your password of this desk.")
    ).to_be_visible()
    page.get_by_label("Login user id").fill(AGENT)
    page.get_by_label("Password").fill("not the directory's password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator(".field-error")).to_contain_text("Invalid company, environment")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    tab.problems.clear()  # the refused form's 422, which Chromium notes as a failed load

    page.get_by_label("Password").fill(PEOPLE[AGENT])
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/desk$"))
    state_button(page, "Available").click()
    expect(page.locator("article.desk-task")).to_have_attribute("data-record-id", seeded)
    page.get_by_role("radio", name=re.compile("^Sale")).check()
    page.get_by_role("button", name="Complete", exact=True).click()
    expect(page.locator(".notice")).to_contain_text("Task closed: completed")
    assert stored(seeded)[:3] == ("COMPLETED", 1, [("Result", "Sale")])
    tab.shot("desk-directory-sign-in-390")


def test_a_supervisor_sets_the_directory_on_a_phone(tab: Tab, acme, directory):  # noqa: F811
    make_supervisor()
    tenant_id = acme.id
    db.session.commit()
    page = tab.page
    page.set_viewport_size(PHONE)
    tab.goto(f"/tenants/{tenant_id}/sign-in")
    page.locator("#email").fill(BOSS)
    page.locator("#password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Sign-in", exact=True)).to_be_visible()
    page.get_by_label("Directory address").fill(directory.ldap_url)
    page.get_by_label("Bind DN template").fill(TEMPLATE)
    page.get_by_role("button", name="Sign agents in with this directory").click()
    expect(page.locator("#ldap-error")).to_contain_text("start_tls is needed")
    assert page.get_by_label("Bind DN template").input_value() == TEMPLATE  # kept
    tab.problems.clear()  # the refused form's 422
    page.get_by_label("Use StartTLS").check()
    page.get_by_role("button", name="Sign agents in with this directory").click()
    expect(page.locator(".notice")).to_contain_text("Agents now sign in with their directory")
    expect(page.locator("dl.provider-settings")).to_contain_text(directory.ldap_url)
    tab.shot("sign-in-settings-390")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

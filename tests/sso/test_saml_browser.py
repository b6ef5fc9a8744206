"""An agent signs in to the desk through a SAML identity provider's own sign-in form, in
headless Chromium against a real gunicorn, and works a task."""

from __future__ import annotations

import re

import pytest
import requests
from playwright.sync_api import expect

from app.demo import tenant as demo
from app.extensions import db
from app.models import ProviderKind, WorkedState
from app.services.sso import providers, saml
from app.services.tenants.setup import find_tenant
from tests.browser.conftest import Tab
from tests.browser.test_desk_flow import Desk, desk, offered, state_button, stored  # noqa: F401
from tests.conftest import PLATFORM, SETUP
from tests.sso.saml_fixtures import identity_provider  # noqa: F401 - a fixture
from tests.sso.saml_idp import Person

pytestmark = pytest.mark.server

IDP_PASSWORD = "the provider's own password"  # noqa: S105 - a test's


def test_an_agent_signs_in_through_the_providers_form_and_works_a_task(
    tab: Tab,  # noqa: F811
    desk: Desk,  # noqa: F811
    identity_provider,  # noqa: F811
):
    idp = identity_provider
    tenant = find_tenant(PLATFORM, demo.COMPANY, demo.ENVIRONMENT)
    settings = saml.settings_from(idp.metadata(), None)
    providers.set_provider(tenant, ProviderKind.SAML, settings, actor=SETUP)
    db.session.commit()
    realm = f"/desk/sso/{demo.COMPANY}/{demo.ENVIRONMENT}/saml"
    idp.trust(requests.get(f"{tab.base_url}{realm}/metadata", timeout=5).text)
    idp.people[demo.JANE.login] = Person(IDP_PASSWORD)

    page = tab.page
    tab.goto(f"/desk/login/{demo.COMPANY}/{demo.ENVIRONMENT}")
    page.get_by_role("button", name="Sign in with your company account").click()
    expect(page).to_have_url(re.compile(re.escape(idp.base_url) + r"/sso\?SAMLRequest="))
    page.get_by_label("User name").fill(demo.JANE.login)
    page.get_by_label("Password").fill(IDP_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/desk$"))
    expect(page.locator(".agent-name")).to_have_text(
        f"{demo.JANE.first_name} {demo.JANE.last_name}"
    )

    state_button(page, "Available").click()
    first = offered(page)
    page.get_by_role("button", name="Complete", exact=True).click()
    expect(page.locator("article.desk-task")).not_to_have_attribute("data-record-id", first)
    assert stored(first).worked_state == WorkedState.COMPLETED
    tab.assert_no_problems()

"""An agent signs in to the desk through the real OpenID provider in headless Chromium
(against a real gunicorn), then works a task."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from app.demo import tenant as demo
from app.extensions import db
from app.models import WorkedState
from app.services.actors import Actor
from app.services.sso import oidc, providers
from app.services.tenants.setup import find_tenant
from tests.browser.test_desk_flow import offered, state_button, stored
from tests.conftest import PLATFORM, SETUP
from tests.sso.oidc_support import DESK_CLIENT

pytestmark = pytest.mark.server


@pytest.fixture
def democo(app, tmp_path, openid_provider, monkeypatch):
    """The demo data, its tenant signing agents in through the provider (Jane has an
    account there with her login as e-mail address); the client secret sealed under the
    server's key."""
    monkeypatch.setitem(app.config, "SECRET_KEY", "browser-test-secret")
    demo.seed(PLATFORM, str(tmp_path), actor=Actor.operator())
    tenant = find_tenant(PLATFORM, demo.COMPANY, demo.ENVIRONMENT)
    settings = oidc.settings_from(openid_provider.issuer, DESK_CLIENT[0], "email")
    providers.set_provider(tenant, "oidc", settings, secret=DESK_CLIENT[1], actor=SETUP)
    db.session.commit()  # hold no transaction: the server's writes would wait on it


def test_an_agent_signs_in_through_the_provider_and_works_a_task(tab, democo, openid_provider):  # noqa: F811
    page = tab.page
    tab.goto(f"/desk/login/{demo.COMPANY}/{demo.ENVIRONMENT}")
    page.get_by_role("button", name="Sign in with your company account").click()

    expect(page).to_have_url(re.compile(re.escape(openid_provider.issuer) + "/interaction/"))
    page.locator("input[name=login]").fill("jane")
    page.locator("input[name=password]").fill("any password")
    page.get_by_role("button", name="Sign-in").click()

    expect(page).to_have_url(re.compile(r"/desk$"))
    expect(page.locator(".agent-name")).to_have_text(
        f"{demo.JANE.first_name} {demo.JANE.last_name}"
    )
    state_button(page, "Available").click()
    first = offered(page)
    page.get_by_role("button", name="Complete", exact=True).click()
    expect(page.locator("article.desk-task")).not_to_have_attribute("data-record-id", first)
    assert stored(first).worked_state == WorkedState.COMPLETED
    # The provider's own pages (its sign-in form loads a web font) are not ours to judge.
    tab.problems[:] = [p for p in tab.problems if openid_provider.issuer not in p]
    tab.assert_no_problems()

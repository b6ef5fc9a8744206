"""Forms never act twice, in a real browser: after rotating the API key the browser shows
the page the form redirected to, so a reload (F5) asks nothing, rotates nothing and no
longer shows the key; the do-not-call Remove asks first. At a phone's width (390 px)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from playwright.sync_api import expect
from sqlalchemy import func, select

from app.extensions import db
from app.models import ApiKey, Tenant
from app.services.people import supervisors
from app.services.tenants import api_keys as key_service
from tests.browser.conftest import Tab
from tests.conftest import SETUP, make_tenant
from tests.dnc.dnc_support import E164, listed, put

pytestmark = pytest.mark.server

EMAIL = "reload@acme.example"
PASSWORD = "reload-never-rotates-twice"
PHONE = {"width": 390, "height": 844}


@dataclass(frozen=True)
class Paths:
    tenant_id: int
    keys: str
    dnc: str


@pytest.fixture
def paths(app) -> Paths:
    supervisors.create_supervisor(EMAIL, PASSWORD, actor=SETUP)
    tenant, _key = make_tenant()
    put(tenant, E164)
    db.session.commit()
    found = Paths(tenant.id, f"/tenants/{tenant.id}/keys", f"/tenants/{tenant.id}/dnc")
    db.session.rollback()  # hold no transaction: the server's writes would wait on it
    return found


def _keys() -> int:
    found = db.session.scalar(select(func.count()).select_from(ApiKey))
    db.session.rollback()  # hold no transaction: the server's writes would wait on it
    return found


def _sign_in(tab: Tab, path: str) -> None:
    tab.goto(path)
    tab.page.locator("#email").fill(EMAIL)
    tab.page.locator("#password").fill(PASSWORD)
    tab.page.get_by_role("button", name="Sign in").click()


def test_reloading_after_a_key_rotation_rotates_nothing(tab: Tab, paths: Paths):
    page = tab.page
    page.set_viewport_size(PHONE)
    _sign_in(tab, paths.keys)
    page.get_by_role("button", name="Rotate the key").click()  # the link to the question
    page.get_by_role("button", name="Rotate the key").click()
    shown = page.locator("[data-new-key]")
    expect(shown).to_be_visible()
    new_key = shown.inner_text().strip()
    assert page.url.endswith(paths.keys)  # the redirect's page, not the form's answer
    assert _keys() == 2
    tab.shot("keys-rotated-390")

    page.reload()
    expect(page.get_by_role("heading", name="API keys", exact=True)).to_be_visible()
    expect(page.locator("[data-new-key]")).to_have_count(0)
    assert _keys() == 2  # the reload rotated nothing
    tenant = db.session.get(Tenant, paths.tenant_id)
    assert key_service.key_matches(tenant, new_key)
    db.session.rollback()
    assert tab.page_width()[0] == PHONE["width"]
    tab.assert_no_problems()


def test_the_do_not_call_remove_asks_first(tab: Tab, paths: Paths):
    page = tab.page
    page.set_viewport_size(PHONE)
    _sign_in(tab, paths.dnc)
    page.get_by_role("button", name=f"Remove {E164} from the list").click()
    expect(page.get_by_role("heading", name=f"Remove {E164}")).to_be_visible()
    assert E164 in listed_numbers(paths)  # asking removed nothing
    page.get_by_role("button", name=f"Remove {E164}").click()
    expect(page.get_by_role("status")).to_contain_text("removed from the do-not-call list")
    page.reload()  # reloading the list after the removal sends nothing again
    expect(page.get_by_role("heading", name="Do-not-call list")).to_be_visible()
    assert E164 not in listed_numbers(paths)
    assert tab.page_width()[0] == PHONE["width"]
    tab.assert_no_problems()


def listed_numbers(paths: Paths) -> dict:
    found = listed(db.session.get(Tenant, paths.tenant_id))
    db.session.rollback()  # hold no transaction: the server's writes would wait on it
    return found

"""The OpenID Connect section of a tenant's Sign-in settings page: the addresses to
register at the provider, the form (its secret write-only), and what posting it does."""

from __future__ import annotations

import importlib.util

import pytest
from bs4 import BeautifulSoup
from flask import render_template
from sqlalchemy import func, select

from app.extensions import db
from app.models import AuditRecord
from app.services.sso import oidc, oidc_published, providers
from tests.admin.conftest import csrf_token, page
from tests.conftest import SETUP
from tests.sso.oidc_support import DESK_CLIENT

PARTIAL = "admin/sign_in/_oidc.html"

# The section and its route live on the tenant's Sign-in settings page (app/admin/sign_in).
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("app.admin.sign_in") is None,
    reason="the tenant's Sign-in settings page (app/admin/sign_in) is not there yet",
)


def section(app, tenant, errors=None, values=None) -> BeautifulSoup:
    with app.test_request_context("/"):
        html = render_template(
            PARTIAL,
            tenant=tenant,
            provider=providers.provider_for(tenant),
            errors=errors or {},
            values=values or {},
        )
    return BeautifulSoup(html, "html.parser")


def test_the_section_shows_the_addresses_to_register(app, acme):
    shown = section(app, acme)
    assert shown.select_one("[data-redirect-uri]").get_text() == (
        "http://localhost/desk/sso/Acme/prod/oidc/callback"
    )
    assert shown.select_one("[data-post-logout-uri]").get_text() == (
        "http://localhost/desk/login/Acme/prod"
    )
    assert shown.find("input", attrs={"name": "client_secret"}).has_attr("required")


def test_the_secret_set_is_never_shown_and_may_be_left_blank(app, acme, openid_provider):
    settings = oidc.settings_from(openid_provider.issuer, DESK_CLIENT[0])
    providers.set_provider(acme, "oidc", settings, secret=DESK_CLIENT[1], actor=SETUP)
    db.session.commit()
    shown = section(app, acme)
    assert DESK_CLIENT[1] not in str(shown)
    secret = shown.find("input", attrs={"name": "client_secret"})
    assert not secret.has_attr("value") and not secret.has_attr("required")
    assert shown.find("input", attrs={"name": "issuer"})["value"] == openid_provider.issuer


def test_a_refusal_is_shown_with_what_was_sent(app, acme):
    shown = section(app, acme, {"oidc": "issuer must be an https:// URL"},
                    {"issuer": "ftp://x", "client_id": "c"})  # fmt: skip
    assert shown.select_one("[role=alert]").get_text() == "issuer must be an https:// URL"
    assert shown.find("input", attrs={"name": "issuer"})["value"] == "ftp://x"


def audit_count() -> int:
    db.session.rollback()
    return db.session.scalar(select(func.count()).select_from(AuditRecord))


def test_posting_the_section_sets_the_provider(signed_in, acme, openid_provider):
    url = f"/tenants/{acme.id}/sign-in"
    token = csrf_token(page(signed_in, url))
    form = {"issuer": openid_provider.issuer, "client_id": DESK_CLIENT[0],
            "client_secret": DESK_CLIENT[1], "login_claim": "email"}  # fmt: skip
    answer = signed_in.post(url + "/oidc", data={**form, "csrf_token": token or ""})
    assert answer.status_code == 303 and answer.location.endswith(url)
    provider = providers.provider_for(acme)
    assert providers.secret_of(provider) == DESK_CLIENT[1]
    # A blank secret keeps it.
    answer = signed_in.post(
        url + "/oidc", data={**form, "client_secret": "", "csrf_token": token or ""}
    )
    assert answer.status_code == 303
    db.session.expire_all()
    assert providers.secret_of(providers.provider_for(acme)) == DESK_CLIENT[1]


def test_a_refused_section_changes_nothing(signed_in, acme, openid_provider):
    url = f"/tenants/{acme.id}/sign-in"
    token = csrf_token(page(signed_in, url))
    before = audit_count()
    form = {"issuer": openid_provider.issuer + "/nope", "client_id": DESK_CLIENT[0],
            "client_secret": "s3cret-value", "login_claim": "email"}  # fmt: skip
    answer = signed_in.post(url + "/oidc", data={**form, "csrf_token": token or ""})
    assert answer.status_code == 422 and "issuer" in answer.text
    assert "s3cret-value" not in answer.text
    assert providers.provider_for(acme) is None and audit_count() == before
    oidc_published.forget_cached()

"""The Tenants list says how agents sign in to the desk (the identity provider, a desk
password) apart from the instance's user authentication that the User Provisioning API
speaks of; the Users page says what an instance status means."""

from __future__ import annotations

from app.extensions import db
from app.services.sso import ldap, providers
from tests.admin.conftest import page
from tests.conftest import SETUP


def tenant_row(client, tenant) -> dict[str, str]:
    for row in page(client, "/tenants").select("main table tbody tr"):
        if row.find("a").get_text() == tenant.company_code:
            return {
                "sign_in": row.select_one("[data-sign-in]").get_text(" ", strip=True),
                "auth_mode": row.select_one("[data-auth-mode]").get_text(" ", strip=True),
            }
    raise AssertionError("no row")


def test_a_tenant_without_a_provider_signs_in_with_desk_passwords(signed_in, acme):
    row = tenant_row(signed_in, acme)
    assert row["sign_in"] == "Desk passwords"
    assert row["auth_mode"] == "SAML 2.0 for the User Provisioning API"
    assert "saml" not in row["sign_in"].lower()


def test_a_directory_tenant_names_its_directory_and_the_desk_password_beside_it(signed_in, acme):
    settings = ldap.settings_from("ldaps://ldap.acme.example", "uid={login},dc=acme", False, 2)
    providers.set_provider(acme, "ldap", settings, actor=SETUP)
    db.session.commit()
    assert tenant_row(signed_in, acme)["sign_in"] == "Directory password (LDAP) or a desk password"
    providers.set_local_agent_passwords(acme, False, actor=SETUP)
    db.session.commit()
    row = tenant_row(signed_in, acme)
    assert row["sign_in"] == "Directory password (LDAP)"
    assert row["auth_mode"].startswith("SAML 2.0")

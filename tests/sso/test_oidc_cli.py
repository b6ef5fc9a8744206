"""`flask sso oidc`: a tenant's or the console's OpenID provider set from the shell, its
secret read from a file and sealed, never shown."""

from __future__ import annotations

import json

import pytest

from app.extensions import db
from app.services.sso import oidc_published, providers
from tests.conftest import make_tenant
from tests.sso.oidc_support import DESK_CLIENT


@pytest.fixture
def secret_file(tmp_path):
    path = tmp_path / "secret"
    path.write_text(DESK_CLIENT[1] + "\n")
    return str(path)


def test_a_tenants_provider_is_set_with_its_secret_sealed(runner, openid_provider, secret_file):
    tenant, _ = make_tenant()
    result = runner.invoke(
        args=[
            "sso",
            "oidc",
            "Acme",
            "prod",
            "--issuer",
            openid_provider.issuer,
            "--client-id",
            DESK_CLIENT[0],
            "--client-secret-file",
            secret_file,
            "--login-claim",
            "preferred_username",
        ]  # fmt: skip
    )
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["issuer"] == openid_provider.issuer and shown["secretSet"] is True
    assert DESK_CLIENT[1] not in result.output
    provider = providers.provider_for(tenant)
    assert provider.settings["login_claim"] == "preferred_username"
    assert DESK_CLIENT[1] not in provider.sealed_secret
    assert providers.secret_of(provider) == DESK_CLIENT[1]


def test_the_consoles_provider_maps_groups(runner, openid_provider, secret_file):
    make_tenant()
    result = runner.invoke(
        args=[
            "sso",
            "oidc",
            "--console",
            "--issuer",
            openid_provider.issuer,
            "--client-id",
            "console-app",
            "--client-secret-file",
            secret_file,
            "--all-tenants-group",
            "console-admins",
            "--tenant-group",
            "acme-supervisors=Acme/prod",
        ]  # fmt: skip
    )
    assert result.exit_code == 0, result.output
    settings = providers.provider_for(None).settings
    assert settings["tenant_groups"] == {"acme-supervisors": ["Acme/prod"]}
    assert settings["groups_claim"] == "groups"
    assert "groups" in settings["scopes"]  # the provider offers a scope of that name


def test_a_wrong_issuer_is_refused_and_nothing_is_set(runner, openid_provider, secret_file):
    tenant, _ = make_tenant()
    result = runner.invoke(
        args=[
            "sso",
            "oidc",
            "Acme",
            "prod",
            "--issuer",
            openid_provider.issuer + "/other",
            "--client-id",
            DESK_CLIENT[0],
            "--client-secret-file",
            secret_file,
        ]  # fmt: skip
    )
    assert result.exit_code == 1
    assert "issuer" in result.output
    db.session.rollback()
    assert providers.provider_for(tenant) is None
    oidc_published.forget_cached()

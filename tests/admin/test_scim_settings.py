"""Provisioning (SCIM) on a tenant's Sign-in page: the base URL an identity provider is
given, a token made and shown once (the page after the redirect, never again), which the
SCIM endpoints then take while an API key opens nothing there; the template of the users
the provider creates, a refused one kept as chosen."""

from __future__ import annotations

from app.extensions import db
from app.models import Tenant
from app.services.tenants import setup as tenants
from tests.admin.conftest import csrf_token, page, soup
from tests.conftest import SETUP


def url(acme) -> str:
    return f"/tenants/{acme.id}/sign-in"


def test_a_token_is_shown_once_and_opens_the_scim_endpoints(signed_in, acme, client):
    shown = page(signed_in, url(acme))
    assert (
        shown.find(attrs={"data-scim-base": True}).get_text()
        == "http://localhost/scim/v2/Acme/prod"
    )
    assert "No token yet" in shown.find("section", class_="scim").get_text()
    made = signed_in.post(f"{url(acme)}/scim-token", data={"csrf_token": csrf_token(shown)})
    assert made.status_code == 303 and made.location.endswith("/sign-in#scim-title")
    after = page(signed_in, made.location)
    token = after.find(attrs={"data-new-scim-token": True}).get_text()
    assert [r.find("span").get_text() for r in after.select("table.scim-tokens tbody tr")] == [
        "current"
    ]
    assert page(signed_in, url(acme)).find(attrs={"data-new-scim-token": True}) is None
    bearer = {"Authorization": f"Bearer {token}"}
    assert client.get("/scim/v2/Acme/prod/Users", headers=bearer).status_code == 200
    again = page(signed_in, url(acme))
    signed_in.post(f"{url(acme)}/scim-token", data={"csrf_token": csrf_token(again)})
    states = [
        r.find("span").get_text()
        for r in page(signed_in, url(acme)).select("table.scim-tokens tbody tr")
    ]
    assert states == ["current", "previous"]
    assert client.get("/scim/v2/Acme/prod/Users", headers=bearer).status_code == 200  # its grace


def test_the_provisioning_template_is_saved_and_a_refused_one_kept(signed_in, acme):
    tenants.create_user_template(acme, "Agent", actor=SETUP)
    db.session.commit()
    token = csrf_token(page(signed_in, url(acme)))
    chosen = {"csrf_token": token, "template": "Agent", "in_instance": "on"}
    done = signed_in.post(f"{url(acme)}/provisioning", data=chosen)
    assert done.status_code == 303
    db.session.expire_all()
    saved = db.session.get(Tenant, acme.id)
    assert (saved.provisioning_template, saved.provisioning_in_instance) == ("Agent", True)
    refused = signed_in.post(f"{url(acme)}/provisioning",
                             data={"csrf_token": token, "template": "Ghost"})  # fmt: skip
    assert refused.status_code == 422
    shown = soup(refused)
    assert "'Ghost' is not one of" in shown.find(id="provisioning-error").get_text()
    assert shown.find(id="provisioning-template").find("option", selected=True)["value"] == "Ghost"
    db.session.expire_all()
    assert db.session.get(Tenant, acme.id).provisioning_template == "Agent"


def test_a_group_name_is_mapped_on_the_page_and_a_refused_one_kept(signed_in, acme):
    token = csrf_token(page(signed_in, url(acme)))
    mapped = {"csrf_token": token, "group": "Support agents", "queue": "Support"}
    done = signed_in.post(f"{url(acme)}/group-mapping", data=mapped)
    assert done.status_code == 303
    rows = page(signed_in, url(acme)).select("table.group-mappings tbody tr")
    assert [[td.get_text() for td in r.find_all("td")] for r in rows] == [
        ["Support agents", "Support"]
    ]
    refused = signed_in.post(f"{url(acme)}/group-mapping",
                             data={"csrf_token": token, "group": "", "queue": "Sales"})  # fmt: skip
    assert refused.status_code == 422
    assert "1 to 255 characters" in soup(refused).find(id="mapping-error").get_text()

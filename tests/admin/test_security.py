"""Browser-side safety: a Content-Security-Policy with no inline script, no inline script or
style in any page, every asset served by the app, nosniff, and CSRF tokens on every form."""

from __future__ import annotations

import io

import pytest

from app.extensions import db
from app.services.people.users import NewUser, add_user
from app.services.tenants.setup import create_user_template
from tests.admin.conftest import BOSS, PASSWORD, add_task, csrf_token, find_form, form_values, soup
from tests.conftest import SETUP

CSRF_ON = pytest.mark.parametrize(
    "settings", [{"WTF_CSRF_ENABLED": True}], indirect=True, ids=["csrf-on"]
)
PAGES = [
    "/tenants",
    "/tenants/{t}/campaigns",
    "/tenants/{t}/campaigns/{c}",
    "/tenants/{t}/campaigns/{c}?k=Name&c=NOPE&v=x",  # an error page (422)
    "/tenants/{t}/campaigns/{c}/tasks/new",
    "/tenants/{t}/tasks/{r}",
    "/tenants/{t}/tasks/{r}/agent",
    "/tenants/{t}/tasks/{r}/delete",
    "/tenants/{t}/users",
    "/tenants/{t}/keys",
    "/tenants/{t}/agents",
    "/tenants/{t}/hours",
    "/tenants/{t}/dnc",
    "/tenants/{t}/contact-rules",
    "/tenants/{t}/campaigns/{c}/delivery",
    "/tenants/{t}/tasks/no-such-task",  # 404
]


@pytest.fixture
def urls(signed_in, acme, renewals) -> dict[str, str]:
    """Every kind of page, with data on it, by the pattern in PAGES."""
    task = add_task(
        renewals,
        "C1",
        {"Name": "Ann", "Phone": "+14155550123", "Docs_link": "https://example.com/", "X": "<b>"},
    )
    create_user_template(acme, "Agent", actor=SETUP)
    db.session.commit()
    add_user(
        acme, NewUser("alice", "Alice", "Smith", "Agent", create_in_instance=True), actor=SETUP
    )
    return {p: p.format(t=acme.id, c=renewals.id, r=task.record_id) for p in PAGES}


def csp(response) -> dict[str, list[str]]:
    policy = response.headers["Content-Security-Policy"]
    return {d.split()[0]: d.split()[1:] for d in policy.split(";") if d.strip()}


def assert_strict_csp(response) -> None:
    policy = csp(response)
    assert policy["script-src"] == ["'self'"]
    assert "'unsafe-inline'" not in response.headers["Content-Security-Policy"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]


def assert_no_inline_script_or_style(html) -> None:
    for script in html.find_all("script"):
        assert script.get("src") and not script.get_text(strip=True), script
    assert html.find_all("style") == []
    assert html.find_all(style=True) == []
    handlers = [a for el in html.find_all(True) for a in el.attrs if a.lower().startswith("on")]
    assert handlers == []


def local_assets(html) -> set[str]:
    """Scripts, stylesheets, icons and images the page loads."""
    return (
        {s["src"] for s in html.find_all("script", src=True)}
        | {link["href"] for link in html.find_all("link", href=True)}
        | {img["src"] for img in html.find_all("img", src=True)}
    )


def assert_csrf_on_every_post_form(html) -> None:
    for form in html.find_all("form", method="post"):
        names = [i.get("name", "") for i in form.find_all("input", type="hidden")]
        assert any(n.endswith("csrf_token") for n in names), form.get("action")


@CSRF_ON
@pytest.mark.parametrize("path", PAGES)
def test_each_page_is_strict_csp_inline_free_self_hosted_and_csrf_protected(signed_in, urls, path):
    response = signed_in.get(urls[path])
    assert response.status_code == (422 if "NOPE" in path else 404 if "no-such" in path else 200)
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert_strict_csp(response)
    html = soup(response)
    assert_no_inline_script_or_style(html)
    assert all(asset.startswith("/static/") for asset in local_assets(html))
    assert_csrf_on_every_post_form(html)


def test_the_login_page_is_strict_csp_and_inline_free(client):
    response = client.get("/login")
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert_strict_csp(response)
    assert_no_inline_script_or_style(soup(response))


def test_every_asset_is_served_by_the_app(signed_in, urls):
    agent_page = soup(signed_in.get(urls["/tenants/{t}/tasks/{r}/agent"]))
    assets = local_assets(agent_page)
    assert {"/static/app.js", "/static/app.css", "/static/phone.svg"} <= assets
    for asset in assets:
        assert asset.startswith("/static/"), asset
        served = signed_in.get(asset)
        assert served.status_code == 200, asset
        assert served.headers["X-Content-Type-Options"] == "nosniff"
        served.close()


# --- CSRF on ----------------------------------------------------------------------------


@CSRF_ON
def test_login_without_its_token_is_refused(client, boss):
    response = client.post("/login", data={"email": BOSS, "password": PASSWORD})
    assert response.status_code == 400
    assert client.get("/tenants").status_code == 302  # still signed out


@CSRF_ON
def test_login_with_its_token_works(client, boss):
    token = csrf_token(soup(client.get("/login")))
    assert token
    data = {"email": BOSS, "password": PASSWORD, "csrf_token": token}
    assert client.post("/login", data=data).status_code == 302
    assert client.get("/tenants").status_code == 200


@CSRF_ON
def test_a_task_form_without_its_token_is_refused_and_changes_nothing(signed_in, acme, renewals):
    task = add_task(renewals, "C1", {"Name": "Ann"})
    url = f"/tenants/{acme.id}/tasks/{task.record_id}"
    form = find_form(soup(signed_in.get(url)), "/items")
    values = form_values(form)
    values["data-items-0-value"] = "Changed"
    token_field = next(name for name in values if name.endswith("csrf_token"))

    without = values.copy()
    del without[token_field]
    assert signed_in.post(form["action"], data=without).status_code == 400
    forged = values.copy()
    forged[token_field] = "forged"
    assert signed_in.post(form["action"], data=forged).status_code == 400
    db.session.expire_all()
    assert [i.value for i in task.items] == ["C1", "Ann"]

    assert signed_in.post(form["action"], data=values).status_code == 302
    db.session.expire_all()
    assert [i.value for i in task.items] == ["C1", "Changed"]


@CSRF_ON
def test_logout_without_its_token_keeps_the_session(signed_in):
    assert signed_in.post("/logout").status_code == 400
    assert signed_in.get("/tenants").status_code == 200


def test_a_large_upload_from_someone_signed_out_is_refused_unread(client, app):
    """The raised upload limit is for signed-in supervisors only."""
    app.config["MAX_CONTENT_LENGTH"] = 1000
    response = client.post(
        "/tenants/1/campaigns/1/intake",
        data={"file": (io.BytesIO(b"x" * 5000), "big.csv")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 413

"""The Users page (provisioned users with their instance status; add with the rules of
add-user, delete; user templates) and the API keys page (age, state, rotation that shows
the new key once)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from app.extensions import db
from app.models import LocalInstanceUser
from app.models.types import utcnow
from app.services.people.users import NewUser, add_user, find_user, list_users
from app.services.tenants import api_keys as key_service
from app.services.tenants.setup import TemplateSettings, create_user_template, list_user_templates
from tests.admin.conftest import find_form, form_values, page, refusal, soup, submit
from tests.conftest import SETUP, make_tenant


@pytest.fixture
def users_url(acme) -> str:
    return f"/tenants/{acme.id}/users"


@pytest.fixture
def agent_template(acme):
    template = create_user_template(
        acme, "Agent", TemplateSettings(routing_profile_id="rp-1"), actor=SETUP
    )
    db.session.commit()
    return template


NOT_LINKED = "Not linked to an instance user the desk works without one"


def user_rows(client, url) -> dict[str, list[str]]:
    rows = page(client, url).select("table.users tbody tr")
    cells = ([td.get_text(" ", strip=True) for td in row.find_all("td")] for row in rows)
    return {c[0]: c[1:5] for c in cells}


def instance_users(tenant) -> list[str]:
    db.session.expire_all()
    return [
        u.username
        for u in db.session.scalars(db.select(LocalInstanceUser).filter_by(tenant_id=tenant.id))
    ]


# --- Users ------------------------------------------------------------------------------


def test_users_are_listed_with_their_instance_user_and_connect_user_id(
    signed_in, acme, users_url, agent_template
):
    add_user(
        acme, NewUser("alice", "Alice", "Smith", "Agent", create_in_instance=True), actor=SETUP
    )
    add_user(acme, NewUser("bob", "Bob", "Jones", "Agent"), actor=SETUP)
    connect_id = find_user(acme, "alice").connect_user_id
    assert user_rows(signed_in, users_url) == {
        "alice": ["Alice Smith", "Agent", "Linked", connect_id],
        # Bob works at the desk without an instance user: said so, not NOT_FOUND.
        "bob": ["Bob Jones", "Agent", NOT_LINKED, "—"],
    }


def test_users_are_paged_and_a_user_gone_from_the_instance_shows_missing(
    app, signed_in, acme, users_url, agent_template
):
    app.config["PAGE_SIZE"] = 2
    for login in ("ann", "ben", "cy"):
        add_user(
            acme, NewUser(login, login.title(), "X", "Agent", create_in_instance=True), actor=SETUP
        )
    db.session.execute(db.delete(LocalInstanceUser).filter_by(username="cy"))
    db.session.commit()
    assert list(user_rows(signed_in, users_url)) == ["ann", "ben"]
    second = user_rows(signed_in, f"{users_url}?page=2")
    assert list(second) == ["cy"]
    assert second["cy"][2] == "Missing from the instance its instance user was deleted"
    assert list(user_rows(signed_in, f"{users_url}?page=99")) == ["cy"]


def test_add_a_user_created_in_the_instance(signed_in, acme, users_url, agent_template):
    response = submit(
        signed_in,
        users_url,
        users_url,
        {
            "user-login_user_id": "carol@example.com",
            "user-first_name": "Carol",
            "user-last_name": "King",
            "user-secondary_email": "carol.k@example.com",
            "user-template": "Agent",
            "user-create_in_instance": "y",
        },
    )
    assert (response.status_code, response.location) == (302, users_url)
    user = find_user(acme, "carol@example.com")
    assert user.connect_user_id is not None
    assert instance_users(acme) == ["carol@example.com"]
    row = user_rows(signed_in, users_url)["carol@example.com"]
    assert row == ["Carol King", "Agent", "Linked", user.connect_user_id]


def test_add_a_user_only_in_the_service(signed_in, acme, users_url, agent_template):
    changes = {
        "user-login_user_id": "dan",
        "user-first_name": "Dan",
        "user-last_name": "Ray",
        "user-template": "Agent",
    }
    assert submit(signed_in, users_url, users_url, changes).status_code == 302
    assert find_user(acme, "dan").connect_user_id is None
    assert instance_users(acme) == []


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"user-template": "Nope"}, "Not a valid choice."),
        ({"user-secondary_email": "not-an-email"}, "is not a valid e-mail address"),
        ({"user-login_user_id": "alice"}, "'alice' already exists"),
        ({"user-first_name": ""}, "This field is required."),
        (
            {"user-login_user_id": "has space", "user-create_in_instance": "y"},
            "to be created in the instance",
        ),
    ],
    ids=["unknown-template", "bad-email", "duplicate", "no-first-name", "bad-instance-name"],
)
def test_a_refused_user_shows_the_reason_and_adds_nothing(
    signed_in, acme, users_url, agent_template, changes, reason
):
    add_user(acme, NewUser("alice", "Alice", "Smith", "Agent"), actor=SETUP)
    fields = {
        "user-login_user_id": "erin",
        "user-first_name": "Erin",
        "user-last_name": "Lee",
        "user-template": "Agent",
    }
    response = submit(signed_in, users_url, users_url, {**fields, **changes})
    assert reason in refusal(response)
    assert [u.login_user_id for u in list_users(acme)] == ["alice"]
    assert instance_users(acme) == []


def test_a_directory_tenant_needs_a_primary_email(signed_in, app):
    tenant, _ = make_tenant("Initech", "prod", auth_mode="directory")
    create_user_template(tenant, "Agent", actor=SETUP)
    db.session.commit()
    url = f"/tenants/{tenant.id}/users"
    fields = {"user-login_user_id": "f", "user-first_name": "F", "user-last_name": "G"}
    response = submit(signed_in, url, url, {**fields, "user-template": "Agent"})
    assert "is required for directory-linked environments" in refusal(response)
    assert list_users(tenant) == []


def delete_link(client, users_url: str, login: str) -> str:
    """The Users page's Delete link for this user: a page that asks, not a form that acts."""
    (link,) = page(client, users_url).select(f'a[aria-label="Delete user {login}"]')
    return link["href"]


def test_delete_a_user_from_the_service_and_the_instance_after_confirming(
    signed_in, acme, users_url, agent_template
):
    add_user(
        acme, NewUser("alice", "Alice", "Smith", "Agent", create_in_instance=True), actor=SETUP
    )
    add_user(acme, NewUser("bob", "Bob", "Jones", "Agent"), actor=SETUP)
    alice = find_user(acme, "alice")
    url = delete_link(signed_in, users_url, "alice")
    assert url == f"{users_url}/{alice.id}/delete"
    asked = page(signed_in, url)
    said = asked.find("main").get_text(" ", strip=True)
    assert "Delete user alice?" in said
    assert f"the instance user {alice.connect_user_id} is deleted too" in said
    assert len(list_users(acme)) == 2 and instance_users(acme) == [
        "alice"
    ]  # asking deletes nothing

    response = submit(signed_in, url, None)
    assert (response.status_code, response.location) == (302, users_url)
    assert [u.login_user_id for u in list_users(acme)] == ["bob"]
    assert instance_users(acme) == []
    assert list(user_rows(signed_in, users_url)) == ["bob"]


def test_the_confirmation_of_a_user_only_in_the_service_says_the_instance_is_untouched(
    signed_in, acme, users_url, agent_template
):
    add_user(acme, NewUser("bob", "Bob", "Jones", "Agent"), actor=SETUP)
    said = page(signed_in, delete_link(signed_in, users_url, "bob")).find("main").get_text(" ")
    assert "created no instance user" in " ".join(said.split())


@pytest.mark.parametrize("settings", [{"WTF_CSRF_ENABLED": True}], indirect=True, ids=["csrf"])
def test_deleting_a_user_needs_the_confirmation_forms_csrf_token(
    signed_in, acme, users_url, agent_template
):
    add_user(acme, NewUser("alice", "Alice", "Smith", "Agent"), actor=SETUP)
    url = f"{users_url}/{find_user(acme, 'alice').id}/delete"
    assert signed_in.post(url).status_code == 400  # refused by CSRF protection
    assert [u.login_user_id for u in list_users(acme)] == ["alice"]
    assert submit(signed_in, url, None).status_code == 302
    assert list_users(acme) == []


def test_a_user_of_another_tenant_cannot_be_deleted_through_this_one(
    signed_in, acme, users_url, agent_template
):
    other, _ = make_tenant("Globex", "prod")
    create_user_template(other, "Agent", actor=SETUP)
    stranger = add_user(other, NewUser("zed", "Zed", "Z", "Agent"), actor=SETUP)
    url = f"{users_url}/{stranger.id}/delete"
    assert signed_in.get(url).status_code == 404
    assert signed_in.post(url).status_code == 404
    assert [u.login_user_id for u in list_users(other)] == ["zed"]


def test_create_a_user_template(signed_in, acme, users_url):
    response = submit(
        signed_in,
        users_url,
        "/templates",
        {
            "template-name": "Senior",
            "template-security_profile_ids": "sp-1, sp-2",
            "template-routing_profile_id": "rp-9",
            "template-after_contact_work_seconds": "30",
        },
    )
    assert (response.status_code, response.location) == (302, users_url)
    (template,) = list_user_templates(acme)
    assert (template.name, template.security_profile_ids, template.routing_profile_id) == (
        "Senior", ["sp-1", "sp-2"], "rp-9"
    )  # fmt: skip
    assert template.after_contact_work_seconds == 30
    shown = page(signed_in, users_url)
    assert "Senior" in shown.select_one("ul.templates").get_text()
    options = find_form(shown, users_url).select("select[name=user-template] option")
    assert [o["value"] for o in options] == ["Senior"]


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"template-phone_type": "DESK_PHONE"}, "needs an E.164 desk phone number"),
        ({"template-name": "Agent"}, "'Agent' already exists"),
        ({"template-routing_profile_id": "bad id!"}, "letters, digits"),
    ],
    ids=["desk-phone-without-number", "duplicate", "bad-profile-id"],
)
def test_a_refused_template_shows_the_reason_and_creates_nothing(
    signed_in, acme, users_url, agent_template, changes, reason
):
    response = submit(signed_in, users_url, "/templates", {"template-name": "New", **changes})
    assert reason in refusal(response)
    assert [t.name for t in list_user_templates(acme)] == ["Agent"]


# --- API keys ---------------------------------------------------------------------------


@pytest.fixture
def keys_url(acme) -> str:
    return f"/tenants/{acme.id}/keys"


def key_rows(page_) -> list[list[str]]:
    return [
        [td.get_text(" ", strip=True) for td in row.find_all("td")]
        for row in page_.select("table.keys tbody tr")
    ]


def test_keys_are_listed_with_age_and_state(signed_in, acme, keys_url):
    (key,) = acme.api_keys
    key.created_at = utcnow() - timedelta(days=3, hours=2)
    db.session.commit()
    (row,) = key_rows(page(signed_in, keys_url))
    assert row == [
        f"{key.prefix}…", "current", key.created_at.strftime("%Y-%m-%d %H:%M:%S UTC"),
        "3 days", "until rotated",
    ]  # fmt: skip


def rotate_link(client, keys_url: str) -> str:
    (link,) = page(client, keys_url).select("a[href$='/keys/rotate']")
    return link["href"]


@pytest.mark.parametrize(
    ("settings", "grace"),
    [
        ({}, "2 hours"),
        ({"KEY_GRACE_SECONDS": 3600}, "1 hour"),
        ({"KEY_GRACE_SECONDS": 36 * 3600}, "36 hours"),
        ({"KEY_GRACE_SECONDS": 1800}, "0.5 hours"),
    ],
    indirect=["settings"],
    ids=["default", "one-hour", "36-hours", "half-hour"],
)
def test_rotation_asks_first_and_says_how_long_the_old_key_keeps_working(
    signed_in, acme, keys_url, grace
):
    asked = page(signed_in, rotate_link(signed_in, keys_url))
    assert asked.select_one("[data-grace]").get_text(strip=True) == grace
    said = " ".join(asked.find("main").get_text(" ").split())
    assert f"The current key keeps working for {grace} , then stops" in said
    db.session.expire_all()
    assert len(acme.api_keys) == 1  # asking rotates nothing


def test_rotation_shows_the_new_key_once_and_it_works(signed_in, acme, tenant, keys_url):
    _, old_key = tenant
    form = find_form(page(signed_in, rotate_link(signed_in, keys_url)), None)
    response = signed_in.post(f"{keys_url}/rotate", data=form_values(form))
    assert (response.status_code, response.location) == (303, keys_url)
    shown_page = signed_in.get(keys_url)
    assert shown_page.headers["Cache-Control"] == "no-store"
    shown = soup(shown_page)
    new_key = shown.select_one("[data-new-key]").get_text(strip=True)
    assert key_service.key_matches(acme, new_key)
    assert key_service.key_matches(acme, old_key)  # in its grace period
    assert new_key != old_key

    later = signed_in.get(keys_url)
    assert later.headers["Cache-Control"] == "no-store"
    assert new_key not in later.get_data(as_text=True)
    assert soup(later).select("[data-new-key]") == []


def test_after_rotation_the_old_key_is_previous_until_its_expiry(signed_in, acme, keys_url):
    (old,) = acme.api_keys
    signed_in.post(f"{keys_url}/rotate")
    db.session.expire_all()
    new = max(acme.api_keys, key=lambda k: k.id)
    rows = key_rows(page(signed_in, keys_url))
    assert [row[:2] for row in rows] == [
        [f"{new.prefix}…", "current"],
        [f"{old.prefix}…", "previous"],
    ]
    assert rows[0][3:] == ["just now", "until rotated"]
    assert rows[1][4] == old.expires_at.strftime("%Y-%m-%d %H:%M:%S UTC")
    assert timedelta(hours=1, minutes=59) < old.expires_at - utcnow() <= timedelta(hours=2)


@pytest.mark.parametrize("settings", [{"WTF_CSRF_ENABLED": True}], indirect=True, ids=["csrf"])
def test_rotation_needs_the_confirmation_forms_csrf_token(signed_in, acme, keys_url):
    assert signed_in.post(f"{keys_url}/rotate").status_code == 400  # refused by CSRF protection
    db.session.expire_all()
    assert len(acme.api_keys) == 1
    form = find_form(page(signed_in, f"{keys_url}/rotate"), None)
    assert signed_in.post(f"{keys_url}/rotate", data=form_values(form)).status_code == 303
    db.session.expire_all()
    assert len(acme.api_keys) == 2

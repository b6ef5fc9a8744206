"""The supervisors' doors record who changed what (users, templates, keys, campaigns,
queues, their own password), a refused form records nothing, and the Users and API-keys
pages show their history newest first, a page at a time, escaped, without secrets."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import AuditRecord, Event
from app.services.actors import Actor
from app.services.people.users import NewUser, add_user, find_user
from app.services.tenants.setup import create_user_template
from tests.admin.conftest import BOSS, PASSWORD, find_form, form_values, page, soup, submit
from tests.conftest import SETUP, make_tenant

BY_BOSS = ("supervisor", BOSS)
ALICE = {
    "user-login_user_id": "alice",
    "user-first_name": "Alice",
    "user-last_name": "Smith",
    "user-template": "Agent",
}


@pytest.fixture
def agent_template(acme):
    template = create_user_template(acme, "Agent", actor=SETUP)
    db.session.commit()
    return template


def counts() -> tuple[int, int]:
    db.session.expire_all()
    return tuple(
        db.session.scalar(select(func.count()).select_from(model)) for model in (AuditRecord, Event)
    )


def last_record() -> AuditRecord:
    db.session.expire_all()
    return db.session.scalar(select(AuditRecord).order_by(AuditRecord.id.desc()).limit(1))


def history(client, url: str) -> list[list[str]]:
    rows = page(client, url).select("table.history tbody tr")
    return [[td.get_text(" ", strip=True) for td in row.find_all("td")] for row in rows]


# --- Each door records its change, as the signed-in supervisor -------------------------------


def test_adding_and_deleting_a_user_in_the_ui_records_the_supervisor(
    signed_in, acme, agent_template
):
    url = f"/tenants/{acme.id}/users"
    assert submit(signed_in, url, url, ALICE).status_code == 302
    added = last_record()
    assert (added.actor_kind, added.actor_id, added.action) == (*BY_BOSS, "user.added")
    delete_page = f"{url}/{find_user(acme, 'alice').id}/delete"
    form = find_form(page(signed_in, delete_page), None)
    assert signed_in.post(delete_page, data=form_values(form)).status_code == 302
    deleted = last_record()
    assert (deleted.actor_kind, deleted.actor_id, deleted.action) == (*BY_BOSS, "user.deleted")
    assert counts()[1] == 2  # user.added and user.deleted


@pytest.mark.parametrize(
    ("path", "changes", "action"),
    [
        ("/campaigns", {"queue-name": "Billing"}, "skill_queue.added"),
        (
            "/campaigns",
            {"campaign-name": "Spring", "campaign-skill_queue": "Sales"},
            "campaign.added",
        ),
        ("/users", {"template-name": "Supervisor"}, "user_template.added"),
    ],
    ids=["queue", "campaign", "template"],
)
def test_creating_in_the_ui_records_the_supervisor(
    signed_in, acme, agent_template, path, changes, action
):
    url = f"/tenants/{acme.id}{path}"
    target = {"skill_queue.added": "/queues", "campaign.added": "/campaigns"}.get(
        action, "/templates"
    )
    assert submit(signed_in, url, target, changes).status_code == 302
    record = last_record()
    assert (record.actor_kind, record.actor_id, record.action) == (*BY_BOSS, action)


@pytest.mark.parametrize(
    ("path", "target", "changes"),
    [
        ("/users", "/users", {"user-login_user_id": "alice"}),  # already exists
        ("/users", "/users", {"user-first_name": ""}),
        ("/users", "/users", {"user-secondary_email": "not-an-email"}),
        ("/users", "/templates", {"template-name": "Agent"}),
        ("/campaigns", "/queues", {"queue-name": "Sales"}),
        ("/campaigns", "/campaigns", {"campaign-name": "Renewals"}),
    ],
    ids=["duplicate-user", "no-first-name", "bad-email", "duplicate-template", "queue", "campaign"],
)
def test_a_refused_form_records_nothing(signed_in, acme, agent_template, path, target, changes):
    add_user(acme, NewUser("alice", "Alice", "Smith", "Agent"), actor=SETUP)
    db.session.commit()
    before = counts()
    url = f"/tenants/{acme.id}{path}"
    fields = {**ALICE, "user-login_user_id": "erin"} if target == "/users" else {}
    if target == "/campaigns":
        fields = {"campaign-skill_queue": "Sales"}
    response = submit(signed_in, url, target, {**fields, **changes})
    assert response.status_code == 422
    assert counts() == before


@pytest.mark.parametrize("settings", [{"WTF_CSRF_ENABLED": True}], indirect=True, ids=["csrf"])
def test_a_form_without_its_csrf_token_records_nothing(signed_in, acme, agent_template):
    before = counts()
    assert signed_in.post(f"/tenants/{acme.id}/users", data=ALICE).status_code == 400
    assert signed_in.post(f"/tenants/{acme.id}/keys/rotate").status_code == 400
    assert counts() == before


def test_rotating_a_key_in_the_ui_records_the_supervisor(signed_in, acme):
    keys_url = f"/tenants/{acme.id}/keys"
    form = find_form(page(signed_in, f"{keys_url}/rotate"), None)
    response = signed_in.post(f"{keys_url}/rotate", data=form_values(form))
    assert response.status_code == 303
    record = last_record()
    assert (record.actor_kind, record.actor_id, record.action) == (*BY_BOSS, "api_key.rotated")
    new_key = soup(signed_in.get(response.location)).select_one("[data-new-key]").get_text()
    shown = history(signed_in, keys_url)
    assert shown[0][1:3] == [f"supervisor {BOSS}", "api_key.rotated"]
    assert shown[1][1:3] == [f"operator {SETUP.id}", "api_key.issued"]
    assert new_key not in page(signed_in, keys_url).select_one("table.history").get_text()


def test_changing_ones_password_records_it_without_the_password(signed_in, boss):
    new = PASSWORD + " staple"
    form = find_form(page(signed_in, "/account/password"), None)
    values = form_values(form)
    for name, value in {"current": PASSWORD, "new": new, "again": new}.items():
        values[name] = value
    assert signed_in.post("/account/password", data=values).status_code == 302
    record = last_record()
    assert (record.action, record.entity_id, record.tenant_id) == (
        "supervisor.password_changed",
        BOSS,
        None,
    )
    assert (record.actor_kind, record.actor_id) == BY_BOSS
    assert new not in str(record.after) and PASSWORD not in str(record.after)


def test_a_refused_password_change_records_nothing(signed_in, boss):
    before = counts()
    form = find_form(page(signed_in, "/account/password"), None)
    values = form_values(form)
    for name, value in {"current": "wrong password", "new": PASSWORD + " x"}.items():
        values[name] = value
    values["again"] = PASSWORD + " x"
    assert signed_in.post("/account/password", data=values).status_code == 422
    assert counts() == before


# --- The pages' history ---------------------------------------------------------------------


def test_the_users_page_shows_its_history_newest_first_with_the_changed_fields(
    signed_in, acme, agent_template
):
    add_user(acme, NewUser("alice", "Alice", "Smith", "Agent"), actor=Actor.api_key(7))
    db.session.commit()
    rows = history(signed_in, f"/tenants/{acme.id}/users")
    assert [row[1:4] for row in rows] == [
        ["API key #7", "user.added", "user alice"],
        [f"operator {SETUP.id}", "user_template.added", f"user template {agent_template.id}"],
    ]
    assert 'firstName : — → "Alice"' in rows[0][4]


def test_the_history_is_paged_newest_first(app, signed_in, acme, agent_template):
    app.config["PAGE_SIZE"] = 2
    for login in ("ann", "ben", "cy"):
        add_user(acme, NewUser(login, login.title(), "X", "Agent"), actor=SETUP)
    db.session.commit()
    url = f"/tenants/{acme.id}/users"
    subjects = [
        [row[3] for row in history(signed_in, f"{url}?history={number}")] for number in (1, 2, 9)
    ]
    assert subjects == [
        ["user cy", "user ben"],
        ["user ann", f"user template {agent_template.id}"],
        ["user ann", f"user template {agent_template.id}"],  # past the end: the last page
    ]
    older = page(signed_in, url).select_one("nav[aria-label='History pages'] a[rel=next]")
    assert older["href"].endswith("history=2") or "history=2" in older["href"]


def test_the_history_shows_other_tenants_nothing_and_escapes_what_it_shows(
    signed_in, acme, agent_template
):
    add_user(acme, NewUser("<b>x</b>", "<script>alert(1)</script>", "X", "Agent"), actor=SETUP)
    db.session.commit()
    html = signed_in.get(f"/tenants/{acme.id}/users").get_data(as_text=True)
    assert "<script>alert(1)</script>" not in html and "<b>x</b>" not in html
    other, _key = make_tenant(company="Initech")
    rows = history(signed_in, f"/tenants/{other.id}/users")
    assert rows == []
    assert "Nothing recorded yet." in page(signed_in, f"/tenants/{other.id}/users").get_text()

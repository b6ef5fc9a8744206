"""Fixtures for the web UI: supervisors, a signed-in client, tasks, and page helpers."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from bs4 import BeautifulSoup
from flask import g
from flask.testing import FlaskClient
from jinja2 import BytecodeCache
from werkzeug.datastructures import MultiDict

from app.admin.sessions import TOKEN_KEY
from app.extensions import db
from app.models import Campaign, Role
from app.services.people import supervisors
from app.services.people.sessions import SessionLimits, start_session
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from tests.conftest import SETUP

PASSWORD = "correct horse battery"  # 21 characters, on no list of common passwords
BOSS = "boss@example.com"


class RequestClient(FlaskClient):
    """A test client whose every request starts with an empty `g` and a database session
    in no transaction, as it does when served.

    The `app` fixture keeps one app context pushed for the whole test, and each test request
    reuses it; without this, the user Flask-Login caches in `g` would leak between requests,
    and a transaction left open by the test or the last request would still hold SQLite's
    write lock when the next one counts a rate limit or stamps its session aside.
    """

    def open(self, *args, **kwargs):
        db.session.commit()  # what the test set up, as a server would see it
        for name in list(g):
            g.pop(name)
        try:
            return super().open(*args, **kwargs)
        finally:
            db.session.rollback()  # as the end of a served request does


@pytest.fixture
def settings(settings, request):
    """The test settings, changed by a test's indirect parametrize of `settings`."""
    return {**settings, **getattr(request, "param", {})}


class _CompiledTemplates(BytecodeCache):
    """Compiled templates kept for the whole run, so each test's new app skips compiling
    them again (a changed template has another checksum and is compiled afresh)."""

    def __init__(self) -> None:
        self.codes: dict[str, bytes] = {}

    def load_bytecode(self, bucket) -> None:
        if (code := self.codes.get(bucket.key)) is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket) -> None:
        self.codes[bucket.key] = bucket.bytecode_to_string()


_TEMPLATES = _CompiledTemplates()


@pytest.fixture
def app(app):
    app.jinja_env.bytecode_cache = _TEMPLATES
    return app


def browser(app) -> RequestClient:
    """A client of its own (another browser), as the `client` fixture is."""
    app.test_client_class = RequestClient
    return app.test_client()


@pytest.fixture
def client(app):
    return browser(app)


def make_supervisor(email: str = BOSS, tenants=None, role: Role = Role.ADMINISTRATOR):
    """An account of every tenant, or one with `role` (every page) in each of `tenants`."""
    supervisor = supervisors.create_supervisor(email, PASSWORD, tenants, role=role, actor=SETUP)
    db.session.commit()
    return supervisor


@pytest.fixture
def boss(app):
    """A supervisor who sees every tenant."""
    return make_supervisor()


def csrf_token(page: BeautifulSoup) -> str | None:
    field = page.find("input", attrs={"name": lambda n: n and n.endswith("csrf_token")})
    return field["value"] if field else None


def sign_in(client, email: str = BOSS, password: str = PASSWORD, next_: str | None = None):
    """Sign in through the login form (with its CSRF token when the page has one)."""
    page = soup(client.get("/login"))
    data = {"email": email, "password": password}
    if token := csrf_token(page):
        data["csrf_token"] = token
    return client.post("/login", query_string={"next": next_} if next_ else None, data=data)


def session_for(client, supervisor):
    """Sign the client in as the login form does (a session kept on the server, its token
    in the cookie), without the cost of the form."""
    token = start_session(supervisor, SessionLimits(timedelta(hours=1), timedelta(hours=12)))
    db.session.commit()
    with client.session_transaction() as session:
        session[TOKEN_KEY] = token
        session["_fresh"] = True
    return client


@pytest.fixture
def signed_in(client, boss):
    """The client, signed in as the all-tenants supervisor."""
    return session_for(client, boss)


def add_task(campaign: Campaign, client_id: str, data=None, **options):
    """Add a task through the service and commit; `data` as {key: value} or ItemInputs."""
    data = {"Name": f"Customer {client_id}"} if data is None else data
    if isinstance(data, dict):
        data = [ItemInput(k, v) for k, v in data.items()]
    task, _ = add_or_update_task(campaign, client_id, list(data), actor=SETUP, **options)
    db.session.commit()
    return task


def soup(response) -> BeautifulSoup:
    return BeautifulSoup(response.get_data(as_text=True), "html.parser")


def page(client, url: str, status: int = 200) -> BeautifulSoup:
    """GET a page, check its status, and parse it."""
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code, response.location)
    return soup(response)


def form_values(form) -> MultiDict:
    """What a browser submits for this form as it stands."""
    values = MultiDict()
    for field in form.find_all(["input", "select", "textarea"]):
        name = field.get("name")
        if not name or field.has_attr("disabled"):
            continue
        if field.name == "select":
            chosen = field.find("option", selected=True) or field.find("option")
            if chosen is not None:
                values.add(name, chosen.get("value", chosen.get_text()))
        elif field.name == "textarea":
            values.add(name, field.get_text())
        elif field.get("type") in ("checkbox", "radio"):
            if field.has_attr("checked"):
                values.add(name, field.get("value", "y"))
        elif field.get("type") not in ("submit", "button", "reset"):
            values.add(name, field.get("value", ""))
    return values


def find_form(page_: BeautifulSoup, action_end: str | None):
    """The form whose action ends with `action_end`; None: the POST form without an action."""
    if action_end is None:
        forms = [f for f in page_.find_all("form", method="post") if not f.has_attr("action")]
    else:
        forms = [f for f in page_.find_all("form") if f.get("action", "").endswith(action_end)]
    assert len(forms) == 1, f"{len(forms)} forms posting to …{action_end}"
    return forms[0]


def submit(client, url: str, action_end: str | None, changes: dict | None = None):
    """Open `url`, fill the form posting to …`action_end` with `changes`, and post it
    (to `url` itself when the form has no action)."""
    form = find_form(page(client, url), action_end)
    values = form_values(form)
    for name, value in (changes or {}).items():
        if value is None:
            values.pop(name, None)
        else:
            values.setlist(name, value if isinstance(value, list) else [value])
    return client.post(form.get("action", url), data=values)


def refusal(response) -> str:
    """The text a refused form's page shows (422, with an alert or field errors)."""
    assert response.status_code == 422, response.status_code
    shown = soup(response)
    assert shown.select("[role=alert], .field-error"), "the page shows no reason"
    return shown.find("main").get_text(" ", strip=True)


def alert(page_: BeautifulSoup) -> str:
    """The page's error message: the summary at the top of a refused form (or another alert)."""
    found = page_.find(role="alert")
    return found.get_text(" ", strip=True) if found else ""


def text(element) -> str:
    """An element's text as read: its words, each space one."""
    return re.sub(r"\s+", " ", element.get_text(" ")).strip()


def said_beside(page_: BeautifulSoup, name: str) -> str:
    """The message beside the field `name` of a refused form, once it is checked that the
    field is marked as every field at fault is: its input `aria-invalid`, described by the
    message; the summary at the top (role=alert) links to that input; and the message is
    said once on the page (the summary names the field, not the message)."""
    field = page_.find(attrs={"name": name})
    assert field is not None, f"no field {name}"
    assert field.get("aria-invalid") == "true", f"{name} is not marked"
    beside = page_.find(id=field["aria-describedby"].split()[0])
    message = text(beside)
    summary = page_.select_one("main .error-summary")
    assert summary is not None and summary["role"] == "alert", "no summary at the top"
    assert f"#{field['id']}" in [a["href"] for a in summary.select("a")], text(summary)
    assert text(page_).count(message) == 1, f"said more than once: {message}"
    return message

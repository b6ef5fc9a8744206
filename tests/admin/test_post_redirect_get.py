"""Forms never act twice: every successful form POST of the supervisors' pages answers with
a redirect (post/redirect/get), a value made once (a key, a secret, a link, a report) is shown
once on the page it leads to, and every POST-only URL answers a GET (a reload of a refused
form's page, a copied link) without 405. A browser is modelled by `post_then_reload`."""

from __future__ import annotations

import io
import tempfile
from dataclasses import dataclass

import pytest
from sqlalchemy import func, select

from app import create_app
from app.config import test_settings as settings_of_tests
from app.extensions import db
from app.models import ApiKey, AuditRecord, Schedule, Task, User, WebhookEndpoint, WorkCodeGroup
from app.services.campaigns import catalogue as campaigns
from app.services.dnc.numbers import search_numbers
from app.services.people import agents
from app.services.tenants import api_keys as key_service
from tests.admin.conftest import PASSWORD, add_task, find_form, form_values, page, soup, submit
from tests.admin.test_people_history import ALICE
from tests.dnc.dnc_support import E164, put
from tests.webhooks.conftest import make_endpoint

REDIRECTS = (302, 303)


def post_then_reload(client, url: str, data, **options):
    """Post a form as a browser does: the page it then shows, and what a reload of that
    page answers (the same POST again when the answer was a page, a GET after a redirect)."""
    response = client.post(url, data=data, **options)
    if response.status_code in REDIRECTS:
        return client.get(response.location), client.get(response.location)
    return response, client.post(url, data=data, **options)


def count(model) -> int:
    db.session.rollback()
    return db.session.scalar(select(func.count()).select_from(model))


# --- reloads after forms that make something ---------------------------------------------


def test_reloading_the_page_after_a_key_rotation_rotates_nothing(signed_in, acme):
    """D2: the browser re-posted the rotation, issuing yet another key."""
    url = f"/tenants/{acme.id}/keys/rotate"
    values = form_values(find_form(page(signed_in, url), None))
    shown, reloaded = post_then_reload(signed_in, url, values)
    new_key = soup(shown).select_one("[data-new-key]").get_text(strip=True)
    assert count(ApiKey) == 2  # the first key in its grace, and the one rotation made
    assert key_service.key_matches(acme, new_key)
    assert reloaded.status_code == 200
    assert new_key not in reloaded.get_data(as_text=True)
    assert soup(reloaded).select("[data-new-key]") == []


def test_reloading_endpoint_added_adds_no_second_endpoint(signed_in, acme):
    """D3: the browser re-posted the form, adding a duplicate with another secret."""
    url = f"/tenants/{acme.id}/webhooks/new"
    values = form_values(find_form(page(signed_in, url), None))
    values["url"] = "https://crm.example.com/hooks"
    shown, reloaded = post_then_reload(signed_in, url, values)
    (endpoint,) = db.session.scalars(select(WebhookEndpoint)).all()
    assert soup(shown).select_one("[data-secret]").get_text() == endpoint.secret
    assert count(WebhookEndpoint) == 1
    assert reloaded.status_code == 200
    assert endpoint.secret not in reloaded.get_data(as_text=True)
    assert soup(reloaded).select("[data-secret-gone]")


def test_reloading_the_secret_page_after_a_rotation_rotates_nothing(signed_in, acme):
    signed_in.post(f"/tenants/{acme.id}/webhooks/new", data={"url": "https://h.example.com/x"})
    endpoint = db.session.scalar(select(WebhookEndpoint))
    url = f"/tenants/{acme.id}/webhooks/{endpoint.id}/rotate"
    shown, reloaded = post_then_reload(
        signed_in, url, form_values(find_form(page(signed_in, url), None))
    )
    db.session.refresh(endpoint)
    assert soup(shown).select_one("[data-secret]").get_text() == endpoint.secret
    assert endpoint.secret not in reloaded.get_data(as_text=True)
    assert _actions().count("webhook_endpoint.secret_rotated") == 1


def _actions() -> list[str]:
    return list(db.session.scalars(select(AuditRecord.action)))


def test_reloading_the_invitation_page_makes_no_new_invitation(signed_in, acme):
    users = f"/tenants/{acme.id}/users"
    made(submit(signed_in, users, "/templates", {"template-name": "Agent"}))
    made(submit(signed_in, users, users, ALICE))
    user = db.session.scalar(select(User))
    url = f"/tenants/{acme.id}/users/{user.id}/desk"
    values = form_values(find_form(page(signed_in, url), "/desk/invite"))
    shown, reloaded = post_then_reload(signed_in, url + "/invite", values)
    link = soup(shown).select_one("code.invite-link").get_text()
    assert link not in reloaded.get_data(as_text=True)
    db.session.rollback()
    assert agents.invited(link.rsplit("/", 1)[1]) == user  # no newer invitation voided it


def test_reloading_the_import_report_imports_nothing_again(signed_in, acme):
    url = f"/tenants/{acme.id}/dnc"
    values = form_values(find_form(page(signed_in, url), "/dnc/import"))
    values["import-file"] = (io.BytesIO(f"{E164}\nnope\n".encode()), "list.csv")
    shown, reloaded = post_then_reload(
        signed_in, url + "/import", values, content_type="multipart/form-data"
    )
    counts = {td["data-count"]: td.get_text() for td in soup(shown).select("td[data-count]")}
    assert counts == {"added": "1", "already": "0", "refused": "1"}
    assert soup(reloaded).select("article.dnc-report") == []
    assert _actions().count("dnc.imported") == 1


# --- the do-not-call Remove asks first ----------------------------------------------------


def test_a_do_not_call_remove_asks_first_without_javascript(signed_in, acme):
    """D11: the row's Remove button took the number off at once."""
    put(acme, E164)
    listing = page(signed_in, f"/tenants/{acme.id}/dnc")
    (remove,) = [
        control
        for control in listing.select(
            f'tr[data-number="{E164}"] a, tr[data-number="{E164}"] button'
        )
        if control.get_text(strip=True) == "Remove"
    ]
    if remove.name == "button":  # what a click sends: the row's form
        form = remove.find_parent("form")
        signed_in.post(form["action"], data=form_values(form))
    else:
        asked = page(signed_in, remove["href"])
        assert E164 in asked.find("h1").get_text()
    assert [entry.number for entry in search_numbers(acme, E164, exact=True).entries] == [E164]


# --- every POST-only URL answers a GET ----------------------------------------------------


def _admin_post_rules() -> list[str]:
    """Every URL of the supervisors' pages that takes a POST, from the app's URL map."""
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(settings_of_tests(f"sqlite:///{folder}/rules.db"))
        rules = {
            rule.rule
            for rule in app.url_map.iter_rules()
            if rule.endpoint.startswith("admin.") and "POST" in rule.methods
        }
        with app.app_context():
            db.engine.dispose()
    return sorted(rules)


# Values for the URL's variables: those of the `world` fixture's objects, or any.
SAMPLE = {
    "day": "2027-01-04",
    "switch": "enable",
    "delivery_id": 1,
    "load_id": "x",
    "action": "status",
    "reason_id": 1,
    "limit_id": 1,
    "rule_id": 1,
    "queue_id": 1,
    "job_id": 1,
    "table": "summary",
}


@dataclass
class World:
    """One of each thing the pages' URLs name."""

    tenant_id: int
    campaign_id: int
    record_id: str
    user_id: int
    schedule_id: int
    group_id: int
    code_id: int
    endpoint_id: int

    def url(self, rule: str) -> str:
        values = {**SAMPLE, **vars(self)}
        for name, value in values.items():
            for converter in ("", "int:", "any(enable, disable):"):
                rule = rule.replace(f"<{converter}{name}>", str(value))
        assert "<" not in rule, rule
        return rule


def made(response) -> None:
    assert response.status_code in REDIRECTS, response.get_data(as_text=True)[-2000:]


@pytest.fixture
def world(signed_in, acme) -> World:
    t = acme.id
    campaign = campaigns.find_campaign(acme, "Renewals")
    task = add_task(campaign, "C1")
    users, hours, codes = f"/tenants/{t}/users", f"/tenants/{t}/hours", f"/tenants/{t}/work-codes"
    made(submit(signed_in, users, "/templates", {"template-name": "Agent"}))
    made(submit(signed_in, users, users, ALICE))
    made(submit(signed_in, hours, hours, {"new-name": "Office", "new-time_zone": "UTC"}))
    made(submit(signed_in, codes, codes, {"group-name": "Result"}))
    group = db.session.scalar(select(WorkCodeGroup))
    made(submit(signed_in, f"{codes}/{group.id}", "/codes", {"code-name": "Sale"}))
    make_endpoint(acme)
    db.session.rollback()
    ids = [
        db.session.scalar(select(model.id))
        for model in (User, Schedule, WorkCodeGroup, WebhookEndpoint)
    ]
    code_id = db.session.scalar(select(WorkCodeGroup)).codes[0].id
    assert None not in ids, "the world's objects were all made"
    user_id, schedule_id, group_id, endpoint_id = ids
    return World(
        t, campaign.id, task.record_id, user_id, schedule_id, group_id, code_id, endpoint_id
    )


@pytest.mark.parametrize("rule", _admin_post_rules())
def test_every_post_url_answers_a_get(signed_in, world, rule):
    url = world.url(rule)
    response = signed_in.get(url)
    assert response.status_code != 405, url
    assert response.status_code < 500, url
    if response.status_code in REDIRECTS:
        assert response.location.startswith("/"), response.location
        assert signed_in.get(response.location).status_code == 200, response.location
    else:
        assert response.status_code == 200, url


def test_a_refused_forms_url_opens_when_copied(signed_in, world):
    """A refused form re-renders at its POST URL; a copied link to it opens its page."""
    url = world.url("/tenants/<int:tenant_id>/hours/<int:schedule_id>/exceptions")
    refused = signed_in.post(url, data={"exception-day": "", "exception-kind": "closed"})
    assert refused.status_code == 422
    copied = signed_in.get(url)
    assert copied.status_code in REDIRECTS
    assert page(signed_in, copied.location).find(
        "form", action=lambda a: a and a.endswith("/exceptions")
    )


# --- every main form's success is a redirect ---------------------------------------------

NEW_PASSWORD = "a much longer passphrase 2027"

# (what, the page, the form's action end (None: the page's own POST form), what is typed)
FORMS = [
    ("add a skill queue", "/tenants/<tenant_id>/campaigns", "/queues", {"queue-name": "Billing"}),
    ("add a campaign", "/tenants/<tenant_id>/campaigns", "/tenants/<tenant_id>/campaigns",
     {"campaign-name": "Spring"}),
    ("add a task", "/tenants/<tenant_id>/campaigns/<campaign_id>/tasks/new", None,
     {"client_id": "C9", "items-0-value": "New"}),
    ("change a task's status", "/tenants/<tenant_id>/tasks/<record_id>", "/status",
     {"status-state": "COMPLETED"}),
    ("move a task", "/tenants/<tenant_id>/tasks/<record_id>", "/transfer",
     {"transfer-destination": "Winback"}),
    ("set a calling limit", "/tenants/<tenant_id>/campaigns/<campaign_id>/delivery",
     "/delivery/max-attempts", {"attempts-max_attempts": "5"}),
    ("add a user template", "/tenants/<tenant_id>/users", "/templates", {"template-name": "Lead"}),
    ("add a user", "/tenants/<tenant_id>/users", "/tenants/<tenant_id>/users",
     {**ALICE, "user-login_user_id": "bob"}),
    ("set an agent's queues", "/tenants/<tenant_id>/users/<user_id>/desk", "/desk/queues",
     {"desk-queues": ["Sales"]}),
    ("invite an agent", "/tenants/<tenant_id>/users/<user_id>/desk", "/desk/invite", {}),
    ("add a schedule", "/tenants/<tenant_id>/hours", "/tenants/<tenant_id>/hours",
     {"new-name": "Night", "new-time_zone": "UTC"}),
    ("add a schedule exception", "/tenants/<tenant_id>/hours/<schedule_id>", "/exceptions",
     {"exception-day": "2027-01-04", "exception-kind": "closed"}),
    ("add a work code group", "/tenants/<tenant_id>/work-codes", "/work-codes",
     {"group-name": "Topics"}),
    ("add a work code", "/tenants/<tenant_id>/work-codes/<group_id>", "/codes",
     {"code-name": "Callback"}),
    ("add a webhook endpoint", "/tenants/<tenant_id>/webhooks/new", None,
     {"url": "https://crm.example.com/hooks"}),
    ("rotate a webhook secret", "/tenants/<tenant_id>/webhooks/<endpoint_id>/rotate", None, {}),
    ("add do-not-call numbers", "/tenants/<tenant_id>/dnc", "/dnc/add",
     {"add-numbers": "+14155550123"}),
    ("rotate the API key", "/tenants/<tenant_id>/keys/rotate", None, {}),
    ("make a SCIM token", "/tenants/<tenant_id>/sign-in", "/sign-in/scim-token", {}),
    ("set the provisioning template", "/tenants/<tenant_id>/sign-in", "/sign-in/provisioning",
     {"template": "Agent"}),
    ("map a group to a queue", "/tenants/<tenant_id>/sign-in", "/sign-in/group-mapping",
     {"group": "Support agents", "queue": "Sales"}),
    ("record consent", "/tenants/<tenant_id>/consent", "/consent",
     {"consent-numbers": "+14155550123"}),
    ("set numbers and consent", "/tenants/<tenant_id>/campaigns/<campaign_id>/delivery",
     "/delivery/numbers", {"numbers-default_country": "US"}),
    ("change one's password", "/account/password", None,
     {"current": PASSWORD, "new": NEW_PASSWORD, "again": NEW_PASSWORD}),
]  # fmt: skip


@pytest.mark.parametrize(("what", "url", "action_end", "changes"), FORMS, ids=[f[0] for f in FORMS])
def test_every_main_forms_success_is_a_redirect(signed_in, world, what, url, action_end, changes):
    url = world.url(url)
    form = find_form(page(signed_in, url), world.url(action_end) if action_end else None)
    values = form_values(form)
    for name, value in changes.items():
        values.setlist(name, value if isinstance(value, list) else [value])
    before = len(_actions())
    response = signed_in.post(form.get("action", url), data=values)
    assert response.status_code in REDIRECTS, (what, response.status_code)
    assert len(_actions()) > before, f"{what}: nothing was done"
    assert signed_in.get(response.location).status_code == 200


def test_the_dnc_removal_confirmed_is_a_redirect(signed_in, acme):
    put(acme, E164)
    asked = page(signed_in, f"/tenants/{acme.id}/dnc/remove?number=%2B{E164[1:]}")
    form = find_form(asked, "/dnc/remove")
    response = signed_in.post(form["action"], data=form_values(form))
    assert response.status_code in REDIRECTS
    assert search_numbers(acme, E164, exact=True).entries == []


def test_tasks_are_not_touched_by_a_get_of_their_forms_urls(signed_in, world):
    before = db.session.scalar(select(Task.version))
    for end in ("/items", "/status", "/transfer", "/release"):
        signed_in.get(world.url(f"/tenants/<tenant_id>/tasks/<record_id>{end}"))
    db.session.rollback()
    assert db.session.scalar(select(Task.version)) == before

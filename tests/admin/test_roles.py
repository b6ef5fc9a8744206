"""Console roles, page by page: every page and form of a tenant walked as an analyst, a
supervisor and an administrator of it. A page a role reaches answers as it does for an
operator of every tenant; one it does not reach is 404, as another tenant's page is; a form
post it does not reach is 404 and changes nothing stored."""

from __future__ import annotations

import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from sqlalchemy import func, select
from werkzeug.exceptions import HTTPException

from app import create_app
from app.admin import roles
from app.config import test_settings as settings_of_tests
from app.extensions import db
from app.models import AuditRecord, Role
from app.services.people import supervisors
from tests.admin.conftest import PASSWORD, browser, page, session_for, soup
from tests.admin.test_post_redirect_get import world  # noqa: F401 - the fixture
from tests.conftest import SETUP

# Pages whose URL the walk fills with an id no object has (an intake load, a bulk job, a
# webhook delivery): they answer 404 to everyone, and to each role as to an operator.
NOTHING_THERE = {
    "admin.intake_load",
    "admin.intake_report",
    "admin.bulk_job",
    "admin.bulk_failures",
}
STREAMS = {"admin.campaign_progress_stream", "admin.wallboard_stream", "admin.agents_stream"}


def _tenant_rules() -> list[tuple[str, str, frozenset[str]]]:
    """Every (endpoint, rule, methods) of a tenant's console pages, from the URL map."""
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(settings_of_tests(f"sqlite:///{folder}/rules.db"))
        rules = [
            (rule.endpoint, rule.rule, frozenset(rule.methods - {"HEAD", "OPTIONS"}))
            for rule in app.url_map.iter_rules()
            if rule.endpoint.startswith("admin.") and "<int:tenant_id>" in rule.rule
        ]
        with app.app_context():
            db.engine.dispose()
    return sorted(rules)


RULES = _tenant_rules()


def _stored() -> dict[str, int]:
    """How many rows each table holds: what a refused post must leave as it was."""
    db.session.rollback()
    return {
        table.name: db.session.scalar(select(func.count()).select_from(table))
        for table in db.metadata.sorted_tables
        if table.name not in {"login_sessions", "rate_limit_counters"}
    }


def _get(client, url: str):
    response = client.get(url)
    response.close()  # a live stream ends here
    assert response.status_code < 500, (url, response.status_code)
    return response


def _offered(app, response, tenant_id: int) -> set[tuple[str, str]]:
    """Each (endpoint, method) of the tenant a page links to or has a form post to."""
    if response.status_code != 200 or response.mimetype != "text/html":
        return set()
    shown, urls = soup(response), app.url_map.bind("localhost")
    targets = [(a["href"], "GET") for a in shown.select("a[href]")] + [
        (form.get("action") or response.request.path, "POST")
        for form in shown.select("form")
        if (form.get("method") or "get").lower() == "post"
    ]
    offered = set()
    for target, method in targets:
        path = urlsplit(target).path
        if not path.startswith(f"/tenants/{tenant_id}/"):
            continue
        try:
            endpoint, _arguments = urls.match(path, method)
        except HTTPException:
            continue
        offered.add((endpoint, method))
    return offered


def _person(acme, role: Role):
    person = supervisors.create_supervisor(
        f"{role.value}@example.com", PASSWORD, [acme], role=role, actor=SETUP
    )
    db.session.commit()
    return person


def test_the_sets_name_only_pages_that_exist():
    names = {endpoint.removeprefix("admin.") for endpoint, _rule, _methods in RULES}
    assert names >= roles.READS and names >= roles.ADMINISTRATION
    assert not roles.READS & roles.ADMINISTRATION


@pytest.mark.parametrize("role", list(Role))
def test_every_page_of_a_tenant_answers_each_role_as_the_role_allows(
    app,
    acme,
    signed_in,
    request,
    role,
):
    walk = request.getfixturevalue("world")
    person = session_for(browser(app), _person(acme, role))
    wrong, reached, offered, nothing = [], 0, set(), set()
    for endpoint, rule, methods in RULES:
        if "GET" not in methods:
            continue
        url = walk.url(rule)
        operator = _get(signed_in, url).status_code
        if operator == 404:
            nothing.add(endpoint)
        answer = _get(person, url)
        allowed = role.holds(roles.needed(endpoint))
        reached += allowed
        if answer.status_code != (operator if allowed else 404):
            wrong.append((endpoint, url, operator, answer.status_code))
        offered |= {(endpoint, *target) for target in _offered(app, answer, acme.id)}
    assert nothing == NOTHING_THERE
    assert wrong == []
    # No page offers the role a link or a form it would meet as 404.
    assert {
        (page_, target, method)
        for page_, target, method in offered
        if not role.holds(roles.needed(target))
    } == set()
    assert reached >= {Role.ANALYST: 20, Role.SUPERVISOR: 80, Role.ADMINISTRATOR: 105}[role]


@pytest.mark.parametrize("role", [Role.ANALYST, Role.SUPERVISOR])
def test_a_form_post_the_role_does_not_reach_is_404_and_changes_nothing(
    app,
    acme,
    request,
    role,
):
    walk = request.getfixturevalue("world")
    person = session_for(browser(app), _person(acme, role))
    forbidden = [
        (endpoint, rule)
        for endpoint, rule, methods in RULES
        if "POST" in methods and not role.holds(roles.needed(endpoint))
    ]
    assert len(forbidden) >= {Role.ANALYST: 70, Role.SUPERVISOR: 15}[role]
    before, audited = _stored(), db.session.scalar(select(func.count(AuditRecord.id)))
    for endpoint, rule in forbidden:
        response = person.post(walk.url(rule), data={"confirm": "y"})
        assert response.status_code == 404, (endpoint, response.status_code)
    assert _stored() == before
    assert db.session.scalar(select(func.count(AuditRecord.id))) == audited


@pytest.mark.parametrize(
    ("role", "links"),
    [
        (Role.ANALYST, ["Campaigns", "Agents", "Reports"]),
        (
            Role.SUPERVISOR,
            ["Campaigns", "Users", "Agents", "Reports", "Work codes", "Hours", "Do-not-call"],
        ),
        (
            Role.ADMINISTRATOR,
            [
                "Campaigns", "Users", "Agents", "Reports", "Work codes", "Hours",
                "Sign-in", "API keys", "Webhooks", "People", "Audit", "Do-not-call",
            ],
        ),
    ],
)  # fmt: skip
def test_the_menu_offers_each_role_what_it_reaches(app, acme, role, links):
    person = session_for(browser(app), _person(acme, role))
    shown = page(person, f"/tenants/{acme.id}/campaigns")
    offered = [a.get_text(strip=True) for a in shown.select("li.menu-link a")]
    tenant_links = [name for name in dict.fromkeys(offered) if name in ALL_LINKS]
    assert tenant_links == links


ALL_LINKS = {
    "Campaigns", "Users", "Agents", "Reports", "Work codes", "Hours", "Sign-in",
    "API keys", "Webhooks", "People", "Audit", "Do-not-call",
}  # fmt: skip


@pytest.mark.parametrize("role", list(Role))
def test_the_agents_board_hides_its_release_buttons_from_an_analyst(app, acme, role):
    """The live board is one render for every viewer: an analyst's page marks it read-only,
    which hides the Release buttons (static/app.css) the server refuses them."""
    person = session_for(browser(app), _person(acme, role))
    board = page(person, f"/tenants/{acme.id}/agents").select_one("[data-live]")
    assert board.has_attr("data-read-only") is (role is Role.ANALYST)
    css = (Path(app.static_folder) / "app.css").read_text()
    assert "[data-read-only] .release-form" in css

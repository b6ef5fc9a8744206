"""The supervisors' work-codes pages: the list, a group's page, every form (through the page
as a browser fills it), CSRF, and other tenants' groups answering 404."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import AuditRecord, WorkCodeChoice, WorkCodeGroup
from app.services.tenants import setup as tenants
from app.services.work_codes import groups as work_codes
from tests.admin.conftest import (
    BOSS,
    alert,
    csrf_token,
    make_supervisor,
    page,
    refusal,
    session_for,
    soup,
    submit,
)
from tests.admin.test_security import (
    CSRF_ON,
    assert_csrf_on_every_post_form,
    assert_no_inline_script_or_style,
    assert_strict_csp,
)
from tests.conftest import SETUP, make_tenant


def base(tenant) -> str:
    return f"/tenants/{tenant.id}/work-codes"


def group_url(tenant, group) -> str:
    return f"{base(tenant)}/{group.id}"


def fresh(model, **where):
    db.session.expire_all()
    return db.session.scalar(select(model).filter_by(**where))


def test_the_list_shows_groups_codes_and_queues(signed_in, acme, groups):
    shown = page(signed_in, base(acme))
    result = shown.find("tr", attrs={"data-group": "Result"})
    assert "Required, single" in result.get_text()
    assert "Sales" in result.get_text()
    old = result.find("li", attrs={"data-code": "Old"})
    assert "disabled" in old["class"] and "(disabled)" in old.get_text()
    assert "→ complete" in result.find("li", attrs={"data-code": "Sale"}).get_text()
    assert "Support" in shown.find("main").get_text()  # a queue without groups: free labels
    link = result.find("a")["href"]
    assert link == group_url(acme, groups["Result"])


def test_creating_a_group_leads_to_its_page(signed_in, acme):
    response = submit(
        signed_in,
        base(acme),
        "/work-codes",
        {"group-name": "Result", "group-required": "y", "group-multiple": None},
    )
    group = fresh(WorkCodeGroup, name="Result")
    assert response.status_code == 302 and response.location.endswith(group_url(acme, group))
    assert (group.required, group.multiple) == (True, False)
    record = fresh(AuditRecord, action="work_code_group.added")
    assert (record.actor_kind, record.actor_id) == ("supervisor", BOSS)


def test_a_taken_group_name_is_told_by_the_field(signed_in, acme, groups):
    response = submit(signed_in, base(acme), "/work-codes", {"group-name": "Result"})
    assert "'Result' already exists" in refusal(response)
    assert soup(response).find(id="group-name")["aria-invalid"] == "true"


def test_adding_a_code_through_the_group_page(signed_in, acme, groups):
    url = group_url(acme, groups["Topics"])
    response = submit(
        signed_in,
        url,
        "/codes",
        {
            "code-name": "Call later",
            "code-description": "The customer asked for later.",
            "code-outcome": "RESCHEDULE",
            "code-delay_minutes": "90",
            "code-sort_order": "5",
            "code-adds_to_dnc": None,
        },
    )
    assert response.status_code == 302
    code = fresh(WorkCodeChoice, name="Call later")
    assert (code.outcome, code.reschedule_minutes, code.sort_order) == ("RESCHEDULE", 90, 5)
    assert code.description == "The customer asked for later." and code.enabled
    row = page(signed_in, url).find("tr", attrs={"data-code": "Call later"})
    assert "Reschedule in 90 minutes" in row.get_text(" ", strip=True)


def test_a_delay_on_a_complete_code_is_refused_by_its_field(signed_in, acme, groups):
    response = submit(
        signed_in,
        group_url(acme, groups["Topics"]),
        "/codes",
        {"code-name": "Done", "code-outcome": "COMPLETE", "code-delay_minutes": "30"},
    )
    assert "only for a code whose outcome is RESCHEDULE" in refusal(response)
    assert fresh(WorkCodeChoice, name="Done") is None


def test_editing_a_code_keeps_the_form_filled(signed_in, acme, groups):
    sale = work_codes.get_code(groups["Result"], "Sale")
    edit = f"{group_url(acme, groups['Result'])}/codes/{sale.id}"
    shown = page(signed_in, edit)
    assert shown.find(id="code-name")["value"] == "Sale"
    assert shown.find(id="code-outcome").find("option", selected=True)["value"] == "COMPLETE"
    response = submit(signed_in, edit, f"/codes/{sale.id}", {"code-name": "Sold"})
    assert response.status_code == 302
    assert fresh(WorkCodeChoice, id=sale.id).name == "Sold"


@pytest.mark.parametrize(("switch", "enabled"), [("disable", False), ("enable", True)])
def test_a_code_is_disabled_and_enabled(signed_in, acme, groups, switch, enabled):
    code = work_codes.get_code(groups["Result"], "Sale")
    if enabled:
        work_codes.set_code_enabled(code, False, actor=SETUP)
        db.session.commit()
    url = group_url(acme, groups["Result"])
    response = submit(signed_in, url, f"/codes/{code.id}/{switch}")
    assert response.status_code == 302
    assert fresh(WorkCodeChoice, id=code.id).enabled is enabled
    record = fresh(AuditRecord, action=f"work_code.{switch}d", entity_id=str(code.id))
    assert (record.actor_kind, record.actor_id) == ("supervisor", BOSS)


def test_the_group_settings_and_queues(signed_in, acme, groups):
    url = group_url(acme, groups["Elsewhere"])
    submit(
        signed_in,
        url,
        f"/{groups['Elsewhere'].id}",
        {"group-name": "Mood", "group-required": "y", "group-multiple": "y"},
    )
    group = fresh(WorkCodeGroup, id=groups["Elsewhere"].id)
    assert (group.name, group.required, group.multiple) == ("Mood", True, True)
    submit(signed_in, url, "/queues", {"queues-queues": ["Support"]})
    db.session.expire_all()
    support = tenants.get_skill_queue(acme, "Support")
    assert [g.name for g in support.work_code_groups] == ["Mood"]
    submit(signed_in, url, "/queues", {"queues-queues": None})
    db.session.expire_all()
    assert tenants.get_skill_queue(acme, "Support").work_code_groups == []


def test_deleting_a_group(signed_in, acme, groups):
    url = group_url(acme, groups["Topics"])
    response = submit(signed_in, url, "/delete")
    assert response.status_code == 302 and response.location.endswith(base(acme))
    assert fresh(WorkCodeGroup, name="Topics") is None
    assert "deleted" in page(signed_in, base(acme)).find(class_="notice").get_text()


@CSRF_ON
def test_every_form_needs_its_csrf_token(signed_in, acme, groups):
    def counts():
        db.session.expire_all()
        return db.session.scalar(select(func.count()).select_from(AuditRecord))

    before = counts()
    sale = work_codes.get_code(groups["Result"], "Sale")
    url = group_url(acme, groups["Result"])
    for path, data in [
        (base(acme), {"group-name": "New"}),
        (url, {"group-name": "Renamed"}),
        (f"{url}/queues", {"queues-queues": "Support"}),
        (f"{url}/codes", {"code-name": "New"}),
        (f"{url}/codes/{sale.id}", {"code-name": "Renamed"}),
        (f"{url}/codes/{sale.id}/disable", {}),
        (f"{url}/delete", {}),
    ]:
        assert signed_in.post(path, data=data).status_code == 400, path
    assert counts() == before
    assert csrf_token(page(signed_in, url))  # the page's forms carry one


@pytest.fixture
def globex_group(app, acme):
    globex = make_tenant("Globex", "test")[0]
    group = work_codes.create_group(globex, "Theirs", actor=SETUP)
    code = work_codes.add_code(group, "Code", actor=SETUP)
    db.session.commit()
    return globex, group, code


@pytest.fixture
def acme_only(client, acme):
    return session_for(client, make_supervisor("acme@example.com", [acme]))


def test_another_tenants_pages_answer_404(acme_only, acme, globex_group):
    globex, group, code = globex_group
    theirs = group_url(globex, group)
    for url in (base(globex), theirs, f"{theirs}/codes/{code.id}"):
        assert acme_only.get(url).status_code == 404, url
    for url in (base(globex), theirs, f"{theirs}/delete", f"{theirs}/codes/{code.id}/disable"):
        assert acme_only.post(url, data={"group-name": "x"}).status_code == 404, url
    # Another tenant's group through one's own tenant's address is no better.
    mine_but_theirs = f"{base(acme)}/{group.id}"
    assert acme_only.get(mine_but_theirs).status_code == 404
    assert acme_only.post(f"{mine_but_theirs}/delete").status_code == 404
    assert acme_only.post(f"{mine_but_theirs}/codes/{code.id}/disable").status_code == 404
    assert fresh(WorkCodeGroup, id=group.id).name == "Theirs"
    assert fresh(WorkCodeChoice, id=code.id).enabled


def test_the_pages_escape_names(signed_in, acme):
    group = work_codes.create_group(acme, "<b>G</b>", actor=SETUP)
    work_codes.add_code(group, "<i>C</i>", actor=SETUP)
    db.session.commit()
    for url in (base(acme), group_url(acme, group)):
        main = page(signed_in, url).find("main")
        assert main.find("b") is None and main.find("i") is None
        assert "<i>C</i>" in main.get_text()
    assert alert(page(signed_in, base(acme))) == ""


@CSRF_ON
def test_the_pages_are_inline_free_and_every_form_has_its_token(signed_in, acme, groups):
    sale = work_codes.get_code(groups["Result"], "Sale")
    url = group_url(acme, groups["Result"])
    for path in (base(acme), url, f"{url}/codes/{sale.id}"):
        response = signed_in.get(path)
        assert response.status_code == 200
        assert_strict_csp(response)
        assert_no_inline_script_or_style(soup(response))
        assert_csrf_on_every_post_form(soup(response))


def test_the_report_flags_are_set_shown_and_audited(signed_in, acme, groups):
    url = group_url(acme, groups["Result"])
    data = {"code-name": "Interested", "code-contact": "y", "code-success": None}
    assert submit(signed_in, url, "/codes", data).status_code == 302
    code = fresh(WorkCodeChoice, name="Interested")
    assert (code.contact, code.success) == (True, False)
    row = page(signed_in, url).find("tr", attrs={"data-code": "Interested"})
    assert "contact" in row.get_text(" ", strip=True).split()
    item = page(signed_in, base(acme)).find("li", attrs={"data-code": "Interested"})
    assert "· contact" in item.get_text(" ", strip=True)
    edit = f"{url}/codes/{code.id}"
    assert page(signed_in, edit).find(id="code-contact").has_attr("checked")
    data = {"code-contact": None, "code-success": "y"}
    assert submit(signed_in, edit, f"/codes/{code.id}", data).status_code == 302
    code = fresh(WorkCodeChoice, name="Interested")
    assert (code.contact, code.success) == (False, True)
    record = db.session.scalars(
        select(AuditRecord).filter_by(action="work_code.changed").order_by(AuditRecord.id.desc())
    ).first()
    assert (record.before["contact"], record.after["contact"]) == (True, False)
    assert (record.before["success"], record.after["success"]) == (False, True)

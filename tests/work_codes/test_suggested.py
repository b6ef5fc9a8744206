"""A work code may name the call result it suggests (BUSY → "Busy"): the rule, what the desk
is offered, the CLI and the group's page."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, CallResult, WorkCodeChoice
from app.services.errors import InvalidInput
from app.services.fields import WORK_CODE_SUGGESTED_FOR
from app.services.tenants import setup as tenants
from app.services.work_codes import groups as work_codes
from app.services.work_codes.choices import offered, suggested
from app.services.work_codes.groups import CodeSettings
from tests.admin.conftest import page, soup, submit
from tests.cli.test_commands import assert_fails, last_line
from tests.conftest import SETUP


def fresh(name: str) -> WorkCodeChoice:
    db.session.expire_all()
    return db.session.scalar(select(WorkCodeChoice).filter_by(name=name))


def sales(acme):
    db.session.expire_all()
    return offered(tenants.get_skill_queue(acme, "Sales"))


@pytest.mark.parametrize("result", [r.value for r in CallResult])
def test_a_code_may_be_suggested_for_any_call_result(acme, groups, result):
    code = work_codes.add_code(
        groups["Result"], "Picked", CodeSettings(suggested_for=result), actor=SETUP
    )
    db.session.commit()
    assert fresh("Picked").suggested_for == result
    record = db.session.scalar(
        select(AuditRecord).filter_by(action="work_code.added", entity_id=str(code.id))
    )
    assert record.after["suggestedFor"] == result


@pytest.mark.parametrize("result", ["busy", "ENGAGED", "", "COMPLETE"])
def test_a_suggestion_that_is_no_call_result_is_refused_by_its_field(acme, groups, result):
    with pytest.raises(InvalidInput, match="is not a call result") as refused:
        work_codes.add_code(
            groups["Result"], "Picked", CodeSettings(suggested_for=result), actor=SETUP
        )
    assert refused.value.field == WORK_CODE_SUGGESTED_FOR
    db.session.rollback()
    assert fresh("Picked") is None


def test_the_desk_is_offered_the_suggestion_and_preselects_the_first_per_group(acme, groups):
    busy = CodeSettings("Engaged.", 9, "RESCHEDULE", 30, suggested_for="BUSY")
    work_codes.add_code(groups["Result"], "Busy", busy, actor=SETUP)
    later = CodeSettings("", 10, suggested_for="BUSY")
    work_codes.add_code(groups["Result"], "Busy again", later, actor=SETUP)
    work_codes.add_code(
        groups["Topics"], "Line busy", CodeSettings("", 3, None, None, False, "BUSY"), actor=SETUP
    )
    db.session.commit()
    offer = sales(acme)
    [busy_code] = [c for g in offer for c in g.codes if c.name == "Busy"]
    assert busy_code.suggested_for == "BUSY"
    assert suggested(offer, "BUSY") == [("Result", "Busy"), ("Topics", "Line busy")]
    assert suggested(offer, "VOICEMAIL") == []
    # A disabled code is not offered, so not suggested: the next one is.
    work_codes.set_code_enabled(fresh("Busy"), False, actor=SETUP)
    db.session.commit()
    assert suggested(sales(acme), "BUSY")[0] == ("Result", "Busy again")


# --- the CLI ----------------------------------------------------------------------------


@pytest.fixture
def work(runner, acme):
    def run(command: str, *args: str):
        return runner.invoke(args=["work-codes", command, "Acme", "prod", *args])

    return run


def test_the_cli_adds_a_code_suggested_for_a_result_and_changes_it(work, acme, groups):
    result = work(
        "add", "Result", "Busy", "--outcome", "RESCHEDULE", "--delay-minutes", "30",
        "--suggested-for", "BUSY",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "RESCHEDULE in 30 minutes, suggested after BUSY" in last_line(result)
    assert fresh("Busy").suggested_for == "BUSY"
    result = work("suggest", "Result", "Busy", "NO_ANSWER")
    assert result.exit_code == 0, result.output
    assert "suggested after NO_ANSWER calls" in last_line(result)
    code = fresh("Busy")
    assert (code.suggested_for, code.outcome, code.reschedule_minutes) == (
        "NO_ANSWER",
        "RESCHEDULE",
        30,
    )
    assert "Busy → RESCHEDULE in 30 minutes, suggested after NO_ANSWER" in work("list").output
    assert work("suggest", "Result", "Busy", "--none").exit_code == 0
    assert fresh("Busy").suggested_for is None


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["add", "Result", "Busy", "--suggested-for", "ENGAGED"], ["ENGAGED"]),
        (["suggest", "Result", "Sale", "ENGAGED"], ["ENGAGED"]),
        (["suggest", "Result", "Sale"], ["RESULT or --none"]),
        (["suggest", "Result", "Nope", "BUSY"], ["'Nope'"]),
    ],
)
def test_the_cli_refuses_a_bad_suggestion(work, groups, args, words):
    assert_fails(work(*args), *words)
    assert fresh("Sale").suggested_for is None
    assert fresh("Busy") is None


# --- the group's page -------------------------------------------------------------------


def group_url(acme, group) -> str:
    return f"/tenants/{acme.id}/work-codes/{group.id}"


def test_the_page_adds_a_code_suggested_for_a_result_and_shows_it(signed_in, acme, groups):
    url = group_url(acme, groups["Result"])
    changes = {"code-name": "Left voicemail", "code-suggested_for": "VOICEMAIL"}
    response = submit(signed_in, url, "/codes", changes)
    assert response.status_code == 302
    assert fresh("Left voicemail").suggested_for == "VOICEMAIL"
    row = page(signed_in, url).find("tr", attrs={"data-code": "Left voicemail"})
    assert "Voicemail" in row.get_text(" ", strip=True)
    # Editing the code shows the suggestion chosen; None removes it.
    code_id = fresh("Left voicemail").id
    edit = f"{url}/codes/{code_id}"
    chosen = page(signed_in, edit).find(id="code-suggested_for").find("option", selected=True)
    assert chosen["value"] == "VOICEMAIL"
    assert (
        submit(signed_in, edit, f"/codes/{code_id}", {"code-suggested_for": ""}).status_code == 302
    )
    assert fresh("Left voicemail").suggested_for is None


def test_the_page_refuses_a_suggestion_that_is_no_call_result(signed_in, acme, groups):
    url = group_url(acme, groups["Result"])
    changes = {"code-name": "Odd", "code-suggested_for": "ENGAGED"}
    response = submit(signed_in, url, "/codes", changes)
    assert response.status_code == 422
    shown = soup(response)
    assert shown.find(id="code-suggested_for")["aria-invalid"] == "true"
    assert shown.find(id="code-name")["value"] == "Odd"  # kept as typed
    assert fresh("Odd") is None

"""The task page says whether the task may be called now, or each contact rule holding it
back and until when, with each number's state (the contact rules' explanation)."""

from __future__ import annotations

from app.extensions import db
from app.services.dnc import numbers as dnc
from tests.admin.conftest import soup
from tests.calls.calls_support import MOBILE, PHONE, add_phones
from tests.conftest import SETUP


def _section(signed_in, acme, task):
    page = soup(signed_in.get(f"/tenants/{acme.id}/tasks/{task.record_id}"))
    return page.find(id="contactability")


def test_a_callable_task_says_so(signed_in, acme, renewals):
    task = add_phones(renewals, "c1", Phone=PHONE)
    section = _section(signed_in, acme, task)
    assert "Can be called now" in section.get_text()
    assert section.find("tr", attrs={"data-number": "Phone"}).find_all("td")[2].text == "Yes"


def test_each_reason_is_said_with_its_rule(signed_in, acme, renewals):
    task = add_phones(renewals, "c1", Phone=PHONE, Mobile_Phone=MOBILE)
    dnc.add_numbers(acme, [PHONE, MOBILE], actor=SETUP)
    task.worked_state = "COMPLETED"
    db.session.commit()
    section = _section(signed_in, acme, task)
    text = section.get_text(" ", strip=True)
    assert "Can be called now" not in text and "not by the clock" in text
    assert section.find("li", attrs={"data-rule": "STATE"}) is not None
    row = section.find("tr", attrs={"data-number": "Mobile_Phone"})
    assert row.find(attrs={"data-rule": "DO_NOT_CALL"}) is not None
    assert f"{MOBILE} is on the do-not-call list" in row.get_text()

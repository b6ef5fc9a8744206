"""The list itself: E.164 only, duplicates no error, remove, search, look-ups, a task's
numbers from a work code, and an audit record for every change."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.services.actors import Actor
from app.services.dnc import numbers as dnc
from app.services.errors import InvalidInput
from tests.admin.conftest import add_task
from tests.conftest import SETUP, make_tenant
from tests.dnc.dnc_support import E164, OTHER, listed, put, trail


@pytest.fixture
def globex(app):
    return make_tenant("Globex", "test")[0]


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        pytest.param("+14155550123", "+14155550123", id="us"),
        pytest.param("+442071838750", "+442071838750", id="uk"),
        pytest.param("+12", "+12", id="shortest"),
        pytest.param("+123456789012345", "+123456789012345", id="fifteen-digits"),
        pytest.param("  +14155550123\t", "+14155550123", id="blanks-around"),
    ],
)
def test_an_e164_number_is_listed(acme, typed, stored):
    dnc.add_numbers(acme, [typed], actor=SETUP)
    assert listed(acme) == {stored: ""}


@pytest.mark.parametrize(
    "typed",
    [
        pytest.param("14155550123", id="no-plus"),
        pytest.param("+04155550123", id="leading-zero"),
        pytest.param("+1", id="one-digit"),
        pytest.param("+1234567890123456", id="sixteen-digits"),
        pytest.param("+1 415 555 0123", id="spaces-inside"),
        pytest.param("+1-415-555-0123", id="dashes"),
        pytest.param("(415) 555-0123", id="national"),
        pytest.param("+١٤١٥٥٥٥٠١٢٣", id="non-ascii-digits"),
        pytest.param("", id="empty"),
        pytest.param("+", id="plus-only"),
    ],
)
def test_anything_else_is_refused_and_nothing_is_listed(acme, typed):
    with pytest.raises(InvalidInput, match="not an E.164 number"):
        dnc.add_numbers(acme, [E164, typed], actor=SETUP)
    assert listed(acme) == {}
    assert trail("dnc.added") == []


def test_adding_a_listed_number_again_is_no_error_and_keeps_its_first_note(acme):
    first = dnc.add_numbers(acme, [E164], "asked by phone", actor=SETUP)
    again = dnc.add_numbers(acme, [E164, OTHER, OTHER], "second", actor=SETUP)
    assert (first.added, first.already) == ([E164], [])
    assert (again.added, again.already) == ([OTHER], [E164])
    assert listed(acme) == {E164: "asked by phone", OTHER: "second"}
    assert [r.entity_id for r in trail("dnc.added")] == [E164, OTHER]  # no record for no change


def test_every_addition_is_audited_with_its_actor_and_note(acme):
    dnc.add_numbers(acme, [E164], "customer asked", actor=Actor.supervisor("boss@example.com"))
    (audit,) = trail("dnc.added")
    assert (audit.actor_kind, audit.actor_id) == ("supervisor", "boss@example.com")
    assert (audit.tenant_id, audit.entity_kind, audit.entity_id) == (acme.id, "dnc_number", E164)
    assert audit.after == {"number": E164, "note": "customer asked"}


def test_a_note_longer_than_255_characters_is_refused(acme):
    with pytest.raises(InvalidInput, match="note"):
        dnc.add_numbers(acme, [E164], "x" * 256, actor=SETUP)
    assert listed(acme) == {}


def test_remove_takes_numbers_off_and_says_which_were_not_listed(acme):
    put(acme, E164, OTHER, note="n")
    done = dnc.remove_numbers(acme, [E164, "+15550000000"], actor=SETUP)
    assert (done.removed, done.not_listed) == ([E164], ["+15550000000"])
    assert listed(acme) == {OTHER: "n"}
    (audit,) = trail("dnc.removed")
    assert (audit.entity_id, audit.before, audit.after) == (E164, {"number": E164, "note": "n"},
                                                            None)  # fmt: skip


def test_remove_refuses_a_number_that_is_not_e164(acme):
    put(acme, E164)
    with pytest.raises(InvalidInput, match="E.164"):
        dnc.remove_numbers(acme, [E164, "nope"], actor=SETUP)
    assert E164 in listed(acme)


def test_one_tenant_never_touches_another_tenants_list(acme, globex):
    put(acme, E164)
    done = dnc.remove_numbers(globex, [E164], actor=SETUP)
    assert done.not_listed == [E164]
    assert E164 in listed(acme)
    assert dnc.listed_numbers(globex.id, [E164]) == set()
    assert dnc.search_numbers(globex).total == 0


# --- search ------------------------------------------------------------------------------

NUMBERS = ["+14155550100", "+14155550101", "+14165550100", "+442071838750", "+1415"]


@pytest.mark.parametrize(
    ("query", "exact", "expected"),
    [
        pytest.param("", False, sorted(NUMBERS), id="everything"),
        pytest.param("+1415", False, ["+1415", "+14155550100", "+14155550101"], id="prefix"),
        pytest.param("1415", False, ["+1415", "+14155550100", "+14155550101"], id="no-plus"),
        pytest.param("+14155550100", False, ["+14155550100"], id="whole-number-as-prefix"),
        pytest.param("+1415", True, ["+1415"], id="exact"),
        pytest.param("+44", False, ["+442071838750"], id="other-country"),
        pytest.param("+49", False, [], id="none"),
    ],
)
def test_search_finds_by_prefix_or_exactly(acme, query, exact, expected):
    put(acme, *NUMBERS)
    found = dnc.search_numbers(acme, query, exact=exact)
    assert [e.number for e in found.entries] == expected
    assert found.total == len(expected)


@pytest.mark.parametrize("query", ["abc", "+1%", "+1_", "+1 415", "++1"])
def test_search_refuses_what_no_number_starts_with(acme, query):
    with pytest.raises(InvalidInput, match="digits"):
        dnc.search_numbers(acme, query)


def test_search_is_paged_in_number_order(acme):
    numbers = [f"+1415555{n:04d}" for n in range(7)]
    put(acme, *reversed(numbers))
    pages = [dnc.search_numbers(acme, "+1", limit=3, offset=o) for o in (0, 3, 6)]
    assert [[e.number for e in p.entries] for p in pages] == [
        numbers[:3], numbers[3:6], numbers[6:]
    ]  # fmt: skip
    assert {p.total for p in pages} == {7}


# --- look-ups and a task's numbers --------------------------------------------------------


def test_listed_numbers_says_which_are_on_the_list(acme):
    put(acme, E164)
    assert dnc.listed_numbers(acme.id, [E164, OTHER, "not a number"]) == {E164}
    assert dnc.listed_numbers(acme.id, []) == set()


def test_a_work_code_lists_every_e164_phone_number_of_the_task(acme, renewals):
    task = add_task(
        renewals,
        "C1",
        {
            "Name": "Ann",
            "Phone": E164,
            "mobilePHONE": OTHER,
            "WorkPhone": "",  # no such number
            "Fax": "+14155550177",  # not a phone key
            "HomePhone": E164,  # repeated
        },
    )
    agent = Actor.agent("ann")
    assert dnc.add_task_numbers(task, actor=agent) == [E164, OTHER]
    db.session.commit()
    assert listed(acme) == {E164: "work code", OTHER: "work code"}
    records = trail("dnc.added")
    assert [(r.actor_kind, r.actor_id, r.entity_id) for r in records] == [
        ("agent", "ann", E164), ("agent", "ann", OTHER)
    ]  # fmt: skip
    assert records[0].after["task"] == task.record_id
    # Again: the numbers are listed already; nothing changes, nothing more is recorded.
    assert dnc.add_task_numbers(task, actor=agent) == [E164, OTHER]
    assert len(trail("dnc.added")) == 2


def test_a_task_without_phone_numbers_lists_nothing(acme, renewals):
    task = add_task(renewals, "C1", {"Name": "Ann"})
    assert dnc.add_task_numbers(task, actor=SETUP) == []
    assert listed(acme) == {}

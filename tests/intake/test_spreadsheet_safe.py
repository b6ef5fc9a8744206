"""Exports are safe to open in a spreadsheet, and still load back as the same tasks.

The rule (app/services/csv_cells.py): export puts one `'` before every value matching
`'*[=@+\\-\\t\\r]` at its start, but for one that is exactly `+` and digits (an E.164 phone
number, which runs nothing); intake takes one `'` off every cell matching `'+[=@+\\-\\t\\r]`.
"""

from __future__ import annotations

import csv
import io

import pytest

from app.services.csv_cells import guard, unguard
from app.services.intake.export import export_csv
from tests.intake.conftest import tasks_of

# value, as exported
TRICKY = [
    ("=1+1", "'=1+1"),
    ("'=x", "''=x"),
    ("''=x", "'''=x"),
    ("+14155550123", "+14155550123"),  # a phone number as a CRM reads it back
    ("+1 415", "'+1 415"),
    ("+1+1", "'+1+1"),
    ("+", "'+"),
    ("'+14155550123", "''+14155550123"),
    ("-5", "'-5"),
    ("@SUM(A1)", "'@SUM(A1)"),
    ("\tx", "'\tx"),
    ("\rx", "'\rx"),
    ("''", "''"),
    ("'", "'"),
    ("'quoted'", "'quoted'"),
    ("plain", "plain"),
    ("a=b", "a=b"),
    ("", ""),
]
IDS = [repr(value) for value, _ in TRICKY]


@pytest.mark.parametrize(("value", "written"), TRICKY, ids=IDS)
def test_export_guards_a_value_and_intake_gives_it_back(value, written):
    assert guard(value) == written
    assert unguard(written) == value


@pytest.mark.parametrize("cell", ["'+1x", "'=x", "''-", "'\t", "''+1"], ids=repr)
def test_a_guarded_cell_never_starts_a_formula(cell):
    assert guard(unguard(cell)) == cell
    assert guard(cell)[0] == "'"


@pytest.mark.parametrize(("value", "written"), TRICKY[:-1], ids=IDS[:-1])
def test_an_export_is_guarded_and_loads_back_as_the_same_task(
    api, renewals, winback, write, load, value, written
):
    api.add("A", {"Name": "Ann", "Note": value, "Score": value})
    text = "".join(export_csv(renewals, []))
    row = next(csv.DictReader(io.StringIO(text, newline="")))
    assert (row["Note"], row["Score"]) == (written, written)

    counts, report = load(winback, write(text))
    assert (counts.added, counts.rejected) == (1, 0), report
    assert tasks_of(winback)["A"].items == tasks_of(renewals)["A"].items


def test_guarded_system_fields_and_keys_load_back(api, renewals, winback, write, load):
    api.add("=A", {"Name": "@Ann", "-Key": "+1-1"}, preferredAgent="=agent")
    text = "".join(export_csv(renewals, []))
    header, row = list(csv.reader(io.StringIO(text, newline="")))
    assert header[:3] == ["Id", "Name", "'-Key"]
    assert row[:3] == ["'=A", "'@Ann", "'+1-1"]
    assert "'=agent" in row

    counts, report = load(winback, write(text))
    assert (counts.added, counts.rejected) == (1, 0), report
    original, copy = tasks_of(renewals)["=A"], tasks_of(winback)["=A"]
    assert (copy.items, copy.preferred_agent) == (original.items, original.preferred_agent)


def test_a_hand_made_file_or_an_older_export_may_quote_a_phone_number(renewals, write, load):
    counts, report = load(renewals, write("Id,Mobile Phone\nA,'+14155550123\n"))
    assert counts.added == 1, report
    assert tasks_of(renewals)["A"].data["Mobile Phone"] == "+14155550123"


def test_the_cli_export_is_guarded_too(runner, api, renewals):
    api.add("A", {"Name": "-Ann"})
    result = runner.invoke(args=["intake", "export", "Acme", "prod", "Renewals"])
    assert result.exit_code == 0, result.output
    assert next(csv.DictReader(io.StringIO(result.output, newline="")))["Name"] == "'-Ann"

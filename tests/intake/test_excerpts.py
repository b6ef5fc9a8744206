"""What a refusal may quote of a file: a short excerpt of a cell, control and invisible
characters written as escapes, on the load's page, in its report and in its message."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.services.csv_cells import excerpt, reason_text
from app.services.intake.runs import report_file, run_load
from tests.intake.conftest import csv_text, read_report, start

SECRET = "Zk9" + "q" * 58 + "XyZ"  # 64 characters, as instance/secret_key
HIDDEN = "A\x1b[31m\u202eB\nC"


@pytest.mark.parametrize(
    ("cell", "shown"),
    [
        ("Ann", "Ann"),
        ("a" * 24, "a" * 24),
        ("a" * 30, "a" * 24 + "… (30 characters)"),
        (HIDDEN, "A\\x1b[31m\\u202eB\\x0aC"),
    ],
)
def test_an_excerpt_is_short_and_shows_what_is_hidden(cell, shown):
    assert excerpt(cell) == shown


def test_a_reason_is_cut_to_its_limit():
    assert reason_text("x" * 1000, 300) == "x" * 299 + "…"
    assert reason_text("line\r\nbreak") == "line\\x0d\\x0abreak"


def test_a_file_refused_for_its_header_quotes_an_excerpt_of_it(renewals, write):
    load = start(renewals, write(f"{SECRET}\nx\n"))
    db.session.commit()
    done = run_load(load.id)
    assert done.status == "refused"
    assert "it is 'Zk9qqqqqqqqqqqqqqqqqqqqq… (64 characters)'" in done.message
    assert SECRET not in done.message and "XyZ" not in done.message
    [line] = read_report(report_file(done))
    assert "XyZ" not in line["reason"] and "Zk9" in line["reason"]


def test_a_rejected_rows_report_quotes_excerpts_of_its_cells(renewals, write, load):
    rows = [
        ["Id", "Name", "nextEarliestWorkTime", "ItemTimeZone"],
        ["A", "Ann", SECRET, "UTC"],
        ["B", "Bob", "", SECRET],
        ["C" * 300 + SECRET, "Cy", "", ""],
    ]
    _counts, report = load(renewals, write(csv_text(rows)))
    assert [row["outcome"] for row in report] == ["rejected"] * 3
    for row in report:
        assert "XyZ" not in row["reason"] + row["clientId"], row
        assert len(row["reason"]) <= 300 and len(row["clientId"]) <= 90
    assert "nextEarliestWorkTime 'Zk9qqqqqqqqqqqqqqqqqqqqq… (64 characters)'" in report[0]["reason"]

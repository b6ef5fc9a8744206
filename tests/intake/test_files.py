"""Whole files: encodings, delimiters and headers. A file that cannot be read as the
campaign's intake CSV is refused with a message, and nothing changes."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import IntakeLoad, LoadStatus, TaskItem
from app.services.intake.file_reader import FileRefused
from app.services.intake.runs import run_load
from tests.admin.conftest import add_task
from tests.intake.conftest import csv_text, start, tasks_of

LONG_NAME = "K" * 256
# A file whose only fault is far past the part read to detect the delimiter.
LATE_BAD_BYTE = ("Id,Name\n" + "".join(f"C{n},Customer {n}\n" for n in range(5000))).encode() + (
    b"C-late,M\xfcller\n"
)

# Python's csv module reads NUL characters as any other: the refusal may say either.
NUL = re.compile(r"NUL|not valid CSV")

MALFORMED = {
    "latin-1": ("Id,Name\nA,Müller\n".encode("latin-1"), "not UTF-8"),
    "utf-16": ("Id,Name\nA,Ann\n".encode("utf-16"), "not UTF-8"),
    "bad byte after 64 KiB": (LATE_BAD_BYTE, "not UTF-8"),
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", "not UTF-8"),
    "NUL byte in a cell": (b"Id,Name\nA,Ann\x00e\nB,Bob\n", NUL),
    "NUL byte in the header": (b"Id,Na\x00me\nA,Ann\n", NUL),
    "unterminated quote": (b'Id,Name\nA,"Ann\nB,Bob\n', "not valid CSV"),
    "text after a closing quote": (b'Id,Name\nA,"Ann"e\n', "not valid CSV"),
    "zero bytes": (b"", "empty"),
    "BOM alone": (b"\xef\xbb\xbf", "empty"),
    "blank lines alone": (b"\n\n\r\n", "empty"),
    "no clientId column": (b"Name,Plan\nAnn,Gold\n", "first column must be 'Id'"),
    "clientId column not first": (b"Name,Id\nAnn,A\n", "first column must be 'Id'"),
    "clientId header in another case": (b"id,Name\nA,Ann\n", "first column must be 'Id'"),
    "clientId header with a space": (b" Id,Name\nA,Ann\n", "first column must be 'Id'"),
    "JSON": (b'{"Id": "A", "Name": "Ann"}\n', "first column must be 'Id'"),
    "empty header cell": (b"Id,,Plan\nA,x,Gold\n", "column 2 has no name"),
    "blank header cell": (b"Id,Name,  \nA,Ann,x\n", "column 3 has no name"),
    "trailing delimiter in the header": (b"Id,Name,\nA,Ann,\n", "column 3 has no name"),
    "duplicate header": (b"Id,Name,Plan,Name\nA,Ann,Gold,Ann\n", "'Name' is used twice"),
    "clientId field name again": (b"Id,Name,Id\nA,Ann,A\n", "clientId field name"),
    "header too long": (f"Id,{LONG_NAME}\nA,x\n".encode(), "longer than 255"),
}


def matches(words: str | re.Pattern, message: str | None) -> bool:
    if isinstance(words, re.Pattern):
        return words.search(message or "") is not None
    return words in (message or "")


def refuse(campaign, path, **options) -> str:
    """Run a recorded load of the file; assert it was refused and return its message."""
    load = start(campaign, path, **options)
    load = run_load(load.id)
    assert load.status == LoadStatus.REFUSED, (load.status, load.message)
    assert load.finished_at is not None
    assert (load.added, load.updated) == (0, 0)
    return load.message


@pytest.mark.parametrize(("content", "words"), MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_file_is_refused_and_nothing_changes(renewals, write, content, words):
    add_task(renewals, "A", {"Name": "Before", "Plan": "Silver"})
    before = tasks_of(renewals)
    message = refuse(renewals, write(content))
    assert matches(words, message)
    assert tasks_of(renewals) == before


@pytest.mark.parametrize(("content", "words"), MALFORMED.values(), ids=MALFORMED.keys())
def test_load_file_raises_file_refused(renewals, write, load, content, words):
    with pytest.raises(FileRefused) as refused:
        load(renewals, write(content))
    assert matches(words, refused.value.message)
    assert tasks_of(renewals) == {}


def test_a_dry_run_or_all_or_nothing_load_refuses_the_same_files(renewals, write):
    path = write(b"Name,Plan\nAnn,Gold\n")
    assert "first column" in refuse(renewals, path, dry_run=True)
    assert "first column" in refuse(renewals, path, all_or_nothing=True)


def test_the_first_column_is_the_campaigns_own_client_id_field_name(accounts, write, load):
    message = refuse(accounts, write("Id,Name\nA,Ann\n"))
    assert "'AccountNo'" in message
    assert "'Id'" in message
    counts, _ = load(accounts, write("AccountNo,Name\nA-1,Ann\n", name="ok.csv"))
    assert counts.added == 1
    assert tasks_of(accounts)["A-1"].items == (("AccountNo", "A-1", None), ("Name", "Ann", None))


def test_a_file_refused_late_has_written_nothing(renewals, write):
    """The bad byte sits after 5,000 good rows (a whole batch): the check read finds it."""
    refuse(renewals, write(LATE_BAD_BYTE))
    assert tasks_of(renewals) == {}
    assert db.session.scalar(select(func.count()).select_from(TaskItem)) == 0


ROWS = [
    ["Id", "Name", "Plan", "Notes"],
    ["A", "Ann", "Gold", "likes tea"],
    ["B", "Bob", "Silver", ""],
]


@pytest.mark.parametrize(
    "delimiter", [",", ";", "\t", "|"], ids=["comma", "semicolon", "tab", "pipe"]
)
@pytest.mark.parametrize("bom", [False, True], ids=["plain", "bom"])
@pytest.mark.parametrize("given", [False, True], ids=["detected", "given"])
def test_delimiters_detected_or_given_with_or_without_bom(
    renewals, write, load, delimiter, bom, given
):
    text = ("\ufeff" if bom else "") + csv_text(ROWS, delimiter)
    counts, report = load(renewals, write(text), delimiter=delimiter if given else None)
    assert (counts.rows, counts.added, counts.rejected) == (2, 2, 0), report
    tasks = tasks_of(renewals)
    assert tasks["A"].items == (
        ("Id", "A", None),
        ("Name", "Ann", None),
        ("Plan", "Gold", None),
        ("Notes", "likes tea", None),
    )
    assert tasks["B"].data == {"Id": "B", "Name": "Bob", "Plan": "Silver"}


@pytest.mark.parametrize(
    ("delimiter", "rows"),
    [
        (",", [["Id", "Name", "Highlight"], ["A", "Ann", "Name|Plan"], ["B", "Bob", "Plan|Name"]]),
        (",", [["Id", "Name", "Notes"], ["A", "Smith; Ann", "a;b;c"], ["B", "Bob", "x;y"]]),
        (";", [["Id", "Name", "Balance"], ["A", "Smith, Ann", "1,5"], ["B", "Bob", "2,25"]]),
        ("\t", [["Id", "Name", "Notes"], ["A", "Ann, Smith", "a|b"], ["B", "Bob", "c;d"]]),
        ("|", [["Id", "Name", "Notes"], ["A", "Ann, Smith", "a;b"], ["B", "Bob", "c,d"]]),
    ],
    ids=["comma-with-pipes", "comma-with-semicolons", "semicolon-with-commas", "tab", "pipe"],
)
def test_the_delimiter_is_detected_when_values_hold_other_delimiters(
    renewals, write, load, delimiter, rows
):
    counts, report = load(renewals, write(csv_text(rows, delimiter)))
    assert (counts.added, counts.rejected) == (2, 0), report
    tasks = tasks_of(renewals)
    for row in rows[1:]:
        assert tasks[row[0]].data == dict(zip(rows[0], row, strict=True))


def test_a_single_column_file_loads_tasks_with_their_client_id_alone(renewals, write, load):
    counts, _ = load(renewals, write("Id\nA\nB\n"))
    assert counts.added == 2
    assert tasks_of(renewals)["A"].items == (("Id", "A", None),)


def test_a_given_delimiter_wins_over_detection(renewals, write, load):
    path = write("Id|Name,Plan\nA|Ann,Gold\n")
    counts, _ = load(renewals, path, delimiter="|")
    assert counts.added == 1
    assert tasks_of(renewals)["A"].data == {"Id": "A", "Name,Plan": "Ann,Gold"}


def test_a_wrong_given_delimiter_refuses_the_file(renewals, write):
    path = write("Id;Name\nA;Ann\n")
    load = start(renewals, path)
    load = run_load(load.id, delimiter=",")
    assert load.status == LoadStatus.REFUSED
    assert "first column must be 'Id'" in load.message
    assert tasks_of(renewals) == {}


def test_crlf_line_ends_and_a_missing_final_newline(renewals, write, load):
    counts, _ = load(renewals, write("Id,Name\r\nA,Ann\r\nB,Bob"))
    assert counts.added == 2
    assert tasks_of(renewals)["B"].data == {"Id": "B", "Name": "Bob"}


def test_refusals_are_recorded_once_per_file(renewals, write):
    refuse(renewals, write(b""))
    [load] = db.session.scalars(select(IntakeLoad))
    assert load.rows_total == load.rows_done == 0

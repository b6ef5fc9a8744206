"""CSV import and export: a report of every row that added nothing, by its row number; a
broken file refused whole; large files in bulk; an export loads back as the same list."""

from __future__ import annotations

import pytest
from sqlalchemy import event

from app.extensions import db
from app.services.dnc.list_csv import export_csv, import_numbers
from app.services.errors import InvalidInput
from tests.conftest import SETUP, make_tenant
from tests.dnc.dnc_support import E164, OTHER, listed, put, trail


def load(tenant, text: str | bytes, name: str = "list.csv", **options):
    data = text.encode() if isinstance(text, str) else text
    report = import_numbers(tenant, data, name, actor=SETUP, **options)
    db.session.commit()
    return report


def rows(results) -> list[tuple[int, str, str]]:
    return [(r.row, r.value, r.reason) for r in results]


FILE = "\n".join(
    [
        "Phone number,Note",  # 1: header
        "+14155550100,asked on the phone",  # 2: added, with its note
        "+14155550101",  # 3: added, the import's note
        "",  # 4: blank, skipped
        "4155550102,bad",  # 5: refused
        "+14155550100,again",  # 6: repeats row 2
        f"{E164}",  # 7: listed before the import
        ",note only",  # 8: no number
        "+14155550103," + "x" * 256,  # 9: note too long
        "'+14155550104,guarded by an export",  # 10: added (the spreadsheet guard comes off)
        " +14155550105 ; x",  # 11: added (blanks around; a comma file: the cell is whole)
    ]
)


def test_the_report_names_each_row_that_added_nothing(acme):
    put(acme, E164, note="before")
    report = load(acme, FILE, note="bulk")
    assert report.added == 3
    assert rows(report.already) == [
        (6, "+14155550100", "repeats row 2"),
        (7, E164, "already on the list"),
    ]
    assert [(r.row, r.value) for r in report.refused] == [
        (5, "4155550102"), (8, ""), (9, "+14155550103"), (11, "+14155550105 ; x")
    ]  # fmt: skip
    assert "not an E.164 number" in report.refused[0].reason
    assert "no number" in report.refused[1].reason
    assert "note is longer than 255" in report.refused[2].reason
    assert report.summary() == "9 rows: 3 added, 2 already listed, 4 refused"
    assert listed(acme) == {
        E164: "before",
        "+14155550100": "asked on the phone",
        "+14155550101": "bulk",
        "+14155550104": "guarded by an export",
    }


def test_one_summary_audit_record_tells_the_import(acme):
    load(acme, FILE)
    (audit,) = trail("dnc.imported")
    assert (audit.entity_kind, audit.entity_id, audit.tenant_id) == ("dnc_import", "list.csv",
                                                                     acme.id)  # fmt: skip
    assert audit.after == {
        "file": "list.csv", "added": 4, "alreadyListed": 1, "refused": 4, "note": "import"
    }  # fmt: skip
    assert trail("dnc.added") == []


def test_a_long_file_name_is_cut_to_what_the_trail_keeps(acme):
    load(acme, E164, name="n" * 300 + ".csv")
    (audit,) = trail("dnc.imported")
    assert audit.entity_id == "n" * 255


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(f"{E164}\n{OTHER}\n", {E164: "import", OTHER: "import"}, id="no-header"),
        pytest.param(f"{E164};a\r\n{OTHER};b\r\n", {E164: "a", OTHER: "b"}, id="semicolons-crlf"),
        pytest.param(f"number\tnote\n{E164}\tx\n", {E164: "x"}, id="tabs-header"),
        pytest.param(f"\ufeffnumber\n{E164}\n", {E164: "import"}, id="bom-header"),
        pytest.param(f'"{E164}","a, b",extra\n', {E164: "a, b"}, id="quoted-more-columns"),
    ],
)
def test_files_with_or_without_a_header_and_notes(acme, text, expected):
    report = load(acme, text)
    assert report.refused == []
    assert listed(acme) == expected


def test_a_first_row_with_digits_is_a_row_not_a_header(acme):
    report = load(acme, "+1 415 555 0100\n" + E164)
    assert rows(report.refused)[0][:2] == (1, "+1 415 555 0100")
    assert listed(acme) == {E164: "import"}


@pytest.mark.parametrize(
    ("data", "words"),
    [
        pytest.param(b"+14155550100\n\xff\xfe\n", "not UTF-8", id="not-utf8"),
        pytest.param(b"+14155550100\n+1415\x00\n", "NUL", id="nul"),
        pytest.param(b'+14155550100\n"+1415"x"\n', "line 2", id="broken-quotes"),
    ],
)
def test_a_broken_file_is_refused_whole(acme, data, words):
    with pytest.raises(InvalidInput, match=words):
        import_numbers(acme, data, "bad.csv", actor=SETUP)
    db.session.rollback()
    assert listed(acme) == {}


def test_an_empty_file_adds_nothing(acme):
    assert load(acme, "").summary() == "0 rows: 0 added, 0 already listed, 0 refused"


def test_a_large_file_is_written_in_bulk_not_row_by_row(acme):
    count = 20_000
    text = "\n".join(f"+1415{n:07d}" for n in range(count))
    inserts = []

    def seen(_conn, _cursor, statement, *_args):
        if statement.lstrip().upper().startswith("INSERT INTO DNC_NUMBERS"):
            inserts.append(statement)

    event.listen(db.engine, "before_cursor_execute", seen)
    try:
        report = load(acme, text)
    finally:
        event.remove(db.engine, "before_cursor_execute", seen)
    assert report.added == count
    assert len(inserts) <= 10  # a few thousand rows per statement
    assert len(listed(acme)) == count
    again = load(acme, text)
    assert (again.added, len(again.already)) == (0, count)


def test_an_export_loads_back_as_the_same_list(acme):
    put(acme, E164, note="=1+1")
    put(acme, OTHER, note="plain, with a comma")
    text = "".join(export_csv(acme))
    lines = text.splitlines()
    assert lines[0] == "number,note,added"
    assert lines[1].startswith(f"{E164},'=1+1,")  # the spreadsheet guard, for the note
    globex = make_tenant("Globex", "test")[0]
    report = load(globex, text)
    assert (report.added, report.refused) == (2, [])
    assert listed(globex) == listed(acme)


def test_an_export_reads_in_chunks(acme, monkeypatch):
    monkeypatch.setattr("app.services.dnc.list_csv.EXPORT_CHUNK", 2)
    numbers = [f"+1415555000{n}" for n in range(5)]
    put(acme, *numbers)
    chunks = list(export_csv(acme))
    assert len(chunks) == 3
    assert [line.split(",")[0] for line in "".join(chunks).splitlines()[1:]] == numbers

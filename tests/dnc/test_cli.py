"""`flask dnc add|remove|import|search|export`: exact output, one-line errors, non-zero exits,
nothing half-made."""

from __future__ import annotations

import pytest

from tests.cli.test_commands import assert_fails
from tests.dnc.dnc_support import E164, OTHER, listed, put, trail

TENANT = ["Acme", "prod"]


def run(runner, *args: str):
    return runner.invoke(args=["dnc", *args])


def ok(result) -> str:
    assert result.exit_code == 0, result.output
    return result.output


def test_add_lists_numbers_and_says_which_were_listed_already(runner, acme):
    put(acme, OTHER)
    said = ok(run(runner, "add", *TENANT, E164, OTHER, "--note", "asked"))
    assert said.strip() == f"Added 1 to the do-not-call list of Acme/prod. Already listed: {OTHER}."
    assert listed(acme) == {E164: "asked", OTHER: "test"}
    (audit,) = trail("dnc.added")[1:]
    assert audit.actor_kind == "operator"


def test_add_without_a_note_says_it_came_from_the_command_line(runner, acme):
    ok(run(runner, "add", *TENANT, E164))
    assert listed(acme) == {E164: "cli"}


@pytest.mark.parametrize(
    ("args", "words"),
    [
        pytest.param([*TENANT, E164, "4155550100"], ["4155550100", "E.164"], id="bad-number"),
        pytest.param(["Acme", "test", E164], ["Acme/test"], id="unknown-tenant"),
        pytest.param([*TENANT, E164, "--note", "x" * 256], ["note", "255"], id="long-note"),
    ],
)
def test_add_refuses_in_one_line_and_lists_nothing(runner, acme, args, words):
    assert_fails(run(runner, "add", *args), *words)
    assert listed(acme) == {}


def test_add_needs_a_number(runner, acme):
    assert run(runner, "add", *TENANT).exit_code != 0


def test_remove_takes_numbers_off_and_says_which_were_not_listed(runner, acme):
    put(acme, E164)
    said = ok(run(runner, "remove", *TENANT, E164, OTHER))
    assert said.strip() == (
        f"Removed 1 from the do-not-call list of Acme/prod. Not on the list: {OTHER}."
    )
    assert listed(acme) == {}


def test_remove_refuses_a_bad_number(runner, acme):
    put(acme, E164)
    assert_fails(run(runner, "remove", *TENANT, E164, "nope"), "nope")
    assert E164 in listed(acme)


def test_import_prints_the_refused_rows_and_the_counts(runner, acme, tmp_path):
    put(acme, E164)
    file = tmp_path / "numbers.csv"
    file.write_text(f"number,note\n{E164}\n{OTHER},asked\nnope\n")
    said = ok(run(runner, "import", *TENANT, str(file))).splitlines()
    assert said[0].startswith("row 4: refused: 'nope' is not an E.164 number")
    assert said[-1] == "3 rows: 1 added, 1 already listed, 1 refused"
    assert listed(acme) == {E164: "test", OTHER: "asked"}
    (audit,) = trail("dnc.imported")
    assert audit.entity_id == "numbers.csv"


def test_import_refuses_a_file_that_is_not_text(runner, acme, tmp_path):
    file = tmp_path / "numbers.csv"
    file.write_bytes(f"{E164}\n".encode() + b"\xff\xfe")
    assert_fails(run(runner, "import", *TENANT, str(file)), "UTF-8")
    assert listed(acme) == {}


def test_import_refuses_a_missing_file(runner, acme, tmp_path):
    result = run(runner, "import", *TENANT, str(tmp_path / "none.csv"))
    assert result.exit_code != 0
    assert "does not exist" in result.output


def test_search_prints_one_number_per_line_and_the_count_aside(runner, acme):
    put(acme, E164, OTHER, "+442071838750", note="n")
    result = run(runner, "search", *TENANT, "+1415", "--limit", "1", "--offset", "1")
    ok(result)
    assert [line.split("\t")[:2] for line in result.stdout.splitlines()] == [[OTHER, "n"]]
    assert "2–2 of 2 numbers" in result.stderr
    exact = run(runner, "search", *TENANT, E164, "--exact")
    assert [line.split("\t")[0] for line in exact.stdout.splitlines()] == [E164]


def test_search_refuses_what_is_no_number(runner, acme):
    assert_fails(run(runner, "search", *TENANT, "abc"), "digits")


def test_export_writes_the_list_to_a_file_or_standard_output(runner, acme, tmp_path):
    put(acme, E164, note="n")
    file = tmp_path / "out.csv"
    ok(run(runner, "export", *TENANT, str(file)))
    lines = file.read_text().splitlines()
    assert lines[0] == "number,note,added"
    assert lines[1].startswith(f"{E164},n,")  # a plain number runs nothing
    assert ok(run(runner, "export", *TENANT)).splitlines() == lines


def test_export_refuses_an_unknown_tenant(runner, acme):
    assert_fails(run(runner, "export", "Nope", "prod"), "Nope/prod")

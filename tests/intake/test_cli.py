"""`flask intake load|export|watch`: exit codes, output lines, options."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import IntakeLoad
from tests.intake.conftest import read_report, tasks_of

GOOD = "Id,Name,Mobile Phone,workedState\nA,Ann,+14155550123,\nB,Bob,,\nA,Ann 2,,\nC,Cy,555\n"


def error_lines(result) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith("Error:")]


def intake(runner, *args):
    return runner.invoke(args=["intake", *map(str, args)])


def test_load_prints_the_counts_the_ignored_columns_and_the_report(runner, renewals, write):
    result = intake(runner, "load", "Acme", "prod", "Renewals", write(GOOD))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "4 rows: 2 added, 0 updated, 1 rejected, 1 superseded"
    assert lines[1] == "ignored columns: workedState"
    assert lines[2].startswith("Report: ")
    report = read_report(Path(lines[2].removeprefix("Report: ")))
    assert sorted((r["line"], r["outcome"]) for r in report) == [
        ("2", "superseded"),
        ("5", "rejected"),
    ]
    assert tasks_of(renewals)["A"].data["Name"] == "Ann 2"
    [load] = db.session.scalars(select(IntakeLoad))
    assert (load.source, load.file_name, load.status) == ("cli", "tasks.csv", "done")


def test_load_without_ignored_columns_prints_two_lines(runner, renewals, write):
    result = intake(runner, "load", "Acme", "prod", "Renewals", write("Id,Name\nA,Ann\n"))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "1 rows: 1 added, 0 updated, 0 rejected, 0 superseded"
    assert len(lines) == 2 and lines[1].startswith("Report: ")


def test_load_dry_run_writes_nothing(runner, renewals, write):
    result = intake(runner, "load", "Acme", "prod", "Renewals", write(GOOD), "--dry-run")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == (
        "Dry run, nothing written. 4 rows: 2 added, 0 updated, 1 rejected, 1 superseded"
    )
    assert tasks_of(renewals) == {}


def test_load_all_or_nothing_refuses_a_file_with_a_bad_row(runner, renewals, write):
    result = intake(runner, "load", "Acme", "prod", "Renewals", write(GOOD), "--all-or-nothing")
    assert result.exit_code == 1, result.output
    [error] = error_lines(result)
    assert "refused" in error and "all-or-nothing" in error
    assert tasks_of(renewals) == {}


def test_load_all_or_nothing_loads_a_good_file(runner, renewals, write):
    path = write("Id,Name\nA,Ann\nB,Bob\n")
    result = intake(runner, "load", "Acme", "prod", "Renewals", path, "--all-or-nothing")
    assert result.exit_code == 0, result.output
    assert set(tasks_of(renewals)) == {"A", "B"}


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", "empty"),
        (b"Name,Id\nAnn,A\n", "first column must be 'Id'"),
        ("Id,Name\nA,Müller\n".encode("latin-1"), "not UTF-8"),
        (b"Id,Name,Name\nA,x,y\n", "used twice"),
    ],
)
def test_load_of_a_refused_file_exits_1_with_the_reason(runner, renewals, write, content, words):
    result = intake(runner, "load", "Acme", "prod", "Renewals", write(content))
    assert result.exit_code == 1, result.output
    [error] = error_lines(result)
    assert error.startswith("Error: load refused: ")
    assert words in error
    assert tasks_of(renewals) == {}


def test_load_with_a_given_delimiter(runner, renewals, write):
    path = write("Id;Name;Balance\nA;Ann;1,5\n")
    result = intake(runner, "load", "Acme", "prod", "Renewals", path, "--delimiter", ";")
    assert result.exit_code == 0, result.output
    assert tasks_of(renewals)["A"].data == {"Id": "A", "Name": "Ann", "Balance": "1,5"}
    wrong = intake(runner, "load", "Acme", "prod", "Renewals", path, "--delimiter", ",")
    assert wrong.exit_code == 1
    assert "first column must be 'Id'" in error_lines(wrong)[0]


@pytest.mark.parametrize(
    ("where", "words"),
    [
        (["Nobody", "prod", "Renewals"], "Nobody"),
        (["Acme", "test", "Renewals"], "test"),
        (["Acme", "prod", "Nope"], "Nope"),
    ],
)
def test_an_unknown_tenant_or_campaign_is_one_error_line(runner, renewals, write, where, words):
    for command in (["load", *where, write("Id\nA\n")], ["export", *where]):
        result = intake(runner, *command)
        assert result.exit_code == 1, result.output
        [error] = error_lines(result)
        assert words in error
    assert db.session.scalars(select(IntakeLoad)).all() == []


def test_load_of_a_missing_file_is_a_usage_error(runner, renewals, tmp_path):
    result = intake(runner, "load", "Acme", "prod", "Renewals", tmp_path / "nope.csv")
    assert result.exit_code == 2


@pytest.fixture
def three(api, renewals):
    api.add("A", {"Name": "Ann", "Plan": "Gold"}, preferredAgent="ann.agent")
    api.add("B", {"Name": "Bob", "Plan": "Silver"})
    api.add("C", {"Name": "Cy", "Plan": "Gold"})
    return renewals


def rows_of(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


def test_export_to_standard_output(runner, three):
    result = intake(runner, "export", "Acme", "prod", "Renewals")
    assert result.exit_code == 0, result.output
    rows = rows_of(result.output)
    assert [(r["Id"], r["Name"], r["Plan"]) for r in rows] == [
        ("A", "Ann", "Gold"),
        ("B", "Bob", "Silver"),
        ("C", "Cy", "Gold"),
    ]
    assert rows[0]["preferredAgent"] == "ann.agent"


def test_export_where_and_to_a_file(runner, three, tmp_path):
    out = tmp_path / "gold.csv"
    result = intake(
        runner, "export", "Acme", "prod", "Renewals", "--where", "Plan", "EQUALS", "Gold",
        "--where", "Name", "BEGINSWITH", "C", "-o", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.output == ""
    assert [r["Id"] for r in rows_of(out.read_text(encoding="utf-8"))] == ["C"]


@pytest.mark.parametrize(
    ("where", "words"),
    [
        (["Plan", "LIKE", "Gold"], "a condition is one of"),
        (["sys_worked_attempts", "GREATERTHAN", "many"], "whole number"),
    ],
)
def test_export_with_a_bad_criterion_fails(runner, three, where, words):
    result = intake(runner, "export", "Acme", "prod", "Renewals", "--where", *where)
    assert result.exit_code == 1, result.output
    [error] = error_lines(result)
    assert words in error


def test_export_then_load_into_another_campaign(runner, three, winback, tmp_path):
    out = tmp_path / "renewals.csv"
    assert intake(runner, "export", "Acme", "prod", "Renewals", "-o", out).exit_code == 0
    result = intake(runner, "load", "Acme", "prod", "Winback", out)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "3 rows: 3 added, 0 updated, 0 rejected, 0 superseded"
    assert tasks_of(winback)["A"].preferred_agent == "ann.agent"


def test_watch_once_loads_a_folder_and_stops(runner, renewals, tmp_path):
    root = tmp_path / "drop"
    campaign_dir = root / "Acme" / "prod" / "Renewals"
    campaign_dir.mkdir(parents=True)
    (campaign_dir / "new.csv").write_text("Id,Name\nA,Ann\nB,Bob\n", encoding="utf-8")
    (campaign_dir / "bad.csv").write_text("Name\nAnn\n", encoding="utf-8")
    result = intake(runner, "watch", "--folder", root, "--once")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"Watching {root} for <company>/<environment>/<campaign>/<file>.csv"
    assert lines[1].startswith("bad.csv: refused (the first column must be 'Id'")
    assert lines[2] == "new.csv: done"
    assert set(tasks_of(renewals)) == {"A", "B"}
    done = sorted(p.name.split("-", 1)[1] for p in (campaign_dir / "done").iterdir())
    assert done == ["new.csv", "new.csv.report.csv"]
    again = intake(runner, "watch", "--folder", root, "--once")
    assert again.output.splitlines()[1:] == []


def test_watch_defaults_to_the_configured_folder(app, runner, renewals, tmp_path):
    app.config["INTAKE_DROP_FOLDER"] = str(tmp_path / "configured")
    result = intake(runner, "watch", "--once")
    assert result.exit_code == 0, result.output
    assert str(tmp_path / "configured") in result.output
    assert (tmp_path / "configured").is_dir()


def test_watch_s3_needs_an_s3_url(runner, app):
    result = intake(runner, "watch", "--s3", "bucket/prefix", "--once")
    assert result.exit_code == 1
    assert "s3://BUCKET/PREFIX" in error_lines(result)[0]

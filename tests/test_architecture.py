"""The import graph of app/ keeps the design: no cycle anywhere (.ci/import_cycles.py), and
the contracts of pyproject.toml (import-linter): services never import a door, models never
import services, the database layer imports no rule. `make lint` runs the same checks."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]


def load_checker():
    spec = importlib.util.spec_from_file_location("import_cycles", ROOT / ".ci/import_cycles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def graph_of(*imports: tuple[str, str]) -> grimp.ImportGraph:
    graph = grimp.ImportGraph()
    for importer, imported in imports:
        graph.add_import(importer=importer, imported=imported, line_number=1, line_contents="")
    return graph


def test_app_has_no_import_cycle():
    checker = load_checker()
    graph = grimp.build_graph("app", cache_dir=None)
    found = checker.cycles(graph)
    assert not found, "\n".join(checker.describe(graph, group) for group in found)


@pytest.mark.parametrize(
    ("imports", "expected"),
    [
        ([("a.x", "a.y"), ("a.y", "a.z")], []),
        ([("a.x", "a.y"), ("a.y", "a.x")], [["a.x", "a.y"]]),
        ([("a.x", "a.y"), ("a.y", "a.z"), ("a.z", "a.x"), ("a.z", "b")], [["a.x", "a.y", "a.z"]]),
        (
            [("a.x", "a.y"), ("a.y", "a.x"), ("b.p", "b.q"), ("b.q", "b.p")],
            [["a.x", "a.y"], ["b.p", "b.q"]],
        ),
        ([("a.x", "a.x")], [["a.x"]]),
    ],
    ids=["a-chain", "two-modules", "three-modules", "two-cycles", "self-import"],
)
def test_the_checker_finds_every_cycle(imports, expected):
    checker = load_checker()
    assert checker.cycles(graph_of(*imports)) == expected


def test_a_cycle_is_described_with_its_lines():
    checker = load_checker()
    graph = graph_of(("a.x", "a.y"), ("a.y", "a.x"))
    said = checker.describe(graph, ["a.x", "a.y"])
    assert "a.x -> a.y (l.1)" in said and "a.y -> a.x (l.1)" in said


def test_the_import_contracts_hold():
    lint = Path(sys.executable).parent / "lint-imports"
    run = subprocess.run(
        [str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "BROKEN" not in run.stdout


REQUEST_STATE = {"g", "request", "session"}


def request_state_used(source: str) -> set[str]:
    """The request-bound names of Flask (flask.g, request, session) a module's source uses."""
    used = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module in ("flask", "flask.globals"):
            used |= {alias.name for alias in node.names} & REQUEST_STATE
        is_attribute = isinstance(node, ast.Attribute) and node.attr in REQUEST_STATE
        if is_attribute and isinstance(node.value, ast.Name) and node.value.id == "flask":
            used.add(node.attr)
    return used


@pytest.mark.parametrize(
    "module", sorted(str(p.relative_to(ROOT)) for p in (ROOT / "app/services").rglob("*.py"))
)
def test_no_service_reads_the_request(module):
    assert not request_state_used((ROOT / module).read_text())


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("from flask import g\n", {"g"}),
        ("from flask import current_app, request\n", {"request"}),
        ("import flask\nflask.g.x = 1\n", {"g"}),
        ("from flask import current_app\n", set()),
    ],
)
def test_the_request_check_sees_each_way_in(source, found):
    assert request_state_used(source) == found

"""docs/configuration.md lists every environment variable the service and the benchmarks read,
so a new setting cannot go undocumented."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
READ = re.compile(r"""(?:\benv|\benviron|getenv)(?:\.get)?[(\[]\s*["']([A-Z][A-Z0-9_]+)["']""")


def variables_read() -> set[str]:
    """The names the service's and the benchmarks' code reads from os.environ, getenv or an
    `env` mapping of the environment."""
    paths = [*(ROOT / "app").rglob("*.py"), *(ROOT / "bench").rglob("*.py"), ROOT / "wsgi.py"]
    return {name for path in paths for name in READ.findall(path.read_text(encoding="utf-8"))}


def test_every_variable_read_is_documented():
    documented = set(
        re.findall(r"`([A-Z][A-Z0-9_]+)", (ROOT / "docs/configuration.md").read_text())
    )
    assert variables_read() - documented == set()


def test_the_pattern_finds_the_ways_the_code_reads_them():
    sample = 'env.get("A_B", 1); os.environ.get("CC"); os.environ["D_1"]; os.getenv("EE")'
    assert set(READ.findall(sample)) == {"A_B", "CC", "D_1", "EE"}

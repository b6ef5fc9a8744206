"""Cells a spreadsheet will not run: the export's guard against formula injection.

A spreadsheet treats a cell starting with `=`, `@`, `+`, `-`, tab or carriage return as a
formula (or mangles it). Export puts one `'` before every value that starts with any
number of `'` and then one of those characters, so `=1+1` is written `'=1+1`, `'=x` is
written `''=x` and a phone number `+14155550123` is written `'+14155550123`. Intake takes
one `'` off every cell that starts with one or more `'` and then one of them. The two are
exact inverses, so an export loads back as the same tasks, and a value that was never
guarded (`'quoted'`, `'`) passes through both unchanged.
"""

from __future__ import annotations

import re

GUARDED = re.compile(r"'*[=@+\-\t\r]")
ESCAPED = re.compile(r"'+[=@+\-\t\r]")


def guard(value: str) -> str:
    """The value as an export writes it."""
    return "'" + value if GUARDED.match(value) else value


def unguard(cell: str) -> str:
    """The value an intake cell stands for."""
    return cell[1:] if ESCAPED.match(cell) else cell


def unguard_row(cells: list[str]) -> list[str]:
    """Every cell of a row; only cells starting with `'` cost a look."""
    return [unguard(cell) if cell[:1] == "'" else cell for cell in cells]

"""The one CSV writer of every file the service hands out: campaign exports, intake load
reports (downloaded, dropped beside the file, or put in its bucket) and the do-not-call
list.

Every text cell goes through the intake files' spreadsheet guard (`csv_cells`): a value
a spreadsheet would run as a formula (`=HYPERLINK(…)`, `+1+cmd|…`, `@SUM(…)`, `-2`) is
written with one `'` before it, which intake takes off again. Numbers are written as they
are. A file written any other way could carry a formula into a supervisor's spreadsheet,
so nothing else in the app makes a `csv.writer` (tests/admin/test_csv_downloads.py checks).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any, TextIO

from app.services.csv_cells import GUARDED

# The first characters a guarded cell can start with: only those cells cost a regex match.
_RISKY = frozenset("'=@+-\t\r")


def guarded(cells: Iterable[Any]) -> list[Any]:
    """The row as written: every text cell guarded (csv_cells.guard, inlined for the
    million-row export), anything else as it is."""
    return [
        "'" + cell if cell.__class__ is str and cell[:1] in _RISKY and GUARDED.match(cell) else cell
        for cell in cells
    ]


class GuardedWriter:
    """csv.writer's `writerow` and `writerows`, every row guarded."""

    def __init__(self, stream: TextIO) -> None:
        self._writer = csv.writer(stream)

    def writerow(self, row: Iterable[Any]) -> None:
        self._writer.writerow(guarded(row))

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        self._writer.writerows(map(guarded, rows))

"""The one CSV writer of every file the service hands out: campaign exports, intake load
reports (downloaded, dropped beside the file, or put in its bucket) and the do-not-call
list.

Every text cell goes through the intake files' spreadsheet guard (`csv_cells`): a value
a spreadsheet would run as a formula (`=HYPERLINK(…)`, `+1+cmd|…`, `@SUM(…)`, `-2`) is
written with one `'` before it, which intake takes off again. Numbers are written as they
are. A file written any other way could carry a formula into a supervisor's spreadsheet,
so nothing else in the app makes a `csv.writer` (tests/admin/test_csv_downloads.py checks).

The small files an operator imports whole (the do-not-call list, the consent ledger) are
read here too (`decoded`, `rows`): UTF-8 text, the delimiter of the first line, each
non-blank row with the line it starts on, its cells unguarded and stripped.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from app.services.csv_cells import GUARDED, unguard
from app.services.errors import InvalidInput

DELIMITERS = ",;\t"

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


def decoded(data: bytes) -> str:
    """The file as text; InvalidInput when it is not UTF-8 text (a BOM is dropped)."""
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise InvalidInput(f"the file is not UTF-8 text CSV: line {line} holds a NUL byte")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InvalidInput(f"the file is not UTF-8 text (byte {error.start})") from None


def _delimiter(text: str) -> str:
    """The first delimiter found in the first line; a comma for one-column files."""
    first = text.lstrip("\r\n").split("\n", 1)[0]
    return next((d for d in DELIMITERS if d in first), ",")


def rows(text: str) -> Iterator[tuple[int, list[str]]]:
    """Each non-blank row with the line it starts on, its cells unguarded and stripped."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(text), strict=True)
    line = 1
    try:
        for cells in reader:
            if any(cell.strip() for cell in cells):
                yield line, [unguard(cell).strip() for cell in cells]
            line = reader.line_num + 1
    except csv.Error as error:
        raise InvalidInput(f"the file is not valid CSV at line {line}: {error}") from None

"""Reading an intake file: UTF-8 (BOM or not), any common delimiter, streamed row by row.

Cells come out with an export's spreadsheet guard taken off (see `cells`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from app.services.csv_cells import excerpt, unguard_row
from app.services.errors import ServiceError

DELIMITERS = ",;\t|"
SAMPLE_BYTES = 64 * 1024
MAX_HEADER = 255
# A cell may hold a long value; the validation rules cap what is stored.
csv.field_size_limit(1024 * 1024)


class FileRefused(ServiceError):
    """The file as a whole cannot be loaded; nothing is written."""

    def __init__(self, message: str, counts=None) -> None:
        super().__init__(message)
        self.counts = counts  # what the check found, when it read the rows


@dataclass(frozen=True)
class Row:
    line: int
    cells: list[str]


def _open(path: Path) -> io.TextIOWrapper:
    return open(path, encoding="utf-8-sig", errors="strict", newline="")  # noqa: SIM115


def detect_delimiter(path: Path) -> str:
    """The delimiter of the header line: the common one that splits it most, else a comma."""
    try:
        with _open(path) as handle:
            sample = handle.read(SAMPLE_BYTES)
    except UnicodeDecodeError as error:
        raise FileRefused(f"the file is not UTF-8 text (byte {error.start} of the start)") from None
    header = sample.splitlines()[0] if sample.strip() else ""
    try:
        return csv.Sniffer().sniff(sample, delimiters=DELIMITERS).delimiter
    except csv.Error:
        counts = {d: header.count(d) for d in DELIMITERS}
        best = max(counts, key=counts.get)
        return best if counts[best] else ","


def check_header(header: list[str], client_id_field: str) -> None:
    """Refuse a header without the clientId column first, or with empty or repeated names."""
    if not header or header == [""]:
        raise FileRefused("the file is empty: it has no header line")
    if header[0] != client_id_field:
        raise FileRefused(
            f"the first column must be '{client_id_field}', the campaign's clientId field "
            f"name; it is '{excerpt(header[0])}'"
        )
    seen: set[str] = set()
    for number, name in enumerate(header, start=1):
        if not name.strip():
            raise FileRefused(f"column {number} has no name in the header")
        if len(name) > MAX_HEADER:
            raise FileRefused(f"column {number}'s name is longer than {MAX_HEADER} characters")
        if name in seen:
            detail = " (the clientId field name)" if name == client_id_field else ""
            raise FileRefused(f"column {number}'s name '{excerpt(name)}'{detail} is used twice")
        seen.add(name)


def refuse_nul(path: Path) -> None:
    """Refuse a file holding a NUL byte (binary, or text no database can store)."""
    line = 1
    with path.open("rb") as handle:
        while chunk := handle.read(64 * 1024):
            if b"\x00" in chunk:
                line += chunk[: chunk.index(b"\x00")].count(b"\n")
                raise FileRefused(f"the file is not UTF-8 text CSV: line {line} holds a NUL byte")
            line += chunk.count(b"\n")


def read_header(path: Path, delimiter: str) -> list[str]:
    """The first record of the file."""
    with _open(path) as handle:
        try:
            header = next(csv.reader(handle, delimiter=delimiter, strict=True), [])
        except (UnicodeDecodeError, csv.Error) as error:
            raise _refusal(error, 1) from None
    if any("\x00" in name for name in header):
        raise FileRefused("the header holds a NUL character: the file is not text CSV")
    return unguard_row(header)


def iter_rows(path: Path, delimiter: str) -> Iterator[Row]:
    """The data rows, each with the line it starts on; FileRefused wherever the file breaks."""
    with _open(path) as handle:
        reader = csv.reader(handle, delimiter=delimiter, strict=True)
        line = 1
        try:
            next(reader, None)
            line = reader.line_num + 1
            for cells in reader:
                if cells:  # blank lines carry no task
                    yield Row(line, unguard_row(cells))
                line = reader.line_num + 1
        except (UnicodeDecodeError, csv.Error) as error:
            raise _refusal(error, line) from None


def _refusal(error: Exception, line: int) -> FileRefused:
    if isinstance(error, UnicodeDecodeError):
        return FileRefused(f"the file is not UTF-8 text (line {line})")
    return FileRefused(f"the file is not valid CSV at line {line}: {error}")

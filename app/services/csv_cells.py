"""Cells a spreadsheet will not run: the export's guard against formula injection.

A spreadsheet treats a cell starting with `=`, `@`, `+`, `-`, tab or carriage return as a
formula (or mangles it). Export puts one `'` before every value that starts with any
number of `'` and then one of those characters, so `=1+1` is written `'=1+1` and `'=x` is
written `''=x`; but a cell that is exactly `+` and digits (an E.164 phone number,
`+14155550123`) can run nothing and is written as it is, for a CRM to read back. Intake
takes one `'` off every cell that starts with one or more `'` and then one of them. The two
are exact inverses, so an export loads back as the same tasks (an older export's
`'+14155550123` too), and a value that was never guarded (`'quoted'`, `'`) passes through
both unchanged.
"""

from __future__ import annotations

import re

# Guarded: starts with any number of `'` and then a risky character, unless it is exactly
# `+` and digits.
GUARDED = re.compile(r"(?!\+[0-9]+\Z)'*[=@+\-\t\r]")
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


# Characters a message must not carry as they are: controls, and the ones that reorder or
# hide text on a screen (bidi overrides, zero-width).
_HIDDEN = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")
EXCERPT = 24
MAX_REASON = 300


def _visible(text: str) -> str:
    return _HIDDEN.sub(lambda m: f"\\u{ord(m[0]):04x}" if ord(m[0]) > 0xFF else
                       f"\\x{ord(m[0]):02x}", text)  # fmt: skip


def excerpt(cell: str, limit: int = EXCERPT) -> str:
    """What a message may quote of a cell it refuses: its first `limit` characters, with
    control and invisible characters written as escapes, and how long it is when cut."""
    if len(cell) <= limit:
        return _visible(cell)
    return f"{_visible(cell[:limit])}… ({len(cell):,} characters)"


def reason_text(message: str, limit: int = MAX_REASON) -> str:
    """A refusal's reason as a report, a page or a log may show it: visible, and short."""
    text = _visible(message)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def excerpts_in(message: str, cells: list[str]) -> str:
    """`message` with every long cell of `cells` that it quotes cut down to its excerpt."""
    for cell in sorted({c for c in cells if len(c) > EXCERPT}, key=len, reverse=True):
        message = message.replace(cell, excerpt(cell))
    return message

"""The campaign page's search, read from its query string (`k`, `c`, `v` rows)."""

from __future__ import annotations

from dataclasses import dataclass

from werkzeug.datastructures import MultiDict

from app.services.search import Condition, Criterion


@dataclass(frozen=True)
class SearchRow:
    key: str
    condition: str
    value: str


def search_rows(args: MultiDict) -> list[SearchRow]:
    """The filled-in rows of the search form."""
    keys, conditions, values = args.getlist("k"), args.getlist("c"), args.getlist("v")
    return [
        SearchRow(k.strip(), c, v)
        for k, c, v in zip(keys, conditions, values, strict=False)
        if k.strip()
    ]


def criteria_from_args(args: MultiDict) -> tuple[list[Criterion], str | None]:
    """The search's criteria, or the reason they are not valid."""
    criteria = []
    for row in search_rows(args):
        if row.condition not in set(Condition):
            return [], f"'{row.condition}' is not a search condition"
        criteria.append(Criterion(row.key, Condition(row.condition), row.value))
    return criteria, None

"""A page of a list or a search: `startIndex` (from 1) and `count` (at most MAX_RESULTS;
0 answers only the total), and the ListResponse that says it."""

from __future__ import annotations

from scim2_models import Context, ListResponse
from sqlalchemy import Select, func, select

from app.extensions import db
from app.scim.access import answer
from app.scim.resources import MAX_RESULTS


def window(wanted) -> tuple[int, int]:
    """(start, count) a search asks for, within the limits."""
    start = max(wanted.start_index or 1, 1)
    count = MAX_RESULTS if wanted.count is None else min(max(wanted.count, 0), MAX_RESULTS)
    return start, count


def total_of(query: Select) -> int:
    return db.session.scalar(select(func.count()).select_from(query.order_by(None).subquery())) or 0


def paged(query: Select, wanted) -> tuple[int, list]:
    """The query's total and the rows of the page asked for."""
    start, count = window(wanted)
    rows = db.session.scalars(query.offset(start - 1).limit(count)).all() if count else []
    return total_of(query), list(rows)


def listed(kind, total: int, wanted, resources: list):
    start, _count = window(wanted)
    page = ListResponse[kind](
        total_results=total, start_index=start, items_per_page=len(resources),
        resources=resources or None,
    )  # fmt: skip
    return answer(page.model_dump(scim_ctx=Context.SEARCH_RESPONSE, response_parameters=wanted))

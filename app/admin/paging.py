"""Which page of a long list a page shows: `?page=`, kept within the pages there are."""

from __future__ import annotations

from typing import NamedTuple

from flask import current_app, request


class Window(NamedTuple):
    """The page shown (from 1), how many pages there are, and the rows that page holds."""

    page: int
    pages: int
    limit: int
    offset: int


def window(total: int) -> Window:
    """The page `?page=` asks for among `total` rows shown PAGE_SIZE at a time; a page
    number out of range shows the first or the last page."""
    size = current_app.config["PAGE_SIZE"]
    pages = max(1, -(-total // size))
    page = min(max(request.args.get("page", 1, type=int), 1), pages)
    return Window(page, pages, size, (page - 1) * size)

"""A report's range cut on the rollups' 15-minute UTC grid: the whole slots inside it are
read from the rollups, the partial slots at its edges (a range given to the millisecond)
from the attempts themselves, so every figure stays exact whatever the range."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from sqlalchemy import ColumnElement

from app.services.reports.scope import ReportScope
from app.services.reports.sql import BUCKET_SECONDS

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
SLOT = timedelta(seconds=BUCKET_SECONDS)


@dataclass(frozen=True)
class Parts:
    """Whole slots [first, last) (None when the range holds none) and the scopes of the
    edges around them, read from the attempts."""

    whole: tuple[int, int] | None
    edges: list[ReportScope]

    @property
    def whole_start(self) -> datetime:
        assert self.whole is not None
        return EPOCH + SLOT * self.whole[0]

    @property
    def whole_end(self) -> datetime:
        assert self.whole is not None
        return EPOCH + SLOT * self.whole[1]


def split(scope: ReportScope) -> Parts:
    step = timedelta(microseconds=1)
    first = -(-((scope.start - EPOCH) // step) // (BUCKET_SECONDS * 10**6))
    last = ((scope.end - EPOCH) // step) // (BUCKET_SECONDS * 10**6)
    if first >= last:
        return Parts(None, [scope])
    parts = Parts((first, last), [])
    if scope.start < parts.whole_start:
        parts.edges.append(replace(scope, end=parts.whole_start))
    if parts.whole_end < scope.end:
        parts.edges.append(replace(scope, start=parts.whole_end))
    return parts


def rollup_filters(scope: ReportScope, model, whole: tuple[int, int]) -> list[ColumnElement[bool]]:
    """The WHERE clauses selecting the scope's rollup rows (`model`: AttemptRollup or
    WorkCodeRollup) of the whole slots."""
    return [model.slot >= whole[0], model.slot < whole[1], *scope.narrowing(model)]

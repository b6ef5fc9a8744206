"""A report's range cut on the rollups' 15-minute UTC grid: the whole slots inside it are
read from the rollups, the partial slots at its edges (a range given to the millisecond)
from the attempts themselves, so every figure stays exact whatever the range. A report
that sums over the range (no figure per interval or hour) reads the whole UTC days among
those slots from the day rollups, and only the slots before and after them from the
15-minute rows (`rolled_up`): a range from a local midnight to another, in a zone off UTC,
reads its two partial UTC days' slots so."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from sqlalchemy import ColumnElement

from app.models.report_rollups import SLOTS_A_DAY
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


def rolled_up(
    scope: ReportScope, parts: Parts, slot_model, day_model
) -> list[tuple[type, list[ColumnElement[bool]]]]:
    """Where the whole slots' figures are read: the model (`day_model` for the whole UTC
    days among them, `slot_model` for the slots around those) and its WHERE clauses, each
    row read once. Both models have the same figures' columns."""
    if parts.whole is None:
        return []
    first, last = parts.whole
    first_day, last_day = -(-first // SLOTS_A_DAY), last // SLOTS_A_DAY
    if first_day >= last_day:
        return [(slot_model, rollup_filters(scope, slot_model, parts.whole))]
    reads = [
        (
            day_model,
            [day_model.day >= first_day, day_model.day < last_day, *scope.narrowing(day_model)],
        )
    ]
    for whole in ((first, first_day * SLOTS_A_DAY), (last_day * SLOTS_A_DAY, last)):
        if whole[0] < whole[1]:
            reads.append((slot_model, rollup_filters(scope, slot_model, whole)))
    return reads

"""Per agent: attempts, contacts, successes, closings per hour signed in, average preview,
talk and wrap-up time (from the attempts), and time Available, Away (per away reason too)
and in work (from the agents' state spans, clipped to the range)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import case, func, literal, select

from app.extensions import db
from app.models import AgentStateSpan, Attempt, AttemptDayRollup, AttemptRollup
from app.models.attempts import EndedHow
from app.models.types import UTCDateTime
from app.services.delivery.away_reasons import NO_REASON
from app.services.reports.scope import ReportScope
from app.services.reports.slots import rolled_up, split
from app.services.reports.sql import bucket, epoch

SIGNED_OUT = "OFFLINE"


@dataclass(frozen=True)
class AgentRow:
    agent: str  # loginUserId
    attempts: int
    contacts: int
    successes: int
    closed: int
    closed_per_hour: float | None  # per hour signed in (not OFFLINE); None when never in
    avg_preview_seconds: float | None
    avg_talk_seconds: float | None
    avg_wrap_up_seconds: float | None
    available_seconds: int
    away_seconds: int
    in_work_seconds: int  # holding a task: its attempts' delivery to end, within the range
    # Time AWAY per reason (NO_REASON for none chosen), the longest first; adds up to away.
    away_by_reason: tuple[tuple[str, int], ...] = ()


def _average(total, count) -> float | None:
    return round(float(total) / count, 1) if count else None


def _duration(since, until):
    """Sum and count of (until - since) in seconds over the rows where both are known."""
    known = since.is_not(None) & until.is_not(None)
    seconds = epoch(until) - epoch(since)
    return (
        func.coalesce(func.sum(case((known, seconds), else_=0)), 0),
        func.coalesce(func.sum(case((known, 1), else_=0)), 0),
    )


ROLLED = (
    "attempts",
    "contacts",
    "successes",
    "closed",
    "preview_seconds",
    "previews",
    "talk_seconds",
    "talks",
    "wrap_up_seconds",
    "wrap_ups",
    "held_seconds",
)


def _held(scope: ReportScope, until: datetime):
    """Seconds an attempt held its task within the range: delivery to its end, an open one
    until `until`, never past the range's end."""
    until_value = literal(until, UTCDateTime())
    end_value = literal(scope.end, UTCDateTime())
    held_until = case(
        (Attempt.ended_at.is_(None), until_value),
        (Attempt.ended_at > end_value, end_value),
        else_=Attempt.ended_at,
    )
    return case(
        (held_until > Attempt.delivered_at, epoch(held_until) - epoch(Attempt.delivered_at)),
        else_=0,
    )


def _attempt_rows(scope: ReportScope, until: datetime) -> dict[str, list[int]]:
    """Per agent, ROLLED's figures: the whole UTC days and 15-minute slots from the rollups
    (whose held time runs to each attempt's end), put right for the attempts still open or
    ended after the range (clipped here), and the range's edges from the attempts."""
    parts = split(scope)
    totals: dict[str, list[int]] = defaultdict(lambda: [0] * len(ROLLED))

    def add(rows) -> None:
        for login, *values in rows:
            total = totals[login]
            for index, value in enumerate(values):
                total[index] += int(value or 0)

    for model, filters in rolled_up(scope, parts, AttemptRollup, AttemptDayRollup):
        add(
            db.session.execute(
                select(model.agent_login, *(func.sum(getattr(model, name)) for name in ROLLED))
                .where(*filters)
                .group_by(model.agent_login)
            )
        )
    if parts.whole is not None:
        kept = case(
            (
                Attempt.ended_at.is_not(None) & (Attempt.ended_at > Attempt.delivered_at),
                epoch(Attempt.ended_at) - epoch(Attempt.delivered_at),
            ),
            else_=0,
        )
        add(
            (login, *([0] * (len(ROLLED) - 1)), held)
            for login, held in db.session.execute(
                select(Attempt.agent_login, func.sum(_held(scope, until) - kept))
                .where(
                    # The slots compared, not the delivery: the planner looks the attempts
                    # up by their end (few are open or ended after the range), not by a
                    # delivery range holding most of them.
                    bucket(Attempt.delivered_at) >= parts.whole[0],
                    bucket(Attempt.delivered_at) < parts.whole[1],
                    *scope.narrowing(),
                    Attempt.ended_at.is_(None) | (Attempt.ended_at > scope.end),
                )
                .group_by(Attempt.agent_login)
            )
        )
    preview_end = func.coalesce(Attempt.call_started_at, Attempt.ended_at)
    for edge in parts.edges:
        add(
            db.session.execute(
                select(
                    Attempt.agent_login,
                    func.count(),
                    func.coalesce(func.sum(case((Attempt.contact, 1), else_=0)), 0),
                    func.coalesce(func.sum(case((Attempt.success, 1), else_=0)), 0),
                    func.coalesce(
                        func.sum(case((Attempt.ended_how == EndedHow.CLOSED.value, 1), else_=0)),
                        0,
                    ),
                    *_duration(Attempt.delivered_at, preview_end),
                    *_duration(Attempt.connected_at, Attempt.call_ended_at),
                    *_duration(Attempt.call_ended_at, Attempt.closed_at),
                    func.coalesce(func.sum(_held(scope, until)), 0),
                )
                .where(*edge.attempt_filters())
                .group_by(Attempt.agent_login)
            )
        )
    return totals


def agent_summary(scope: ReportScope, *, now: datetime | None = None) -> list[AgentRow]:
    """One row per agent with attempts in scope (or, unless a campaign or queue narrows the
    scope, with time signed in during the range), by loginUserId. An open attempt or span
    counts until `now` (default: the clock), never past the range's end."""
    now = now or datetime.now(UTC)
    until = min(now, scope.end)
    by_login = _attempt_rows(scope, until)
    spans, away = _span_seconds(scope, until)
    logins = set(by_login)
    if scope.campaign is None and scope.queue is None:
        logins |= {login for login, states in spans.items() if _signed_in(states)}
    result = []
    for login in sorted(logins):
        row = by_login.get(login) or [0] * len(ROLLED)
        attempts, contacts, successes, closed = row[:4]
        preview, previews, talk, talks, wrap, wraps, in_work = row[4:]
        states = spans.get(login, {})
        signed_in = _signed_in(states)
        result.append(
            AgentRow(
                agent=login,
                attempts=attempts,
                contacts=contacts,
                successes=successes,
                closed=closed,
                closed_per_hour=round(closed * 3600 / signed_in, 2) if signed_in else None,
                avg_preview_seconds=_average(preview, previews),
                avg_talk_seconds=_average(talk, talks),
                avg_wrap_up_seconds=_average(wrap, wraps),
                available_seconds=states.get("AVAILABLE", 0),
                away_seconds=states.get("AWAY", 0),
                in_work_seconds=in_work,
                away_by_reason=tuple(
                    sorted(away.get(login, {}).items(), key=lambda item: (-item[1], item[0]))
                ),
            )
        )
    return result


def _signed_in(states: dict[str, int]) -> int:
    return sum(seconds for state, seconds in states.items() if state != SIGNED_OUT)


def _span_seconds(
    scope: ReportScope, until: datetime
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, int]]]:
    """Whole seconds per agent and state of the spans overlapping the range, clipped to
    it (an open span runs until `until`), and per agent and reason of the AWAY ones."""
    query = select(
        AgentStateSpan.agent_login,
        AgentStateSpan.state,
        AgentStateSpan.reason,
        AgentStateSpan.started_at,
        AgentStateSpan.ended_at,
    ).where(
        AgentStateSpan.tenant_id == scope.tenant.id,
        AgentStateSpan.started_at < scope.end,
        (AgentStateSpan.ended_at.is_(None)) | (AgentStateSpan.ended_at > scope.start),
    )
    if scope.agent is not None:
        query = query.where(AgentStateSpan.agent_login == scope.agent)
    seconds: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    reasons: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for login, state, reason, started, ended in db.session.execute(query):
        begin = max(started, scope.start)
        finish = min(ended or until, scope.end)
        if finish > begin:
            seconds[login][state] += (finish - begin).total_seconds()
            if state == "AWAY":
                reasons[login][reason or NO_REASON] += (finish - begin).total_seconds()
    return _whole(seconds), _whole(reasons)


def _whole(totals: dict[str, dict[str, float]]) -> dict[str, dict[str, int]]:
    return {login: {name: int(total) for name, total in by.items()} for login, by in totals.items()}

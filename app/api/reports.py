"""The Reports API: the reports' figures for the customer's BI tools.

`POST /reports-api/v1/<report>` with the five X-sc- headers (the 401 rules of the other
APIs); the body names the `tenant` (as in the User Provisioning API), the range `from`
(inclusive) and `to` (exclusive) in UTC epoch milliseconds, and optionally one campaign,
queue or agent. Every answer is HTTP 200 with `result` and `message`; each report calls one
function of app/services/reports, the same ones the report pages call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from flask import Blueprint
from pydantic import AliasChoices, ConfigDict, Field, StringConstraints

from app.api.fields import REPORT_END, REPORT_START, REPORT_ZONE, refusal_message
from app.db.transactions import read_only
from app.models.types import utcnow
from app.services import reports
from app.services.contact_rules import engine as contact_rules
from app.services.errors import InvalidInput, NotFound, ServiceError, TaskNotFound
from app.services.reports import forecast
from app.services.values import require_time_zone
from app.web.answers import Answer
from app.web.api_keys import Caller
from app.web.json_actions import json_action
from app.web.schemas import EPOCH_MS, Strict, published
from app.wire.times import MAX_EPOCH_MS, from_epoch_ms, to_epoch_ms

PREFIX = "/reports-api/v1"

bp = Blueprint("reports_api", __name__, url_prefix=PREFIX)

Name = Annotated[str, StringConstraints(max_length=255)]
Given = Annotated[str, StringConstraints(min_length=1, max_length=255)]
RESULT_OF: tuple[tuple[type[ServiceError], str], ...] = (
    (InvalidInput, "INVALID_ARGUMENTS"),
    (NotFound, "INVALID_ARGUMENTS"),
)
TIMES = {
    "from": {"minimum": 0, "maximum": MAX_EPOCH_MS},
    "to": {"minimum": 0, "maximum": MAX_EPOCH_MS},
}


# --- requests ------------------------------------------------------------------------------


class ReportRequest(Strict):
    """Every report's body besides the tenant: the range and the optional filters."""

    model_config = ConfigDict(json_schema_extra=published(**TIMES), populate_by_name=True)

    start: int = Field(alias="from", description=EPOCH_MS + " The range's start (inclusive).")
    end: int = Field(
        alias="to",
        description=EPOCH_MS + " The range's end (exclusive): after `from`, at most 366 days.",
    )
    campaignName: Name | None = Field(None, description="One campaign; all when left out.")
    skillQueue: Name | None = Field(None, description="One skill queue; all when left out.")
    agent: Name | None = Field(None, description="One agent (loginUserId); all when left out.")
    timeZone: Name | None = Field(
        None,
        description="IANA zone the days and intervals are read in; default the campaign's "
        "default zone, else UTC.",
    )

    def scope(self, caller: Caller) -> reports.ReportScope:
        start = from_epoch_ms(self.start, REPORT_START)
        end = from_epoch_ms(self.end, REPORT_END)
        if self.timeZone:
            require_time_zone(self.timeZone, REPORT_ZONE)
        return reports.report_scope(
            caller.tenant,
            start,
            end,
            zone=self.timeZone or None,
            campaign_name=self.campaignName or None,
            queue_name=self.skillQueue or None,
            agent=self.agent or None,
        )


class IntervalRequest(ReportRequest):
    model_config = ConfigDict(
        json_schema_extra=published(
            **TIMES, intervalMinutes={"enum": list(reports.INTERVAL_MINUTES)}
        ),
        populate_by_name=True,
    )

    intervalMinutes: int = Field(60, description="15, 30 or 60.")


class TaskContactabilityRequest(Strict):
    """One task of the tenant, by its campaign and previewRecordID."""

    model_config = ConfigDict(
        json_schema_extra=published(campaignName={"minLength": 1}, previewRecordID={"minLength": 1})
    )

    campaignName: Given = Field(description="The task's campaign.")
    previewRecordID: Given = Field(
        validation_alias=AliasChoices("previewRecordID", "previewRecordId"),
        description="The task. `previewRecordId` is accepted too.",
    )


class ForecastRequest(Strict):
    """One campaign of the tenant and the range to forecast."""

    model_config = ConfigDict(
        json_schema_extra=published(
            **TIMES,
            campaignName={"minLength": 1},
            intervalMinutes={"enum": list(forecast.INTERVAL_MINUTES)},
        ),
        populate_by_name=True,
    )

    campaignName: Given = Field(description="The campaign.")
    start: int = Field(
        alias="from", description=EPOCH_MS + " The first interval's start (to the second)."
    )
    end: int = Field(
        alias="to",
        description=EPOCH_MS + f" The range's end (exclusive): at most "
        f"{forecast.MAX_INTERVALS} intervals after `from`.",
    )
    intervalMinutes: int = Field(60, description="60 (hours) or 1440 (days).")


# --- answers -------------------------------------------------------------------------------

ReportResult = Literal["SUCCESS", "UNAUTHORIZED", "INVALID_TENANT", "INVALID_ARGUMENTS", "FAIL"]


class ReportResponse(Answer):
    result: ReportResult = Field(description="SUCCESS, or the kind of failure (HTTP 200).")
    message: str = Field(description="What the report covers, or why it was refused.")


class OutcomeCount(Answer):
    outcome: str = Field(description="COMPLETE, RESCHEDULE or REMOVE.")
    count: int


class WorkCodeCount(Answer):
    key: str = Field(description="The work code group.")
    value: str = Field(description="The work code.")
    count: int


class Summary(Answer):
    """`completed`, `removed`, `rescheduled`, `released`, `lapsed`, `takenBack`,
    `changedElsewhere` and `inProgress` hold every attempt once: they sum to `attempts`."""

    tasks: int = Field(description="The current tasks of the campaigns (and queue) in scope.")
    attemptedTasks: int = Field(description="Distinct tasks attempted in the range.")
    attempts: int
    contacts: int = Field(description="Attempts that reached a person.")
    successes: int = Field(description="Attempts that met the campaign's goal.")
    completed: int
    removed: int
    rescheduled: int
    released: int = Field(description="Attempts the agent gave back (skip, sign-out).")
    lapsed: int = Field(description="Attempts the clock ended (an idle reservation).")
    takenBack: int = Field(
        description="Attempts a supervisor took back from the agent (or the agent was deleted)."
    )
    changedElsewhere: int = Field(
        description="Attempts ended by a change elsewhere while held: a status change, a "
        "move to another campaign or queue, a deletion."
    )
    inProgress: int = Field(description="Attempts still open (the task with its agent now).")
    outcomes: list[OutcomeCount] = Field(description="Closings by outcome, most first.")
    workCodes: list[WorkCodeCount] = Field(description="Work codes chosen, most first.")


class CampaignSummaryResponse(ReportResponse):
    summary: Summary | None = Field(description="The figures; null when refused.")


class IntervalAnswer(Answer):
    start: int = Field(description=EPOCH_MS + " The interval's start.")
    attempts: int
    contacts: int
    successes: int


class IntervalsResponse(ReportResponse):
    intervals: list[IntervalAnswer] | None = Field(
        description="Every interval of the range, oldest first, empty ones as zeros; null "
        "when refused."
    )


class AwayReasonTime(Answer):
    reason: str = Field(description="The away reason as it was named then, or `No reason`.")
    seconds: int


class AgentAnswer(Answer):
    agent: str = Field(description="The agent's loginUserId.")
    attempts: int
    contacts: int
    successes: int
    closed: int = Field(description="Attempts the agent closed with an outcome.")
    avgTalkSeconds: float | None = Field(description="Connected to call end; null without one.")
    avgWrapUpSeconds: float | None = Field(description="Call end to close; null without one.")
    availableSeconds: int = Field(description="Time AVAILABLE within the range.")
    awaySeconds: int | None = Field(None, description="Time AWAY within the range.")
    awayByReason: list[AwayReasonTime] | None = Field(
        None,
        description="Time AWAY per away reason (`No reason` when none was chosen), the "
        "longest first; adds up to awaySeconds.",
    )


class AgentsResponse(ReportResponse):
    agents: list[AgentAnswer] | None = Field(
        description="One row per agent, by loginUserId; null when refused."
    )


ContactabilityResult = Literal[
    "SUCCESS", "UNAUTHORIZED", "INVALID_TENANT", "INVALID_ARGUMENTS", "NOT_FOUND", "FAIL"
]
RuleName = Literal[
    "STATE",
    "NEXT_EARLIEST_TIME",
    "CAMPAIGN_PAUSED",
    "QUEUE_CLOSED",
    "CALLING_WINDOW",
    "REGION_HOURS",
    "REGION_DAY",
    "REGION_HOLIDAY",
    "DO_NOT_CALL",
    "NO_CONSENT",
    "INVALID_NUMBER",
    "CONTACT_LIMIT",
    "ATTEMPT_LIMIT",
]


class RuleCount(Answer):
    rule: RuleName = Field(description="The contact rule's stable name.")
    count: int = Field(description="How many of the open tasks it holds back.")


class ForecastInterval(Answer):
    start: int = Field(description=EPOCH_MS + " The interval's start.")
    callable: int = Field(description="Open tasks the rules let be called at its start.")
    heldBack: list[RuleCount] = Field(
        description="Each rule holding tasks back at its start, in the rules' order; a task "
        "held back by two rules counts under both."
    )


class ForecastResponse(ReportResponse):
    tasks: int | None = Field(description="The campaign's open tasks; null when refused.")
    intervals: list[ForecastInterval] | None = Field(
        description="Every interval, oldest first; null when refused."
    )


class RuleReason(Answer):
    rule: RuleName = Field(description="The contact rule's stable name.")
    message: str = Field(description="Why, in words.")
    until: int | None = Field(
        description=EPOCH_MS + " When the rule stops holding it back; null when the clock "
        "never ends it (a paused campaign, the do-not-call list)."
    )


class NumberAnswer(Answer):
    key: str = Field(description="The phone item's key.")
    phoneNumber: str = Field(description="Its number (E.164).")
    callable: bool = Field(description="Whether the rules let this number be called now.")
    reasons: list[RuleReason] = Field(description="What holds this number back; empty: none.")


class ContactabilityResponse(Answer):
    result: ContactabilityResult = Field(description="SUCCESS, or the kind of failure (HTTP 200).")
    message: str = Field(description="`Can be called now`, each reason, or why it was refused.")
    callableNow: bool | None = Field(
        description="Whether the rules let the task be offered and called now (whichever "
        "agents are signed in, whoever holds it); null when refused."
    )
    nextCallableAt: int | None = Field(
        description=EPOCH_MS + " When it may be called; null now, never by the clock, or "
        "when refused."
    )
    reasons: list[RuleReason] | None = Field(
        description="The rules holding back the whole task; null when refused."
    )
    numbers: list[NumberAnswer] | None = Field(
        description="Each phone item, in display order; null when refused."
    )


def _until(moment) -> int | None:
    return None if moment is None else to_epoch_ms(moment)


def _reasons(reasons: list[contact_rules.Reason]) -> list[dict[str, Any]]:
    return [{"rule": r.rule, "message": r.message, "until": _until(r.until)} for r in reasons]


def contactability_answer(found: contact_rules.Explanation) -> dict[str, Any]:
    """The explanation as taskContactability answers it."""
    return {
        "message": found.message(),
        "callableNow": found.callable_now,
        "nextCallableAt": _until(found.next_callable_at),
        "reasons": _reasons(found.reasons),
        "numbers": [
            {
                "key": n.key,
                "phoneNumber": n.number,
                "callable": n.callable,
                "reasons": _reasons(n.reasons),
            }
            for n in found.numbers
        ],
    }


# --- views ---------------------------------------------------------------------------------


def _covered(scope: reports.ReportScope) -> str:
    what = f"campaign '{scope.campaign.name}'" if scope.campaign else "every campaign"
    if scope.queue is not None:
        what += f", queue '{scope.queue.name}'"
    if scope.agent is not None:
        what += f", agent '{scope.agent}'"
    return f"{what} from {scope.start:%Y-%m-%d %H:%M} to {scope.end:%Y-%m-%d %H:%M} UTC"


def _run(
    schema: type[ReportRequest], report: Callable[[Any, reports.ReportScope], dict], empty: str
):
    """Validate, read the report in scope (see json_action)."""

    def act(caller: Caller, body: dict[str, Any]) -> dict:
        request = schema.model_validate(body)
        scope = request.scope(caller)
        return {"message": _covered(scope), **report(request, scope)}

    return json_action(act, RESULT_OF, "FAIL", {empty: None}, said=refusal_message)


@bp.post("/campaignSummary", provide_automatic_options=False)
@read_only
def campaign_summary():
    """Tasks, attempts, contacts, successes, and how the attempts ended."""

    def report(_request: ReportRequest, scope: reports.ReportScope) -> dict:
        s = reports.campaign_summary(scope)
        return {
            "summary": {
                "tasks": s.tasks,
                "attemptedTasks": s.attempted_tasks,
                "attempts": s.attempts,
                "contacts": s.contacts,
                "successes": s.successes,
                "completed": s.completed,
                "removed": s.removed,
                "rescheduled": s.rescheduled,
                "released": s.released,
                "lapsed": s.lapsed,
                "takenBack": s.taken_back,
                "changedElsewhere": s.changed_elsewhere,
                "inProgress": s.in_progress,
                "outcomes": [{"outcome": o, "count": n} for o, n in s.outcomes],
                "workCodes": [{"key": k, "value": v, "count": n} for k, v, n in s.work_codes],
            }
        }

    return _run(ReportRequest, report, "summary")


@bp.post("/attemptsByInterval", provide_automatic_options=False)
@read_only
def attempts_by_interval():
    """Attempts, contacts and successes per interval of the range."""

    def report(request: IntervalRequest, scope: reports.ReportScope) -> dict:
        intervals = reports.attempts_by_interval(scope, request.intervalMinutes)
        return {
            "intervals": [
                {
                    "start": to_epoch_ms(i.start),
                    "attempts": i.attempts,
                    "contacts": i.contacts,
                    "successes": i.successes,
                }
                for i in intervals
            ]
        }

    return _run(IntervalRequest, report, "intervals")


@bp.post("/agentSummary", provide_automatic_options=False)
@read_only
def agent_summary():
    """Per agent: attempts, contacts, successes, closings, talk and wrap-up, time available."""

    def report(_request: ReportRequest, scope: reports.ReportScope) -> dict:
        return {
            "agents": [
                {
                    "agent": row.agent,
                    "attempts": row.attempts,
                    "contacts": row.contacts,
                    "successes": row.successes,
                    "closed": row.closed,
                    "avgTalkSeconds": row.avg_talk_seconds,
                    "avgWrapUpSeconds": row.avg_wrap_up_seconds,
                    "availableSeconds": row.available_seconds,
                    "awaySeconds": row.away_seconds,
                    "awayByReason": [
                        {"reason": reason, "seconds": seconds}
                        for reason, seconds in row.away_by_reason
                    ],
                }
                for row in reports.agent_summary(scope)
            ]
        }

    return _run(ReportRequest, report, "agents")


CONTACTABILITY_RESULTS: tuple[tuple[type[ServiceError], str], ...] = (
    (InvalidInput, "INVALID_ARGUMENTS"),
    (NotFound, "NOT_FOUND"),
    (TaskNotFound, "NOT_FOUND"),
)


@bp.post("/taskContactability", provide_automatic_options=False)
@read_only
def task_contactability():
    """May this task be called now, and if not, which rule holds it back until when."""

    def act(caller: Caller, body: dict[str, Any]) -> dict:
        request = TaskContactabilityRequest.model_validate(body)
        found = contact_rules.task_contactability(
            caller.tenant.id, request.campaignName, request.previewRecordID, utcnow()
        )
        return contactability_answer(found)

    empty = {"callableNow": None, "nextCallableAt": None, "reasons": None, "numbers": None}
    return json_action(act, CONTACTABILITY_RESULTS, "FAIL", empty, said=refusal_message)


@bp.post("/campaignForecast", provide_automatic_options=False)
@read_only
def campaign_forecast():
    """A dry run: per interval, how many open tasks the rules let be called at its start."""

    def act(caller: Caller, body: dict[str, Any]) -> dict:
        request = ForecastRequest.model_validate(body)
        start = from_epoch_ms(request.start, REPORT_START)
        end = from_epoch_ms(request.end, REPORT_END)
        found = forecast.campaign_forecast(
            caller.tenant, request.campaignName, start, end, request.intervalMinutes
        )
        return forecast_answer(found)

    empty = {"tasks": None, "intervals": None}
    return json_action(act, RESULT_OF, "FAIL", empty, said=refusal_message)


def forecast_answer(found: forecast.Forecast) -> dict[str, Any]:
    """The forecast as campaignForecast answers it."""
    last = found.intervals[-1].start
    return {
        "message": f"campaign '{found.campaign.name}': {len(found.intervals)} intervals of "
        f"{found.minutes} minutes from {found.start:%Y-%m-%d %H:%M} to {last:%Y-%m-%d %H:%M} UTC",
        "tasks": found.tasks,
        "intervals": [
            {
                "start": to_epoch_ms(i.start),
                "callable": i.callable,
                "heldBack": [{"rule": rule, "count": count} for rule, count in i.held_back],
            }
            for i in found.intervals
        ],
    }

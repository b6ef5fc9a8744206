"""The Desk API's request bodies (validated at the edge) and answers (published).

The same models generate the Desk API's part of /openapi.json (app/api/openapi.py), so the
document cannot drift from what the views accept and send.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AliasChoices, ConfigDict, Field, StringConstraints

from app.models.agents import AgentState
from app.models.attempts import CallResult
from app.services.delivery.closing import Outcome
from app.services.dialer.call_events import CALL_EVENTS
from app.web.answers import Answer, TaskRecord
from app.web.schemas import EPOCH_MS, TIME_RULES, Strict, published

Name = Annotated[str, StringConstraints(max_length=255)]
NOT_BLANK = {"minLength": 1}
STATES = [state.value for state in AgentState]
OUTCOMES = [outcome.value for outcome in Outcome]
RESULTS = [result.value for result in CallResult]
ResultName = Literal[
    "ANSWERED", "NO_ANSWER", "BUSY", "INVALID_NUMBER", "VOICEMAIL", "FAILED", "CANCELLED"
]
EndedHowName = Literal["CLOSED", "RELEASED", "LAPSED", "TAKEN_BACK", "CHANGED_ELSEWHERE"]
RECORD_ID = Field(
    validation_alias=AliasChoices("previewRecordID", "previewRecordId"),
    description="The task the agent holds. `previewRecordId` is accepted too.",
)


class DeskRequest(Strict):
    """Every Desk API body: the tenant (added by the API) and the agent acting."""

    model_config = ConfigDict(json_schema_extra=published(agent=NOT_BLANK))

    agent: Name = Field(description="The agent's loginUserId (a user of the environment).")


class SetAgentStateRequest(DeskRequest):
    model_config = ConfigDict(json_schema_extra=published(agent=NOT_BLANK, state={"enum": STATES}))

    state: Name = Field(description="AVAILABLE, AWAY or OFFLINE (OFFLINE releases the task).")
    reason: Annotated[str, StringConstraints(max_length=40)] | None = Field(
        None,
        description="With AWAY only: one of the tenant's away reasons (any case; the CLI's "
        "`away-reason list`), e.g. `Lunch`. Left out or empty: AWAY with no reason. An "
        "unknown reason, or one with another state, is INVALID_ARGUMENTS naming `reason`, "
        "and the state stays as it was.",
    )


class NextTaskRequest(DeskRequest):
    pass


class DeskWorkCode(Strict):
    model_config = ConfigDict(json_schema_extra=published(key=NOT_BLANK, value=NOT_BLANK))

    key: Name = Field(description="The work code group.")
    value: Name = Field(description="The work code.")


class CloseTaskRequest(DeskRequest):
    model_config = ConfigDict(
        json_schema_extra=published(
            agent=NOT_BLANK, previewRecordID=NOT_BLANK, outcome={"enum": OUTCOMES}, **TIME_RULES
        )
    )

    previewRecordID: Name = RECORD_ID
    outcome: Name | None = Field(
        None,
        description="COMPLETE, RESCHEDULE or REMOVE; wins over the work codes. Left out: "
        "RESCHEDULE when nextEarliestWorkTimeUTC is sent, else the strongest outcome a work "
        "code chosen implies (REMOVE, then COMPLETE, then RESCHEDULE).",
    )
    nextEarliestWorkTimeUTC: int | None = Field(
        None,
        description=EPOCH_MS + " For RESCHEDULE, in the future; may be left out when a "
        "RESCHEDULE work code chosen has a default delay (now + the longest such delay).",
    )
    personalCallback: bool = Field(
        False,
        description="With RESCHEDULE and nextEarliestWorkTimeUTC: the agent calls back "
        "themselves; the task is kept for them from that time for CALLBACK_HOLD_MINUTES "
        "(then any agent of the queue gets it). A time at which the customer may not be "
        "called is refused INVALID_ARGUMENTS with nextCallableAt, the first allowed time.",
    )
    workCodes: list[DeskWorkCode] | None = Field(
        None,
        max_length=50,
        description="When the task's queue has work-code groups: a code of every required "
        "group, one only of a single-choice group, enabled codes of the queue's groups only "
        "(see nextTask's workCodeGroups). Otherwise free labels.",
    )
    note: str | None = Field(
        None,
        description="The agent's note on this attempt, at most 2,000 characters (blanks "
        "around it dropped; empty: none). Kept with the attempt: taskAttempts, the task "
        "page and the `task.closed` event show it.",
    )


class ReleaseTaskRequest(DeskRequest):
    model_config = ConfigDict(
        json_schema_extra=published(agent=NOT_BLANK, previewRecordID=NOT_BLANK)
    )

    previewRecordID: Name = RECORD_ID


class StartCallRequest(DeskRequest):
    model_config = ConfigDict(
        json_schema_extra=published(agent=NOT_BLANK, previewRecordID=NOT_BLANK, phoneKey=NOT_BLANK)
    )

    previewRecordID: Name = RECORD_ID
    phoneKey: Name | None = Field(
        None,
        description="The phone item to call (a `phone` detail's key of the agent view); "
        "left out: nextTask's suggestedPhoneKey (the next callable number, in rotation).",
    )


class CallEventRequest(DeskRequest):
    model_config = ConfigDict(
        json_schema_extra=published(
            agent=NOT_BLANK,
            previewRecordID=NOT_BLANK,
            callId=NOT_BLANK,
            event={"enum": list(CALL_EVENTS)},
            result={"enum": RESULTS},
        )
    )

    previewRecordID: Name = RECORD_ID
    callId: Name = Field(description="The call's id, as startCall answered it.")
    event: Name = Field(description="CONNECTED (the customer answered) or ENDED.")
    result: Name | None = Field(
        None,
        description="Required with ENDED: ANSWERED, NO_ANSWER, BUSY, INVALID_NUMBER, "
        "VOICEMAIL, FAILED or CANCELLED.",
    )
    contactId: Name | None = Field(
        None, description="The contact centre's contact id of the call (e.g. Amazon Connect's)."
    )


class TaskAttemptsRequest(DeskRequest):
    model_config = ConfigDict(
        json_schema_extra=published(agent=NOT_BLANK, previewRecordID=NOT_BLANK)
    )

    previewRecordID: Name = Field(
        validation_alias=AliasChoices("previewRecordID", "previewRecordId"),
        description="Any task of the tenant. `previewRecordId` is accepted too.",
    )


# --- answers -------------------------------------------------------------------------------

DeskResult = Literal[
    "SUCCESS",
    "UNAUTHORIZED",
    "INVALID_TENANT",
    "INVALID_ARGUMENTS",
    "NOT_FOUND",
    "NOT_AVAILABLE",
    "FAIL",
]


class DeskResponse(Answer):
    result: DeskResult = Field(description="SUCCESS, or the kind of failure (HTTP 200).")
    message: str = Field(description="What was done, or why not.")


class AgentStateResponse(DeskResponse):
    state: Literal["AVAILABLE", "AWAY", "OFFLINE"] | None = Field(
        description="The agent's state now; null when the request was refused."
    )
    reason: str | None = Field(
        None,
        description="AWAY's reason as the tenant spells it; null for none, another state, "
        "or a refusal.",
    )


class DeskTask(TaskRecord):
    """A task as search returns it, with the campaign holding it."""

    campaignName: str


class ViewDetail(Answer):
    key: str
    label: str = Field(description="What to show: the key without `_link`/`_button`.")
    value: str
    kind: Literal["text", "phone", "blocked", "link", "button"] = Field(
        description="`blocked`: a phone number on the tenant's do-not-call list (no href)."
    )
    href: str | None = Field(description="`tel:` for a phone, the http(s) URL of a link/button.")
    highlighted: bool
    callable: bool | None = Field(
        None,
        description="A phone item (`phone` or `blocked`): whether the contact rules let it be "
        "called now; null for other items.",
    )
    blockedBy: str | None = Field(
        None,
        description="A phone item the rules hold back: each rule's name and why, with until "
        "when (`DO_NOT_CALL: +1415… is on the do-not-call list`); else null.",
    )


class AgentViewAnswer(Answer):
    banner: str | None = Field(description="The `Name` item, shown as the banner.")
    details: list[ViewDetail] = Field(description="The items to show, in display order.")


class OfferedTask(DeskTask):
    agentView: AgentViewAnswer


class OfferedWorkCode(Answer):
    name: str
    description: str = Field(description="What the code means, shown to the agent.")
    outcome: Literal["COMPLETE", "RESCHEDULE", "REMOVE"] | None = Field(
        description="The outcome the code implies; null for a plain label."
    )
    rescheduleMinutes: int | None = Field(
        description="RESCHEDULE: the default delay in minutes (the agent may send a time)."
    )
    addsToDnc: bool = Field(description="Closing with it puts the task's numbers on the DNC list.")
    revokesConsent: bool = Field(
        description="Closing with it revokes the consent of the task's numbers, tenant-wide."
    )

    suggestedFor: ResultName | None = Field(
        description="The call result for which the desk preselects the code; null for none."
    )


class OfferedWorkCodeGroup(Answer):
    name: str = Field(description="The group: a work code's `key`.")
    required: bool = Field(description="Closing needs a code of this group.")
    multiple: bool = Field(description="Several codes of it may be chosen, else one.")
    codes: list[OfferedWorkCode] = Field(description="Its enabled codes, in sort order.")


class NextTaskResponse(DeskResponse):
    task: OfferedTask | None = Field(description="The agent's task; null when there is none.")
    workCodeGroups: list[OfferedWorkCodeGroup] | None = Field(
        description="The work-code groups closing this task offers (its queue's; empty when "
        "none: codes are then free labels); null when there is no task."
    )
    reason: str | None = Field(description="Why there is no task (null when there is one).")
    nextDueTime: int | None = Field(
        description="When the next task of the agent's queues is due (epoch ms), else null."
    )
    dialMode: Literal["PREVIEW", "PROGRESSIVE"] | None = Field(
        description="PROGRESSIVE for a progressive campaign's task (the desk dials by itself "
        "after autoDialSeconds), else PREVIEW; null when there is no task."
    )
    suggestedPhoneKey: str | None = Field(
        None,
        description="The phone item to dial next (startCall without phoneKey dials it): the "
        "first callable number after the one the task was called on last, wrapping round "
        "(the first callable one when it was never called); null when the task has no "
        "number that may be called now, or there is no task.",
    )
    autoDialSeconds: int | None = Field(
        description="Seconds of preview after which the desk dials by itself; null when the "
        "agent dials (or there is no task)."
    )
    canSkip: bool | None = Field(
        description="Whether the agent may release (skip) the task; null when there is no task."
    )


class TaskResponse(DeskResponse):
    task: DeskTask | None = Field(description="The task as it is now; null when refused.")
    outcome: Literal["COMPLETE", "RESCHEDULE", "REMOVE"] | None = Field(
        description="closeTask: the outcome applied (the one sent, else the work codes'; "
        "COMPLETE when the attempt limit was reached); otherwise null."
    )
    closeReason: str | None = Field(
        description="closeTask: why the outcome applied is not the one chosen, e.g. "
        "`attempt limit reached (5 attempts)`; otherwise null."
    )
    nextCallableAt: int | None = Field(
        None,
        description="closeTask with personalCallback refused: the first time after the one "
        "asked at which the customer may be called (epoch ms); otherwise null.",
    )


class PlacedCallAnswer(Answer):
    callId: str = Field(description="The call's id: callEvent names it.")
    phoneNumber: str = Field(description="The number to dial (E.164).")
    key: str = Field(description="The phone item called.")


class StartCallResponse(DeskResponse):
    call: PlacedCallAnswer | None = Field(
        description="The call; null when refused. With FAIL (the contact centre could not "
        "place it) the call recorded as ended FAILED."
    )
    nextCallableAt: int | None = Field(
        None,
        description="Refused by a contact rule: when the call would be allowed (epoch ms); "
        "null when allowed, or when the rule does not end by the clock.",
    )
    rule: str | None = Field(
        None,
        description="Refused by a contact rule: its name (STATE, NEXT_EARLIEST_TIME, "
        "CAMPAIGN_PAUSED, QUEUE_CLOSED, CALLING_WINDOW, DO_NOT_CALL, INVALID_NUMBER, "
        "CONTACT_LIMIT, ATTEMPT_LIMIT); else null.",
    )


class WorkCodeAnswer(Answer):
    key: str
    value: str


class CallAnswer(Answer):
    callId: str = Field(description="The call's id, as startCall answered it.")
    phoneKey: str = Field(description="The phone item called.")
    phoneNumber: str = Field(description="The number dialled (E.164).")
    startedAt: int = Field(description="Epoch ms.")
    connectedAt: int | None = Field(description="Epoch ms; null unless the call connected.")
    endedAt: int | None = Field(description="Epoch ms; null while the call goes on.")
    result: ResultName | None = Field(description="How it ended; null while it goes on.")
    evidence: dict[str, Any] | None = Field(
        description="Why the contact rules allowed the call, as they stood when it was placed "
        "(docs/contact-rules.md, Evidence); null for calls placed before evidence was kept."
    )


class AttemptAnswer(Answer):
    attemptId: int
    agent: str = Field(description="The agent's loginUserId.")
    deliveredAt: int = Field(description="Epoch ms.")
    callStartedAt: int | None = Field(description="Epoch ms; null when no call was started.")
    connectedAt: int | None = Field(description="Epoch ms; null unless the call connected.")
    callEndedAt: int | None = Field(description="Epoch ms; null while the call goes on.")
    callResult: ResultName | None
    contactId: str | None = Field(description="The contact centre's contact id of the call.")
    phoneKey: str | None
    phoneNumber: str | None
    closedAt: int | None = Field(description="Epoch ms; null unless the agent closed the task.")
    outcome: Literal["COMPLETE", "RESCHEDULE", "REMOVE"] | None
    workCodes: list[WorkCodeAnswer]
    endedHow: EndedHowName | None = Field(
        description="How the attempt ended (CLOSED, RELEASED, LAPSED, TAKEN_BACK, "
        "CHANGED_ELSEWHERE); null while it is open."
    )
    previewSeconds: float | None = Field(description="Delivery to the call's start (or end).")
    talkSeconds: float | None = Field(description="The call's connection to its end.")
    wrapUpSeconds: float | None = Field(description="The call's end to the close.")
    note: str | None = Field(
        None, description="The agent's note on the attempt, written at its close; else null."
    )
    calls: list[CallAnswer] = Field(
        default_factory=list,
        description="Every call of the attempt, oldest first: a redial (Call again, another "
        "number) is a call of its own. The attempt's call fields are those of its last one.",
    )


class CallEventResponse(DeskResponse):
    attempt: AttemptAnswer | None = Field(description="The call's attempt; null when refused.")


class TaskAttemptsResponse(DeskResponse):
    attempts: list[AttemptAnswer] | None = Field(
        description="The task's attempts, newest first; null when refused."
    )

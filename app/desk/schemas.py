"""The Desk API's request bodies (validated at the edge) and answers (published).

The same models generate the Desk API's part of /openapi.json (app/api/openapi.py), so the
document cannot drift from what the views accept and send.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AliasChoices, ConfigDict, Field, StringConstraints

from app.api.responses import Answer, TaskRecord
from app.api.schemas import EPOCH_MS, TIME_RULES, Strict, published
from app.models.agents import AgentState
from app.services.delivery import Outcome

Name = Annotated[str, StringConstraints(max_length=255)]
NOT_BLANK = {"minLength": 1}
STATES = [state.value for state in AgentState]
OUTCOMES = [outcome.value for outcome in Outcome]
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
    outcome: Name = Field(description="COMPLETE, RESCHEDULE (with a future time) or REMOVE.")
    nextEarliestWorkTimeUTC: int | None = Field(
        None, description=EPOCH_MS + " Required with RESCHEDULE, in the future."
    )
    workCodes: list[DeskWorkCode] | None = Field(None, max_length=50)


class ReleaseTaskRequest(DeskRequest):
    model_config = ConfigDict(
        json_schema_extra=published(agent=NOT_BLANK, previewRecordID=NOT_BLANK)
    )

    previewRecordID: Name = RECORD_ID


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


class AgentViewAnswer(Answer):
    banner: str | None = Field(description="The `Name` item, shown as the banner.")
    details: list[ViewDetail] = Field(description="The items to show, in display order.")


class OfferedTask(DeskTask):
    agentView: AgentViewAnswer


class NextTaskResponse(DeskResponse):
    task: OfferedTask | None = Field(description="The agent's task; null when there is none.")
    reason: str | None = Field(description="Why there is no task (null when there is one).")
    nextDueTime: int | None = Field(
        description="When the next task of the agent's queues is due (epoch ms), else null."
    )


class TaskResponse(DeskResponse):
    task: DeskTask | None = Field(description="The task as it is now; null when refused.")

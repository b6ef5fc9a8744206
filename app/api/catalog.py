"""The JSON APIs the OpenAPI document publishes: each one's tag, prefix and operations.

An `Api` is a tag in the document, a URL prefix and the body of its HTTP errors; each
`Operation` names the pydantic models of its request and answer, the very models the views
validate with and app/api/responses.py describes. A new JSON API adds one `Api` entry to
`apis()`; app/api/openapi.py turns them into the document.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel

from app.api import preview, reports, responses, schemas, users, wire
from app.desk import api as desk
from app.desk import schemas as desk_schemas
from app.web import json_actions


@dataclass(frozen=True)
class Operation:
    """One POST operation: its path below the API's prefix and the models of its bodies."""

    path: str
    operation_id: str
    summary: str
    request: type[BaseModel]
    response: type[BaseModel]
    description: str = ""
    # Operations that can act on what this one wrote, by the body fields that locate it.
    links: tuple[str, ...] = ()
    carried: tuple[str, ...] = ()


@dataclass(frozen=True)
class Api:
    """One JSON API: a tag in the document, a URL prefix, the body of its HTTP errors."""

    tag: str
    prefix: str
    description: str
    error: type[BaseModel]
    operations: tuple[Operation, ...]
    # Properties every request body of the API carries besides the operation's model.
    body_extras: dict[str, type[BaseModel]] = field(default_factory=dict)


def apis() -> tuple[Api, ...]:
    """Every JSON API the service serves."""

    def action(name: str, summary: str, request: type[BaseModel], description: str = "", **more):
        response = responses.SearchResponse if name == "searchPreviewCampaign" else None
        return Operation(
            f"/{name}",
            name,
            summary,
            request,
            response or responses.PreviewResponse,
            description,
            **more,
        )

    return (
        Api(
            tag="Preview Campaign Realtime API",
            prefix=preview.PREFIX,
            description="Read, write, move and remove the tasks of a Preview campaign.",
            error=responses.HttpError,
            operations=(
                action(
                    "addOrUpdateCampaignRecord",
                    "Add a task, or replace all the data of an existing one",
                    schemas.AddOrUpdateRequest,
                    "An update replaces every data item. A missing clientId answers "
                    "INVALIDCLIENTID; a data key equal to clientIdFieldName answers "
                    "INVALIDRECORDDATAKEY.",
                    links=(
                        "searchPreviewCampaign",
                        "changeCampaignRecordStatus",
                        "transferCampaignRecord",
                        "deleteRecordFromCampaign",
                    ),
                    carried=(*wire.ECHOED, "clientId"),
                ),
                action(
                    "searchPreviewCampaign",
                    "Look up one task by id, or the tasks matching every criterion",
                    schemas.SearchRequest,
                    "previewRecordData (criteria) is required unless previewRecordId or "
                    "clientId is given. maxRecords defaults to 1000.",
                ),
                action(
                    "changeCampaignRecordStatus",
                    "Set a task's worked state and, optionally, its queue, agent, time, zone",
                    schemas.ChangeStatusRequest,
                ),
                action(
                    "transferCampaignRecord",
                    "Move a task to another campaign and/or skill queue",
                    schemas.TransferRequest,
                ),
                action(
                    "deleteRecordFromCampaign",
                    "Remove a task from its campaign",
                    schemas.DeleteRequest,
                ),
            ),
        ),
        Api(
            tag="User Provisioning API",
            prefix=users.PREFIX,
            description="Add, look up and delete the users and agents of an environment.",
            error=responses.UserHttpError,
            body_extras={"tenant": json_actions.TenantRef},
            operations=(
                Operation(
                    "/users/add-user",
                    "add-user",
                    "Create a user in the service and, optionally, in the instance",
                    users.AddUserRequest,
                    responses.AddUserResponse,
                    links=("query-existence", "delete-user"),
                    carried=("tenant", "loginUserId"),
                ),
                Operation(
                    "/users/query-existence",
                    "query-existence",
                    "Tell whether a user exists in the service and in the instance",
                    users.UserRequest,
                    responses.QueryExistenceResponse,
                ),
                Operation(
                    "/users/delete-user",
                    "delete-user",
                    "Delete a user from the service and, where it exists, from the instance",
                    users.UserRequest,
                    responses.UserResponse,
                ),
            ),
        ),
        desk_api(),
        reports_api(),
    )


def reports_api() -> Api:
    """The Reports API: the reports' figures over a range, for BI tools."""

    def operation(name: str, summary: str, request, response, description: str = ""):
        return Operation(f"/{name}", name, summary, request, response, description)

    ranges = (
        "`to` must be after `from` and at most 366 days later; an unknown campaignName, "
        "skillQueue or agent answers INVALID_ARGUMENTS naming it."
    )
    return Api(
        tag="Reports API",
        prefix=reports.PREFIX,
        description="A campaign's figures, attempts per interval and agents' figures over "
        "a range, counted from the attempts.",
        error=responses.HttpError,
        body_extras={"tenant": json_actions.TenantRef},
        operations=(
            operation(
                "campaignSummary",
                "Tasks, attempts, contacts, successes and how the attempts ended",
                reports.ReportRequest,
                reports.CampaignSummaryResponse,
                ranges,
            ),
            operation(
                "attemptsByInterval",
                "Attempts, contacts and successes per interval of 15, 30 or 60 minutes",
                reports.IntervalRequest,
                reports.IntervalsResponse,
                ranges + " Intervals follow the wall clock of timeZone (default the "
                "campaign's, else UTC); empty ones are included as zeros.",
            ),
            operation(
                "agentSummary",
                "Per agent: attempts, contacts, successes, closings, talk, wrap-up, time available",
                reports.ReportRequest,
                reports.AgentsResponse,
                ranges,
            ),
            operation(
                "taskContactability",
                "May this task be called now: every contact rule holding it back, until when",
                reports.TaskContactabilityRequest,
                reports.ContactabilityResponse,
                "The rules delivery and startCall apply, for any agent: reasons hold back the "
                "whole task, each number's reasons that number. An unknown campaignName or "
                "previewRecordID answers NOT_FOUND.",
            ),
            operation(
                "campaignForecast",
                "A dry run: per interval, the open tasks the rules let be called, and held back",
                reports.ForecastRequest,
                reports.ForecastResponse,
                "At each interval's start (ignoring agents and calls still to come): how many "
                "of the campaign's open tasks every contact rule lets be called, and how many "
                "each rule holds back. intervalMinutes is 60 or 1440; `to` at most "
                "744 intervals after `from`. An unknown campaignName answers INVALID_ARGUMENTS.",
            ),
        ),
    )


def desk_api() -> Api:
    """The Desk API: one agent's state, next task, its calls, and how the task ends."""

    def operation(name: str, summary: str, request, response, description: str = ""):
        return Operation(f"/{name}", name, summary, request, response, description)

    return Api(
        tag="Desk API",
        prefix=desk.PREFIX,
        description="An agent's desk for integrations: state, next task, calls, close or release.",
        error=responses.HttpError,
        body_extras={"tenant": json_actions.TenantRef},
        operations=(
            operation(
                "setAgentState",
                "Set the agent's state (OFFLINE releases the agent's task)",
                desk_schemas.SetAgentStateRequest,
                desk_schemas.AgentStateResponse,
            ),
            operation(
                "nextTask",
                "The agent's task: the one held, the next deliverable one, or why none",
                desk_schemas.NextTaskRequest,
                desk_schemas.NextTaskResponse,
                "NOT_AVAILABLE unless the agent is AVAILABLE. An agent holding a task gets it "
                "again; otherwise the next task is reserved for the agent.",
            ),
            operation(
                "closeTask",
                "End the agent's task with an outcome; counts an attempt",
                desk_schemas.CloseTaskRequest,
                desk_schemas.TaskResponse,
                "A task the agent does not hold answers NOT_FOUND.",
            ),
            operation(
                "releaseTask",
                "Give the agent's task back to the queue without counting an attempt",
                desk_schemas.ReleaseTaskRequest,
                desk_schemas.TaskResponse,
                "A task the agent does not hold answers NOT_FOUND; a task whose campaign does "
                "not let agents skip answers NOT_AVAILABLE (close it with an outcome).",
            ),
            operation(
                "startCall",
                "Start the call of the agent's task, once the rules of calling allow it now",
                desk_schemas.StartCallRequest,
                desk_schemas.StartCallResponse,
                "Without phoneKey it dials nextTask's suggestedPhoneKey (the next callable "
                "number in rotation). NOT_AVAILABLE names the rule that refuses: the task is "
                "not the agent's, its number is on the do-not-call list, was found "
                "INVALID_NUMBER or is held by a contact limit, its campaign is paused, its "
                "queue is closed, or it is outside its calling window. The same phoneKey "
                "again while the call goes on answers the same call. FAIL: the contact centre "
                "could not place the call (recorded as ended FAILED).",
            ),
            operation(
                "callEvent",
                "Record how the agent's call went: CONNECTED, or ENDED with its result",
                desk_schemas.CallEventRequest,
                desk_schemas.CallEventResponse,
                "An event out of order or repeated answers SUCCESS and changes nothing; an "
                "earlier call's id stays valid after a redial; a "
                "callId that is not the agent's on this task answers NOT_FOUND.",
            ),
            operation(
                "taskAttempts",
                "The attempts of any task of the tenant, newest first, each with its calls",
                desk_schemas.TaskAttemptsRequest,
                desk_schemas.TaskAttemptsResponse,
                "An unknown previewRecordID answers NOT_FOUND.",
            ),
        ),
    )

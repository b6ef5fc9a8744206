"""What a bulk job does to each task: the action, its fields, their words, and the call of
the same service function a single change makes (app/services/tasks/batches.py), a batch at once.

A request is checked when it is confirmed (the page refuses it with the field at fault) and
again when the worker runs it: a queue or campaign removed meanwhile fails the job, with the
reason, before any task is touched.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from app.models import BulkAction, Campaign, Task, WorkedState
from app.services.actors import Actor
from app.services.errors import InvalidInput
from app.services.fields import TASK_NEXT_EARLIEST
from app.services.tasks import batches as task_service
from app.services.tasks.batches import TaskChanges
from app.services.values import format_time, from_epoch_ms, to_epoch_ms

STORED_TIME = "next_earliest_ms"  # the job's stored fields keep epoch milliseconds


@dataclass(frozen=True)
class BulkRequest:
    """An action and its fields, as stored with the job (JSON).

    status: `state`, and optionally `skill_queue`, `time_zone`, `next_earliest` (stored
    as `next_earliest_ms`, epoch milliseconds), `preferred_agent` (None leaves a field as
    it is). transfer: `destination`, optionally
    `skill_queue` and `preferred_agent`. preferred_agent: `preferred_agent` ("" clears it).
    delete: nothing.
    """

    action: str
    state: str | None = None
    destination: str | None = None
    skill_queue: str | None = None
    time_zone: str | None = None
    next_earliest: datetime | None = None
    preferred_agent: str | None = None

    def fields(self) -> dict[str, Any]:
        """The fields to store: those set, without the action."""
        fields = {}
        for name, value in asdict(self).items():
            if value is not None and name != "action":
                stored = to_epoch_ms(value) if name == "next_earliest" else value
                fields[STORED_TIME if name == "next_earliest" else name] = stored
        return fields

    @classmethod
    def stored(cls, action: str, fields: dict[str, Any]) -> BulkRequest:
        fields = dict(fields)
        if (ms := fields.pop(STORED_TIME, None)) is not None:
            fields["next_earliest"] = from_epoch_ms(ms, TASK_NEXT_EARLIEST.said_as(STORED_TIME))
        return cls(action, **fields)

    def changes(self) -> TaskChanges:
        return TaskChanges(
            skill_queue=self.skill_queue,
            preferred_agent=self.preferred_agent,
            next_earliest=self.next_earliest,
            time_zone=self.time_zone,
        )


Apply = Callable[[list[Task]], None]


def prepare(campaign: Campaign, request: BulkRequest, actor: Actor) -> Apply:
    """Check the request (a ServiceError names the field at fault) and return what it does
    to a batch of loaded, locked tasks: the single change's own function, for many."""
    tenant = campaign.tenant
    match request.action:
        case BulkAction.STATUS:
            state = request.state or ""
            task_service.check_status(state, request.changes())
            changes = task_service.check_changes(tenant, request.changes())
            return lambda tasks: task_service.set_statuses(tasks, state, changes, actor=actor)
        case BulkAction.TRANSFER:
            destination = task_service.transfer_destination(tenant, request.destination or "")
            changes = task_service.check_changes(tenant, request.changes())
            return lambda tasks: task_service.transfer_tasks(
                tasks, campaign, destination, changes, actor=actor
            )
        case BulkAction.PREFERRED_AGENT:
            agent = TaskChanges(preferred_agent=request.preferred_agent or "")
            changes = task_service.check_changes(tenant, agent)
            return lambda tasks: task_service.set_preferred_agents(tasks, changes, actor=actor)
        case BulkAction.DELETE:
            return lambda tasks: task_service.delete_tasks(tasks, actor=actor)
    raise InvalidInput(f"bulk action '{request.action}' is not one of {', '.join(BulkAction)}")


def _tasks(count: int) -> str:
    return f"{count:,} task{'' if count == 1 else 's'}"


def _moment(moment: datetime) -> str:
    return f"{format_time(moment.astimezone(UTC))[:16]} UTC"


def describe(request: BulkRequest, count: int) -> str:
    """What the job does, in plain words: "Set 12,345 tasks to COMPLETED"."""
    extras = []
    if request.skill_queue:
        extras.append(f"skill queue {request.skill_queue}")
    if request.time_zone:
        extras.append(f"time zone {request.time_zone}")
    if request.next_earliest is not None:
        extras.append(f"next earliest time {_moment(request.next_earliest)}")
    if request.preferred_agent:
        extras.append(f"preferred agent {request.preferred_agent}")
    also = f", with {', '.join(extras)}" if extras else ""
    match request.action:
        case BulkAction.STATUS:
            return f"Set {_tasks(count)} to {request.state}{also}"
        case BulkAction.TRANSFER:
            return f"Move {_tasks(count)} to campaign {request.destination}{also}"
        case BulkAction.PREFERRED_AGENT if request.preferred_agent:
            return f"Give {_tasks(count)} the preferred agent {request.preferred_agent}"
        case BulkAction.PREFERRED_AGENT:
            return f"Clear the preferred agent of {_tasks(count)}"
        case BulkAction.DELETE:
            return f"Delete {_tasks(count)} for good"
    return f"{request.action} {_tasks(count)}"


def consequences(request: BulkRequest) -> list[str]:
    """What else happens to each task, as a single change of the same kind does it."""
    trail = "Each task gets its own audit record and event, naming you and this bulk job."
    match request.action:
        case BulkAction.STATUS:
            notes = ["A task an agent holds goes back to its queue (its reservation ends)."]
            if request.state == WorkedState.WORKED:
                notes.append("WORKED tasks are offered again from their next earliest time.")
        case BulkAction.TRANSFER:
            notes = [
                "Each task keeps its previewRecordID, data and state; without a queue chosen, "
                "tasks that change campaign take the destination's default queue.",
                "A task whose clientId the destination already has is not moved (reported).",
                "A task an agent holds goes back to its queue (its reservation ends).",
            ]
        case BulkAction.PREFERRED_AGENT:
            notes = [
                "Each task's preferred-agent hold starts again.",
                "A task an agent holds stays with that agent.",
            ]
        case BulkAction.DELETE:
            notes = [
                "Deleted tasks and their data cannot be brought back.",
                "A task an agent holds is taken from them and deleted.",
            ]
        case _:
            notes = []
    return [*notes, trail]

"""What an intake load leaves in the trail: a record and an event per task a batch writes,
and one when the load ends.

The actor is who started the load, through it (`supervisor boss@example.com via intake load
<id>`); a load from before that was recorded acts as itself (`Actor.intake(load id)`). A
batch's records are made here from what the batch writes, and written with it in one
statement each.
"""

from __future__ import annotations

from datetime import datetime
from types import SimpleNamespace
from typing import Any

from app.models import Campaign, IntakeLoad
from app.services.actors import Actor, ActorKind
from app.services.audit import trail as history
from app.services.snapshots import TaskSnapshot, task_snapshot_of
from app.services.tasks.snapshots import queue_names, stored_tasks
from app.services.tasks.validation import TaskPlan
from app.services.tasks.writes import Defaults, update_values


def record_starter(load: IntakeLoad, actor: Actor) -> None:
    """Keep on the load who started it, as the trail names actors."""
    load.started_by_kind, load.started_by_id = actor.kind.value, actor.id


def load_actor(load: IntakeLoad) -> Actor:
    """Who acts in a load: who started it, through the load; the load itself when who
    started it was not recorded."""
    if load.started_by_kind is None or load.started_by_id is None:
        return Actor.intake(load.id)
    return Actor(ActorKind(load.started_by_kind), load.started_by_id, via=f"intake load {load.id}")


def load_finished(load: IntakeLoad) -> None:
    """The record and the `intake.load_finished` event of a load that reached its end."""
    counts = {
        "loadId": load.id,
        "campaignName": load.campaign.name,
        "fileName": load.file_name,
        "source": load.source,
        "status": str(load.status),
        "dryRun": load.dry_run,
        "allOrNothing": load.all_or_nothing,
        "rowsTotal": load.rows_total,
        "rowsDone": load.rows_done,
        "added": load.added,
        "updated": load.updated,
        "rejected": load.rejected,
        "superseded": load.superseded,
        "normalised": load.normalised,
        "message": load.message,
    }
    history.record(
        load_actor(load),
        history.Change(
            "intake.load_finished",
            "intake_load",
            load.id,
            load.campaign.tenant_id,
            after=counts,
            event_type="intake.load_finished",
            event_data=counts,
            subject=load.id,
        ),
    )


class BatchTrail:
    """The changes of one batch: each task's snapshot, before and after."""

    def __init__(self, campaign: Campaign, now: datetime) -> None:
        self.campaign_name, self.tenant_id = campaign.name, campaign.tenant_id
        self.defaults = Defaults.of(campaign)
        self.queues = queue_names(campaign.tenant_id)
        self.now = now
        self.changes: list[history.Change] = []

    def _shown(self, task: Any, items: Any, work_codes: Any) -> TaskSnapshot:
        queue = self.queues[task.skill_queue_id]
        return task_snapshot_of(task, queue, items, work_codes, self.campaign_name)

    def _add(self, action: str, record_id: str, before, after) -> None:
        self.changes.append(
            history.Change(
                action,
                "task",
                record_id,
                self.tenant_id,
                before,
                after,
                event_type=action,
                event_data=after,
                subject=record_id,
            )
        )

    def updating(self, updates: list) -> None:
        """Read the updated tasks as they are, and make what they will be."""
        plans = {task.id: (plan, one) for task, plan, one in updates}
        for stored in stored_tasks(list(plans)):
            plan, one = plans[stored.task.id]
            changed = {
                **stored.task._asdict(),
                **update_values(plan, one.queue_id, defaults=self.defaults),
                "updated_at": self.now,
            }
            before = self._shown(stored.task, stored.items, stored.work_codes)
            after = self._shown(SimpleNamespace(**changed), plan.items, stored.work_codes)
            self._add("task.updated", stored.task.record_id, before, after)

    def adding(self, added: list[tuple[dict[str, Any], TaskPlan]]) -> None:
        """The new tasks as they were inserted."""
        for values, plan in added:
            task = SimpleNamespace(
                **values,
                created_at=self.now,
                updated_at=self.now,
                last_attempt_agent=None,
                last_attempt_at=None,
            )
            self._add("task.added", task.record_id, None, self._shown(task, plan.items, ()))

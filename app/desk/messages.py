"""What the desk page says: times in the agent's words, refusals, what a close or a Skip
did, and what the agent chose when it could not be saved.

The views (app/desk/pages.py, app/desk/page_json.py) flash these or answer them to the
page's script; the refused close form's words beside its fields are app/desk/refusals.py.
"""

from __future__ import annotations

from datetime import UTC, datetime

from flask import request

from app.desk import live
from app.desk.forms import CloseForm, chosen_work_codes
from app.models import Task, User
from app.services.contactability.seat import local_text
from app.services.delivery.ownership import TaskFate
from app.services.errors import NotFound, ServiceError, TaskNotFound, TaskTaken
from app.services.tasks.display import agent_view_of

GONE = "That task is no longer yours: it was released, closed, changed or moved."
OUTCOME_WORDS = {"COMPLETE": "Complete", "RESCHEDULE": "Reschedule", "REMOVE": "Remove"}


def due_text(next_due, agent: User) -> str | None:
    """The next due time as the page says it: in the agent's own zone."""
    if next_due is None:
        return None
    if isinstance(next_due, int | float):
        next_due = datetime.fromtimestamp(next_due / 1000, UTC)
    return local_text(next_due, agent.time_zone or "UTC")


def customer_time(moment: datetime, task: Task, agent: User) -> str:
    """A time of the task as the agent typed it: in the customer's zone, and in the
    agent's own too when that differs."""
    text = local_text(moment, task.time_zone)
    own = agent.time_zone or "UTC"
    if own != task.time_zone:
        text += f" ({local_text(moment, own)} for you)"
    return text


def refusal(error: ServiceError, agent: User) -> str:
    """A refusal as the page says it: a task no longer the agent's says what became of it,
    by whom and when (in the agent's zone)."""
    if isinstance(error, TaskTaken) and error.who:
        fate = TaskFate(error.what, error.who, error.at, error.via)
        words = live.fate_words(fate, agent)
        return f"That task is no longer yours: {words[:1].lower()}{words[1:]}."
    if isinstance(error, NotFound | TaskNotFound):
        return GONE
    return error.message


def call_refusal(error: ServiceError, agent: User) -> str:
    """A call's refusal as the page says it: the rule's own words (which call, which
    rule), or what became of a task no longer the agent's."""
    if isinstance(error, TaskTaken):
        return refusal(error, agent)
    return error.message


def lost_choice(form: CloseForm, task: Task | None) -> str:
    """What the agent chose, said back when it could not be saved, so nothing is lost
    silently: the outcome, the work codes, the next attempt's time as typed."""
    parts = []
    if form.outcome.data:
        parts.append(OUTCOME_WORDS.get(form.outcome.data, form.outcome.data))
    codes = chosen_work_codes(request.form)
    if codes:
        parts.append("work codes " + ", ".join(f"{group}: {code}" for group, code in codes))
    if form.next_time.data:
        zone = f" {task.time_zone}" if task is not None else ""
        parts.append(f"next attempt {form.next_time.data:%Y-%m-%d %H:%M}{zone}")
    if form.note.data and form.note.data.strip():
        parts.append(f"note “{form.note.data.strip()}”")
    if not parts:
        return ""
    return " Not saved, so note it down: " + "; ".join(parts) + "."


def closed_text(task: Task, agent: User) -> str:
    """What the agent is told of the task just closed: its outcome, and why if not chosen."""
    said = {"COMPLETED": "completed", "REMOVED": "removed", "WORKED": "rescheduled"}
    text = f"Task closed: {said.get(task.worked_state, task.worked_state)}"
    if task.close_reason:
        text += f", {task.close_reason}"
    elif task.worked_state == "WORKED" and task.next_earliest_work_at:
        text += f"; next attempt {customer_time(task.next_earliest_work_at, task, agent)}"
    return text + "."


def skipped_text(task: Task, agent: User, now: datetime) -> str:
    """What Skip did: the task went back to its queue, no attempt counted, and when it may
    come again (at once; first to this agent while their hold lasts)."""
    name = agent_view_of(task).banner or "The task"
    queue = task.skill_queue.name
    text = f"Skipped: {name} went back to the {queue} queue, no attempt counted"
    held = task.preferred_agent == agent.login_user_id and task.hold_until
    if held and task.hold_until > now:
        return (
            text + f". It is held for you until {due_text(task.hold_until, agent)}, "
            "so it may come back to you at once."
        )
    return text + f". It may be offered again at once, to you or another agent of {queue}."

"""The desk page: the agent's state, the task to work, its outcome.

Thin views over the delivery engine (app/services/delivery.py), the one place the rules
live; the Desk API calls the same functions. Each view of the page is a heartbeat, and while
the agent is AVAILABLE it asks for the next task (the one the agent already holds comes
back), so a page left on "nothing to do" picks up work on its next refresh.
"""

from __future__ import annotations

from contextlib import suppress
from datetime import UTC, datetime

from flask import flash, redirect, render_template, request, url_for

from app.admin.items import next_time_ms
from app.desk import auth, bp
from app.desk.forms import CloseForm, DeskButtonForm, StateForm, chosen_work_codes
from app.extensions import db
from app.models import AgentState, Task, User
from app.services import delivery
from app.services.actors import Actor
from app.services.delivery.seat import local_text
from app.services.display import agent_view_of
from app.services.errors import NotAvailable, NotFound, ServiceError, TaskNotFound
from app.services.tasks import find_tenant_task
from app.services.work_code_offers import offered
from app.storage import writes

REFRESH_SECONDS = 15
GONE = "That task is no longer yours: it was released, closed, changed or moved."


def _actor(agent: User) -> Actor:
    return Actor.agent(agent.login_user_id)


def _due_text(next_due, agent: User) -> str | None:
    """The next due time as the page says it: in the agent's own zone."""
    if next_due is None:
        return None
    if isinstance(next_due, int | float):
        next_due = datetime.fromtimestamp(next_due / 1000, UTC)
    return local_text(next_due, agent.time_zone or "UTC")


def work_code_choices(task: Task | None) -> dict:
    """What desk/_work_codes.html needs: the groups closing the task offers, and whether
    any code implies an outcome (then "Close" may leave the outcome to the codes)."""
    groups = offered(task.skill_queue) if task else []
    return {
        "work_code_groups": groups,
        "codes_decide": any(code.outcome for group in groups for code in group.codes),
    }


@bp.get("")
@writes  # a heartbeat, and the task it delivers
def home():
    """The desk: the state switch and, when AVAILABLE, the task to work or why there is none."""
    agent = auth.current_agent()
    delivery.heartbeat(agent)
    offer = None
    with suppress(NotAvailable):  # not AVAILABLE: the page offers the state switch only
        offer = delivery.next_task(agent, actor=_actor(agent))
    db.session.commit()
    task: Task | None = offer.task if offer else None
    view = agent_view_of(task) if task else None
    phones = [d for d in view.details if d.kind == "phone"] if view else []
    return render_template(
        "desk/home.html",
        agent=agent,
        states=[s.value for s in AgentState],
        offer=offer,
        task=task,
        view=view,
        first_phone=phones[0] if phones else None,
        **work_code_choices(task),
        due=_due_text(offer.next_due, agent) if offer else None,
        refresh=REFRESH_SECONDS if offer is not None and task is None else None,
        state_form=StateForm(),
        close_form=CloseForm(),
        button_form=DeskButtonForm(),
    )


def _run(action):
    """Run one engine call in one transaction; a refusal becomes the page's message."""
    try:
        result = action()
        db.session.commit()
    except ServiceError as error:
        db.session.rollback()
        flash(GONE if isinstance(error, NotFound | TaskNotFound) else error.message)
        return None
    return result


@bp.post("/state")
def state():
    """Switch between AVAILABLE, AWAY and OFFLINE."""
    agent = auth.current_agent()
    form = StateForm()
    if form.validate_on_submit():
        _run(lambda: delivery.set_agent_state(agent, form.state.data, actor=_actor(agent)))
    else:
        flash("Choose AVAILABLE, AWAY or OFFLINE.")
    return redirect(url_for("desk.home"))


@bp.post("/tasks/<record_id>/close")
def close(record_id: str):
    """Close the task with an outcome, or the one its work codes imply; a time (read in the
    task's time zone) with no outcome chosen reschedules, so Enter in it never completes."""
    agent = auth.current_agent()
    form = CloseForm()
    if not form.validate_on_submit():
        flash("Choose an outcome (and, to reschedule, a valid date and time).")
        return redirect(url_for("desk.home"))
    task = find_tenant_task(agent.tenant_id, record_id)
    if task is None:
        flash(GONE)
        return redirect(url_for("desk.home"))

    def close_it():
        when = next_time_ms(form.next_time.data, task.time_zone)
        return delivery.close_task(
            agent,
            record_id,
            form.outcome.data or None,
            next_earliest_ms=when,
            work_codes=chosen_work_codes(request.form),
            actor=_actor(agent),
        )

    closed = _run(close_it)
    if closed is not None:
        flash(_closed_text(closed, agent))
    return redirect(url_for("desk.home"))


def _closed_text(task: Task, agent: User) -> str:
    """What the agent is told of the task just closed: its outcome, and why if not chosen."""
    said = {"COMPLETED": "completed", "REMOVED": "removed", "WORKED": "rescheduled"}
    text = f"Task closed: {said.get(task.worked_state, task.worked_state)}"
    if task.close_reason:
        text += f", {task.close_reason}"
    elif task.worked_state == "WORKED" and task.next_earliest_work_at:
        text += f"; next attempt {_due_text(task.next_earliest_work_at, agent)}"
    return text + "."


@bp.post("/tasks/<record_id>/release")
def release(record_id: str):
    """Give the task back without counting an attempt."""
    agent = auth.current_agent()
    if DeskButtonForm().validate_on_submit():
        _run(lambda: delivery.release_task(agent, record_id, actor=_actor(agent)))
    return redirect(url_for("desk.home"))

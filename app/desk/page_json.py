"""The JSON the desk page's script (static/desk.js) calls: the heartbeat that keeps the
agent present (`heartbeat`), "Keep it" before the task would return to its queue (`keep`),
and the call (app/services/dialer/placing.py): "Call" records the call's start (`call`),
then the page dials (a `tel:` link, or the tenant's Contact Control Panel) and records how
it ended (`call_event`), which preselects the work codes the result suggests. A campaign
with a preview countdown dials by itself when the countdown ends, through the same `call`.

Each also takes a plain form post (the page without its script) and goes back to the desk.
"""

from __future__ import annotations

from flask import abort, flash, jsonify, redirect, request, url_for
from flask_wtf.csrf import CSRFError

from app.db.transactions import in_one_transaction
from app.desk import auth, bp, messages
from app.desk.forms import CallEventForm, CallForm, DeskButtonForm
from app.desk.pages import (
    actor,
    next_number,
    number_states,
    presence_json,
    run,
    suggested_by_call,
)
from app.extensions import db
from app.models import Attempt, Task, User
from app.models.types import utcnow
from app.services.delivery.presence import desk_heartbeat, keep_task
from app.services.dialer import call_events, placing
from app.services.errors import ServiceError
from app.services.tasks.changes import find_tenant_task


@bp.post("/tasks/<record_id>/keep")
def keep(record_id: str):
    """ "Still there? Keep it": the task stays the agent's for another offer timeout. The
    desk's script asks for JSON; a plain form post goes back to the desk."""
    agent = auth.current_agent()
    if not DeskButtonForm().validate_on_submit():
        abort(400)
    kept = run(lambda: keep_task(agent, record_id), agent)
    if request.accept_mimetypes.best == "application/json":
        if kept is None:
            return jsonify({"kept": False}), 409
        return jsonify({"kept": True, **presence_json(kept, utcnow())})
    return redirect(url_for("desk.home"))


def _wants_json() -> bool:
    return request.accept_mimetypes.best == "application/json"


@bp.errorhandler(CSRFError)
def csrf_refused(error: CSRFError):
    """A form without its valid CSRF token: the script's JSON requests are told so in
    JSON, naming the field; a page's form gets the usual "Bad request"."""
    if _wants_json():
        return jsonify({"message": f"csrf_token: {error.description}", "field": "csrf_token"}), 400
    return error


def _form_refused(form) -> tuple:
    """A call form the page did not send as it should: JSON naming the first bad field."""
    errors_of = form.errors
    field = "csrf_token" if "csrf_token" in errors_of else next(iter(errors_of))
    errors = errors_of[field]
    message = errors[0] if isinstance(errors, list) and errors else "Not valid."
    return jsonify({"message": f"{field}: {message}", "field": field}), 400


@bp.post("/tasks/<record_id>/call")
def call(record_id: str):
    """Record the call's start (the server checks again that it may be placed, now). The
    desk's script asks for JSON and then dials; a plain form post goes back to the desk,
    which shows the number to dial and the results to choose from."""
    agent = auth.current_agent()
    form = CallForm()
    if not form.validate_on_submit():
        if _wants_json():
            return _form_refused(form)
        flash("The call could not be started: send the form from the desk again.")
        return redirect(url_for("desk.home"))
    placed, error = in_one_transaction(
        db.session,
        lambda: placing.start_call(
            agent, record_id, form.phone_key.data or None, actor=actor(agent)
        ),
        refusals=ServiceError,
    )
    if error is not None:
        refused = f"Not called: {messages.call_refusal(error, agent)}"
        if _wants_json():
            return jsonify({"message": refused}), 409
        flash(refused)
        return redirect(url_for("desk.home"))
    # The contact centre could not place it: the call is recorded as ended FAILED.
    failure = (
        f"The contact centre could not place the call: {placed.failure}" if placed.failure else None
    )
    if not _wants_json():
        if failure:
            flash(failure)
        return redirect(url_for("desk.home"))
    answer = {
        "callId": placed.call_id,
        "phoneNumber": placed.phone_number,
        "key": placed.key,
        "dial": f"tel:{placed.phone_number}",
    }
    if failure:
        task = find_tenant_task(agent.tenant_id, record_id)
        answer |= {"failure": failure, **_ended_json(task, placed.attempt, agent)}
        db.session.commit()
    return jsonify(answer)


def _ended_json(task: Task | None, attempt: Attempt, agent: User) -> dict:
    """What the script shows of a call's state: its result, the codes it suggests and,
    after a call that did not connect, the next number to call (`next`, or null)."""
    return {
        "callId": attempt.call_id,
        "connected": attempt.connected_at is not None,
        "result": attempt.call_result,
        "suggested": [[group, code] for group, code in suggested_by_call(task, attempt)],
        "next": next_number(task, attempt, number_states(task, agent, utcnow())),
    }


@bp.post("/tasks/<record_id>/call-event")
def call_event(record_id: str):
    """Record what became of the call: CONNECTED (with the contact centre's contact id),
    or ENDED with its result. Answers the work codes the result suggests."""
    agent = auth.current_agent()
    form = CallEventForm()
    if not form.validate_on_submit():
        if _wants_json():
            return _form_refused(form)
        flash("Choose how the call ended.")
        return redirect(url_for("desk.home"))
    attempt, error = in_one_transaction(
        db.session,
        lambda: call_events.call_event(
            agent,
            record_id,
            form.call_id.data,
            form.event.data,
            form.result.data or None,
            form.contact_id.data or None,
            actor=actor(agent),
        ),
        refusals=ServiceError,
    )
    if error is not None:
        refused = f"Not recorded: {messages.call_refusal(error, agent)}"
        if _wants_json():
            return jsonify({"message": refused}), 409
        flash(refused)
        return redirect(url_for("desk.home"))
    if not _wants_json():
        return redirect(url_for("desk.home"))
    answer = _ended_json(find_tenant_task(agent.tenant_id, record_id), attempt, agent)
    db.session.commit()
    return jsonify(answer)


@bp.post("/heartbeat")
def heartbeat():
    """The open desk's heartbeat (static/desk.js): the agent is present; `active` says the
    agent worked the task since the last one. Answers when each lapse would come."""
    agent = auth.current_agent()
    if not DeskButtonForm().validate_on_submit():
        abort(400)
    now = utcnow()
    where = desk_heartbeat(agent, active=request.form.get("active") == "1", now=now)
    db.session.commit()
    return jsonify(presence_json(where, now))

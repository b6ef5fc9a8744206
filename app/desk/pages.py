"""The desk page: the agent's state, the task to work, its outcome.

Thin views over the delivery engine (app/services/delivery), the one place the rules
live; the Desk API calls the same functions. Each view of the page is a heartbeat, and while
the agent is AVAILABLE it asks for the next task (the one the agent already holds comes
back), so a page left on "nothing to do" picks up work on its next refresh. While the page
is open its script (static/desk.js) keeps the agent present (`heartbeat`), and warns with a
"Keep it" button (`keep`) before the task would return to its queue.

Calls (app/services/dialer/placing.py): "Call" records the call's start (`call`), then the
page dials (a `tel:` link, or the tenant's Contact Control Panel) and records how it ended
(`call_event`), which preselects the work codes the result suggests. A campaign with a
preview countdown dials by itself when the countdown ends, through the same `call`.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime

from flask import (
    abort,
    flash,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_wtf.csrf import CSRFError

from app.db.transactions import in_one_transaction, writes
from app.desk import auth, bp, live, refusals
from app.desk.forms import (
    CALL_RESULTS,
    CallEventForm,
    CallForm,
    CloseForm,
    DeskButtonForm,
    StateForm,
    chosen_work_codes,
)
from app.extensions import db
from app.models import AgentState, Attempt, CallPlacement, Task, Tenant, User
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.calls import ledger
from app.services.campaigns.dialing import dial_settings
from app.services.contactability.seat import local_text
from app.services.delivery import agent_state, away_reasons, closing, offers, rules, wrap_up
from app.services.delivery.ownership import TaskFate, fate_of, newest_record_id
from app.services.delivery.presence import Presence, desk_heartbeat, keep_task, presence
from app.services.dialer import placing
from app.services.errors import NotAvailable, NotFound, ServiceError, TaskNotFound, TaskTaken
from app.services.tasks.changes import find_tenant_task
from app.services.tasks.display import agent_view_of
from app.services.tenants import ccp as tenant_ccp
from app.services.work_codes.choices import offered
from app.web.form_times import next_time
from app.web.security import framing_policy, web_origin

REFRESH_SECONDS = 15


def heartbeat_seconds() -> int:
    """How often the open desk says it is there: well within AGENT_IDLE_SECONDS."""
    return max(1, min(30, int(rules.setting("AGENT_IDLE_SECONDS") / 4)))


GONE = "That task is no longer yours: it was released, closed, changed or moved."
# Set when the page says a task was lost: the next task's countdown waits until the agent
# has read why (the desk's "Start the countdown").
NOTICE_UNSEEN = "_desk_notice_unseen"


def _actor(agent: User) -> Actor:
    return Actor.agent(agent.login_user_id)


def _due_text(next_due, agent: User) -> str | None:
    """The next due time as the page says it: in the agent's own zone."""
    if next_due is None:
        return None
    if isinstance(next_due, int | float):
        next_due = datetime.fromtimestamp(next_due / 1000, UTC)
    return local_text(next_due, agent.time_zone or "UTC")


def _customer_time(moment: datetime, task: Task, agent: User) -> str:
    """A time of the task as the agent typed it: in the customer's zone, and in the
    agent's own too when that differs."""
    text = local_text(moment, task.time_zone)
    own = agent.time_zone or "UTC"
    if own != task.time_zone:
        text += f" ({local_text(moment, own)} for you)"
    return text


def _presence_json(now_presence: Presence, now: datetime) -> dict:
    """What the desk's script needs: the state, the task held, seconds to each lapse."""

    def seconds_to(moment: datetime | None) -> float | None:
        return None if moment is None else max(0.0, (moment - now).total_seconds())

    task = now_presence.task
    return {
        "state": now_presence.state,
        "task": task.record_id if task is not None else None,
        "idleLapsesIn": seconds_to(now_presence.idle_lapses_at),
        "offerLapsesIn": seconds_to(now_presence.offer_lapses_at),
        "warnSeconds": now_presence.warn_seconds,
    }


def work_code_choices(task: Task | None) -> dict:
    """What desk/_work_codes.html needs: the groups closing the task offers, and whether
    any code implies an outcome (then "Close" may leave the outcome to the codes)."""
    groups = offered(task.skill_queue) if task else []
    return {
        "work_code_groups": groups,
        "codes_decide": any(code.outcome for group in groups for code in group.codes),
    }


@dataclass(frozen=True)
class Kept:
    """A close form the desk shows again as the agent left it (refused, or the removal
    not confirmed): its task, the codes ticked, the refusal and where it is said, and what
    to say was not saved should the desk show another task by then."""

    record_id: str
    codes: list[tuple[str, str]]
    refused: refusals.Refused | None = None
    lost: str = ""


@bp.get("")
@writes  # a heartbeat, and the task it delivers
def home():
    """The desk: the state switch and, when AVAILABLE, the task to work or why there is none."""
    return _desk_page(auth.current_agent())


def _desk_page(agent: User, kept: Kept | None = None):
    """The desk page; with `kept`, the close form as it was sent (the time, the codes, any
    other field of CloseForm) and the refusal beside its field, answered 422 if refused.
    The page's script gives it the desk's own address, so a reload never sends it again."""
    agent_state.heartbeat(agent)
    offer = None
    with suppress(NotAvailable):  # not AVAILABLE: the page offers the state switch only
        offer = offers.next_task(agent, actor=_actor(agent))
    if offer is None and (held := offers.reserved_task(agent)) is not None:
        offer = offers.Offer(held)  # Away (or silent) never hides the task in hand
    now = utcnow()
    where = presence(agent, now)
    task: Task | None = offer.task if offer else None
    call = placing.current_call(task) if task else None
    same = kept is not None and task is not None and task.record_id == kept.record_id
    suggested = kept.codes if same else _suggested(task, call)
    seen = newest_record_id(agent, task.record_id) if task else 0
    earlier = _earlier_attempts(task, call, agent)
    reasons = [reason.name for reason in away_reasons.list_reasons(agent.tenant_id)]
    db.session.commit()
    view = agent_view_of(task) if task else None
    phones = [d for d in view.details if d.kind == "phone"] if view else []
    ccp = ccp_settings(agent.tenant, task)
    page = render_template(
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
        presence=_presence_json(where, now),
        heartbeat_every=heartbeat_seconds(),
        state_form=StateForm(),
        # Bound to the form sent when showing it again, else empty.
        close_form=CloseForm() if same else CloseForm(formdata=None),
        refused=kept.refused if same else None,
        # The task is no longer the one the form was for: what was not saved, at the top.
        error=(kept.refused.words + kept.lost) if kept and kept.refused and not same else None,
        form_answer=kept is not None,
        button_form=DeskButtonForm(),
        call=call,
        # Away: nobody dials by themselves; a lost task's notice holds the next countdown.
        countdown=placing.countdown_seconds(task, call, now)
        if agent.desk_state == AgentState.AVAILABLE
        else None,
        countdown_held=session.pop(NOTICE_UNSEEN, False),
        live_seen=seen,
        suggested=suggested,
        results=CALL_RESULTS,
        ccp=ccp,
        wrap=_wrap_up(task, call, now),
        earlier=earlier,
        away_reasons=reasons,
        note_limit=closing.NOTE_LIMIT,
    )
    response = make_response(page, 422 if kept is not None and kept.refused else 200)
    if ccp is not None:
        response.headers["Content-Security-Policy"] = framing_policy(ccp["origin"])
    return response


def _wrap_up(task: Task | None, call: Attempt | None, now: datetime) -> dict | None:
    """What the desk's wrap-up timer needs: seconds since the call ended (None: the call has
    not ended) and the queue's limit, said in words too."""
    if task is None:
        return None
    limit = task.skill_queue.wrap_up_limit_seconds if task.skill_queue else None
    now_wrap = wrap_up.wrap_up_of(task, call, now)
    return {
        "elapsed": int(now_wrap.elapsed.total_seconds()) if now_wrap else None,
        "over": now_wrap.over_limit if now_wrap else False,
        "limit": limit,
        "limit_words": wrap_up.limit_words(limit) if limit else None,
    }


def _earlier_attempts(task: Task | None, call: Attempt | None, agent: User) -> list[dict]:
    """The task's attempts before this one, newest first, as the desk lists them."""
    if task is None:
        return []
    return [
        {
            "when": _due_text(attempt.delivered_at, agent),
            "agent": attempt.agent_login,
            "result": attempt.call_result,
            "outcome": attempt.outcome,
            "ended": attempt.ended_how,
            "codes": ", ".join(f"{c['key']}: {c['value']}" for c in attempt.work_codes or ()),
            "note": attempt.note,
        }
        for attempt in ledger.task_attempts(task)
        if call is None or attempt.id != call.id
    ]


def ccp_settings(tenant: Tenant, task: Task | None) -> dict | None:
    """The Contact Control Panel the desk embeds (the tenant's, `tenants.ccp.ccp_origin`), with the
    task's campaign's outbound queue and who places its calls. The origin goes into the
    page's policy only as a plain http(s) origin (`web_origin`), whatever was stored."""
    origin = web_origin(tenant_ccp.ccp_origin(tenant))
    if origin is None or not tenant.connect_ccp_url:
        return None
    settings = dial_settings(task.campaign) if task is not None else None
    return {
        "url": tenant.connect_ccp_url.strip(),
        "origin": origin,
        "queueArn": settings.queue_arn if settings else None,
        "placement": settings.call_placement if settings else CallPlacement.DESK.value,
    }


def _suggested(task: Task | None, call: Attempt | None) -> list[tuple[str, str]]:
    """The work codes the ended call's result suggests: the page ticks them."""
    if task is None or call is None or not call.call_result:
        return []
    return placing.suggested_codes(task, call.call_result)


def _refusal(error: ServiceError, agent: User) -> str:
    """A refusal as the page says it: a task no longer the agent's says what became of it,
    by whom and when (in the agent's zone)."""
    if isinstance(error, TaskTaken) and error.who:
        fate = TaskFate(error.what, error.who, error.at, error.via)
        words = live.fate_words(fate, agent)
        return f"That task is no longer yours: {words[:1].lower()}{words[1:]}."
    if isinstance(error, NotFound | TaskNotFound):
        return GONE
    return error.message


# What closing answers when Remove must be confirmed first.
ASKS_FIRST = object()


def _run(action, agent: User):
    """Run one engine call in one transaction; a refusal becomes the page's error."""
    result, refused = in_one_transaction(db.session, action, refusals=ServiceError)
    if refused is not None:
        flash(_refusal(refused, agent), "error")
        if isinstance(refused, TaskTaken):
            session[NOTICE_UNSEEN] = True
    return result


@bp.post("/state")
def state():
    """Switch between AVAILABLE, AWAY and OFFLINE."""
    agent = auth.current_agent()
    form = StateForm()
    if form.validate_on_submit():
        reason = form.reason.data if form.state.data == AgentState.AWAY else None
        _run(
            lambda: agent_state.set_agent_state(
                agent, form.state.data, reason=reason, actor=_actor(agent)
            ),
            agent,
        )
    else:
        flash("Choose AVAILABLE, AWAY or OFFLINE.")
    return redirect(url_for("desk.home"))


@bp.post("/tasks/<record_id>/close")
def close(record_id: str):
    """Close the task with an outcome, or the one its work codes imply; a time (read in the
    task's time zone) with no outcome chosen reschedules, so Enter in it never completes.
    A closing that removes the task asks first (`confirmed`). A refusal shows the form
    again as sent, the refusal beside its field (app/desk/refusals.py)."""
    agent = auth.current_agent()
    form = CloseForm()
    task = find_tenant_task(agent.tenant_id, record_id)
    if task is None:
        fate = fate_of(agent, record_id)
        flash((live.gone_notice(fate, agent) if fate else GONE) + _lost_choice(form, task), "error")
        session[NOTICE_UNSEEN] = True
        return redirect(url_for("desk.home"))
    codes = chosen_work_codes(request.form)
    if not form.validate_on_submit():
        refused = refusals.form_refusal(form.errors)
        return _desk_page(agent, Kept(record_id, codes, refused, _lost_choice(form, task)))
    confirmed = request.form.get("confirmed")
    if confirmed == "no":  # "Cancel, back to the task": every choice as it was
        return _desk_page(agent, Kept(record_id, codes))
    now = utcnow()
    outcome = form.outcome.data or None
    chosen = {"next_earliest": None, "work_codes": codes, "now": now}

    def close_or_ask_first():
        chosen["next_earliest"] = next_time(form.next_time.data, task.time_zone)
        if confirmed != "yes" and closing.outcome_of(agent, record_id, outcome, **chosen) == (
            closing.Outcome.REMOVE
        ):
            return ASKS_FIRST  # nothing written: Remove asks first
        return closing.close_task(
            agent, record_id, outcome, note=form.note.data, actor=_actor(agent), **chosen
        )

    closed, error = in_one_transaction(db.session, close_or_ask_first, refusals=ServiceError)
    if closed is ASKS_FIRST:
        return _confirm_remove(agent, task)
    if error is not None:
        lost = _lost_choice(form, task)
        if isinstance(error, TaskTaken):
            session[NOTICE_UNSEEN] = True  # the next countdown waits for the agent
        if isinstance(error, NotFound | TaskNotFound):
            flash(_refusal(error, agent) + lost, "error")
            return redirect(url_for("desk.home"))
        choice = refusals.Choice(chosen["next_earliest"], codes)
        groups = work_code_choices(task)["work_code_groups"]
        refused = refusals.close_refusal(error, task, agent, now, choice, groups)
        return _desk_page(agent, Kept(record_id, codes, refused, lost))
    flash(_closed_text(closed, agent))
    return redirect(url_for("desk.home"))


def _confirm_remove(agent: User, task: Task):
    """Remove asks first: a page that says what Remove does and sends the same choice
    again (work codes and every other field included) once confirmed; Cancel sends it
    back with `confirmed=no`, and the desk shows the form with every choice kept."""
    carried = [
        (name, value)
        for name in request.form
        if name not in ("csrf_token", "confirmed")
        for value in request.form.getlist(name)
    ]
    view = agent_view_of(task)
    return render_template("desk/confirm_remove.html", agent=agent, task=task, view=view,
                           carried=carried)  # fmt: skip


OUTCOME_WORDS = {"COMPLETE": "Complete", "RESCHEDULE": "Reschedule", "REMOVE": "Remove"}


def _lost_choice(form: CloseForm, task: Task | None) -> str:
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


def _closed_text(task: Task, agent: User) -> str:
    """What the agent is told of the task just closed: its outcome, and why if not chosen."""
    said = {"COMPLETED": "completed", "REMOVED": "removed", "WORKED": "rescheduled"}
    text = f"Task closed: {said.get(task.worked_state, task.worked_state)}"
    if task.close_reason:
        text += f", {task.close_reason}"
    elif task.worked_state == "WORKED" and task.next_earliest_work_at:
        text += f"; next attempt {_customer_time(task.next_earliest_work_at, task, agent)}"
    return text + "."


@bp.post("/tasks/<record_id>/release")
def release(record_id: str):
    """Skip: give the task back without counting an attempt; the desk says what became
    of it."""
    agent = auth.current_agent()
    if DeskButtonForm().validate_on_submit():
        now = utcnow()
        skipped = _run(
            lambda: closing.release_task(agent, record_id, actor=_actor(agent), now=now), agent
        )
        if skipped is not None:
            flash(_skipped_text(skipped, agent, now))
    return redirect(url_for("desk.home"))


def _skipped_text(task: Task, agent: User, now: datetime) -> str:
    """What Skip did: the task went back to its queue, no attempt counted, and when it may
    come again (at once; first to this agent while their hold lasts)."""
    name = agent_view_of(task).banner or "The task"
    queue = task.skill_queue.name
    text = f"Skipped: {name} went back to the {queue} queue, no attempt counted"
    held = task.preferred_agent == agent.login_user_id and task.hold_until
    if held and task.hold_until > now:
        return (
            text + f". It is held for you until {_due_text(task.hold_until, agent)}, "
            "so it may come back to you at once."
        )
    return text + f". It may be offered again at once, to you or another agent of {queue}."


@bp.post("/tasks/<record_id>/keep")
def keep(record_id: str):
    """ "Still there? Keep it": the task stays the agent's for another offer timeout. The
    desk's script asks for JSON; a plain form post goes back to the desk."""
    agent = auth.current_agent()
    if not DeskButtonForm().validate_on_submit():
        abort(400)
    kept = _run(lambda: keep_task(agent, record_id), agent)
    if request.accept_mimetypes.best == "application/json":
        if kept is None:
            return jsonify({"kept": False}), 409
        return jsonify({"kept": True, **_presence_json(kept, utcnow())})
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
            agent, record_id, form.phone_key.data or None, actor=_actor(agent)
        ),
        refusals=ServiceError,
    )
    if error is not None:
        refused = f"Not called: {_call_refusal(error, agent)}"
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
        answer |= {"failure": failure, **_ended_json(task, placed.attempt)}
        db.session.commit()
    return jsonify(answer)


def _ended_json(task: Task | None, attempt: Attempt) -> dict:
    """What the script shows of a call's state: its result and the codes it suggests."""
    return {
        "callId": attempt.call_id,
        "connected": attempt.connected_at is not None,
        "result": attempt.call_result,
        "suggested": [[group, code] for group, code in _suggested(task, attempt)],
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
        lambda: placing.call_event(
            agent,
            record_id,
            form.call_id.data,
            form.event.data,
            form.result.data or None,
            form.contact_id.data or None,
            actor=_actor(agent),
        ),
        refusals=ServiceError,
    )
    if error is not None:
        refused = f"Not recorded: {_call_refusal(error, agent)}"
        if _wants_json():
            return jsonify({"message": refused}), 409
        flash(refused)
        return redirect(url_for("desk.home"))
    if not _wants_json():
        return redirect(url_for("desk.home"))
    answer = _ended_json(find_tenant_task(agent.tenant_id, record_id), attempt)
    db.session.commit()
    return jsonify(answer)


def _call_refusal(error: ServiceError, agent: User) -> str:
    """A call's refusal as the page says it: the rule's own words (which call, which
    rule), or what became of a task no longer the agent's."""
    if isinstance(error, TaskTaken):
        return _refusal(error, agent)
    return error.message


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
    return jsonify(_presence_json(where, now))


@bp.get("/tasks/<record_id>/<any(close, release, keep, call, 'call-event'):action>")
@bp.get("/state")
@bp.get("/heartbeat")
def back_to_desk(**_ignored):
    """The desk's form addresses opened as links (a reload, a copied address): the desk."""
    return redirect(url_for("desk.home"))

"""The desk page: the agent's state, the task to work, its outcome.

Thin views over the delivery engine (app/services/delivery), the one place the rules
live; the Desk API calls the same functions. Each view of the page is a heartbeat, and while
the agent is AVAILABLE it asks for the next task (the one the agent already holds comes
back), so a page left on "nothing to do" picks up work on its next refresh. While the page
is open its script (static/desk.js) keeps the agent present, warns before the task would
return to its queue and places the call: the JSON it calls is app/desk/page_json.py, what
the page says app/desk/messages.py.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime

from flask import (
    flash,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from app.db.transactions import in_one_transaction, writes
from app.desk import auth, bp, live, messages, refusals
from app.desk.forms import (
    CALL_RESULTS,
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
from app.services.delivery import (
    agent_state,
    away_reasons,
    callbacks,
    closing,
    offers,
    rules,
    wrap_up,
)
from app.services.delivery.ownership import fate_of, newest_record_id
from app.services.delivery.presence import Presence, presence
from app.services.dialer import numbers as task_numbers
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


# Set when the page says a task was lost: the next task's countdown waits until the agent
# has read why (the desk's "Start the countdown").
NOTICE_UNSEEN = "_desk_notice_unseen"


def actor(agent: User) -> Actor:
    """The agent as the actor of what the desk changes."""
    return Actor.agent(agent.login_user_id)


def presence_json(now_presence: Presence, now: datetime) -> dict:
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
        offer = offers.next_task(agent, actor=actor(agent))
    if offer is None and (held := offers.reserved_task(agent)) is not None:
        offer = offers.Offer(held)  # Away (or silent) never hides the task in hand
    now = utcnow()
    where = presence(agent, now)
    task: Task | None = offer.task if offer else None
    call = placing.current_call(task) if task else None
    same = kept is not None and task is not None and task.record_id == kept.record_id
    suggested = kept.codes if same else suggested_by_call(task, call)
    seen = newest_record_id(agent, task.record_id) if task else 0
    earlier = _earlier_attempts(task, call, agent)
    reasons = [reason.name for reason in away_reasons.list_reasons(agent.tenant_id)]
    db.session.commit()
    view = agent_view_of(task) if task else None
    phones = [d for d in view.details if d.kind == "phone"] if view else []
    states = number_states(task, agent, now)
    suggested_key = task_numbers.suggested_key(task, list(states.values())) if task else None
    # The Call button dials the suggested number (else the first, refused by the server).
    phones = [d for d in phones if d.key == suggested_key] + phones
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
        due=messages.due_text(offer.next_due, agent) if offer else None,
        refresh=REFRESH_SECONDS if offer is not None and task is None else None,
        callbacks=callbacks.callbacks(agent.tenant, now, agent.login_user_id),
        now=now,
        presence=presence_json(where, now),
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
        numbers=states,
        next_number=next_number(task, call, states),
        earlier=earlier,
        away_reasons=reasons,
        note_limit=closing.NOTE_LIMIT,
    )
    response = make_response(page, 422 if kept is not None and kept.refused else 200)
    if ccp is not None:
        response.headers["Content-Security-Policy"] = framing_policy(ccp["origin"])
    return response


def number_states(task: Task | None, agent: User, now: datetime) -> dict:
    """The task's numbers by key, each with whether it may be called now (the agent view
    shows each one's state)."""
    if task is None:
        return {}
    found = task_numbers.task_numbers(task, now, zone=agent.time_zone or "UTC")
    return {number.key: number for number in found}


def next_number(task: Task | None, call: Attempt | None, states: dict) -> dict | None:
    """After a call that did not connect: the task's next callable number (another than
    the one just called), which "Call next number" dials; None otherwise."""
    if task is None or call is None or call.call_ended_at is None or call.connected_at:
        return None
    key = task_numbers.suggested_key(task, list(states.values()))
    if key is None or key == call.phone_key:
        return None
    return {"key": key, "number": states[key].value}


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
            "when": messages.due_text(attempt.delivered_at, agent),
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


def suggested_by_call(task: Task | None, call: Attempt | None) -> list[tuple[str, str]]:
    """The work codes the ended call's result suggests: the page ticks them."""
    if task is None or call is None or not call.call_result:
        return []
    return placing.suggested_codes(task, call.call_result)


# What closing answers when Remove must be confirmed first.
ASKS_FIRST = object()


def run(action, agent: User):
    """Run one engine call in one transaction; a refusal becomes the page's error."""
    result, refused = in_one_transaction(db.session, action, refusals=ServiceError)
    if refused is not None:
        flash(messages.refusal(refused, agent), "error")
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
        run(
            lambda: agent_state.set_agent_state(
                agent, form.state.data, reason=reason, actor=actor(agent)
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
        gone = live.gone_notice(fate, agent) if fate else messages.GONE
        flash(gone + messages.lost_choice(form, task), "error")
        session[NOTICE_UNSEEN] = True
        return redirect(url_for("desk.home"))
    codes = chosen_work_codes(request.form)
    if not form.validate_on_submit():
        refused = refusals.form_refusal(form.errors)
        return _desk_page(agent, Kept(record_id, codes, refused, messages.lost_choice(form, task)))
    confirmed = request.form.get("confirmed")
    if confirmed == "no":  # "Cancel, back to the task": every choice as it was
        return _desk_page(agent, Kept(record_id, codes))
    now = utcnow()
    outcome = form.outcome.data or None
    chosen = {"next_earliest": None, "work_codes": codes, "now": now}

    def close_or_ask_first():
        typed = form.offered_time.data or form.next_time.data
        chosen["next_earliest"] = next_time(typed, task.time_zone)
        if confirmed != "yes" and closing.outcome_of(agent, record_id, outcome, **chosen) == (
            closing.Outcome.REMOVE
        ):
            return ASKS_FIRST  # nothing written: Remove asks first
        return closing.close_task(
            agent,
            record_id,
            outcome,
            note=form.note.data,
            personal_callback=form.personal_callback.data,
            actor=actor(agent),
            **chosen,
        )

    closed, error = in_one_transaction(db.session, close_or_ask_first, refusals=ServiceError)
    if closed is ASKS_FIRST:
        return _confirm_remove(agent, task)
    if error is not None:
        lost = messages.lost_choice(form, task)
        if isinstance(error, TaskTaken):
            session[NOTICE_UNSEEN] = True  # the next countdown waits for the agent
        if isinstance(error, NotFound | TaskNotFound):
            flash(messages.refusal(error, agent) + lost, "error")
            return redirect(url_for("desk.home"))
        choice = refusals.Choice(chosen["next_earliest"], codes)
        groups = work_code_choices(task)["work_code_groups"]
        refused = refusals.close_refusal(error, task, agent, now, choice, groups)
        return _desk_page(agent, Kept(record_id, codes, refused, lost))
    flash(messages.closed_text(closed, agent))
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


@bp.post("/tasks/<record_id>/release")
def release(record_id: str):
    """Skip: give the task back without counting an attempt; the desk says what became
    of it."""
    agent = auth.current_agent()
    if DeskButtonForm().validate_on_submit():
        now = utcnow()
        skipped = run(
            lambda: closing.release_task(agent, record_id, actor=actor(agent), now=now), agent
        )
        if skipped is not None:
            flash(messages.skipped_text(skipped, agent, now))
    return redirect(url_for("desk.home"))


@bp.get("/tasks/<record_id>/<any(close, release, keep, call, 'call-event'):action>")
@bp.get("/state")
@bp.get("/heartbeat")
def back_to_desk(**_ignored):
    """The desk's form addresses opened as links (a reload, a copied address): the desk."""
    return redirect(url_for("desk.home"))

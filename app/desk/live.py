"""The desk's live channel: what became of the task the page shows, and of its session.

The open desk follows `GET /desk/live/stream?task=<previewRecordID>&seen=<n>` (server-sent
events, by the hub the wallboard uses, app/web/broadcast.py): one channel per desk session
and task shown, probed every LIVE_TOKEN_SECONDS (the session, the agent's state, the task
the agent holds, the newest audit record of the task shown) and sent again, as one JSON
object, when any of them changed. `seen` is the newest audit record of the task the page
knew of: a change by someone else after it, while the agent still holds the task, is
news too. `GET /desk/live` answers the same object once (where no stream can be had).

The object: `signedIn`, `state`, `task` (the previewRecordID held, or null), and `notice`,
in the agent's words, with `kind` ("gone", "changed" or "signedOut"): who did what and when
("Deleted by supervisor sup@acme.example at 18:44 in a bulk delete (bulk job 7)."). The
page's script (static/desk.js) then keeps the agent's choices on screen, read only, and
holds the countdown until the agent has read it.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from flask import Response, current_app, jsonify, request, session
from sqlalchemy import select

from app.db.transactions import read_only, transaction_mode
from app.desk import auth, bp
from app.extensions import db
from app.models import AgentState, AuditRecord, User
from app.models.types import utcnow
from app.services.actors import ActorKind
from app.services.audit.reading import describe_actor
from app.services.delivery import offers
from app.services.delivery.ownership import TaskFate, fate_of, newest_record_id
from app.services.people import sessions
from app.web.broadcast import Viewer, stream_response

# A task's previewRecordID as the desk shows it: never longer than this.
MOST_ID = 64
# The past tense of what became of a task, and the bulk job that did it.
DONE_WORDS = {
    "deleted": "Deleted",
    "moved": "Moved",
    "changed": "Changed",
    "released": "Released",
    "closed": "Closed",
    "taken": "Taken",
}
BULK_WORDS = {
    "deleted": "a bulk delete",
    "moved": "a bulk move",
    "changed": "a bulk change",
    "released": "a bulk release",
}


def clock(moment: datetime, agent: User, now: datetime | None = None) -> str:
    """A moment as the agent reads it: "18:44" today in their zone, else with the date."""
    zone = ZoneInfo(agent.time_zone) if agent.time_zone not in (None, "", "UTC") else UTC
    shown, today = moment.astimezone(zone), (now or utcnow()).astimezone(zone)
    return f"{shown:%H:%M}" if shown.date() == today.date() else f"{shown:%Y-%m-%d %H:%M}"


def fate_words(fate: TaskFate, agent: User) -> str:
    """Who did what and when, in the agent's words: "Deleted by supervisor sup@acme.example
    at 18:44 in a bulk delete (bulk job 7)"; "You closed it at 18:44" (another tab)."""
    if fate.what == "gone":
        return "It no longer exists"
    when = f" at {clock(fate.at, agent)}" if fate.at else ""
    if fate.who is None:
        return f"You {fate.what} it{when} (in another tab or window)"
    text = f"{DONE_WORDS.get(fate.what, 'Changed')} by {fate.who}{when}"
    if fate.via and fate.via.startswith("bulk job"):
        text += f" in {BULK_WORDS.get(fate.what, 'a bulk job')} ({fate.via})"
    elif fate.via:
        text += f" (via {fate.via})"
    return text


def gone_notice(fate: TaskFate, agent: User) -> str:
    """What the desk says of a task no longer the agent's."""
    return f"This task is no longer yours. {fate_words(fate, agent)}."


def signed_out_notice(agent: User | None) -> str:
    """Why the desk's session ended, when the trail says: signed out here or elsewhere,
    or by someone else (the agent's newest change to OFFLINE)."""
    if agent is None:
        return "Your desk session ended: your user no longer exists. Nothing more can be saved."
    change = None
    if agent.desk_state == AgentState.OFFLINE:
        change = db.session.scalar(
            select(AuditRecord)
            .where(
                AuditRecord.tenant_id == agent.tenant_id,
                AuditRecord.entity_kind == "agent",
                AuditRecord.entity_id == agent.login_user_id,
                AuditRecord.action == "agent.state_changed",
            )
            .order_by(AuditRecord.id.desc())
            .limit(1)
        )
    if change is None:
        said = "Your desk session ended"
    elif change.actor_kind == ActorKind.AGENT.value and change.actor_id == agent.login_user_id:
        said = f"You signed out at {clock(change.at, agent)} (in another tab or window)"
    else:
        who = describe_actor(change.actor_kind, change.actor_id, change.actor_via)
        said = f"Signed out by {who} at {clock(change.at, agent)}"
    return f"{said}. Sign in again to go on; nothing more of this page can be saved."


def news(agent_id: int, token: str, shown: str, seen: int) -> dict:
    """The channel's object (see the module's docstring), read now."""
    agent = db.session.get(User, agent_id)
    if agent is None or not sessions.still_live(token, auth.session_limits(), sessions.AGENTS):
        return {
            "signedIn": False,
            "state": None,
            "task": None,
            "kind": "signedOut",
            "notice": signed_out_notice(agent),
        }
    held = offers.reserved_task(agent)
    answer = {
        "signedIn": True,
        "state": agent.desk_state,
        "task": held.record_id if held is not None else None,
        "kind": None,
        "notice": None,
    }
    fate = fate_of(agent, shown, seen) if shown else None
    if fate is not None:
        kind = "changed" if fate.holds else "gone"
        notice = f"{fate_words(fate, agent)}."
        if fate.holds:
            notice += " What this page shows may be out of date."
        answer |= {"kind": kind, "notice": notice}
    return answer


def version_of(agent_id: int, token: str, shown: str) -> str:
    """What the channel's object depends on, read cheaply: the session, the agent's state,
    the task held, the newest audit record of the task shown."""
    agent = db.session.get(User, agent_id)
    if agent is None or not sessions.still_live(token, auth.session_limits(), sessions.AGENTS):
        return "signed-out"
    held = offers.reserved_task(agent)
    newest = newest_record_id(agent, shown) if shown else 0
    return f"{agent.desk_state}-{held.record_id if held else ''}-{newest}"


def _asked() -> tuple[str, int] | Response:
    """The task shown and the audit record it knew of, or the JSON 400 naming the field."""
    shown, seen = request.args.get("task", ""), request.args.get("seen", "0")
    if len(shown) > MOST_ID:
        return _refused("task", f"at most {MOST_ID} characters")
    if not seen.isdigit() or len(seen) > 18:
        return _refused("seen", "a whole number of at least 0")
    return shown, int(seen)


def _refused(field: str, rule: str) -> Response:
    response = jsonify({"message": f"{field}: must be {rule}", "field": field})
    response.status_code = 400
    return response


@bp.get("/live")
@read_only
def live_now():
    """The desk's live object once, as JSON (where the stream cannot be had)."""
    agent = auth.current_agent()
    asked = _asked()
    if isinstance(asked, Response):
        return asked
    answer = news(agent.id, session.get(auth.AGENT_TOKEN_KEY, ""), *asked)
    db.session.rollback()
    return jsonify(answer)


@bp.get("/live/stream")
@read_only
def live_stream():
    """The desk's live object as server-sent events: sent again whenever it changes."""
    agent = auth.current_agent()
    asked = _asked()
    if isinstance(asked, Response):
        return asked
    shown, seen = asked
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    token, agent_id, tenant_id = session.get(auth.AGENT_TOKEN_KEY, ""), agent.id, agent.tenant_id
    secret, limits = app.config["SECRET_KEY"], auth.session_limits()
    # The stream ends once the session did (after its news: signed out, by whom).
    viewer = Viewer(
        sessions.session_key(token),
        tenant_id,
        lambda: sessions.why_watching_ends(token, limits, tenant_id, sessions.AGENTS),
    )

    # Both read only: a probe twice a second must never queue on SQLite's write lock.
    def probe() -> str:
        with transaction_mode(read_only=True):
            version = version_of(agent_id, token, shown)
            db.session.rollback()
        return hashlib.sha256(f"{secret}:{version}".encode()).hexdigest()[:32]

    def render() -> str:
        with transaction_mode(read_only=True):
            answer = news(agent_id, token, shown, seen)
            db.session.rollback()
        return json.dumps(answer, separators=(",", ":"))

    # One channel per desk session and task shown; its key names neither the token nor a
    # digest a log line could repeat.
    session_key = hashlib.sha256(f"{secret}:desk:{token}".encode()).hexdigest()[:24]
    key = ("desk", session_key, shown, seen)
    return stream_response(key, probe, render, viewer=viewer)

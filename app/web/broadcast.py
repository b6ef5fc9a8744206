"""Live parts of pages rendered once per change and sent to every viewer (server-sent events).

One `Hub` per app and process. A *channel* is one live part (a tenant's wallboard, its
Agents board, a campaign's Progress panel), named by a key. While a channel has a viewer,
one thread of the process asks its `probe` every `check_seconds` for the part's current ETag
(one index probe, whatever the number of viewers) and, when it changed, calls `render` once
and hands the (etag, html) pair to every viewer. A viewer with nothing new waits blocked on
the channel's condition, costing no CPU, and writes a comment line every `heartbeat_seconds`
so that proxies keep the connection open (and a viewer gone is noticed). Each stream ends
after about `lifetime_seconds`; the browser then connects again and is authorized again.

A probe and a render only read: their transaction begins as a reader's (on SQLite never
with the write lock, which would hold every desk write back, and fail it past the busy
timeout) and ends before the channel's wait. The channels of a process probe and render
one at a time (`at_once`), so that fifty of them neither hold fifty connections nor take
the interpreter lock from the requests (a desk write beside fifty streams went from over a
second to some 100 ms).

Each stream has its `Viewer`: the session and the tenant it serves, and how to read whether
they may still watch. At every check (at most a second apart) the channel's thread asks that of
each session among its viewers, in the same reader's transaction as its probe (one indexed
read a session); a stream whose session ended, whose owner is gone or no longer sees the
tenant gets an `end` event saying why, after the part's last version, and ends.

A process serves at most `most` streams at once, at most `per_session` of one session and
`per_tenant` of one tenant's viewers, so that one viewer or one tenant never takes them all
(`open` answers a `Refusal` beyond); the gthread pool is sized for them (app/web/serving.py).
When the worker is told to stop, `close_all` ends every stream at once, so a restart does not
wait for them.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import weakref
from collections import Counter
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from functools import partial

from flask import Flask, Response, current_app, jsonify, request

from app.db.transactions import transaction_mode
from app.extensions import db

log = logging.getLogger(__name__)
_HUBS: weakref.WeakSet[Hub] = weakref.WeakSet()
# A stream whose viewer may no longer watch ends within this long (and a change shows within
# it too): the channels' checks are never further apart.
MOST_CHECK_SECONDS = 1.0
# Why a stream is refused, in the viewer's words (the page adds that it polls instead).
REFUSED = {
    "full": "Live updates are paused: this server's live streams are all taken.",
    "session": (
        "Live updates are paused: too many pages with live updates are open in this "
        "sign-in (at most {most})."
    ),
    "tenant": (
        "Live updates are paused: this tenant's viewers hold their whole share of this "
        "server's live streams ({most})."
    ),
}


@dataclass(frozen=True)
class Part:
    """A live part as rendered: its ETag and its HTML."""

    etag: str
    html: str


@dataclass(frozen=True)
class Viewer:
    """Who follows a stream: their session and their tenant (keys that name no token), and
    `ends`, read in the channel's reader's transaction: why they may no longer watch (such
    as "signedOut"), or None while they may."""

    session: Hashable
    tenant: Hashable
    ends: Callable[[], str | None]


@dataclass(frozen=True)
class Refusal:
    """Why no stream was opened ("full", "session" or "tenant"), and the cap reached."""

    reason: str
    most: int

    def answer(self) -> Response:
        """503 for a server full or stopping, 429 for a viewer's or a tenant's cap: JSON that
        says why, in the viewer's words, and when to try again."""
        message = REFUSED[self.reason].format(most=self.most)
        response = jsonify({"message": message, "reason": self.reason, "retryAfter": 60})
        response.status_code = 503 if self.reason == "full" else 429
        response.headers["Retry-After"] = "60"
        response.headers["Cache-Control"] = "no-store"
        return response


class Channel:
    """One live part and the viewers waiting for its next version."""

    def __init__(self, key: Hashable, probe: Callable[[], str | None], render: Callable[[], str]):
        self.key, self.probe, self.render = key, probe, render
        self.changed = threading.Condition()
        self.part: Part | None = None
        self.version = 0  # how many parts were handed out so far
        self.gone = False  # the tenant or campaign no longer exists
        self.viewers = 0
        self.sessions: dict[Hashable, Viewer] = {}  # one viewer of each session, to check
        self.by_session: Counter[Hashable] = Counter()
        self.ended: dict[Hashable, str] = {}  # sessions that may no longer watch, and why
        self.thread: threading.Thread | None = None

    def news_for(self, seen: int, session: Hashable, closing: threading.Event) -> bool:
        """Whether a viewer of `session` that has had `seen` versions has something to do."""
        return self.version != seen or self.gone or session in self.ended or closing.is_set()

    def publish(self, part: Part | None) -> None:
        with self.changed:
            if part is None:
                self.gone = True
            else:
                self.part, self.version = part, self.version + 1
            self.changed.notify_all()

    def end(self, ending: dict[Hashable, str]) -> None:
        """The streams of these sessions end, each told why."""
        with self.changed:
            self.ended.update(ending)
            self.changed.notify_all()

    def ending(self, viewers: list[Viewer]) -> dict[Hashable, str]:
        """The sessions among `viewers` that may no longer watch, and why (read now)."""
        found = {}
        for viewer in viewers:
            if viewer.session not in self.ended and (why := viewer.ends()) is not None:
                found[viewer.session] = why
        return found


class Hub:
    """The channels of one app in this process, and the streams of their viewers."""

    def __init__(
        self,
        app: Flask,
        *,
        most: int,
        per_session: int | None = None,
        per_tenant: int | None = None,
        check_seconds: float = 0.5,
        heartbeat_seconds: float = 15.0,
        lifetime_seconds: float = 300.0,
        retry_ms: int = 2000,
        at_once: int = 1,
    ) -> None:
        self.app, self.most = app, most
        self.per_session = most if per_session is None else per_session
        self.per_tenant = most if per_tenant is None else per_tenant
        self.check_seconds = min(check_seconds, MOST_CHECK_SECONDS)
        self.heartbeat_seconds = heartbeat_seconds
        self.lifetime_seconds, self.retry_ms = lifetime_seconds, retry_ms
        self.lock = threading.Lock()
        self.channels: dict[Hashable, Channel] = {}
        self.streams = 0
        self.by_session: Counter[Hashable] = Counter()
        self.by_tenant: Counter[Hashable] = Counter()
        self.closing = threading.Event()
        # Channels probing or rendering at one time: the others wait their turn, holding
        # no connection, instead of taking the process's interpreter lock from its requests.
        self.busy = threading.BoundedSemaphore(at_once)
        _HUBS.add(self)

    def refusal(self, viewer: Viewer) -> Refusal | None:
        """Why a new stream of `viewer` would be refused now, or None."""
        if self.closing.is_set() or self.streams >= self.most:
            return Refusal("full", self.most)
        if self.by_session[viewer.session] >= self.per_session:
            return Refusal("session", self.per_session)
        if self.by_tenant[viewer.tenant] >= self.per_tenant:
            return Refusal("tenant", self.per_tenant)
        return None

    def open(
        self,
        key: Hashable,
        probe: Callable[[], str | None],
        render: Callable[[], str | None],
        viewer: Viewer,
    ) -> Channel | Refusal:
        """Join the channel of `key` (started, with its thread, when it had no viewer); a
        Refusal when this process already serves its most streams (of all, of the viewer's
        session or of their tenant), or is stopping."""
        with self.lock:
            if (refused := self.refusal(viewer)) is not None:
                return refused
            self.streams += 1
            self.by_session[viewer.session] += 1
            self.by_tenant[viewer.tenant] += 1
            channel = self.channels.get(key)
            if channel is None:
                channel = self.channels[key] = Channel(key, probe, render)
                channel.thread = threading.Thread(
                    target=self._watch, args=(channel,), name=f"live {key}", daemon=True
                )
                channel.thread.start()
            channel.viewers += 1
            channel.by_session[viewer.session] += 1
            channel.sessions.setdefault(viewer.session, viewer)
        return channel

    def leave(self, channel: Channel, viewer: Viewer) -> None:
        with self.lock:
            self.streams -= 1
            channel.viewers -= 1
            for counts in (self.by_session, self.by_tenant, channel.by_session):
                key = viewer.tenant if counts is self.by_tenant else viewer.session
                counts[key] -= 1
                if counts[key] <= 0:
                    del counts[key]
            if viewer.session not in channel.by_session:
                channel.sessions.pop(viewer.session, None)
                with channel.changed:
                    channel.ended.pop(viewer.session, None)

    def stream(self, channel: Channel, viewer: Viewer, since: str = "") -> Iterator[str]:
        """The events of one viewer: the part whenever its ETag is not `since` (the one the
        viewer shows), comments between, until the stream's lifetime is over, or an `end`
        event when the part is gone or the viewer may no longer watch."""
        try:
            # Ends spread over the last tenth of the lifetime: viewers that connected
            # together do not all come back in the same second.
            ends = time.monotonic() + self.lifetime_seconds * random.uniform(0.9, 1.0)  # noqa: S311
            yield f"retry: {self.retry_ms}\n\n"
            seen = 0
            while not self.closing.is_set():
                left = ends - time.monotonic()
                if left <= 0:
                    return
                with channel.changed:
                    channel.changed.wait_for(
                        partial(channel.news_for, seen, viewer.session, self.closing),
                        timeout=min(self.heartbeat_seconds, left),
                    )
                    part, seen, gone = channel.part, channel.version, channel.gone
                    why = "gone" if gone else channel.ended.get(viewer.session)
                fresh = not gone and part is not None and part.etag != since
                if fresh:
                    since = part.etag
                    yield event(part)
                if why is not None:
                    yield f"event: end\ndata: {why}\n\n"
                    return
                if not fresh and time.monotonic() < ends:
                    yield ": still here\n\n"
        finally:
            self.leave(channel, viewer)

    def _watch(self, channel: Channel) -> None:
        """The channel's thread: probe, render on a change, hand out; ends with the last
        viewer (or when the channel's part is gone, or the process stops)."""
        etag, failing = None, False
        while True:
            with self.lock:
                if channel.viewers <= 0 or channel.gone or self.closing.is_set():
                    del self.channels[channel.key]
                    return
                viewers = list(channel.sessions.values())
            ending: dict[Hashable, str] = {}
            try:
                # A probe and a render only read: their transaction begins as a reader's,
                # never with SQLite's write lock (which would keep every desk write
                # waiting), and ends with the context, before the wait. The viewers are
                # read first: a part that says why they may no longer watch (the desk's
                # "signed out") is rendered from what comes after, and sent before the end.
                with self.busy, self.app.app_context(), transaction_mode(read_only=True):
                    ending = channel.ending(viewers)
                    current = channel.probe()
                    if current != etag:
                        html = channel.render() if current is not None else None
                        channel.publish(None if html is None else Part(current, html))
                        etag = current
                failing = False
            except Exception:
                # Tried again at the next check; said once, not twice a second (a database
                # restarting); the viewers keep what they show meanwhile.
                if not failing:
                    log.exception("live part %s: probing or rendering failed", channel.key)
                failing = True
            if ending:
                channel.end(ending)
            self.closing.wait(self.check_seconds)

    def close(self, wait: float = 0.0) -> None:
        """End every stream and channel thread of this hub now; wait up to `wait` seconds
        for the channels' threads to have ended."""
        self.closing.set()
        with self.lock:
            channels = list(self.channels.values())
        for channel in channels:
            with channel.changed:
                channel.changed.notify_all()
        for channel in channels:
            if wait and channel.thread is not None:
                channel.thread.join(wait)


def event(part: Part) -> str:
    """A part as one server-sent event, its ETag as the event's id."""
    data = "".join(f"data: {line}\n" for line in part.html.splitlines())
    return f"id: {part.etag}\n{data}\n"


def close_all() -> None:
    """End every stream of this process (its worker is stopping)."""
    for hub in list(_HUBS):
        hub.close()


STREAM_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}


def stream_response(key: Hashable, probe: Callable, render: Callable, *, viewer: Viewer):
    """The server-sent events of the channel `key` of this process's hub for `viewer`, or
    the refusal (503 or 429, JSON) when its streams are all taken, or all those the viewer's
    session or tenant may have: the page then polls. Asked for JSON instead, the answer
    says only whether a stream would be refused now (the page's notice says why). The
    request's transaction ends first: a stream waits holding no database connection."""
    hub = current_app.extensions["live_hub"]  # the process's one hub, sized with its threads
    asked = request.accept_mimetypes.best_match(["text/event-stream", "application/json"])
    if request.method == "HEAD" or asked == "application/json":
        db.session.rollback()
        with hub.lock:
            refused = hub.refusal(viewer)
        return refused.answer() if refused else jsonify({"message": None, "reason": None})
    channel = hub.open(key, probe, render, viewer)
    db.session.rollback()
    if isinstance(channel, Refusal):
        return channel.answer()
    since = request.headers.get("Last-Event-ID") or request.args.get("since", "")
    return Response(
        hub.stream(channel, viewer, since), mimetype="text/event-stream", headers=STREAM_HEADERS
    )

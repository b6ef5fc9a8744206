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
(`open` answers a `Refusal` beyond: app/web/stream_places.py); the gthread pool is sized for
them (app/web/serving.py).
When the worker is told to stop, `close_all` ends every stream at once, so a restart does not
wait for them.
"""

from __future__ import annotations

import logging
import random
import socket
import threading
import time
import weakref
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from functools import partial

from flask import Flask, Response, current_app, jsonify, request

from app.db.transactions import transaction_mode
from app.extensions import db
from app.web.stream_places import Place, Places, Refusal, Viewer

log = logging.getLogger(__name__)
_HUBS: weakref.WeakSet[Hub] = weakref.WeakSet()
# A channel probes its part at most this far apart (a change shows within it), and asks
# whether its viewers may still watch this often (a stream of one who may not ends within it).
MOST_CHECK_SECONDS = 1.0


# How long a process trusts a change token it read last, by default (LIVE_TOKEN_SECONDS).
TOKEN_SECONDS = 0.5


@dataclass(frozen=True)
class Part:
    """A live part as rendered: its ETag and its HTML."""

    etag: str
    html: str


class Channel:
    """One live part and the viewers waiting for its next version."""

    def __init__(self, key: Hashable, probe: Callable[[], str | None], render: Callable[[], str]):
        self.key, self.probe, self.render = key, probe, render
        self.changed = threading.Condition()
        self.part: Part | None = None
        self.version = 0  # how many parts were handed out so far
        self.gone = False  # the tenant or campaign no longer exists
        self.follows: set[Place] = set()  # the streams of its viewers
        self.ended: dict[Hashable, str] = {}  # sessions that may no longer watch, and why
        self.thread: threading.Thread | None = None

    @property
    def viewers(self) -> int:
        return len(self.follows)

    def news_for(self, seen: int, place: Place, closing: threading.Event) -> bool:
        """Whether the viewer of `place` that has had `seen` versions has something to do."""
        return (
            self.version != seen
            or self.gone
            or place.freed
            or place.viewer.session in self.ended
            or closing.is_set()
        )

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
        self.app, self.places = app, Places(most, per_session, per_tenant)
        self.check_seconds = min(check_seconds, MOST_CHECK_SECONDS)
        self.heartbeat_seconds = heartbeat_seconds
        self.lifetime_seconds, self.retry_ms = lifetime_seconds, retry_ms
        self.lock = threading.Lock()
        self.channels: dict[Hashable, Channel] = {}
        self.closing = threading.Event()
        # Channels probing or rendering at one time: the others wait their turn, holding
        # no connection, instead of taking the process's interpreter lock from its requests.
        self.busy = threading.BoundedSemaphore(at_once)
        _HUBS.add(self)

    @property
    def streams(self) -> int:
        return len(self.places.taken)

    def refusal(self, viewer: Viewer) -> Refusal | None:
        """Why a new stream of `viewer` would be refused now, or None."""
        with self.lock:
            return self.places.refusal(viewer, self.closing.is_set())

    def open(
        self,
        key: Hashable,
        probe: Callable[[], str | None],
        render: Callable[[], str | None],
        viewer: Viewer,
        connection: socket.socket | None = None,
    ) -> Place | Refusal:
        """A place in the channel of `key` (started, with its thread, when it had no
        viewer); a Refusal when this process already serves its most streams (of all, of
        the viewer's session or of their tenant), or is stopping."""
        with self.lock:
            place = self.places.take(viewer, connection, self.closing.is_set())
            # Hung-up places given back on the way, even when still refused (every place
            # taken has its channel: it gets it under this same lock).
            hung_up, self.places.freed = self.places.freed, []
            if not isinstance(place, Refusal):
                self._follow(key, probe, render, place)
        for other in hung_up:  # their streams end, writing nothing more
            with other.channel.changed:
                other.channel.changed.notify_all()
        return place

    def _follow(self, key: Hashable, probe: Callable, render: Callable, place: Place) -> None:
        """Put `place` in the channel of `key`, started with its thread if it had none
        (the caller holds the lock)."""
        channel = self.channels.get(key)
        if channel is None:
            channel = self.channels[key] = Channel(key, probe, render)
            channel.thread = threading.Thread(
                target=self._watch, args=(channel,), name=f"live {key}", daemon=True
            )
            channel.thread.start()
        channel.follows.add(place)
        place.channel = channel

    def leave(self, place: Place) -> None:
        """The stream of `place` is over (once or more: its end, then its answer's close)."""
        channel = place.channel
        with self.lock:
            self.places.give_back(place)
            channel.follows.discard(place)
            if not any(other.viewer.session == place.viewer.session for other in channel.follows):
                with channel.changed:
                    channel.ended.pop(place.viewer.session, None)

    def stream(self, place: Place, since: str = "") -> Iterator[str]:
        """The events of one viewer: the part whenever its ETag is not `since` (the one the
        viewer shows), comments between, until the stream's lifetime is over, or an `end`
        event when the part is gone or the viewer may no longer watch."""
        channel, session = place.channel, place.viewer.session
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
                        partial(channel.news_for, seen, place, self.closing),
                        timeout=min(self.heartbeat_seconds, left),
                    )
                    part, seen, gone = channel.part, channel.version, channel.gone
                    why = "gone" if gone else channel.ended.get(session)
                if place.freed:
                    return  # its browser hung up: nobody reads it
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
            self.leave(place)

    def _watch(self, channel: Channel) -> None:
        """The channel's thread: probe, render on a change, hand out; ends with the last
        viewer (or when the channel's part is gone, or the process stops)."""
        etag, failing, viewers_due = None, False, 0.0
        while True:
            with self.lock:
                if channel.viewers <= 0 or channel.gone or self.closing.is_set():
                    del self.channels[channel.key]
                    return
                viewers = list({p.viewer.session: p.viewer for p in channel.follows}.values())
            ending: dict[Hashable, str] = {}
            try:
                # A probe and a render only read: their transaction begins as a reader's,
                # never with SQLite's write lock (which would keep every desk write
                # waiting), and ends with the context, before the wait. The viewers are
                # read first: a part that says why they may no longer watch (the desk's
                # "signed out") is rendered from what comes after, and sent before the end.
                with self.busy, self.app.app_context(), transaction_mode(read_only=True):
                    if (now := time.monotonic()) >= viewers_due:  # once a second
                        viewers_due = now + MOST_CHECK_SECONDS - self.check_seconds / 2
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
        refused = hub.refusal(viewer)
        return refused.answer() if refused else jsonify({"message": None, "reason": None})
    db.session.rollback()
    # gunicorn says which connection serves the request: a browser that closed it gives
    # its place back as soon as a place is wanted (app/web/stream_places.py).
    place = hub.open(key, probe, render, viewer, request.environ.get("gunicorn.socket"))
    if isinstance(place, Refusal):
        return place.answer()
    since = request.headers.get("Last-Event-ID") or request.args.get("since", "")
    response = Response(
        hub.stream(place, since), mimetype="text/event-stream", headers=STREAM_HEADERS
    )
    # An answer closed unread (a handler after the view failed, the client gone first)
    # never runs its stream, hence never its `finally`: its place is given back here too.
    response.call_on_close(partial(hub.leave, place))
    return response


def install_hub(app: Flask) -> None:
    """The app's one hub of live streams in this process, sized by its settings (the app
    factory installs it; the wallboard's and the desk's streams share it)."""
    config = app.config
    app.extensions["live_hub"] = Hub(
        app,
        most=config["LIVE_STREAMS_MAX"],
        per_session=config["LIVE_STREAMS_PER_SESSION"],
        per_tenant=config["LIVE_STREAMS_PER_TENANT"],
        check_seconds=config.get("LIVE_TOKEN_SECONDS", TOKEN_SECONDS),
        lifetime_seconds=config["LIVE_STREAM_SECONDS"],
    )

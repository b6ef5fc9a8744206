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

A process serves at most `most` streams at once (`open` answers None beyond); the gthread pool
is sized for them (app/web/serving.py). When the worker is told to stop, `close_all` ends
every stream at once, so a restart does not wait for them.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import weakref
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from functools import partial

from flask import Flask, Response, current_app, request

from app.db.transactions import transaction_mode
from app.extensions import db

log = logging.getLogger(__name__)
_HUBS: weakref.WeakSet[Hub] = weakref.WeakSet()


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
        self.viewers = 0
        self.thread: threading.Thread | None = None

    def news_for(self, seen: int, closing: threading.Event) -> bool:
        """Whether a viewer that has had `seen` versions has something to do."""
        return self.version != seen or self.gone or closing.is_set()

    def publish(self, part: Part | None) -> None:
        with self.changed:
            if part is None:
                self.gone = True
            else:
                self.part, self.version = part, self.version + 1
            self.changed.notify_all()


class Hub:
    """The channels of one app in this process, and the streams of their viewers."""

    def __init__(
        self,
        app: Flask,
        *,
        most: int,
        check_seconds: float = 0.5,
        heartbeat_seconds: float = 15.0,
        lifetime_seconds: float = 300.0,
        retry_ms: int = 2000,
        at_once: int = 1,
    ) -> None:
        self.app, self.most = app, most
        self.check_seconds, self.heartbeat_seconds = check_seconds, heartbeat_seconds
        self.lifetime_seconds, self.retry_ms = lifetime_seconds, retry_ms
        self.lock = threading.Lock()
        self.channels: dict[Hashable, Channel] = {}
        self.streams = 0
        self.closing = threading.Event()
        # Channels probing or rendering at one time: the others wait their turn, holding
        # no connection, instead of taking the process's interpreter lock from its requests.
        self.busy = threading.BoundedSemaphore(at_once)
        _HUBS.add(self)

    def open(
        self, key: Hashable, probe: Callable[[], str | None], render: Callable[[], str | None]
    ) -> Channel | None:
        """Join the channel of `key` (started, with its thread, when it had no viewer);
        None when this process already serves its most streams, or is stopping."""
        with self.lock:
            if self.closing.is_set() or self.streams >= self.most:
                return None
            self.streams += 1
            channel = self.channels.get(key)
            if channel is None:
                channel = self.channels[key] = Channel(key, probe, render)
                channel.thread = threading.Thread(
                    target=self._watch, args=(channel,), name=f"live {key}", daemon=True
                )
                channel.thread.start()
            channel.viewers += 1
        return channel

    def leave(self, channel: Channel) -> None:
        with self.lock:
            self.streams -= 1
            channel.viewers -= 1

    def stream(self, channel: Channel, since: str = "") -> Iterator[str]:
        """The events of one viewer: the part whenever its ETag is not `since` (the one the
        viewer shows), comments between, until the stream's lifetime is over."""
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
                        partial(channel.news_for, seen, self.closing),
                        timeout=min(self.heartbeat_seconds, left),
                    )
                    part, seen, gone = channel.part, channel.version, channel.gone
                if gone:
                    return
                if part is not None and part.etag != since:
                    since = part.etag
                    yield event(part)
                elif time.monotonic() < ends:
                    yield ": still here\n\n"
        finally:
            self.leave(channel)

    def _watch(self, channel: Channel) -> None:
        """The channel's thread: probe, render on a change, hand out; ends with the last
        viewer (or when the channel's part is gone, or the process stops)."""
        etag, failing = None, False
        while True:
            with self.lock:
                if channel.viewers <= 0 or channel.gone or self.closing.is_set():
                    del self.channels[channel.key]
                    return
            try:
                # A probe and a render only read: their transaction begins as a reader's,
                # never with SQLite's write lock (which would keep every desk write
                # waiting), and ends with the context, before the wait.
                with self.busy, self.app.app_context(), transaction_mode(read_only=True):
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


def stream_response(key: Hashable, probe: Callable, render: Callable, *, asks: str):
    """The server-sent events of the channel `key` of this process's hub, or 503 when its
    streams are all taken (the page then `asks` for the part by polling instead). The
    request's transaction ends first: a stream waits holding no database connection."""
    hub = current_app.extensions["live_hub"]  # the process's one hub, sized with its threads
    channel = hub.open(key, probe, render)
    db.session.rollback()
    if channel is None:
        return Response(
            f"This server's live streams are all taken: {asks} every second instead.\n",
            503,
            {"Retry-After": "60", "Content-Type": "text/plain; charset=utf-8"},
        )
    since = request.headers.get("Last-Event-ID") or request.args.get("since", "")
    return Response(
        hub.stream(channel, since), mimetype="text/event-stream", headers=STREAM_HEADERS
    )

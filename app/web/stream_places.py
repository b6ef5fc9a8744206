"""The places of a process's live streams, and who holds them.

A process serves at most `most` streams at once, at most `per_session` of one signed-in
session and `per_tenant` of one tenant's viewers (its supervisors' pages and its agents'
desks), so that one viewer or one tenant never takes them all from the others. Beyond, a
stream is refused (`Refusal`: 503 for the server's cap, 429 for a session's or a tenant's),
and the page polls instead, saying why.

A browser that closed a page is noticed by its stream at its next write (a heartbeat, up to
15 s later): until then its place is taken. So before refusing, the places of the session
(or tenant, or server) whose cap is reached are looked at once: a connection the browser
closed (readable, with nothing to read) gives its place back at once. A page reloaded gets
its stream again rather than waiting for its old one to notice.
"""

from __future__ import annotations

import select
import socket
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from flask import Response, jsonify

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
RETRY_AFTER = 60  # seconds; the page tries the stream again sooner by itself (30 s)


@dataclass(frozen=True)
class Viewer:
    """Who follows a stream: their session and their tenant (keys that name no token), and
    `ends`, read in the channel's reader's transaction: why they may no longer watch (such
    as "signedOut"), or None while they may."""

    session: Hashable
    tenant: Hashable
    ends: Callable[[], str | None]


@dataclass(eq=False)
class Place:
    """One open stream: its viewer and, when the server says which, its connection."""

    viewer: Viewer
    connection: socket.socket | None = None
    channel: Any = None  # the hub's channel it follows
    freed: bool = field(default=False)  # given back: the stream ends without writing more

    def hung_up(self) -> bool:
        """Whether the browser closed the connection: readable with nothing to read (a
        peek, which takes nothing from it)."""
        if self.connection is None:
            return False
        if self.connection.fileno() < 0:
            return True
        try:
            poll = select.poll()
            poll.register(self.connection, select.POLLIN)
            if not poll.poll(0):
                return False
            return self.connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except BlockingIOError:
            return False
        except ValueError:  # a TLS connection, which cannot be peeked at: its heartbeat tells
            return False
        except OSError:  # reset by the browser
            return True


@dataclass(frozen=True)
class Refusal:
    """Why no stream was opened ("full", "session" or "tenant"), and the cap reached."""

    reason: str
    most: int

    def answer(self) -> Response:
        """503 for a server full or stopping, 429 for a session's or a tenant's cap: JSON
        that says why, in the viewer's words, and when to try again."""
        message = REFUSED[self.reason].format(most=self.most)
        response = jsonify({"message": message, "reason": self.reason, "retryAfter": RETRY_AFTER})
        response.status_code = 503 if self.reason == "full" else 429
        response.headers["Retry-After"] = str(RETRY_AFTER)
        response.headers["Cache-Control"] = "no-store"
        return response


class Places:
    """Who holds the streams of a process (the caller holds the hub's lock throughout)."""

    def __init__(self, most: int, per_session: int | None, per_tenant: int | None) -> None:
        self.most = most
        self.per_session = most if per_session is None else per_session
        self.per_tenant = most if per_tenant is None else per_tenant
        self.taken: set[Place] = set()
        self.by_session: dict[Hashable, set[Place]] = {}
        self.by_tenant: dict[Hashable, set[Place]] = {}
        self.freed: list[Place] = []  # given back because their browser hung up

    def refusal(self, viewer: Viewer, closing: bool = False) -> Refusal | None:
        """Why a new stream of `viewer` would be refused now, or None."""
        if closing or len(self.taken) >= self.most:
            return Refusal("full", self.most)
        if len(self.by_session.get(viewer.session, ())) >= self.per_session:
            return Refusal("session", self.per_session)
        if len(self.by_tenant.get(viewer.tenant, ())) >= self.per_tenant:
            return Refusal("tenant", self.per_tenant)
        return None

    def take(
        self, viewer: Viewer, connection: socket.socket | None = None, closing: bool = False
    ) -> Place | Refusal:
        """A place for a new stream of `viewer`, or why not (after giving back the places
        of the cap reached whose browser hung up)."""
        refused = self.refusal(viewer, closing)
        if refused is not None and not closing:
            self.free_hung_up(self._held_under(refused, viewer))
            refused = self.refusal(viewer)
        if refused is not None:
            return refused
        place = Place(viewer, connection)
        self.taken.add(place)
        self.by_session.setdefault(viewer.session, set()).add(place)
        self.by_tenant.setdefault(viewer.tenant, set()).add(place)
        return place

    def give_back(self, place: Place) -> bool:
        """Free the place (once); whether it was still held."""
        if place not in self.taken:
            return False
        self.taken.discard(place)
        viewer = place.viewer
        for held, key in ((self.by_session, viewer.session), (self.by_tenant, viewer.tenant)):
            held[key].discard(place)
            if not held[key]:
                del held[key]
        return True

    def free_hung_up(self, places: Iterable[Place]) -> list[Place]:
        """Give back the places among `places` whose browser closed the connection."""
        freed = [place for place in list(places) if place.hung_up()]
        for place in freed:
            place.freed = True
            self.give_back(place)
        self.freed.extend(freed)
        return freed

    def _held_under(self, refused: Refusal, viewer: Viewer) -> set[Place]:
        if refused.reason == "session":
            return self.by_session.get(viewer.session, set())
        if refused.reason == "tenant":
            return self.by_tenant.get(viewer.tenant, set())
        return self.taken

"""How gunicorn serves the app: `gunicorn -c python:app.web.serving wsgi:app`.

`make run` and the tests' live servers load these settings, so what is tested is what runs.
The command line may still override one (`--bind`, `--workers`, `--timeout`).

The worker is gunicorn's threaded one (gthread), changed in one way: a connection waits in
the worker's poller, not in a thread, until its request head (request line and headers) is
complete (app/web/serving_heads.py), so clients that stall or trickle their headers hold no
thread and are dropped after CLIENT_IDLE_SECONDS. An idle kept-alive connection waits in the
poller too, and a request that takes long (a slow client's body, a long CSV download)
occupies one thread while the others keep answering. The worker's main loop keeps telling
the arbiter it is alive, so `timeout` never kills a long response. An async worker (gevent)
would block its whole event loop whenever SQLite waits on its write lock, so threads it is.
"""

from __future__ import annotations

import html
import json
import os
import re
import socket

from gunicorn.glogging import Logger
from gunicorn.util import write_error

from app.config import INSTANCE_PATH, live_streams_max
from app.web import broadcast
from app.web.api_paths import is_api_path
from app.web.errors import error_body
from app.web.redaction import redact
from app.web.serving_heads import HeadFirstWorker

workers = int(os.environ.get("WEB_CONCURRENCY", 2))
worker_class = "app.web.serving.ApiThreadWorker"
# Requests in progress per worker; a slow client holds one until CLIENT_IDLE_SECONDS. Each
# live stream (server-sent events) holds one too, blocked while nothing changes: the pool
# has a thread for each of the LIVE_STREAMS_MAX streams a worker accepts, and
# GUNICORN_THREADS more for every other request.
threads = int(os.environ.get("GUNICORN_THREADS", 16)) + live_streams_max(os.environ)
# Open connections per worker, kept-alive ones included (they hold no thread).
worker_connections = 1000
# The arbiter restarts a worker whose main loop is stuck this long (not a request limit).
timeout = 30
# After SIGTERM, requests in progress get this long to finish.
graceful_timeout = 30
# A kept-alive connection closes after this long without a new request.
keepalive = 5
# gunicorn's defaults, stated: longer lines answer 414, more or longer headers 431.
limit_request_line = 4094
limit_request_fields = 100
limit_request_field_size = 8190
accesslog = "-"
# gunicorn's control socket (`gunicornc`) is the instance folder's: by default every server
# of one user shares ~/.gunicorn/gunicorn.ctl, the last one started takes it from the others
# and the first one stopped removes it, so one checkout's `gunicornc reload` could reach
# another's server.
control_socket = str(INSTANCE_PATH / "gunicorn.ctl")
# Access log lines with the secrets of invitation links and sign-in answers redacted
# (app/web/redaction.py).
logger_class = "app.web.serving.RedactingLogger"

# A request head not complete this long after the connection opened (or after its first
# byte, on a kept-alive connection) is dropped with 408; a client that sends or takes
# nothing for this long, mid-request, is dropped too: its thread is freed (a body read
# stops with 400, a stalled download is cut).
CLIENT_IDLE_SECONDS = float(os.environ.get("CLIENT_IDLE_SECONDS", 30))

_STATUS_LINE = re.compile(rb"HTTP/1\.[01] (\d{3}) ([^\r\n]*)")
_MESSAGE = re.compile(rb"</h1>\s*(.*?)\s*</body>", re.DOTALL)


class _Captured:
    """Stands in for the client socket while gunicorn writes its HTML error page."""

    def __init__(self) -> None:
        self.data = b""

    def gettimeout(self) -> float:
        return 0.0

    def sendall(self, data: bytes) -> None:
        self.data += data


def json_error(page: bytes) -> tuple[int, str, str]:
    """Status, reason and message of one of gunicorn's HTML error answers."""
    status = _STATUS_LINE.match(page)
    if status is None:
        return 400, "Bad Request", "The request is malformed."
    reason = status.group(2).decode("latin-1")
    message = _MESSAGE.search(page)
    text = html.unescape(message.group(1).decode("latin-1")) if message else ""
    return int(status.group(1)), reason, text or reason


def as_json_on_api(page: bytes, path: str | None) -> bytes:
    """One of gunicorn's HTML error answers, as JSON on an API path or an unknown one."""
    if not page or (path is not None and not is_api_path(path)):
        return page
    status, reason, message = json_error(page)
    body = json.dumps(error_body(status, reason, message, path)).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nCache-Control: no-store\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


class RedactingLogger(Logger):
    """gunicorn's logger, with no invitation token in an access log line."""

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        return {k: redact(v) if isinstance(v, str) else v for k, v in atoms.items()}


class ApiThreadWorker(HeadFirstWorker):
    """gthread reading request heads in its main loop (app/web/serving_heads.py), with JSON
    errors on the API paths and an idle limit on every request."""

    head_seconds = CLIENT_IDLE_SECONDS

    def handle_request(self, req, conn):
        # gunicorn reads the body and writes the answer on a blocking socket with no time
        # limit; bound each wait, so a stalled client cannot keep a thread for ever.
        conn.sock.settimeout(CLIENT_IDLE_SECONDS)
        return super().handle_request(req, conn)

    def handle_exit(self, sig, frame):
        """Stopping: end the live streams now (their browsers connect to another worker)
        instead of letting them hold the graceful shutdown for its whole timeout."""
        super().handle_exit(sig, frame)
        broadcast.close_all()

    def handle_error(self, req, client, addr, exc):
        """gunicorn's answer to a request it could not serve (431, 414, 400, ...), as JSON
        on an API path, or whenever the request line was not read and the path is unknown.

        gunicorn logs and sizes the answer as usual; only the page it writes is replaced.
        """
        captured = _Captured()
        super().handle_error(req, captured, addr, exc)
        page = as_json_on_api(captured.data, getattr(req, "path", None))
        try:
            client.setblocking(True)
            client.settimeout(CLIENT_IDLE_SECONDS)
            client.sendall(page)
        except OSError:
            self.log.debug("Failed to send error message.")

    def refuse_head(self, conn, path, refusal):
        """408 for a head that took too long, 414 or 431 for one that grew too long: sent
        without waiting (the worker's main loop sends it), the connection closed after."""
        captured = _Captured()
        if refusal is None:
            message = f"The request's headers did not arrive within {CLIENT_IDLE_SECONDS:g} s."
            write_error(captured, 408, "Request Timeout", message)
        else:
            super().handle_error(None, captured, conn.client, refusal)
        conn.sock.send(as_json_on_api(captured.data, path))
        conn.sock.shutdown(socket.SHUT_WR)

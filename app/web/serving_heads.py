"""Reading a request's head (request line and headers) before a thread is given to it.

gunicorn's threaded worker hands a connection to a thread as soon as its first byte arrives,
and the thread then waits, without a time limit, for the rest of the head: a client that sends
half a head and stops holds a thread, and `workers × threads` such clients stop the server.
`HeadFirstWorker` reads heads in the worker's main loop instead, with the poller it already
uses for kept-alive connections: a thread is taken only once the head is complete, and a head
not complete within `head_seconds` of its first byte (of the connection, for a new one) is
dropped, answered 408 when part of it had come.
"""

from __future__ import annotations

import errno
import re
import selectors
import ssl
import time
from collections import deque
from functools import partial

from gunicorn import sock as gsock
from gunicorn.http import get_parser
from gunicorn.http.errors import LimitRequestHeaders, LimitRequestLine, ParseException
from gunicorn.http.message import DEFAULT_MAX_HEADERFIELD_SIZE, MAX_HEADERS, MAX_REQUEST_LINE
from gunicorn.workers.gthread import STOP_KEEPALIVE_LINGER, ThreadWorker

_END = b"\r\n\r\n"
_READ_SIZE = 65536
_PATH = re.compile(rb"(?:\r\n)?[!-~]+ ([^ ?#\r\n]+)")
_NOT_READY = (BlockingIOError, InterruptedError, ssl.SSLWantReadError, ssl.SSLWantWriteError)


def head_limits(cfg) -> tuple[int, int]:
    """The longest request line, and the longest head, gunicorn's parser lets through."""
    line = cfg.limit_request_line
    if line < 0 or line > MAX_REQUEST_LINE:
        line = MAX_REQUEST_LINE
    fields = cfg.limit_request_fields
    if fields <= 0 or fields > MAX_HEADERS:
        fields = MAX_HEADERS
    field_size = cfg.limit_request_field_size
    if field_size <= 0:
        field_size = DEFAULT_MAX_HEADERFIELD_SIZE
    return line, line + 4 + fields * (field_size + 2) + 4


def head_refusal(data: bytes, line_limit: int, head_limit: int) -> ParseException | None:
    """Why an incomplete head can already be refused (too long), or None to wait for more."""
    start = 2 if data.startswith(b"\r\n") else 0
    first_line_end = data.find(b"\r\n", start)
    if first_line_end < 0 and line_limit > 0 and len(data) - start > line_limit + 2:
        return LimitRequestLine(len(data) - start, line_limit)
    if len(data) > head_limit:
        return LimitRequestHeaders("max buffer headers")
    return None


def head_is_ready(data: bytes | bytearray, start: int = 0) -> bool:
    """Whether gunicorn's parser can decide on this head without reading any more: it is
    complete, or it has a bare LF, which the parser refuses at once. The bytes before `start`
    are known to hold neither (so a head trickled a byte at a time costs no rescans)."""
    if data.find(_END, max(start - 3, 0)) >= 0:
        return True
    newline = data.find(b"\n", start)
    while newline >= 0:
        if newline == 0 or data[newline - 1] != ord("\r"):
            return True
        newline = data.find(b"\n", newline + 1)
    return False


def request_path(data: bytes) -> str | None:
    """The path of a head's request line, None while it has not arrived."""
    match = _PATH.match(data)
    return match.group(1).decode("latin-1") if match and b"\r\n" in data[2:] else None


class HeadFirstWorker(ThreadWorker):
    """gthread, where a connection gets a thread only once its request head is complete."""

    #: How long a request head may take to arrive whole (subclasses set it).
    head_seconds = 30.0

    def init_process(self):
        self.heads = deque()  # connections whose head is arriving, oldest deadline first
        self.line_limit, self.head_limit = head_limits(self.cfg)
        self.tls = gsock.ssl_context(self.cfg) if self.cfg.is_ssl else None
        # HTTP/2 reads its frames in the thread; heads are read first for HTTP/1.x only.
        self.heads_first = not (
            gsock._get_alpn_protocols(self.cfg) or self.cfg.http2_cleartext != "off"
        )
        if not self.heads_first:
            self.log.warning("HTTP/2 is on: request heads are read in the worker threads")
        super().init_process()

    def enqueue_req(self, conn):
        """Wait in the poller for the connection's request head, then give it a thread."""
        if not self.heads_first:
            return super().enqueue_req(conn)
        if self.tls is not None and not isinstance(conn.sock, ssl.SSLSocket):
            conn.handshaken = False
            conn.sock = self.tls.wrap_socket(
                conn.sock,
                server_side=True,
                do_handshake_on_connect=False,
                suppress_ragged_eofs=self.cfg.suppress_ragged_eofs,
            )
        # Bytes a previous request read ahead (a pipelined request) come first.
        conn.head = bytearray(conn.parser.unreader.take_buffered() if conn.parser else b"")
        conn.scanned, conn.head_ready = 0, False
        conn.head_events = selectors.EVENT_READ
        conn.head_deadline = time.monotonic() + self.head_seconds
        if not self.alive:
            conn.head_deadline = min(conn.head_deadline, time.monotonic() + STOP_KEEPALIVE_LINGER)
        conn.sock.setblocking(False)
        self.heads.append(conn)
        self.poller.register(conn.sock, conn.head_events, partial(self.on_head_readable, conn))
        self.on_head_readable(conn, conn.sock)  # a read-ahead or a TLS buffer may hold it all

    def on_head_readable(self, conn, _sock):
        """Read what has arrived of the head; hand the connection over once it is complete."""
        try:
            closed, events = self._receive(conn)
        except OSError as error:  # ssl.SSLError included
            if getattr(error, "errno", None) not in (errno.ECONNRESET, errno.EPIPE):
                self.log.debug("Dropped a connection while reading its head: %s", error)
            return self._close(conn)
        if self._ready(conn):
            return self._hand_over(conn)
        refusal = head_refusal(conn.head, self.line_limit, self.head_limit)
        if refusal is not None:
            return self._drop(conn, refusal)
        if closed:
            return self._close(conn)  # the client went away mid-head: nobody to answer
        self._watch(conn, events)

    def _receive(self, conn) -> tuple[bool, int]:
        """Read what the socket holds: whether the client closed, and what to wait for next."""
        try:
            if not getattr(conn, "handshaken", True):
                conn.sock.do_handshake()
                conn.handshaken = True
            while not self._ready(conn) and len(conn.head) <= self.head_limit:
                chunk = conn.sock.recv(_READ_SIZE)
                if not chunk:
                    return True, selectors.EVENT_READ
                conn.head += chunk
        except ssl.SSLWantWriteError:
            return False, selectors.EVENT_READ | selectors.EVENT_WRITE
        except _NOT_READY:
            pass
        return False, selectors.EVENT_READ

    def _ready(self, conn) -> bool:
        if not conn.head_ready:
            conn.head_ready = head_is_ready(conn.head, conn.scanned)
            conn.scanned = len(conn.head)
        return conn.head_ready

    def _watch(self, conn, events):
        if events != conn.head_events:
            conn.head_events = events
            self.poller.modify(conn.sock, events, partial(self.on_head_readable, conn))

    def _leave_poller(self, conn):
        self.heads.remove(conn)
        self.poller.unregister(conn.sock)

    def _hand_over(self, conn):
        self._leave_poller(conn)
        if conn.parser is None:
            conn.parser = get_parser(self.cfg, conn.sock, conn.client)
        conn.parser.unreader.unread(bytes(conn.head))
        conn.data_ready = True
        super().enqueue_req(conn)

    def _drop(self, conn, refusal: ParseException | None = None):
        """Close a connection whose head cannot be served; answer why when it can be said."""
        self._leave_poller(conn)
        if refusal is None and conn.head.strip():
            why = f"its head took over {self.head_seconds:g}s" if self.alive else "stopping"
            self.log.info("Dropped a request from ip=%s: %s", (conn.client or ("",))[0], why)
        if refusal is not None or conn.head.strip():
            try:
                self.refuse_head(conn, request_path(conn.head), refusal)
            except Exception:  # noqa: BLE001 - the answer is a courtesy; the close is what counts
                self.log.debug("Failed to answer a dropped request head.")
        self._close(conn, left=True)

    def _close(self, conn, left: bool = False):
        if not left:
            self._leave_poller(conn)
        self.nr_conns -= 1
        conn.close()

    def refuse_head(self, conn, path: str | None, refusal: ParseException | None) -> None:
        """Tell the client why its head was dropped (`refusal` None: it took too long)."""

    def murder_pending(self):
        """Also drop the heads past their deadline (all but the nearly-done when stopping)."""
        super().murder_pending()
        now = time.monotonic()
        if not self.alive:
            for conn in self.heads:
                conn.head_deadline = min(conn.head_deadline, now + STOP_KEEPALIVE_LINGER)
        while self.heads and self.heads[0].head_deadline <= now:
            self._drop(self.heads[0])

    def wait_for_and_dispatch_events(self, timeout):
        if self.heads:
            timeout = min(timeout, max(self.heads[0].head_deadline - time.monotonic(), 0.0))
        super().wait_for_and_dispatch_events(timeout)

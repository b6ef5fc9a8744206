"""Stalled and trickling request heads against the server as `make run` starts it, with
`CLIENT_IDLE_SECONDS` at 2 s: they take no thread, and the server drops them in time.

These tests wait on real time (a few seconds each): they measure a server, not a rule.
"""

from __future__ import annotations

import json
import selectors
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator

import pytest
import requests
import urllib3

from app.web.serving_heads import head_is_ready, head_refusal, request_path
from tests.servers import LiveServer, gunicorn

pytestmark = pytest.mark.server

IDLE = 2.0
STALLED = b"GET /login HTTP/1.1\r\nHost: x\r\n"
TRICKLED = b"GET /login HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 1000
API_PATH = "/service-previewcontact-service/v1/searchPreviewCampaign"


@pytest.fixture(scope="module")
def live(database_uri, _schema, tmp_path_factory) -> Iterator[LiveServer]:
    log = tmp_path_factory.mktemp("heads") / "gunicorn.log"
    env = {"CLIENT_IDLE_SECONDS": str(IDLE)}
    with gunicorn(database_uri, log, 2, "heads-test", options=("--preload",), env=env) as server:
        yield server


def address(live: LiveServer) -> tuple[str, int]:
    host, port = live.url.removeprefix("https://").removeprefix("http://").split(":")
    return host, int(port)


def read_until_closed(sock: socket.socket) -> bytes:
    answer = bytearray()
    try:
        while chunk := sock.recv(65536):
            answer += chunk
    except ConnectionResetError:
        pass
    return bytes(answer)


class Trickler(threading.Thread):
    """Sends one more byte of each socket's head every `pause` seconds, until stopped."""

    def __init__(self, socks: list[socket.socket], pause: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.socks, self.pause, self.stop = list(socks), pause, threading.Event()

    def run(self) -> None:
        position = 0
        while not self.stop.wait(self.pause) and self.socks:
            for sock in list(self.socks):
                try:
                    sock.send(TRICKLED[position % len(TRICKLED) : position % len(TRICKLED) + 1])
                except OSError:  # the server dropped it
                    self.socks.remove(sock)
            position += 1


def closing_times(socks: list[socket.socket], opened: float, limit: float) -> list[float]:
    """Seconds from `opened` until the server closed each socket (inf: still open at limit)."""
    selector = selectors.DefaultSelector()
    for sock in socks:
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
    closed: dict[socket.socket, float] = {}
    while len(closed) < len(socks) and time.monotonic() < opened + limit:
        for key, _ in selector.select(timeout=0.1):
            try:
                data = key.fileobj.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                closed[key.fileobj] = time.monotonic() - opened
                selector.unregister(key.fileobj)
    selector.close()
    return [closed.get(sock, float("inf")) for sock in socks]


def test_200_stalled_and_trickling_heads_neither_stall_a_request_nor_outlive_the_idle_limit(
    live,
):
    opened = time.monotonic()
    stalled = [socket.create_connection(address(live), timeout=5) for _ in range(100)]
    for sock in stalled:
        sock.sendall(STALLED)
    trickling = [socket.create_connection(address(live), timeout=5) for _ in range(100)]
    trickler = Trickler(trickling)
    trickler.start()
    try:
        time.sleep(0.5)  # every connection has sent part of its head
        waits = []
        for _ in range(3):
            started = time.monotonic()
            answer = requests.get(live.url + "/login", timeout=10)
            waits.append(time.monotonic() - started)
            assert answer.status_code == 200
        # Before, the request waited over 100 s behind 100 stalled heads.
        assert max(waits) < 1, f"normal requests waited {waits} behind 200 slow heads"
        closed = closing_times(stalled + trickling, opened, limit=IDLE + 4)
    finally:
        trickler.stop.set()
        trickler.join()
        for sock in stalled + trickling:
            sock.close()
    assert max(closed) < IDLE + 2.5, f"slowest drop {max(closed):.1f}s after opening"
    assert min(closed) >= IDLE - 0.1, f"a head was dropped after {min(closed):.1f}s"


@pytest.mark.parametrize(
    ("path", "content_type"),
    [("/login", "text/html"), (API_PATH, "application/json")],
)
def test_a_stalled_head_is_answered_408_then_closed(live, path, content_type):
    with socket.create_connection(address(live), timeout=IDLE + 5) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: app".encode())
        started = time.monotonic()
        answer = read_until_closed(sock)
        waited = time.monotonic() - started
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 Request Timeout\r\n")
    assert f"Content-Type: {content_type}".encode() in head
    assert IDLE - 0.5 <= waited < IDLE + 2
    if content_type == "application/json":
        assert json.loads(body)["status"] == 408
    assert "Dropped a request from ip=127.0.0.1: its head took over 2s" in live.log_tail(200)


def test_a_connection_that_sends_nothing_is_closed_without_an_answer(live):
    with socket.create_connection(address(live), timeout=IDLE + 5) as sock:
        assert read_until_closed(sock) == b""


def test_a_request_line_too_long_to_ever_end_is_refused_before_it_ends(live):
    with socket.create_connection(address(live), timeout=IDLE + 5) as sock:
        sock.sendall(b"GET /" + b"a" * 5000)  # no end of line, and the client waits
        started = time.monotonic()
        answer = read_until_closed(sock)
        assert time.monotonic() - started < IDLE - 0.5  # refused, not timed out
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 414 URI Too Long\r\n")
    assert json.loads(body)["status"] == 414


def test_pipelined_and_kept_alive_requests_are_all_answered(live):
    request = b"GET /login HTTP/1.1\r\nHost: x\r\n\r\n"
    with socket.create_connection(address(live), timeout=10) as sock:
        sock.sendall(request * 2)  # two requests in one packet
        time.sleep(0.3)
        sock.sendall(request[:10])  # a third, kept alive, sent in two parts
        time.sleep(0.3)
        sock.sendall(request[10:].replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
        answer = read_until_closed(sock)
    assert answer.count(b"HTTP/1.1 200 OK\r\n") == 3


def test_a_kept_alive_connection_that_stalls_mid_head_is_dropped_too(live):
    with socket.create_connection(address(live), timeout=IDLE + 5) as sock:
        sock.sendall(b"GET /login HTTP/1.1\r\nHost: x\r\n\r\n")
        first = sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200 OK")
        while b"</html>" not in first:
            first += sock.recv(65536)
        sock.sendall(STALLED)
        started = time.monotonic()
        answer = read_until_closed(sock)
        assert IDLE - 0.5 <= time.monotonic() - started < IDLE + 2
    assert answer.startswith(b"HTTP/1.1 408 ")


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> tuple[str, str]:
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=localhost", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return str(cert), str(key)


def test_over_tls_a_stalled_handshake_or_head_takes_no_thread(
    database_uri, _schema, tmp_path, certificate
):
    cert, key = certificate
    env = {"CLIENT_IDLE_SECONDS": str(IDLE)}
    options = ("--preload", "--threads", "2", "--certfile", cert, "--keyfile", key)
    context = ssl.create_default_context(cafile=cert)
    context.check_hostname = False
    with gunicorn(database_uri, tmp_path / "tls.log", 1, "tls", options=options, env=env) as live:
        host, port = address(live)
        silent = [socket.create_connection((host, port), timeout=5) for _ in range(5)]
        halves = []
        for _ in range(5):  # handshake done, then half a head
            sock = context.wrap_socket(socket.create_connection((host, port), timeout=5))
            sock.sendall(STALLED)
            halves.append(sock)
        try:
            time.sleep(0.3)
            started = time.monotonic()
            with urllib3.PoolManager(ca_certs=cert, assert_hostname=False) as pool:
                answer = pool.request("GET", f"https://localhost:{port}/login", timeout=10)
            assert answer.status == 200
            assert time.monotonic() - started < 1
            for sock in halves:
                assert read_until_closed(sock).startswith(b"HTTP/1.1 408 ")
            for sock in silent:
                assert read_until_closed(sock) == b""
        finally:
            for sock in silent + halves:
                sock.close()


@pytest.mark.parametrize(
    ("data", "ready"),
    [
        (b"GET / HTTP/1.1\r\nHost: x\r\n", False),
        (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", True),
        (b"\r\nGET / HTTP/1.0\r\n\r\n", True),
        (b"GET / HTTP/1.1\nHost: x", True),  # a bare LF: the parser refuses it at once
        (b"GET / HTT", False),
        (b"", False),
    ],
)
def test_a_head_is_handed_to_a_thread_once_the_parser_can_decide(data, ready):
    assert head_is_ready(data) is ready
    # Looked at again from any point, as it arrives a byte at a time: the same answer.
    assert any(head_is_ready(data[: n + 1], n) for n in range(len(data))) is ready


def test_a_head_that_cannot_end_within_the_limits_is_refused():
    assert head_refusal(b"GET /" + b"a" * 95, 100, 1000) is None
    assert "Request Line is too large" in str(head_refusal(b"GET /" + b"a" * 200, 100, 1000))
    assert head_refusal(b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 100, 100, 1000) is None
    refusal = head_refusal(b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 200, 100, 1000)
    assert str(refusal) == "max buffer headers"


def test_the_path_of_a_head_is_known_once_its_request_line_is():
    assert request_path(b"GET /a/b?c=d HTTP/1.1\r\nHost") == "/a/b"
    assert request_path(b"GET /a/b?c=d HTT") is None
    assert request_path(b"\x16\x03\x01 hello\r\n") is None

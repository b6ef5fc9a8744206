"""Small web sites on loopback addresses for the outbound guard's tests: each answers what a
test sets for a path (404 otherwise) and counts every connection it accepts, so a test can
prove that a refused address received nothing at all. 127.0.0.1 stands for the public
internet there (the tests allow 127.0.0.1/32 only), 127.0.0.2 for a private host."""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from app.services.outbound import addresses

PUBLIC = "127.0.0.1"
PRIVATE = "127.0.0.2"
ONLY_PUBLIC = f"{PUBLIC}/32"


@dataclass
class Answer:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class Site(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str, port: int = 0) -> None:
        self.routes: dict[str, Answer] = {}
        self.fallback: Answer | None = None
        self.requests: list[Request] = []
        self.connections = 0
        super().__init__((host, port), _Handler)

    @property
    def base(self) -> str:
        return f"http://{self.server_address[0]}:{self.server_address[1]}"

    @property
    def port(self) -> int:
        return self.server_address[1]

    def process_request(self, request, client_address) -> None:
        self.connections += 1
        super().process_request(request, client_address)

    def answer(self, path: str, answer: Answer) -> None:
        self.routes[path] = answer

    def redirect(self, path: str, to: str, status: int = 302) -> None:
        self.routes[path] = Answer(status, b"", {"Location": to})


class _Handler(BaseHTTPRequestHandler):
    server: Site

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.server.requests.append(Request(self.command, self.path, dict(self.headers), body))
        path = self.path.split("?", 1)[0]
        answer = self.server.routes.get(path) or self.server.fallback or Answer(404, b"no")
        self.send_response(answer.status)
        for name, value in answer.headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(answer.body)))
        self.end_headers()
        self.wfile.write(answer.body)

    do_GET = do_POST = _serve

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def sites():
    """Start sites: `sites(PUBLIC)`, `sites(PRIVATE, port)`; all stopped at the end."""
    started: list[Site] = []

    def start(host: str = PUBLIC, port: int = 0) -> Site:
        site = Site(host, port)
        threading.Thread(target=site.serve_forever, daemon=True).start()
        started.append(site)
        return site

    yield start
    for site in started:
        site.shutdown()
        site.server_close()


def closed_port(host: str = PUBLIC) -> int:
    """A port of `host` nobody listens on (just freed)."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


@pytest.fixture
def names(monkeypatch):
    """The guard's resolver, answering the test's table (name -> successive answers, the
    last one repeated) and the system's resolver for other names."""
    table: dict[str, list[list[str]]] = {}
    asked: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        if host not in table:
            return addresses.system_resolver(host, port)
        asked.append(host)
        answers = table[host]
        return answers.pop(0) if len(answers) > 1 else answers[0]

    monkeypatch.setattr(addresses, "resolver", resolve)
    resolve.table, resolve.asked = table, asked
    return resolve

"""The live wallboard at rest: the CPU a gunicorn worker spends on 500 idle viewers, by
stream and by polling, and how long a change takes to reach them all.

python -m bench.wallboard
BENCH_WALLBOARD_VIEWERS=500 BENCH_WALLBOARD_SECONDS=20 python -m bench.wallboard

The campaign of bench/delivery.py (10,000 tasks, 21 agents of Sales) is served by one
gunicorn worker as `make run` serves it. A supervisor signs in; then

- streams: BENCH_WALLBOARD_VIEWERS viewers each open the wallboard's stream of server-sent
  events (raw sockets, one asyncio loop) and get the figures once; nothing changes for
  BENCH_WALLBOARD_SECONDS, over which the worker's CPU (utime + stime from /proc) is printed
  as a share of one core, beside the ceiling of 10%. Then one change (a task added) and the
  time until every viewer has the new figures, beside the ceiling of 2 s;
- polling (the fallback): the same viewers each ask for the live figures every second, as
  static/live.js does without a stream, with the ETag of their last answer; every answer but
  the first is 304 Not Modified. The worker's CPU over BENCH_WALLBOARD_SECONDS, likewise.
"""

from __future__ import annotations

import asyncio
import os
import re
import tempfile
import threading
import time
from pathlib import Path

import requests

from app import create_app
from app.config import test_settings
from app.extensions import db
from app.models import Campaign
from app.services.actors import Actor
from app.services.people import supervisors
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from bench import delivery, servers

VIEWERS = int(os.environ.get("BENCH_WALLBOARD_VIEWERS", 500))
SECONDS = float(os.environ.get("BENCH_WALLBOARD_SECONDS", 20))
TASKS = 10_000
CLIENT_THREADS = 25
EVERY = 1.0  # seconds between a viewer's polls, as static/live.js asks
CEILING = 10.0  # % of one core per worker
LATENCY_CEILING = 2.0  # seconds from a change to every viewer's screen
EMAIL, PASSWORD = "wall@bench.example", "a-wall-of-figures-at-rest"


def _sign_in(base: str) -> dict[str, str]:
    """A signed-in supervisor's cookies (the login form, its CSRF token included)."""
    http = requests.Session()
    form = http.get(f"{base}/login", timeout=30).text
    token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', form)
    data = {"email": EMAIL, "password": PASSWORD, "csrf_token": token.group(1) if token else ""}
    answer = http.post(f"{base}/login", data=data, timeout=30, allow_redirects=False)
    if answer.status_code not in (302, 303):
        raise RuntimeError(f"sign-in refused: HTTP {answer.status_code}")
    return http.cookies.get_dict()


def _viewers(url: str, cookies, etags: list[str], until: float, tally: dict, lock) -> None:
    """Viewers on one connection, each asking every EVERY seconds with its last ETag."""
    http = requests.Session()
    http.cookies.update(cookies)
    count = len(etags)
    while time.monotonic() < until:
        turn = time.monotonic()
        for n in range(count):
            headers = {"If-None-Match": etags[n]} if etags[n] else {}
            answer = http.get(url, headers=headers, timeout=30, allow_redirects=False)
            etags[n] = answer.headers.get("ETag", etags[n])
            with lock:
                tally[answer.status_code] = tally.get(answer.status_code, 0) + 1
        time.sleep(max(0.0, EVERY - (time.monotonic() - turn)))


def _workers(master: int) -> set[int]:
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == master:
                found.add(int(stat.parent.name))
        except (OSError, ValueError):
            continue
    return found


def main() -> None:
    print(f"wallboard: {VIEWERS} idle viewers for {SECONDS:.0f} s, one gunicorn worker,"
          f" SQLite, {TASKS:,} tasks")  # fmt: skip
    # The worker accepts every viewer's stream (each holds a thread, blocked at rest), all
    # of one tenant and one sign-in here.
    most = str(max(VIEWERS + 10, 500))
    for cap in ("LIVE_STREAMS_MAX", "LIVE_STREAMS_PER_SESSION", "LIVE_STREAMS_PER_TENANT"):
        os.environ[cap] = most
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/wallboard.db"
        app = create_app(test_settings(url))
        with app.app_context():
            db.create_all()
            campaign, _key = delivery._setup()
            delivery._bulk_load(campaign, TASKS)
            supervisors.create_supervisor(EMAIL, PASSWORD, actor=Actor.operator())
            db.session.commit()
            tenant_id, campaign_id = campaign.tenant_id, campaign.id
            db.session.remove()
            db.engine.dispose()
        with servers.gunicorn("wsgi:app", url, Path(folder), 1) as (port, master):
            base = f"http://127.0.0.1:{port}"
            cookies = _sign_in(base)
            workers = _workers(master)

            def change() -> None:
                with app.app_context():
                    add_or_update_task(
                        db.session.get(Campaign, campaign_id), "bench-change",
                        [ItemInput("Name", "A change")], actor=Actor.operator(),
                    )  # fmt: skip
                    db.session.commit()
                    db.session.remove()

            path = f"/tenants/{tenant_id}/wallboard/stream"
            streamed = asyncio.run(_streams(port, path, cookies, master, workers, change))
            polled = _polls(f"{base}/tenants/{tenant_id}/wallboard/live", cookies, master, workers)
    _print_streams(*streamed)
    _print_polls(*polled)


async def _streams(port: int, path: str, cookies, master: int, workers, change):
    """Every viewer's stream open and its first figures in; the worker's CPU at rest over
    SECONDS; then one change and how long each viewer took to have it."""
    cookie = "; ".join(f"{name}={value}" for name, value in cookies.items())
    events = [[] for _ in range(VIEWERS)]  # each viewer's event arrival times
    head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\n"
    head += "Accept: text/event-stream\r\n\r\n"
    statuses: dict[int, int] = {}
    opened: list[asyncio.StreamWriter] = []

    async def viewer(n: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        opened.append(writer)
        writer.write(head.encode())
        answer = await reader.readuntil(b"\r\n\r\n")
        status = int(answer.split(b" ", 2)[1])
        statuses[status] = statuses.get(status, 0) + 1
        buffer = b""
        while status == 200:
            chunk = await reader.read(65536)
            if not chunk:
                return
            buffer += chunk
            found = buffer.count(b"\nid: ") + buffer.startswith(b"id: ")
            if found:
                events[n].extend([time.monotonic()] * found)
                buffer = buffer[buffer.rindex(b"id: ") + 4 :]
            else:
                buffer = buffer[-8:]

    tasks = [asyncio.create_task(viewer(n)) for n in range(VIEWERS)]
    started = time.monotonic()
    while sum(1 for got in events if got) < VIEWERS and time.monotonic() - started < 120:
        await asyncio.sleep(0.1)
    connected = time.monotonic() - started
    await asyncio.sleep(2)  # the last answers written, the threads waiting
    before = servers.cpu_by_process(master, None)
    rest_started = time.monotonic()
    await asyncio.sleep(SECONDS)
    rest = time.monotonic() - rest_started
    after = servers.cpu_by_process(master, None)
    spent = sum(after.get(pid, 0.0) - before.get(pid, 0.0) for pid in workers)
    resident = sum(_resident_mib(pid) for pid in workers)
    counts = [len(got) for got in events]
    await asyncio.get_running_loop().run_in_executor(None, change)
    changed = time.monotonic()
    while time.monotonic() - changed < 10:
        if all(len(got) > count for got, count in zip(events, counts, strict=True)):
            break
        await asyncio.sleep(0.02)
    delays = sorted(
        got[count] - changed for got, count in zip(events, counts, strict=True) if len(got) > count
    )
    for task in tasks:
        task.cancel()
    for writer in opened:
        writer.close()
    await asyncio.gather(*tasks, return_exceptions=True)
    return statuses, connected, resident, spent, rest, delays


def _resident_mib(pid: int) -> float:
    """A process's resident size in MiB (Linux's /proc; 0 elsewhere)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    found = re.search(r"VmRSS:\s+(\d+) kB", status)
    return int(found.group(1)) / 1024 if found else 0.0


def _print_streams(statuses, connected, resident, spent, rest, delays) -> None:
    share = 100 * spent / rest
    print(f"  streams: {VIEWERS} opened, by status {dict(sorted(statuses.items()))}, all with"
          f" their figures in {connected:.1f} s; the worker's resident size"
          f" {resident:.0f} MiB")  # fmt: skip
    verdict = "within" if share < CEILING else "OVER"
    print(f"  streams at rest, worker CPU: {spent:.2f} s over {rest:.1f} s, {share:.1f}% of a"
          f" core; ceiling {CEILING:.0f}% -> {verdict}")  # fmt: skip
    if len(delays) < VIEWERS:
        print(f"  a change: only {len(delays)} of {VIEWERS} viewers had it within 10 s -> OVER")
        return
    worst, median = delays[-1], delays[len(delays) // 2]
    verdict = "within" if worst < LATENCY_CEILING else "OVER"
    print(f"  a change to every viewer's screen: median {median:.2f} s, last {worst:.2f} s;"
          f" ceiling {LATENCY_CEILING:.0f} s -> {verdict}")  # fmt: skip


def _polls(live: str, cookies, master: int, workers) -> tuple:
    """The viewers polling instead: the worker's CPU over SECONDS, and the answers."""
    tally: dict[int, int] = {}
    lock = threading.Lock()
    # A warm-up round: every viewer has its first (full) answer and its ETag.
    groups = [[""] * len(g) for g in _split(VIEWERS, CLIENT_THREADS)]
    warm = time.monotonic() + 3 * EVERY
    for client in _start(live, cookies, groups, warm, tally, lock):
        client.join()
    tally.clear()
    before = servers.cpu_by_process(master, None)
    until = time.monotonic() + SECONDS
    started = time.monotonic()
    for client in _start(live, cookies, groups, until, tally, lock):
        client.join()
    elapsed = time.monotonic() - started
    after = servers.cpu_by_process(master, None)
    spent = sum(after.get(pid, 0.0) - before.get(pid, 0.0) for pid in workers)
    return tally, spent, elapsed


def _print_polls(tally, spent, elapsed) -> None:
    answers = sum(tally.values())
    share = 100 * spent / elapsed
    print(f"  polling (the fallback): {answers:,} answers in {elapsed:.1f} s"
          f" ({answers / elapsed:,.0f}/s), by status {dict(sorted(tally.items()))}")  # fmt: skip
    print(f"  polling, worker CPU: {spent:.2f} s, {share:.1f}% of a core"
          f" ({1000 * spent / max(answers, 1):.2f} ms an answer); ceiling {CEILING:.0f}%"
          f" -> {'within' if share < CEILING else 'OVER'}")  # fmt: skip


def _start(url: str, cookies, groups, until: float, tally: dict, lock) -> list[threading.Thread]:
    clients = [
        threading.Thread(target=_viewers, args=(url, cookies, etags, until, tally, lock))
        for etags in groups
    ]
    for client in clients:
        client.start()
    return clients


def _split(total: int, parts: int) -> list[range]:
    per = -(-total // parts)
    return [range(start, min(start + per, total)) for start in range(0, total, per)]


if __name__ == "__main__":
    main()

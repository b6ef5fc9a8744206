"""The live wallboard at rest: the CPU a gunicorn worker spends on 500 idle viewers' polls.

python -m bench.wallboard
BENCH_WALLBOARD_VIEWERS=500 BENCH_WALLBOARD_SECONDS=20 python -m bench.wallboard

The campaign of bench/delivery.py (10,000 tasks, 21 agents of Sales) is served by one
gunicorn worker as `make run` serves it. A supervisor signs in; BENCH_WALLBOARD_VIEWERS
viewers then each ask for the wallboard's live figures every second, as static/live.js
does, with the ETag of their last answer; nothing changes meanwhile, so every answer but the
first is 304 Not Modified. The worker's CPU (utime + stime from /proc) over
BENCH_WALLBOARD_SECONDS is printed as a share of one core, beside the ceiling of 10%.
"""

from __future__ import annotations

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
from app.services.actors import Actor
from app.services.people import supervisors
from bench import delivery, servers

VIEWERS = int(os.environ.get("BENCH_WALLBOARD_VIEWERS", 500))
SECONDS = float(os.environ.get("BENCH_WALLBOARD_SECONDS", 20))
TASKS = 10_000
CLIENT_THREADS = 25
EVERY = 1.0  # seconds between a viewer's polls, as static/live.js asks
CEILING = 10.0  # % of one core per worker
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
    print(f"wallboard: {VIEWERS} idle viewers polling every {EVERY:.0f} s for {SECONDS:.0f} s,"
          f" one gunicorn worker, SQLite, {TASKS:,} tasks")  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/wallboard.db"
        app = create_app(test_settings(url))
        with app.app_context():
            db.create_all()
            campaign, _key = delivery._setup()
            delivery._bulk_load(campaign, TASKS)
            supervisors.create_supervisor(EMAIL, PASSWORD, actor=Actor.operator())
            db.session.commit()
            tenant_id = campaign.tenant_id
            db.session.remove()
            db.engine.dispose()
        with servers.gunicorn("wsgi:app", url, Path(folder), 1) as (port, master):
            base = f"http://127.0.0.1:{port}"
            live = f"{base}/tenants/{tenant_id}/wallboard/live"
            cookies = _sign_in(base)
            tally: dict[int, int] = {}
            lock = threading.Lock()
            # A warm-up round: every viewer has its first (full) answer and its ETag.
            groups = [[""] * len(g) for g in _split(VIEWERS, CLIENT_THREADS)]
            warm = time.monotonic() + 3 * EVERY
            clients = _start(live, cookies, groups, warm, tally, lock)
            for client in clients:
                client.join()
            tally.clear()
            workers = _workers(master)
            before = servers.cpu_by_process(master, None)
            until = time.monotonic() + SECONDS
            started = time.monotonic()
            clients = _start(live, cookies, groups, until, tally, lock)
            for client in clients:
                client.join()
            elapsed = time.monotonic() - started
            after = servers.cpu_by_process(master, None)
    spent = sum(after.get(pid, 0.0) - before.get(pid, 0.0) for pid in workers)
    answers = sum(tally.values())
    share = 100 * spent / elapsed
    print(f"  answers: {answers:,} in {elapsed:.1f} s ({answers / elapsed:,.0f}/s), by status"
          f" {dict(sorted(tally.items()))}")  # fmt: skip
    print(f"  worker CPU: {spent:.2f} s, {share:.1f}% of a core"
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

"""Memory under a long mixed load: each gunicorn worker's resident size, sampled over time.

python -m bench.soak                      # 10 minutes on SQLite in a temporary folder
BENCH_SOAK_SECONDS=120 python -m bench.soak

The campaign of bench/delivery.py (20,000 tasks, 21 agents of Sales) is served by gunicorn
as `make run` serves it; client threads then mix, for BENCH_SOAK_SECONDS, what integrations
and agents send: adds of new and existing clientIds, searches by clientId and by a data
item, user existence checks, and agents taking and closing tasks. Each worker's private
resident memory (RssAnon in /proc/<pid>/status: its heap and SQLite's page caches, not the
pages of files it maps, which the kernel shares and reclaims) is printed every
BENCH_SOAK_EVERY seconds with the requests served so far; the last lines say how much each
worker grew after the warm-up (the first fifth of the run), in all and per 10,000
requests. Flat is a few MiB at most, not a growth per request.
"""

from __future__ import annotations

import os
import random
import tempfile
import threading
import time
from pathlib import Path

import requests

from app import create_app
from app.config import test_settings
from app.extensions import db
from bench import delivery, delivery_pull, servers

SECONDS = float(os.environ.get("BENCH_SOAK_SECONDS", 600))
EVERY = float(os.environ.get("BENCH_SOAK_EVERY", 30))
TASKS = int(os.environ.get("BENCH_SOAK_TASKS", 20_000))
CLIENTS = 6
WORKERS = 2  # as `make run` serves
# A client opens a new connection after this many requests, so that connections (each
# served by the worker that accepted it) spread over the workers as a real load's do.
PER_CONNECTION = 50
PREVIEW = "/service-previewcontact-service/svc/rs/PreviewContactServiceExternal/"
USERS = "/service-admin/api/users/query-existence"
BODY = {"platform": "AWS Connect", "companyCode": "Bench", "environment": "prod",
        "region": "us-east-1", "campaignName": "Big"}  # fmt: skip


def _rss_mib(pid: int) -> float:
    """The worker's private resident memory (RssAnon: its heap, SQLite's page caches), not
    the pages of files it maps, which the kernel shares and takes back at will."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _workers(master: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            continue
        if parent == master:
            found.append(int(stat.parent.name))
    return sorted(found)


def _client(base: str, key: str, n: int, until: float, counts: list[int], errors: list) -> None:
    """One client's loop: the mix of requests, each answer checked."""
    rng = random.Random(n)
    headers = servers.headers(key)
    agent = delivery_pull.AGENT_NAMES[n]
    http = requests.Session()

    def post(path: str, body: dict) -> dict:
        nonlocal http
        if counts[n] % PER_CONNECTION == PER_CONNECTION - 1:
            http.close()
            http = requests.Session()
        answer = http.post(base + path, json=body, headers=headers, timeout=60)
        counts[n] += 1
        if answer.status_code != 200:
            raise RuntimeError(f"{path}: HTTP {answer.status_code} {answer.text[:200]}")
        return answer.json()

    def desk(action: str, **fields) -> dict:
        body = {"tenant": delivery_pull.TENANT, "agent": agent, **fields}
        return post(delivery_pull.DESK + action, body)

    try:
        desk("setAgentState", state="AVAILABLE")
        while time.monotonic() < until:
            pick = rng.random()
            client_id = f"C{rng.randrange(TASKS * 2):08d}"  # half of them new
            if pick < 0.3:
                items = [{"key": "Name", "value": f"Soak {client_id}"},
                         {"key": "Phone", "value": "+14155550100"}]  # fmt: skip
                post(PREVIEW + "addOrUpdateCampaignRecord",
                     {**BODY, "clientId": client_id, "previewRecordData": items})  # fmt: skip
            elif pick < 0.55:
                post(PREVIEW + "searchPreviewCampaign", {**BODY, "clientId": client_id})
            elif pick < 0.7:
                criteria = [{"key": "Name", "value": f"Customer {client_id}",
                             "condition": "EQUALS"}]  # fmt: skip
                post(PREVIEW + "searchPreviewCampaign", {**BODY, "searchCriteria": criteria})
            elif pick < 0.8:
                post(USERS, {"tenant": delivery_pull.TENANT, "loginUserId": agent})
            else:
                task = desk("nextTask").get("task")
                if task:
                    desk("closeTask", previewRecordID=task["previewRecordID"],
                         outcome="COMPLETE")  # fmt: skip
    except Exception as error:  # noqa: BLE001 - reported with the figures
        errors.append(f"client {n}: {type(error).__name__}: {error}")


def main() -> None:
    print(f"memory: {CLIENTS} clients mixing adds, searches, user checks and agents' work for"
          f" {SECONDS:.0f} s on a campaign of {TASKS:,} tasks (SQLite, gunicorn"
          f" {WORKERS} workers)")  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/soak.db"
        app = create_app(test_settings(url))
        with app.app_context():
            db.create_all()
            campaign, key = delivery._setup()
            delivery._bulk_load(campaign, TASKS)
            db.session.remove()
            db.engine.dispose()
        with delivery_pull.served(url, Path(folder), WORKERS) as (base, master):
            counts, errors = [0] * CLIENTS, []
            until = time.monotonic() + SECONDS
            clients = [
                threading.Thread(target=_client, args=(base, key, n, until, counts, errors))
                for n in range(CLIENTS)
            ]
            for client in clients:
                client.start()
            started, samples = time.monotonic(), []
            while any(client.is_alive() for client in clients):
                time.sleep(max(0.0, min(EVERY, until - time.monotonic())))
                for client in clients:  # the last sample: after every client stopped
                    client.join(timeout=0 if time.monotonic() < until else 120)
                workers = _workers(master)
                sample = (time.monotonic() - started, sum(counts), [_rss_mib(p) for p in workers])
                samples.append(sample)
                sizes = " ".join(f"{mib:7.1f}" for mib in sample[2])
                print(f"  {sample[0]:6.0f} s {sample[1]:>8,} requests   private MiB: {sizes}",
                      flush=True)  # fmt: skip
    if errors:
        print(f"  errors: {len(errors)}; first: {errors[0][:200]}")
    _growth(samples)


def _growth(samples: list[tuple[float, int, list[float]]]) -> None:
    """Each worker's growth after the warm-up (the first fifth of the run)."""
    warm = next((s for s in samples if s[0] >= SECONDS / 5), None)
    last = samples[-1] if samples else None
    if warm is None or last is None or warm is last or len(warm[2]) != len(last[2]):
        print("  too short a run to tell the growth after warm-up")
        return
    served = max(1, last[1] - warm[1])
    for n, (before, after) in enumerate(zip(warm[2], last[2], strict=True)):
        grown = after - before
        print(f"  worker {n + 1}: {before:.1f} MiB after warm-up ({warm[0]:.0f} s), {after:.1f}"
              f" MiB at the end: {grown:+.1f} MiB, {grown * 10_000 / served:+.2f} MiB per"
              " 10,000 requests")  # fmt: skip


if __name__ == "__main__":
    main()

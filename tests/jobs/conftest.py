"""Fixtures for the worker: loads' files under tmp_path, running what waits in a queue,
and intake files of any size."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.jobs import huey


@pytest.fixture
def app(app, tmp_path):
    """The app, keeping loads' files and reports under this test's tmp_path."""
    app.instance_path = str(tmp_path / "instance")
    return app


def run_queued_jobs() -> int:
    """Run what waits in the queue, as a worker would, until it is empty; how many ran."""
    ran = 0
    while (task := huey.dequeue()) is not None:
        huey.execute(task)
        ran += 1
    return ran


def intake_file(path: Path, ids: int, *, bad_every: int = 0, repeat_every: int = 0) -> Path:
    """A file of `ids` clientIds; every `bad_every`th row is invalid (an unknown skill queue)
    and every `repeat_every`th row repeats an earlier clientId."""
    lines = ["Id,Name,skillQueue"]
    for n in range(ids):
        queue = "Nowhere" if bad_every and n % bad_every == bad_every - 1 else ""
        lines.append(f"C{n:07d},Customer {n},{queue}")
        if repeat_every and n % repeat_every == repeat_every - 1:
            lines.append(f"C{n // 2:07d},Customer {n // 2} again,")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path

"""`make run`'s web server, started from app/Procfile's own command line as honcho starts it:
it listens on 127.0.0.1 unless HOST says otherwise (the demo prints passwords), and two
checkouts' servers each keep gunicorn's control socket in their own instance folder."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.servers import ROOT, free_port, stop_process

pytestmark = pytest.mark.server


def procfile_command(name: str) -> str:
    [line] = [
        line
        for line in (ROOT / "app" / "Procfile").read_text().splitlines()
        if line.startswith(f"{name}:")
    ]
    return line.split(":", 1)[1].strip()


@contextmanager
def web_server(
    database_uri: str, instance: Path, port: int, **env: str
) -> Iterator[tuple[subprocess.Popen, Path]]:
    """The Procfile's web process through a shell (as honcho runs it), the virtualenv first
    on PATH as the Makefile puts it; the process and its log once it serves."""
    instance.mkdir(exist_ok=True)
    log = instance / "web.log"
    environ = {
        key: value for key, value in os.environ.items() if key not in ("HOST", "GUNICORN_TLS")
    }
    environ.update(
        PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        PORT=str(port),
        WORKERS="1",
        INSTANCE_PATH=str(instance),
        DATABASE_URL=database_uri,
        SECRET_KEY="make-run-test",
        **env,
    )
    with log.open("w") as out:
        process = subprocess.Popen(
            ["/bin/sh", "-c", "exec " + procfile_command("web")],
            cwd=ROOT,
            env=environ,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        while "Booting worker" not in log.read_text():
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        yield process, log
    finally:
        stop_process(process, timeout=30)


def reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=2):
            return True
    except OSError:
        return False


def test_the_web_server_listens_on_this_machine_alone_unless_host_says_otherwise(
    database_uri, _schema, tmp_path
):
    port = free_port()
    with web_server(database_uri, tmp_path / "a", port) as (_, log):
        assert f"Listening at: http://127.0.0.1:{port}" in log.read_text()
        assert reachable("127.0.0.1", port)
        assert not reachable("127.0.0.2", port)  # another address of this machine
    other = free_port()
    with web_server(database_uri, tmp_path / "b", other, HOST="127.0.0.2") as (_, log):
        assert f"Listening at: http://127.0.0.2:{other}" in log.read_text()
        assert reachable("127.0.0.2", other)


def test_two_checkouts_servers_keep_their_own_control_socket(database_uri, _schema, tmp_path):
    first, second = tmp_path / "one", tmp_path / "two"
    with (
        web_server(database_uri, first, free_port()),
        web_server(database_uri, second, free_port()),
    ):
        for instance in (first, second):
            ctl = instance / "gunicorn.ctl"
            deadline = time.monotonic() + 10
            while not ctl.exists():  # started once the first worker is up
                assert time.monotonic() < deadline, (instance / "web.log").read_text()
                time.sleep(0.1)
            assert stat.S_ISSOCK(ctl.stat().st_mode)
            with socket.socket(socket.AF_UNIX) as control:
                control.connect(str(ctl))  # its own server answers on it
        assert (first / "gunicorn.ctl").exists()  # the second did not take the first's


def test_make_run_passes_host_to_the_procfile_127_0_0_1_unless_given():
    def dry_run(*args: str) -> str:
        result = subprocess.run(
            ["make", "-n", "run", f"VENV={Path(sys.executable).parent.parent}", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        commands = result.stdout.replace("\\\n", " ").splitlines()
        [line] = [line for line in commands if "honcho" in line]
        return line

    assert " HOST=127.0.0.1 " in dry_run()
    assert " HOST=0.0.0.0 " in dry_run("HOST=0.0.0.0")

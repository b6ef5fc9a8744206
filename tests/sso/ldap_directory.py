"""A real LDAP directory for the tests: Debian's OpenLDAP `slapd`, run as a child process on
free loopback ports (ldap:// with StartTLS, and ldaps://) with a temporary configuration, the
mdb backend, people seeded with `slapadd`, and a certificate from a CA made at set-up.

A missing slapd is installed with apt-get (as `make browser` installs Chromium), its
package told not to configure a system directory of its own; SKIP_SSO_PROVIDERS=1 skips
the tests that need it instead.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from app.cli.demo_directory import (
    SLAPADD,
    SLAPD,
    TEMPLATE,
    Certificates,
    build,
    slapd_command,
)
from tests.servers import free_port

__all__ = ["PEOPLE", "TEMPLATE", "directory", "silent_port"]

# The directory's people: login → password. "smith, j" has DN specials in its login;
# "nobody.here" is nobody's agent.
PEOPLE = {
    "ann@acme.example": "ann's directory secret",
    "smith, j": "smith's directory secret",
    "nobody.here": "a person with no agent",
}


def _sudo() -> list[str]:
    return [] if os.geteuid() == 0 else ["sudo"]


def ensure_slapd() -> None:
    """slapd present, installed from Debian's packages when missing; a skip only when
    SKIP_SSO_PROVIDERS is set."""
    if os.environ.get("SKIP_SSO_PROVIDERS"):
        pytest.skip("SKIP_SSO_PROVIDERS is set: no real directory")
    if SLAPD.exists() and SLAPADD.exists():
        return
    # pytest-xdist's processes may get here together: one installs, the others wait.
    with open(Path(tempfile.gettempdir()) / "slapd-install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not SLAPD.exists():
            _install_slapd()


def _install_slapd() -> None:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    # The package's own set-up would make and start a system directory: not wanted.
    subprocess.run(
        [*_sudo(), "debconf-set-selections"],
        input=b"slapd slapd/no_configuration boolean true\n",
        check=False,
    )
    subprocess.run([*_sudo(), "apt-get", "update", "-qq"], env=env, check=False)
    installed = subprocess.run(
        [*_sudo(), "apt-get", "install", "-y", "-qq", "slapd"],
        env=env,
        capture_output=True,
        check=False,
    )
    if not SLAPD.exists():
        pytest.fail(
            "The directory tests need Debian's slapd, which could not be installed "
            f"(apt-get install slapd): {installed.stderr.decode(errors='replace')[-2000:]}\n"
            "Install it, or set SKIP_SSO_PROVIDERS=1 to skip these tests.",
            pytrace=False,
        )


@dataclass
class Directory:
    """A running slapd: `ldap_url` (StartTLS or plain), `ldaps_url`, its CA's `ca_file`."""

    folder: Path
    certs: Certificates
    ldap_port: int
    ldaps_port: int
    process: subprocess.Popen | None = None
    people: dict[str, str] = field(default_factory=lambda: dict(PEOPLE))

    @property
    def ldap_url(self) -> str:
        return f"ldap://127.0.0.1:{self.ldap_port}"

    @property
    def ldaps_url(self) -> str:
        return f"ldaps://127.0.0.1:{self.ldaps_port}"

    @property
    def ca_file(self) -> str:
        return str(self.certs.ca)

    def start(self) -> None:
        urls = f"ldap://127.0.0.1:{self.ldap_port}/ ldaps://127.0.0.1:{self.ldaps_port}/"
        with (self.folder / "slapd.log").open("ab") as log:
            self.process = subprocess.Popen(
                slapd_command(self.folder, urls), stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"slapd exited early:\n{self.log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.ldaps_port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        pytest.fail(f"slapd did not start:\n{self.log_tail()}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def log_tail(self) -> str:
        return (self.folder / "slapd.log").read_text(errors="replace")[-3000:]


def run_directory(folder: Path, people: dict[str, str] = PEOPLE) -> Directory:
    """A directory set up in `folder` and started (the caller stops it)."""
    ensure_slapd()
    try:
        certs = build(folder, people)
    except RuntimeError as failed:
        pytest.fail(str(failed))
    directory = Directory(folder, certs, free_port(), free_port(), people=dict(people))
    directory.start()
    return directory


@pytest.fixture(scope="module")
def directory(tmp_path_factory) -> Iterator[Directory]:
    """A real directory for this module's tests."""
    folder = tmp_path_factory.mktemp("slapd")
    running = run_directory(folder)
    try:
        yield running
    finally:
        running.stop()
        shutil.rmtree(folder / "data", ignore_errors=True)


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A loopback port that accepts connections and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield listener.getsockname()[1]

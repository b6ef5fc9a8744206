"""A real OpenID Provider for the tests: oidc-provider (npm) under node, started once per
run on a free port of 127.0.0.1 (`npm ci` first when its packages are missing; node and npm
from Debian when the machine has none). SKIP_SSO_PROVIDERS=1 skips the tests that need it.

The provider signs with a key the tests make, so a test can also forge a token exactly as
the provider would have signed it, and change one claim at a time."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey

from tests.servers import free_port

HERE = Path(__file__).resolve().parent / "oidc_provider"
KID = "test-key-1"
DESK_CLIENT = ("desk-app", "desk-client-secret")
CONSOLE_CLIENT = ("console-app", "console-client-secret")


@dataclass
class OpenIdProvider:
    issuer: str
    key: RSAKey
    process: subprocess.Popen
    log: Path

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)

    def sign(self, claims: dict, *, key: RSAKey | None = None, header: dict | None = None) -> str:
        """A token signed as the provider signs (or with another `key`)."""
        key = key or self.key
        return jwt.encode({"alg": "RS256", "kid": key.kid, **(header or {})}, claims, key)


def _client(client: tuple[str, str], path: str) -> dict:
    return {
        "client_id": client[0],
        "client_secret": client[1],
        "redirect_uris": [f"http://localhost{path}"],
        "post_logout_redirect_uris": ["http://localhost/login"],
        "grant_types": ["authorization_code"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "client_secret_basic",
    }


def _install() -> None:
    # Test processes (pytest-xdist) start their providers at once: one installs at a time.
    with (HERE / ".install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _install_missing()


def _install_missing() -> None:
    if shutil.which("node") is None or shutil.which("npm") is None:
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "nodejs", "npm"],
            check=True,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )
    if not (HERE / "node_modules" / "oidc-provider").is_dir():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE, check=True
        )


def start_provider(folder: Path) -> OpenIdProvider:
    _install()
    port = free_port()
    key = RSAKey.generate_key(2048, parameters={"kid": KID, "use": "sig", "alg": "RS256"})
    config = folder / "provider.json"
    config.write_text(
        json.dumps(
            {
                "port": port,
                "jwks": {"keys": [key.as_dict(private=True)]},
                "clients": [
                    _client(DESK_CLIENT, "/desk/sso/Acme/prod/oidc/callback"),
                    _client(CONSOLE_CLIENT, "/sso/oidc/callback"),
                ],
            }
        )
    )
    log = folder / "provider.log"
    with log.open("w") as output:
        process = subprocess.Popen(
            ["node", "provider.js", str(config)], cwd=HERE, stdout=output, stderr=output
        )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if "listening" in log.read_text():
            return OpenIdProvider(f"http://127.0.0.1:{port}", key, process, log)
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    pytest.fail(f"the OpenID provider did not start:\n{log.read_text()}")


def running_provider(tmp_path_factory):
    """The body of a test module's fixture: the provider, running until the module's end."""
    if os.environ.get("SKIP_SSO_PROVIDERS"):
        pytest.skip("SKIP_SSO_PROVIDERS is set")
    provider = start_provider(tmp_path_factory.mktemp("oidc"))
    try:
        yield provider
    finally:
        provider.stop()

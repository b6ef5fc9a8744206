"""The SAML identity provider the tests sign in through, started once per run."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.sso.saml_idp import IdentityProvider, serve


def _xmlsec1() -> None:
    """pysaml2 signs and checks with Debian's xmlsec1: installed when missing, as `make
    install` does."""
    if shutil.which("xmlsec1"):
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    subprocess.run([*sudo, "apt-get", "update", "-qq"], check=False)  # noqa: S603
    subprocess.run(  # noqa: S603
        [*sudo, "apt-get", "install", "-y", "-qq", "xmlsec1"],
        check=False,
        env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
    )
    if not shutil.which("xmlsec1"):
        pytest.fail("SAML sign-in needs Debian's xmlsec1: apt-get install xmlsec1", pytrace=False)


@pytest.fixture(scope="session")
def identity_provider(tmp_path_factory) -> IdentityProvider:
    """pysaml2's identity provider on a free loopback port (SKIP_SSO_PROVIDERS skips)."""
    if os.environ.get("SKIP_SSO_PROVIDERS"):
        pytest.skip("SKIP_SSO_PROVIDERS is set")
    _xmlsec1()
    provider, stop = serve(tmp_path_factory.mktemp("saml-idp"))
    yield provider
    stop()

"""The demo directory (`make demo-ldap`, `flask --app wsgi demo directory`): it holds the demo
agents with the passwords it prints, and the demo tenant's agents sign in with them."""

from __future__ import annotations

import os
import re
import socket
import time

from app.demo import tenant as demo
from app.extensions import db
from app.services.actors import Actor
from app.services.sso import ldap, providers
from app.services.tenants.setup import find_tenant
from tests.conftest import PLATFORM
from tests.servers import free_port, start_process, stop_process
from tests.sso.ldap_directory import ensure_slapd


def test_the_demo_directory_signs_the_demo_agents_in(app, database_uri, tmp_path):
    ensure_slapd()
    demo.seed(PLATFORM, str(tmp_path), actor=Actor.operator())
    db.session.commit()
    port, log = free_port(), tmp_path / "directory.log"
    env = {**os.environ, "DATABASE_URL": database_uri, "PUBLIC_BASE_URL": "http://desk.test",
           "OUTBOUND_ALLOW_NETWORKS": "127.0.0.1/32"}  # fmt: skip
    command = ["-m", "flask", "--app", "wsgi", "demo", "directory", "--port", str(port)]
    process = start_process([*command, "--folder", str(tmp_path / "directory")], env, log)
    try:
        deadline = time.monotonic() + 20
        while True:
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.1)
        printed = log.read_text()
        passwords = dict(re.findall(r"as (\S+) with directory password (\S+)", printed))
        assert set(passwords) == {agent.login for agent in demo.AGENTS}
        assert "http://desk.test/desk/login/DemoCo/demo" in printed
        db.session.rollback()
        provider = providers.provider_for(find_tenant(PLATFORM, demo.COMPANY, demo.ENVIRONMENT))
        assert provider.kind == "ldap" and provider.settings["start_tls"] is True
        jane = ldap.authenticate(provider, demo.JANE.login, passwords[demo.JANE.login])
        assert jane is not None and jane.login == demo.JANE.login
        assert ldap.authenticate(provider, demo.JANE.login, passwords[demo.RAJ.login]) is None
    finally:
        stop_process(process, timeout=10)
        db.session.rollback()

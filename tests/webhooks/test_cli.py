"""`flask webhook add|list|remove`: the secret alone on the last line, one-line errors."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, WebhookEndpoint
from tests.webhooks.conftest import make_endpoint


def test_add_prints_the_secret_alone_on_the_last_line(runner, acme):
    result = runner.invoke(
        args=["webhook", "add", "Acme", "prod", "https://crm.example.com/in",
              "--event", "task.closed", "--event", "user.added", "--description", "CRM"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    endpoint = db.session.scalar(select(WebhookEndpoint))
    assert result.output.splitlines()[-1] == endpoint.secret
    assert endpoint.event_types == ["task.closed", "user.added"]
    trail = db.session.scalar(select(AuditRecord))
    assert (trail.actor_kind, trail.action) == ("operator", "webhook_endpoint.added")


def test_list_shows_each_endpoint_and_its_state(runner, acme, globex):
    make_endpoint(acme, "https://a.example/in", types=["task.closed"])
    make_endpoint(globex, "https://globex.example/in")
    result = runner.invoke(args=["webhook", "list", "Acme", "prod"])
    assert result.exit_code == 0
    assert "https://a.example/in" in result.output and "task.closed" in result.output
    assert "globex" not in result.output and "whsec_" not in result.output


def test_remove_deletes_only_the_tenants_own_endpoint(runner, acme, globex):
    theirs = make_endpoint(globex)
    refused = runner.invoke(args=["webhook", "remove", "Acme", "prod", str(theirs.id)])
    assert refused.exit_code != 0 and "does not exist" in refused.output
    mine = make_endpoint(acme)
    done = runner.invoke(args=["webhook", "remove", "Acme", "prod", str(mine.id)])
    assert done.exit_code == 0
    assert db.session.scalars(select(WebhookEndpoint.id)).all() == [theirs.id]


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["add", "Acme", "prod", "ftp://x.example"], "http:// or https://"),
        (["add", "Acme", "prod", "https://u:p@x.example"], "user name or password"),
        (["add", "Acme", "prod", "http://[::1]:6379/"], "url host ::1 is a loopback address"),
        (["add", "Acme", "prod", "http://10.0.0.7/"], "url host 10.0.0.7 is a private address"),
        (["add", "Acme", "prod", "https://x.example", "--event", "task.nope"], "unknown"),
        (["add", "Nobody", "prod", "https://x.example"], "Nobody"),
        (["list", "Nobody", "prod"], "Nobody"),
    ],
)
def test_bad_input_is_a_one_line_error_and_a_non_zero_exit(runner, acme, args, reason):
    result = runner.invoke(args=["webhook", *args])
    assert result.exit_code != 0
    assert reason in result.output and len(result.output.strip().splitlines()) == 1
    assert db.session.scalar(select(WebhookEndpoint)) is None

"""The agents' commands: `agent queues` (exact), `agent invite` (a link on the last line),
and the default desk queues of `user-template create --skill-queue`."""

from __future__ import annotations

import hashlib

import pytest

from app.extensions import db
from app.services.people import agents
from app.services.people.users import NewUser, add_user
from app.services.tenants import setup as tenants
from tests.cli.test_commands import assert_fails, last_line
from tests.conftest import SETUP

LOGIN = "ann@acme.example"


@pytest.fixture
def ann(acme):
    tenants.create_user_template(acme, "Agent", actor=SETUP)
    return add_user(acme, NewUser(LOGIN, "Ann", "Agent", "Agent"), actor=SETUP)


def queues_of(user) -> list[str]:
    db.session.expire_all()
    return [q.name for q in user.skill_queues]


def test_queues_sets_exactly_the_named_queues(runner, ann):
    result = runner.invoke(args=["agent", "queues", "Acme", "prod", LOGIN, "Support", "Sales"])
    assert result.exit_code == 0, result.output
    assert queues_of(ann) == ["Sales", "Support"]
    result = runner.invoke(args=["agent", "queues", "Acme", "prod", LOGIN, "Support"])
    assert result.exit_code == 0, result.output
    assert queues_of(ann) == ["Support"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["Acme", "prod", "nobody", "Sales"], ["nobody"]),
        (["Acme", "prod", LOGIN, "Sales", "Nope"], ["Nope"]),
        (["Acme", "test", LOGIN, "Sales"], ["Acme/test"]),
    ],
)
def test_queues_refuses_an_unknown_user_queue_or_tenant(runner, ann, args, words):
    agents.set_agent_queues(ann, ["Support"], actor=SETUP)
    db.session.commit()
    result = runner.invoke(args=["agent", "queues", *args])
    assert_fails(result, *words)
    assert queues_of(ann) == ["Support"]  # nothing half-made


def test_queues_needs_at_least_one_queue(runner, ann):
    assert runner.invoke(args=["agent", "queues", "Acme", "prod", LOGIN]).exit_code != 0


def test_invite_prints_a_one_time_link_alone_on_the_last_line(runner, ann):
    result = runner.invoke(args=["agent", "invite", "Acme", "prod", LOGIN])
    assert result.exit_code == 0, result.output
    link = last_line(result)
    assert link.startswith("http://localhost:9443/desk/invite/")
    token = link.rsplit("/", 1)[1]
    db.session.expire_all()
    assert ann.invite_hash == hashlib.sha256(token.encode()).hexdigest()
    assert agents.invited(token) == ann


def test_invite_links_start_with_the_public_base_url(app, runner, ann):
    app.config["PUBLIC_BASE_URL"] = "https://desk.example.com/"
    result = runner.invoke(args=["agent", "invite", "Acme", "prod", LOGIN])
    assert last_line(result).startswith("https://desk.example.com/desk/invite/")


def test_invite_refuses_an_unknown_user(runner, acme):
    assert_fails(runner.invoke(args=["agent", "invite", "Acme", "prod", "nobody"]), "nobody")


def test_a_template_made_with_skill_queues_gives_them_to_its_users(runner, acme):
    result = runner.invoke(
        args=["user-template", "create", "Acme", "prod", "Closers", "--skill-queue", "Sales"]
    )
    assert result.exit_code == 0, result.output
    user = add_user(acme, NewUser("bob", "Bob", "B", "Closers"), actor=SETUP)
    assert queues_of(user) == ["Sales"]


def test_a_template_with_an_unknown_queue_is_not_made(runner, acme):
    result = runner.invoke(
        args=["user-template", "create", "Acme", "prod", "Closers", "--skill-queue", "Nope"]
    )
    assert_fails(result, "Nope")
    assert tenants.find_user_template(acme, "Closers") is None

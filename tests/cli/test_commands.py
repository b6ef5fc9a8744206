"""The operator commands: keys on the last line, one-line errors, nothing half-made."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select
from werkzeug.security import check_password_hash

from app.extensions import db
from app.models import (
    ApiKey,
    Campaign,
    LoginSession,
    SkillQueue,
    Supervisor,
    Task,
    Tenant,
    UserTemplate,
)
from app.models.types import utcnow
from app.services.campaigns import catalogue as campaigns
from app.services.people.sessions import SessionLimits, start_session
from app.services.tenants import api_keys as keys
from app.services.tenants import setup as tenants
from tests.conftest import PLATFORM, make_tenant


def last_line(result) -> str:
    return result.output.strip().splitlines()[-1]


def error_lines(result) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith("Error:")]


def assert_fails(result, *words: str) -> None:
    """A non-zero exit with exactly one error line that names each of `words`."""
    assert result.exit_code != 0, result.output
    [line] = error_lines(result)
    for word in words:
        assert word in line


def count(model) -> int:
    return db.session.scalar(select(func.count()).select_from(model))


def create_tenant(runner, company="Acme", environment="prod", region="us-east-1", mode="saml"):
    return runner.invoke(
        args=["tenant", "create", company, environment, "--region", region, "--auth-mode", mode]
    )


@pytest.mark.parametrize(
    ("region", "auth_mode"),
    [("us-east-1", "saml"), ("eu-west-2", "directory"), ("af-south-1", "internal")],
)
def test_tenant_create_prints_a_working_key_alone_on_the_last_line(runner, region, auth_mode):
    result = create_tenant(runner, region=region, mode=auth_mode)
    assert result.exit_code == 0, result.output
    key = last_line(result)
    assert key and key.split() == [key]
    tenant = tenants.get_tenant(PLATFORM, "Acme", "prod")
    assert (tenant.region, tenant.auth_mode) == (region, auth_mode)
    assert keys.key_matches(tenant, key)
    assert not keys.key_matches(tenant, key + "x")


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        ({"region": "mars-1"}, ["mars-1"]),
        ({"mode": "oauth"}, ["oauth"]),
        ({"company": " "}, ["company code must be 1 to 128 characters"]),
        ({"environment": "e" * 129}, ["environment must be 1 to 128 characters"]),
    ],
    ids=["bad-region", "bad-auth-mode", "blank-company", "long-environment"],
)
def test_tenant_create_refuses_bad_input(runner, overrides, words):
    assert_fails(create_tenant(runner, **overrides), *words)
    assert count(Tenant) == 0


def test_tenant_create_refuses_a_duplicate(runner):
    first = last_line(create_tenant(runner))
    assert_fails(create_tenant(runner, region="eu-west-2"), "Acme/prod", "already exists")
    tenant = tenants.get_tenant(PLATFORM, "Acme", "prod")
    assert tenant.region == "us-east-1"
    assert [state for _, state in keys.key_states(tenant)] == ["current"]
    assert keys.key_matches(tenant, first)


@pytest.mark.parametrize(
    ("seconds_later", "old_key_works"),
    [(0, True), (120 - 10, True), (120 + 10, False)],
    ids=["at-once", "within-grace", "after-grace"],
)
def test_rotate_key_prints_a_new_key_and_the_old_one_works_until_the_grace_ends(
    app, runner, monkeypatch, seconds_later, old_key_works
):
    app.config["KEY_GRACE_SECONDS"] = 120
    old = last_line(create_tenant(runner))
    result = runner.invoke(args=["tenant", "rotate-key", "Acme", "prod"])
    assert result.exit_code == 0, result.output
    new = last_line(result)
    assert new != old and new.split() == [new]
    later = utcnow() + timedelta(seconds=seconds_later)
    monkeypatch.setattr(keys, "utcnow", lambda: later)
    tenant = tenants.get_tenant(PLATFORM, "Acme", "prod")
    assert keys.key_matches(tenant, new)
    assert keys.key_matches(tenant, old) is old_key_works


def test_rotate_key_of_an_unknown_tenant_fails(runner):
    assert_fails(runner.invoke(args=["tenant", "rotate-key", "Nobody", "prod"]), "Nobody/prod")


def test_skill_queue_create(app, runner):
    tenant, _key = make_tenant(queues=(), campaigns_=())
    result = runner.invoke(args=["skill-queue", "create", "Acme", "prod", "Sales"])
    assert result.exit_code == 0, result.output
    assert tenants.find_skill_queue(tenant, "Sales") is not None


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["Acme", "prod", "Sales"], ["Sales", "already exists"]),
        (["Nobody", "prod", "Sales"], ["Nobody/prod"]),
        (["Acme", "prod", " "], ["skill queue name"]),
    ],
    ids=["duplicate", "unknown-tenant", "blank-name"],
)
def test_skill_queue_create_refuses_bad_input(app, runner, args, words):
    make_tenant(queues=("Sales",), campaigns_=())
    assert_fails(runner.invoke(args=["skill-queue", "create", *args]), *words)
    assert count(SkillQueue) == 1


@pytest.mark.parametrize(
    ("extra", "campaign_type"),
    [
        ([], "preview"),
        (["--type", "preview"], "preview"),
        (["--type", "progressive"], "progressive"),
    ],
)
def test_campaign_create(app, runner, extra, campaign_type):
    tenant, _key = make_tenant(campaigns_=())
    args = ["campaign", "create", "Acme", "prod", "Spring", "--skill-queue", "Support"]
    result = runner.invoke(args=[*args, "--time-zone", "Europe/Paris", *extra])
    assert result.exit_code == 0, result.output
    campaign = campaigns.get_campaign(tenant, "Spring")
    assert campaign.type == campaign_type
    assert campaign.default_skill_queue.name == "Support"
    assert campaign.default_time_zone == "Europe/Paris"


@pytest.mark.parametrize(
    ("company", "name", "queue", "zone", "extra", "words"),
    [
        ("Acme", "Spring", "Nowhere", "Europe/Paris", [], ["Nowhere"]),
        ("Acme", "Spring", "sales", "Europe/Paris", [], ["sales"]),
        ("Acme", "Spring", "Sales", "Mars/Olympus", [], ["Mars/Olympus"]),
        ("Acme", "Spring", "Sales", "CET+1", [], ["CET+1"]),
        ("Acme", "Renewals", "Sales", "Europe/Paris", [], ["Renewals", "already exists"]),
        ("Nobody", "Spring", "Sales", "Europe/Paris", [], ["Nobody/prod"]),
        ("Acme", "Spring", "Sales", "Europe/Paris", ["--type", "predictive"], ["predictive"]),
    ],
    ids=[
        "unknown-queue",
        "queue-name-case",
        "bad-zone",
        "not-a-zone",
        "duplicate",
        "unknown-tenant",
        "bad-type",
    ],
)
def test_campaign_create_refuses_bad_input_and_creates_nothing(
    app, runner, company, name, queue, zone, extra, words
):
    make_tenant(campaigns_=(("Renewals", "Sales", "America/New_York"),))
    args = ["campaign", "create", company, "prod", name, "--skill-queue", queue]
    assert_fails(runner.invoke(args=[*args, "--time-zone", zone, *extra]), *words)
    assert db.session.scalars(select(Campaign.name)).all() == ["Renewals"]


def test_user_template_create(app, runner):
    tenant, _key = make_tenant()
    result = runner.invoke(args=["user-template", "create", "Acme", "prod", "Agent"])
    assert result.exit_code == 0, result.output
    assert tenants.find_user_template(tenant, "Agent") is not None


@pytest.mark.parametrize(
    ("company", "words"),
    [("Acme", ["Agent", "already exists"]), ("Nobody", ["Nobody/prod"])],
    ids=["duplicate", "unknown-tenant"],
)
def test_user_template_create_refuses_bad_input(app, runner, company, words):
    make_tenant()
    runner.invoke(args=["user-template", "create", "Acme", "prod", "Agent"])
    result = runner.invoke(args=["user-template", "create", company, "prod", "Agent"])
    assert_fails(result, *words)
    assert count(UserTemplate) == 1


def test_supervisor_create_stores_only_a_password_hash(runner):
    result = runner.invoke(
        args=["supervisor", "create", "Ann@Example.com", "--password", "plum-kettle-97-orbit"]
    )
    assert result.exit_code == 0, result.output
    supervisor = db.session.scalar(select(Supervisor))
    assert supervisor.email == "ann@example.com"
    assert supervisor.password_hash != "plum-kettle-97-orbit"
    assert "plum-kettle-97-orbit" not in supervisor.password_hash
    assert check_password_hash(supervisor.password_hash, "plum-kettle-97-orbit")
    assert not check_password_hash(supervisor.password_hash, "plum-kettle-97-orbiT")


@pytest.mark.parametrize(
    ("email", "password", "words"),
    [
        ("not-an-email", "plum-kettle-97-orbit", ["not-an-email"]),
        ("bob@example", "plum-kettle-97-orbit", ["bob@example"]),
        ("bob@example.com", "short-pw-11", ["password", "12"]),
        ("bob@example.com", "password1234", ["common or breached"]),
        ("ANN@example.com", "plum-kettle-97-orbit", ["ann@example.com", "already exists"]),
    ],
    ids=["no-at-sign", "no-domain", "short-password", "common-password", "duplicate-any-case"],
)
def test_supervisor_create_refuses_bad_input(runner, email, password, words):
    runner.invoke(args=["supervisor", "create", "ann@example.com", "--password", FIRST_PASSWORD])
    result = runner.invoke(args=["supervisor", "create", email, "--password", password])
    assert_fails(result, *words)
    assert count(Supervisor) == 1


FIRST_PASSWORD = "first-of-all-pw-2026"


def test_supervisor_set_password_changes_it_and_ends_every_session(runner):
    runner.invoke(args=["supervisor", "create", "ann@example.com", "--password", FIRST_PASSWORD])
    ann = db.session.scalar(select(Supervisor))
    limits = SessionLimits(timedelta(hours=1), timedelta(hours=12))
    start_session(ann, limits), start_session(ann, limits)
    db.session.commit()
    assert count(LoginSession) == 2
    result = runner.invoke(
        args=[
            "supervisor",
            "set-password",
            "ANN@example.com",
            "--password",
            "violet-anchor-53-dune",
        ]
    )
    assert result.exit_code == 0, result.output
    db.session.expire_all()
    assert check_password_hash(ann.password_hash, "violet-anchor-53-dune")
    assert count(LoginSession) == 0


@pytest.mark.parametrize(
    ("email", "password", "words"),
    [
        ("nobody@example.com", "violet-anchor-53-dune", ["nobody@example.com"]),
        ("ann@example.com", "tiny-pw", ["password", "12"]),
        ("ann@example.com", "qwertyuiop123", ["common or breached"]),
    ],
    ids=["unknown-supervisor", "short-password", "common-password"],
)
def test_supervisor_set_password_refuses_bad_input(runner, email, password, words):
    runner.invoke(args=["supervisor", "create", "ann@example.com", "--password", FIRST_PASSWORD])
    result = runner.invoke(args=["supervisor", "set-password", email, "--password", password])
    assert_fails(result, *words)
    db.session.expire_all()
    assert check_password_hash(db.session.scalar(select(Supervisor)).password_hash, FIRST_PASSWORD)


def test_demo_seed_is_idempotent(app, runner, tmp_path):
    app.instance_path = str(tmp_path)
    runs = []
    for _ in range(2):
        result = runner.invoke(args=["demo", "seed"])
        assert result.exit_code == 0, result.output
        runs.append((last_line(result), *map(count, (Tenant, ApiKey, Campaign, Task))))
    assert runs[0] == runs[1]
    key, tenant_count, key_count, campaign_count, task_count = runs[0]
    assert (tenant_count, key_count, campaign_count) == (1, 1, 5) and task_count > 0
    assert (tmp_path / "demo-api-key").read_text().strip() == key
    assert keys.key_matches(tenants.get_tenant(PLATFORM, "DemoCo", "demo"), key)

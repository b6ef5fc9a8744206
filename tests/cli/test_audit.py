"""The operator's door to the trail: commands record the operator, a refused command records
nothing; `audit export` writes JSON lines oldest first; `prune_audit` keeps the retention."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import AuditRecord, Event
from app.services.actors import Actor
from app.services.audit import reading as audit
from app.services.audit.trail import Change, record
from tests.conftest import make_tenant

T0 = datetime(2026, 3, 1, 12, 0, 0, 123000, tzinfo=UTC)
ISO_MS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
OPERATOR = Actor.operator()


def counts() -> tuple[int, int]:
    db.session.expire_all()
    return tuple(
        db.session.scalar(select(func.count()).select_from(model)) for model in (AuditRecord, Event)
    )


def records() -> list[AuditRecord]:
    db.session.expire_all()
    return list(db.session.scalars(select(AuditRecord).order_by(AuditRecord.id)))


def change(tenant_id: int, number: int) -> Change:
    return Change(
        "campaign.added", "campaign", str(number), tenant_id, after={"name": f"C{number}"}
    )


@pytest.fixture
def acme_trail(app):
    """Acme/prod with its setup's records cleared and five records, a day apart from T0."""
    tenant, _key = make_tenant()
    db.session.execute(AuditRecord.__table__.delete())
    for number in range(5):
        record(
            Actor.supervisor("boss@example.com"),
            change(tenant.id, number),
            at=T0 + timedelta(days=number),
        )
    db.session.commit()
    return tenant


def export(runner, *args: str) -> list[dict]:
    result = runner.invoke(args=["audit", "export", "Acme", "prod", *args])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.output.splitlines()]


# --- The commands record the operator; a refused one records nothing ---------------------------


def test_cli_changes_record_the_operator(runner):
    result = runner.invoke(
        args=["tenant", "create", "Acme", "prod", "--region", "us-east-1", "--auth-mode", "saml"]
    )
    assert result.exit_code == 0, result.output
    runner.invoke(args=["skill-queue", "create", "Acme", "prod", "Sales"])
    assert [(r.actor_kind, r.actor_id, r.action) for r in records()] == [
        ("operator", OPERATOR.id, "tenant.added"),
        ("operator", OPERATOR.id, "api_key.issued"),
        ("operator", OPERATOR.id, "skill_queue.added"),
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["tenant", "create", "Acme", "prod", "--region", "us-east-1", "--auth-mode", "saml"],
        ["tenant", "rotate-key", "Acme", "nope"],
        ["skill-queue", "create", "Acme", "prod", "Sales"],
        [
            "campaign",
            "create",
            "Acme",
            "prod",
            "Renewals",
            "--skill-queue",
            "Sales",
            "--time-zone",
            "UTC",
        ],
        [
            "campaign",
            "create",
            "Acme",
            "prod",
            "X",
            "--skill-queue",
            "Sales",
            "--time-zone",
            "Mars/Olympus",
        ],
        ["tenant", "set-instance", "Acme", "prod", "--amazon-connect"],
        ["user-template", "create", "Acme", "prod", " "],
        ["supervisor", "create", "boss@example.com", "--password", "password1234"],
        ["supervisor", "set-password", "nobody@example.com", "--password", "correct horse bat"],
    ],
    ids=[
        "duplicate-tenant",
        "rotate-unknown",
        "duplicate-queue",
        "duplicate-campaign",
        "bad-zone",
        "incomplete-instance",
        "blank-template",
        "weak-password",
        "unknown-supervisor",
    ],
)
def test_a_refused_command_records_nothing(app, runner, args):
    make_tenant()
    before = counts()
    result = runner.invoke(args=args)
    assert result.exit_code != 0
    assert counts() == before


# --- Export -----------------------------------------------------------------------------


def test_export_writes_one_json_object_per_line_oldest_first(runner, acme_trail):
    lines = export(runner)
    assert [line["entity"] for line in lines] == [
        {"kind": "campaign", "id": str(number)} for number in range(5)
    ]
    first = lines[0]
    assert first.keys() == {"id", "at", "actor", "action", "entity", "before", "after"}
    assert first["at"] == "2026-03-01T12:00:00.123Z"
    assert all(ISO_MS.fullmatch(line["at"]) for line in lines)
    assert first["actor"] == {"kind": "supervisor", "id": "boss@example.com"}
    assert (first["action"], first["before"], first["after"]) == (
        "campaign.added",
        None,
        {"name": "C0"},
    )
    assert [line["id"] for line in lines] == sorted(line["id"] for line in lines)


def test_export_holds_only_the_tenants_records(runner, acme_trail):
    other, _key = make_tenant(company="Initech")
    record(OPERATOR, change(other.id, 99))
    db.session.commit()
    assert "99" not in {line["entity"]["id"] for line in export(runner)}


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--since", "2026-03-03T12:00:00.123Z"], ["2", "3", "4"]),
        (["--since", "2026-03-03T12:00:00.124+00:00"], ["3", "4"]),
        (["--since", "2026-03-04"], ["3", "4"]),  # a date without an offset is UTC
        (["--since", "2026-03-04T13:00:00+02:00"], ["3", "4"]),
        (["--since", str(int((T0 + timedelta(days=3)).timestamp() * 1000))], ["3", "4"]),
        (["--until", "2026-03-02T12:00:00.123Z"], ["0"]),
        (["--since", "2026-03-02", "--until", "2026-03-04"], ["1", "2"]),
        (["--since", "2030-01-01"], []),
    ],
    ids=["iso-z", "iso-offset", "date", "other-zone", "epoch-ms", "until", "window", "none"],
)
def test_export_since_and_until(runner, acme_trail, args, expected):
    assert [line["entity"]["id"] for line in export(runner, *args)] == expected


def test_export_reads_in_chunks_and_writes_every_record_to_a_file(
    runner, acme_trail, monkeypatch, tmp_path
):
    monkeypatch.setattr(audit, "CHUNK", 2)
    queries = []
    real_execute = db.session.execute

    def counting(statement, *args, **kwargs):
        queries.append(statement)
        return real_execute(statement, *args, **kwargs)

    monkeypatch.setattr(db.session, "execute", counting)
    target = tmp_path / "trail.jsonl"
    result = runner.invoke(args=["audit", "export", "Acme", "prod", "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert result.output == ""
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert [line["entity"]["id"] for line in lines] == ["0", "1", "2", "3", "4"]
    assert len(queries) == 3  # 2 + 2 + 1 rows


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["Initech", "prod"], "no tenant"),
        (["Acme", "prod", "--since", "yesterday"], "neither an ISO-8601 time"),
        (["Acme", "prod", "--since", "2026-03-04", "--until", "2026-03-01"], "before --until"),
    ],
    ids=["unknown-tenant", "bad-since", "empty-window"],
)
def test_export_refuses_bad_input_and_writes_no_file(runner, acme_trail, tmp_path, args, words):
    target = tmp_path / "trail.jsonl"
    result = runner.invoke(args=["audit", "export", *args, "-o", str(target)])
    assert result.exit_code != 0
    assert words in result.output
    assert not target.exists()


# --- Retention ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("days", "now", "kept"),
    [
        (30, T0 + timedelta(days=33), ["3", "4"]),  # records 0..2 are past 30 days
        (30, T0 + timedelta(days=32), ["2", "3", "4"]),  # exactly 30 days old: kept
        (30, T0, ["0", "1", "2", "3", "4"]),
        (1, T0 + timedelta(days=100), []),
        (0, T0 + timedelta(days=10_000), ["0", "1", "2", "3", "4"]),  # 0 keeps forever
    ],
    ids=["older-pruned", "boundary-kept", "nothing-old", "all-old", "zero-keeps"],
)
def test_prune_audit_deletes_what_is_older_than_the_retention(
    app, acme_trail, monkeypatch, days, now, kept
):
    app.config["AUDIT_RETENTION_DAYS"] = days
    monkeypatch.setattr(audit, "CHUNK", 2)  # several batches
    deleted = audit.prune_audit(now)
    assert [r.entity_id for r in records()] == kept
    assert deleted == 5 - len(kept)


def test_the_retention_defaults_to_a_year(app):
    assert app.config["AUDIT_RETENTION_DAYS"] == 365


def test_the_prune_command_uses_the_setting(app, runner, acme_trail):
    app.config["AUDIT_RETENTION_DAYS"] = 0
    result = runner.invoke(args=["audit", "prune"])
    assert "every audit record is kept" in result.output and len(records()) == 5
    app.config["AUDIT_RETENTION_DAYS"] = 1  # T0 is past: every record is older
    result = runner.invoke(args=["audit", "prune"])
    assert result.exit_code == 0, result.output
    assert "Deleted 5 audit records" in result.output
    assert records() == []

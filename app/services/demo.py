"""Demo data for a fresh install: one tenant, queues, campaigns and a few dozen tasks.

Running it again changes nothing. The demo key is kept in the instance folder so that
every run can print it, while the database holds only its hash.
"""

from __future__ import annotations

import random
import secrets
from datetime import timedelta
from pathlib import Path

from sqlalchemy import select
from werkzeug.security import check_password_hash

from app.config import instance_secret
from app.extensions import db
from app.models import ApiKey, Supervisor, Task, Tenant, WorkCode, WorkedState
from app.models.types import utcnow
from app.services import campaigns, keys, supervisors, tenants
from app.services.actors import Actor
from app.services.task_trail import trace_change
from app.services.task_wire import task_snapshot
from app.services.tasks import add_or_update_task
from app.services.validation import ItemInput

COMPANY = "DemoCo"
ENVIRONMENT = "demo"
REGION = "us-east-1"
QUEUES = ("Sales", "Retention", "Support")
CAMPAIGNS = (
    ("Spring Renewals", "Sales", "America/New_York", "preview"),
    ("Win-back", "Retention", "Europe/London", "progressive"),
)
FIRST = ("Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Radia", "Tim")
LAST = ("Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson")
PLANS = ("Basic", "Plus", "Premium")


def _tenant(platform: str, actor: Actor) -> Tenant:
    tenant = tenants.find_tenant(platform, COMPANY, ENVIRONMENT)
    if tenant is None:
        tenant = tenants.create_tenant(platform, COMPANY, ENVIRONMENT, REGION, "saml", actor=actor)
        db.session.flush()
    return tenant


def _demo_key(tenant: Tenant, instance_path: str, actor: Actor) -> str:
    key = instance_secret(Path(instance_path) / "demo-api-key", lambda: secrets.token_urlsafe(32))
    known = db.session.scalar(select(ApiKey).filter_by(key_hash=keys.hash_key(key)))
    if known is None:
        keys.issue_key(tenant, key, actor=actor)
    return key


def _items(rng: random.Random, number: int) -> list[ItemInput]:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return [
        ItemInput("Name", f"{first} {last}"),
        ItemInput("Mobile Phone", f"+1415555{number:04d}", 1),
        ItemInput("Plan", rng.choice(PLANS), 2),
        ItemInput("Balance", f"{rng.randint(0, 5000)}.{rng.randint(0, 99):02d}", 3),
        ItemInput("Renewal Date", f"2027-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}", 4),
        ItemInput("Account_link", f"https://crm.example.com/accounts/{number}", 5),
        ItemInput("Renewal script_button", "https://wiki.example.com/scripts/renewal", 6),
        ItemInput("Highlight", "Balance|Plan"),
        ItemInput("Hidden", "Internal Score"),
        ItemInput("Internal Score", str(rng.randint(1, 100))),
    ]


def _tasks(tenant: Tenant, rng: random.Random, actor: Actor) -> None:
    for name, *_ in CAMPAIGNS:
        campaign = campaigns.get_campaign(tenant, name)
        for number in range(1, 25):
            client_id = f"{name[:3].upper()}-{number:04d}"
            if db.session.scalar(
                select(Task.id).filter_by(campaign_id=campaign.id, client_id=client_id)
            ):
                continue
            task, _ = add_or_update_task(campaign, client_id, _items(rng, number), actor=actor)
            if number % 4 == 0 or number % 6 == 0:
                _worked(task, number, actor)


def _worked(task: Task, number: int, actor: Actor) -> None:
    """Give a demo task a past attempt, as agents would have; the trail says so."""
    before = task_snapshot(task)
    if number % 4 == 0:
        task.worked_state = WorkedState.WORKED
        task.work_attempts = 1
        task.last_attempt_agent = "agent.smith@democo.example"
        task.last_attempt_at = utcnow() - timedelta(hours=number)
        task.next_earliest_work_at = utcnow() + timedelta(days=1)
    if number % 6 == 0:
        task.worked_state = WorkedState.COMPLETED
        task.work_codes = [WorkCode(key="Outcome", value="Renewed", position=0)]
    trace_change(actor, "task.updated", task, before, task_snapshot(task))


SUPERVISOR = "supervisor@democo.example"


def _supervisor(instance_path: str, actor: Actor) -> str:
    password = instance_secret(
        Path(instance_path) / "demo-supervisor-password", lambda: secrets.token_urlsafe(12)
    )
    existing = db.session.scalar(select(Supervisor).filter_by(email=SUPERVISOR))
    if existing is None:
        supervisors.create_supervisor(SUPERVISOR, password, actor=actor)
    elif not check_password_hash(existing.password_hash, password):
        supervisors.set_password(existing, password, actor=actor)
    return password


def seed(platform: str, instance_path: str, *, actor: Actor) -> tuple[str, str]:
    """Create whatever demo data is missing; return the demo API key and supervisor password."""
    rng = random.Random(2026)  # noqa: S311 - demo content, not a secret
    tenant = _tenant(platform, actor)
    key = _demo_key(tenant, instance_path, actor)
    for queue in QUEUES:
        if tenants.find_skill_queue(tenant, queue) is None:
            tenants.create_skill_queue(tenant, queue, actor=actor)
    db.session.flush()
    for name, queue, zone, kind in CAMPAIGNS:
        if campaigns.find_campaign(tenant, name) is None:
            campaigns.create_campaign(tenant, name, queue, zone, kind, actor=actor)
    if tenants.find_user_template(tenant, "Agent") is None:
        tenants.create_user_template(tenant, "Agent", actor=actor)
    db.session.flush()
    _tasks(tenant, rng, actor)
    return key, _supervisor(instance_path, actor)

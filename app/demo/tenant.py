"""Demo data for a fresh install: one tenant, queues, campaigns (one of them paused, one
dialled progressively), a few dozen tasks (one with three numbers), a supervisor and two
agents with work waiting at the desk, a person key and two contact limits (a customer they
hold back), and a few days of the agents' past attempts (app/demo/history.py).

Running it again changes nothing. The demo key and passwords are kept in the instance folder
so that every run can print them, while the database holds only their hashes.
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

from sqlalchemy import select

from app.config import instance_secret
from app.demo.history import seed_history
from app.extensions import db
from app.models import ApiKey, Campaign, Supervisor, Task, Tenant
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.calling_rules import pack as calling_pack
from app.services.calling_rules import rules as calling_rules
from app.services.campaigns import catalogue as campaigns
from app.services.campaigns import dialing
from app.services.campaigns import life_cycle as campaign_status
from app.services.consent import ledger as consent
from app.services.consent import requirements as consent_required
from app.services.contact_limits import limits as contact_limits
from app.services.contact_limits.limits import NewLimit
from app.services.delivery import away_reasons
from app.services.dnc import numbers as dnc
from app.services.people import agents, supervisors
from app.services.people.passwords import password_matches
from app.services.people.users import NewUser, add_user, find_user
from app.services.schedules import calling_windows, hours
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from app.services.tenants import api_keys as keys
from app.services.tenants import provisioning
from app.services.tenants import setup as tenants
from app.services.work_codes import groups as work_codes
from app.services.work_codes.groups import CodeSettings

COMPANY = "DemoCo"
ENVIRONMENT = "demo"
REGION = "us-east-1"
QUEUES = ("Sales", "Retention", "Support", "Outbound")
CAMPAIGNS = (
    ("Spring Renewals", "Sales", "America/New_York", "preview"),
    ("Win-back", "Retention", "Europe/London", "progressive"),
)
FIRST = ("Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Radia", "Tim")
LAST = ("Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson")
PLANS = ("Basic", "Plus", "Premium")
AGENT_TEMPLATE = "Agent"


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
    """Demo task `number`'s data: the same customer (account, name, number) in every
    campaign; the task numbered THREE_NUMBERS has a home and a work number too."""
    first, last = rng.choice(FIRST), rng.choice(LAST)
    phones = [("Mobile Phone", f"+1415555{number:04d}")]
    if number == THREE_NUMBERS:
        phones += [("Home Phone", f"+1212555{number:04d}"), ("Work Phone", f"+1646555{number:04d}")]
    shown = [
        *phones,
        ("Plan", rng.choice(PLANS)),
        ("Balance", f"{rng.randint(0, 5000)}.{rng.randint(0, 99):02d}"),
        ("Renewal Date", f"2027-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}"),
        ("Account_link", f"https://crm.example.com/accounts/{number}"),
        ("Renewal script_button", "https://wiki.example.com/scripts/renewal"),
        (PERSON_KEY, f"ACC-{number:04d}"),
    ]
    return [
        ItemInput("Name", f"{first} {last}"),
        *(ItemInput(key, value, order) for order, (key, value) in enumerate(shown, start=1)),
        ItemInput("Highlight", "Balance|Plan"),
        ItemInput("Hidden", "Internal Score"),
        ItemInput("Internal Score", str(rng.randint(1, 100))),
    ]


def _client_id(campaign_name: str, number: int) -> str:
    return f"{campaign_name[:3].upper()}-{number:04d}"


def _task(
    campaign: Campaign, number: int, rng: random.Random, actor: Actor, **options
) -> Task | None:
    """Add demo task `number` to the campaign unless it has it already; the new task."""
    client_id = _client_id(campaign.name, number)
    if db.session.scalar(select(Task.id).filter_by(campaign_id=campaign.id, client_id=client_id)):
        return None
    task, _ = add_or_update_task(campaign, client_id, _items(rng, number), actor=actor, **options)
    return task


def _tasks(tenant: Tenant, rng: random.Random, actor: Actor) -> None:
    """The campaigns' new tasks, loaded at seeding (the past's own are the history's)."""
    for name, *_ in CAMPAIGNS:
        campaign = campaigns.get_campaign(tenant, name)
        for number in range(1, 25):
            _task(campaign, number, rng, actor)


SUPERVISOR = "supervisor@democo.example"


def _supervisor(instance_path: str, actor: Actor) -> str:
    password = instance_secret(
        Path(instance_path) / "demo-supervisor-password", lambda: secrets.token_urlsafe(12)
    )
    existing = db.session.scalar(select(Supervisor).filter_by(email=SUPERVISOR))
    if existing is None:
        supervisors.create_supervisor(SUPERVISOR, password, actor=actor)
    elif not password_matches(existing.password_hash, password):
        supervisors.set_password(existing, password, actor=actor)
    return password


@dataclass(frozen=True)
class DemoAgent:
    """An agent of the demo tenant: a provisioned user with skill queues and a desk password."""

    login: str
    first_name: str
    last_name: str
    queues: tuple[str, ...]

    @property
    def password_file(self) -> str:
        return f"demo-agent-{self.first_name.lower()}-password"


JANE = DemoAgent("jane@democo.example", "Jane", "Park", ("Sales", "Outbound"))
RAJ = DemoAgent("raj@democo.example", "Raj", "Patel", ("Retention", "Sales", "Outbound"))
AGENTS = (JANE, RAJ)
# Desk work waiting for the agents besides the campaigns' own tasks (numbers 25 and up):
# tasks whose preferredAgent is one of them, held for that agent for the hold's length ...
HELD = (("Spring Renewals", 25, JANE), ("Spring Renewals", 26, RAJ), ("Win-back", 25, RAJ))
# ... and tasks an agent called once and rescheduled, due this many minutes after seeding.
DUE_SOON = (("Spring Renewals", 27, JANE, 5), ("Win-back", 26, RAJ, 20))


def _desk_work(tenant: Tenant, rng: random.Random, actor: Actor, now: datetime) -> None:
    """The held tasks, the reschedules due soon (their call is the history's), and the
    customer the contact limits hold back (the history calls it)."""
    for name, number, agent in HELD:
        campaign = campaigns.get_campaign(tenant, name)
        _task(campaign, number, rng, actor, preferred_agent=agent.login)
    for name, number, _who, minutes in DUE_SOON:
        due = now + timedelta(minutes=minutes)
        _task(campaigns.get_campaign(tenant, name), number, rng, actor, next_earliest=due)
    for name in (UNANSWERED[0], ALSO_UNANSWERED):
        _task(campaigns.get_campaign(tenant, name), UNANSWERED_NUMBER, rng, actor)


# The person key and the contact limits, counted per person (its Account) across every
# campaign: Regulation F's seven calls in seven days and Florida's three in 24 hours.
PERSON_KEY = "Account"
CONTACT_LIMITS = (NewLimit(7, "7d", "person"), NewLimit(3, "24h", "person"))
# Jane's held task (SPR-0025) has three numbers: the desk shows them and rotates.
THREE_NUMBERS = 25
# A customer who never answers: the history calls SPR-0030 as often as the limits let it,
# until they hold the customer back; WIN-0030, the same account, is held back with it.
UNANSWERED_NUMBER = 30
UNANSWERED = ("Spring Renewals", _client_id("Spring Renewals", UNANSWERED_NUMBER))
ALSO_UNANSWERED = "Win-back"


def _contact_rules(tenant: Tenant, actor: Actor) -> None:
    """The person key and the limits, once: a supervisor's later changes stand."""
    if tenant.person_key is None and not contact_limits.list_limits(tenant):
        contact_limits.set_person_key(tenant, PERSON_KEY, actor=actor)
        for new in CONTACT_LIMITS:
            contact_limits.add_limit(tenant, new, actor=actor)


def _call_backs() -> dict[str, tuple[str, str]]:
    """Each agent's rescheduled task: campaign and clientId."""
    return {agent.login: (name, _client_id(name, number)) for name, number, agent, _ in DUE_SOON}


def _agent(tenant: Tenant, demo: DemoAgent, instance_path: str, actor: Actor) -> str:
    """The demo agent, made as the User Provisioning API makes users, with its queues (given
    once: a supervisor's later choice stands) and desk password; the password."""
    password = instance_secret(
        Path(instance_path) / demo.password_file, lambda: secrets.token_urlsafe(12)
    )
    agent = find_user(tenant, demo.login)
    if agent is None:
        new = NewUser(demo.login, demo.first_name, demo.last_name, AGENT_TEMPLATE)
        agent = add_user(tenant, new, actor=actor)  # commits, as for the API
        agents.set_agent_queues(agent, demo.queues, actor=actor)
    if not password_matches(agent.password_hash, password):
        agents.set_desk_password(agent, password, actor=actor)
    return password


@dataclass(frozen=True)
class Seeded:
    """What `demo seed` prints: the API key and each sign-in's password."""

    key: str
    supervisor_password: str
    agent_passwords: dict[str, str]  # loginUserId: desk password


RETENTION_HOURS = "Retention desk"
DNC_NUMBER = "+14155550003"  # SPR-0003 and WIN-0003 have only this number


def _when_worked(tenant: Tenant, actor: Actor) -> None:
    """Hours of operation on the Retention queue, a calling window and an attempt limit on
    Win-back, one number on the do-not-call list. Sales has no hours: the demo agents always
    have some work, and out of hours Retention's tasks wait with a reason."""
    if hours.find_schedule(tenant, RETENTION_HOURS) is None:
        desk = hours.create_schedule(
            tenant,
            RETENTION_HOURS,
            "Europe/London",
            ["mon-fri 08:00-20:00", "sat 10:00-14:00"],
            holidays="GB-ENG",
            actor=actor,
        )
        today = utcnow().date()
        hours.set_exception(desk, date(today.year, 12, 24), "09:00-13:00", actor=actor)
        hours.set_queue_schedule(tenants.get_skill_queue(tenant, "Retention"), desk, actor=actor)
    winback = campaigns.get_campaign(tenant, "Win-back")
    if calling_windows.window_of(winback) is None:
        calling_windows.set_calling_window(winback, 8 * 60, 21 * 60, actor=actor)
    if winback.max_attempts is None:
        calling_windows.set_max_attempts(winback, 5, actor=actor)
    if not dnc.listed_numbers(tenant.id, [DNC_NUMBER]):
        dnc.add_numbers(tenant, [DNC_NUMBER], "demo: asked not to be called", actor=actor)


# Each code: name, description, outcome, default delay, adds to DNC, call result suggesting
# it, and the reports' flags: counts as a contact, as a success.
WORK_CODES = (
    ("Outcome", True, False, (
        ("Renewed", "The customer renewed or bought.", "COMPLETE", None, False, None, True,
         True),
        ("Call back", "The customer asks to be called later.", "RESCHEDULE", None, False, None,
         True, False),
        ("No answer", "Nobody picked up; try again in an hour.", "RESCHEDULE", 60, False,
         "NO_ANSWER", False, False),
        ("Not interested", "The customer declined.", "COMPLETE", None, False, None, True, False),
        ("Wrong number", "The number is not the customer's.", "REMOVE", None, False,
         "INVALID_NUMBER", False, False),
        ("Do not call", "Never call again: lists the numbers.", "REMOVE", None, True, None, True,
         False),
    )),
    ("Topics", False, True, (
        ("Price", "The price came up.", None, None, False, None, False, False),
        ("Coverage", "What the plan covers came up.", None, None, False, None, False, False),
        ("Competitor offer", "The customer mentioned a competitor's offer.", None, None, False,
         None, False, False),
    )),
)  # fmt: skip
# Retention asks for an outcome code; Sales keeps free labels (and the demo's quick flows).
WORK_CODE_QUEUES = ("Retention",)


def _work_codes(tenant: Tenant, actor: Actor) -> None:
    """Two work-code groups, a required single choice and an optional multiple one; and
    the progressive campaign's call results."""
    for name, required, multiple, codes in (*WORK_CODES, CALL_RESULT_CODES):
        group = work_codes.find_group(tenant, name) or work_codes.create_group(
            tenant, name, required=required, multiple=multiple, actor=actor
        )
        for order, (code, about, *effects) in enumerate(codes, start=1):
            if work_codes.find_code(group, code) is None:
                settings = CodeSettings(about, order, *effects)
                work_codes.add_code(group, code, settings, actor=actor)
    for queue in WORK_CODE_QUEUES:
        if not tenants.get_skill_queue(tenant, queue).work_code_groups:
            work_codes.set_queue_groups(tenant, queue, [n for n, *_ in WORK_CODES], actor=actor)
    outbound = PROGRESSIVE[1]
    if not tenants.get_skill_queue(tenant, outbound).work_code_groups:
        work_codes.set_queue_groups(tenant, outbound, [CALL_RESULT_CODES[0]], actor=actor)


# A progressive campaign the agents work end to end: the desk shows each task's preview for
# PROGRESSIVE_SECONDS, then dials by itself; agents may skip a task (the Desk API example
# releases one). Its queue, Outbound, has no hours and the campaign no window: there is
# always work. When a call ends, the desk preselects the Call result code its result
# suggests (BUSY → Busy, which reschedules in 30 minutes).
PROGRESSIVE = ("Upgrade Calls", "Outbound", "America/Los_Angeles", "progressive")
PROGRESSIVE_SECONDS = 20
PROGRESSIVE_TASKS = range(101, 113)  # their numbers, +14155550101 and on: none on the DNC list
CALL_RESULT_CODES = ("Call result", False, False, (
    ("Sale", "The customer bought the upgrade.", "COMPLETE", None, False, "ANSWERED", True,
     True),
    ("Not interested", "The customer declined.", "COMPLETE", None, False, None, True, False),
    ("Busy", "The line was busy; try again in 30 minutes.", "RESCHEDULE", 30, False, "BUSY",
     False, False),
    ("No answer", "Nobody picked up; try again in 2 hours.", "RESCHEDULE", 120, False,
     "NO_ANSWER", False, False),
    ("Left voicemail", "A message was left; try again in 4 hours.", "RESCHEDULE", 240, False,
     "VOICEMAIL", False, False),
    ("Wrong number", "The number is not the customer's.", "REMOVE", None, False,
     "INVALID_NUMBER", False, False),
))  # fmt: skip


def _progressive_campaign(tenant: Tenant, rng: random.Random, actor: Actor) -> None:
    """Made once with its dialling; a supervisor's later settings stand."""
    name, queue, zone, kind = PROGRESSIVE
    if campaigns.find_campaign(tenant, name) is not None:
        return
    campaign = campaigns.create_campaign(tenant, name, queue, zone, kind, actor=actor)
    db.session.flush()
    dialing.set_dialing(campaign, auto_dial_seconds=PROGRESSIVE_SECONDS, can_skip=True, actor=actor)
    for number in PROGRESSIVE_TASKS:
        _task(campaign, number, rng, actor)


# A campaign loaded ahead of its start, paused until a supervisor resumes it: its tasks
# wait in the Sales queue, and its page and Progress panel say it is paused.
PAUSED = ("Autumn Offers", "Sales", "America/Chicago", "preview")


def _paused_campaign(tenant: Tenant, rng: random.Random, actor: Actor) -> None:
    """Made paused once; a supervisor's later resume (or archive) stands."""
    name, queue, zone, kind = PAUSED
    if campaigns.find_campaign(tenant, name) is not None:
        return
    campaign = campaigns.create_campaign(tenant, name, queue, zone, kind, actor=actor)
    db.session.flush()
    for number in range(1, 9):
        _task(campaign, number, rng, actor)
    campaign_status.pause(campaign, actor=actor)


# Where the customer is, and consent: a campaign that takes its tasks' zones from their
# numbers and requires consent for every number, with a customer in Florida (the US pack's
# 08:00-20:00 and 3 calls a day), one whose Boise number spans Mountain and Pacific time,
# and one in Arizona who never gave consent (held back: NO_CONSENT). Its queue, Support, is
# no demo agent's: the Progress panel, the task pages and taskContactability show the rules.
CONSENT_CAMPAIGN = ("Consent Outreach", "Support", "America/Denver", "preview")
CONSENT_CUSTOMERS = (
    ("CON-0001", "Frances Allen", (("State", "FL"), ("Mobile Phone", "+13055550142")), True),
    ("CON-0002", "Ken Thompson", (("Mobile Phone", "+12085550143"),), True),
    ("CON-0003", "Radia Perlman", (("Mobile Phone", "+16025550144"),), False),
)
CONSENT_SOURCE = "demo: web form, March 2026"


def _regions_and_consent(tenant: Tenant, actor: Actor, now: datetime) -> None:
    """The US pack and the consent campaign, once: a supervisor's later changes stand."""
    if not calling_rules.list_rules(tenant):
        calling_pack.load_us(tenant, actor=actor)
    name, queue, zone, kind = CONSENT_CAMPAIGN
    if campaigns.find_campaign(tenant, name) is not None:
        return
    campaign = campaigns.create_campaign(tenant, name, queue, zone, kind, actor=actor)
    campaigns.update_campaign(campaign, zone_from="number", actor=actor)
    consent_required.set_requirement(campaign, "all", actor=actor)
    db.session.flush()
    for client_id, person, phones, given in CONSENT_CUSTOMERS:
        items = [ItemInput("Name", person), *(ItemInput(k, v) for k, v in phones)]
        add_or_update_task(campaign, client_id, items, actor=actor)
        if given:
            numbers = [value for key, value in phones if key.endswith("Phone")]
            consent.give(tenant, numbers, actor=actor, at=now - timedelta(days=270),
                         source=CONSENT_SOURCE, now=now)  # fmt: skip


# The reasons the demo's agents choose from when they go Away, in the desk's order.
AWAY_REASONS = ("Break", "Lunch", "Training", "Meeting")


def _away_reasons(tenant: Tenant, actor: Actor) -> None:
    """The demo's away reasons, once: a supervisor's later removal stands until none is left."""
    if away_reasons.list_reasons(tenant):
        return
    for order, name in enumerate(AWAY_REASONS, start=1):
        away_reasons.add_reason(tenant, name, sort_order=order, actor=actor)


def seed(platform: str, instance_path: str, *, actor: Actor, now: datetime | None = None) -> Seeded:
    """Create whatever demo data is missing; return the demo API key and passwords. The
    history ends before `now` (the moment of seeding) and the reschedules fall due after."""
    now = now or utcnow()
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
    if tenants.find_user_template(tenant, AGENT_TEMPLATE) is None:
        tenants.create_user_template(tenant, AGENT_TEMPLATE, actor=actor)
    # The agents an identity provider creates through SCIM are made from it too.
    provisioning.set_provisioning(tenant, AGENT_TEMPLATE, False, actor=actor)
    db.session.flush()
    _tasks(tenant, rng, actor)
    _desk_work(tenant, rng, actor, now)
    _paused_campaign(tenant, random.Random(2027), actor)  # noqa: S311 - demo content
    _progressive_campaign(tenant, random.Random(2028), actor)  # noqa: S311 - demo content
    _when_worked(tenant, actor)
    _contact_rules(tenant, actor)
    _regions_and_consent(tenant, actor, now)
    _work_codes(tenant, actor)
    _away_reasons(tenant, actor)
    passwords = {agent.login: _agent(tenant, agent, instance_path, actor) for agent in AGENTS}
    db.session.flush()
    past = random.Random(2030)  # noqa: S311 - demo content

    def make_task(campaign: Campaign, number: int) -> Task | None:
        return _task(campaign, number, past, actor)

    history = random.Random(2029)  # noqa: S311 - demo content
    seed_history(
        tenant, now, history, make_task=make_task, call_backs=_call_backs(),
        unanswered=UNANSWERED, actor=actor,
    )  # fmt: skip
    return Seeded(key, _supervisor(instance_path, actor), passwords)

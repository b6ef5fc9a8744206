"""Demo data: seeding twice changes nothing; the printed sign-ins work (the supervisor's, the
agents' at the desk, the API key); the agents find work at the desk at once."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from app.demo import tenant as demo
from app.extensions import db
from app.models import (
    AgentState,
    AgentStateSpan,
    Attempt,
    AuditRecord,
    Campaign,
    LoginSession,
    Supervisor,
    Task,
    User,
    WorkCodeChoice,
    WorkedState,
)
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.campaigns import catalogue as campaigns
from app.services.campaigns import life_cycle as campaign_status
from app.services.campaigns.dialing import DialSettings, dial_settings
from app.services.contact_limits.limits import limit_words, list_limits
from app.services.delivery import agent_state, closing, offers, progress
from app.services.dialer import call_events, numbers, placing
from app.services.dnc import numbers as dnc
from app.services.errors import NotAvailable
from app.services.people import agents, sessions
from app.services.people.supervisors import authenticate
from app.services.people.users import get_user
from app.services.tenants import setup as tenants
from app.services.work_codes.choices import offered, suggested
from tests.admin.conftest import RequestClient, csrf_token, page
from tests.conftest import PLATFORM, sc_headers
from tests.desk.desk_support import desk_sign_in

DESK_LINE = re.compile(
    r"Sign in to the desk at (?P<url>\S+) as (?P<company>[^/\s]+)/(?P<environment>[^/\s]+)/"
    r"(?P<login>\S+) with password (?P<password>\S+)"
)
SUPERVISOR_LINE = re.compile(
    r"Sign in to the web UI at (?P<url>\S+) as (?P<email>\S+) with password (?P<password>\S+)"
)
QUEUES = {
    "jane@democo.example": ["Outbound", "Sales"],
    "raj@democo.example": ["Outbound", "Retention", "Sales"],
}


@pytest.fixture
def settings(settings, request) -> dict:
    return {**settings, **getattr(request, "param", {})}


@pytest.fixture
def browser(app):
    """A test client that behaves as a browser against a served app (see RequestClient)."""
    app.test_client_class = RequestClient
    return app.test_client()


def seed_cli(app, runner, instance) -> list[str]:
    """`flask demo seed` with the instance folder `instance`; its output lines."""
    app.instance_path = str(instance)
    result = runner.invoke(args=["demo", "seed"])
    assert result.exit_code == 0, result.output
    return result.output.strip().splitlines()


def desk_sign_ins(lines: list[str]) -> dict[str, dict[str, str]]:
    return {m["login"]: m.groupdict() for line in lines if (m := DESK_LINE.fullmatch(line))}


def count(model) -> int:
    return db.session.scalar(select(func.count()).select_from(model))


def demo_agent(login: str) -> User:
    return get_user(tenants.get_tenant(PLATFORM, demo.COMPANY, demo.ENVIRONMENT), login)


def test_seeding_again_changes_nothing_and_prints_the_same_sign_ins(app, runner, tmp_path):
    first = seed_cli(app, runner, tmp_path)
    counts = [count(model) for model in (User, Task, AuditRecord)]
    second = seed_cli(app, runner, tmp_path)

    assert second == first
    assert [count(model) for model in (User, Task, AuditRecord)] == counts
    assert first[-2:] == ["Demo API key:", (tmp_path / "demo-api-key").read_text().strip()]
    shown = desk_sign_ins(first)
    assert set(shown) == set(QUEUES)
    for login, sign_in in shown.items():
        assert sign_in["url"] == "http://localhost:9443/desk/login"
        assert (sign_in["company"], sign_in["environment"]) == (demo.COMPANY, demo.ENVIRONMENT)
        [agent] = [agent for agent in demo.AGENTS if agent.login == login]
        assert (tmp_path / agent.password_file).read_text().strip() == sign_in["password"]
        assert agents.queue_names(demo_agent(login)) == QUEUES[login]


@pytest.mark.parametrize(
    ("settings", "url"),
    [
        ({}, "http://localhost:9443/login"),
        ({"PUBLIC_BASE_URL": "https://dial.example:8443/"}, "https://dial.example:8443/login"),
    ],
    indirect=["settings"],
)
def test_the_supervisors_printed_sign_in_names_its_page_and_works(
    app, runner, browser, tmp_path, url
):
    [line] = [line for line in seed_cli(app, runner, tmp_path) if SUPERVISOR_LINE.fullmatch(line)]
    shown = SUPERVISOR_LINE.fullmatch(line)
    assert (shown["url"], shown["email"]) == (url, demo.SUPERVISOR)
    assert browser.get("/login").status_code == 200
    response = browser.post("/login", data={"email": shown["email"], "password": shown["password"]})
    assert response.status_code == 302


def test_agents_sign_in_to_the_desk_with_the_printed_passwords_and_find_work(
    app, runner, browser, tmp_path
):
    lines = seed_cli(app, runner, tmp_path)
    shown = desk_sign_ins(lines)
    for login, sign_in in shown.items():
        wrong = desk_sign_in(browser, login, sign_in["password"] + "x", demo.COMPANY, "demo")
        assert wrong.status_code == 422
        response = desk_sign_in(
            browser, login, sign_in["password"], sign_in["company"], sign_in["environment"]
        )
        assert response.status_code == 302 and response.location.endswith("/desk")

    # The browser is now Raj's desk: Available, a task held for him comes at once. He has
    # two (SPR-0026, and WIN-0025, whose queue and window open in London's daytime only):
    # which comes first depends on the hour the test runs.
    token = csrf_token(page(browser, "/desk"))
    browser.post("/desk/state", data={"state": "AVAILABLE", "csrf_token": token or ""})
    record_id = page(browser, "/desk").find(class_="desk-task")["data-record-id"]
    task = db.session.scalar(select(Task).filter_by(record_id=record_id))
    rajs = {f"{name[:3].upper()}-{n:04d}" for name, n, agent in demo.HELD if agent == demo.RAJ}
    assert rajs == {"SPR-0026", "WIN-0025"}
    assert task.preferred_agent == demo.RAJ.login and task.client_id in rajs

    # Jane, through the Desk API with the printed key: the task held for her.
    headers = sc_headers(demo.COMPANY, demo.ENVIRONMENT, demo.REGION, lines[-1])
    tenant = {"platform": PLATFORM, "companyCode": demo.COMPANY, "environment": "demo"}

    def desk_api(action: str, **fields) -> dict:
        body = {"tenant": tenant, "agent": demo.JANE.login, **fields}
        return browser.post(f"/desk-api/v1/{action}", json=body, headers=headers).get_json()

    assert desk_api("setAgentState", state="AVAILABLE")["result"] == "SUCCESS"
    offered = desk_api("nextTask")["task"]
    assert (offered["clientId"], offered["preferredAgent"]) == ("SPR-0025", demo.JANE.login)
    assert offered["agentView"]["banner"]


def test_held_tasks_come_first_then_the_reschedules_due_soon(app, tmp_path):
    seeded_at = utcnow()
    demo.seed(PLATFORM, str(tmp_path), actor=Actor.operator())
    db.session.commit()
    soon = db.session.scalar(select(Task).filter_by(client_id="SPR-0027"))
    assert soon.worked_state == WorkedState.WORKED
    assert seeded_at < soon.next_earliest_work_at <= utcnow() + timedelta(minutes=5)

    later = soon.next_earliest_work_at + timedelta(seconds=1)  # the reschedule is due
    jane = demo_agent(demo.JANE.login)
    actor = Actor.agent(jane.login_user_id)
    agent_state.set_agent_state(jane, AgentState.AVAILABLE, actor=actor, now=later)
    held = offers.next_task(jane, actor=actor, now=later).task
    assert held.client_id == "SPR-0025"
    closing.close_task(jane, held.record_id, "COMPLETE", actor=actor, now=later)
    assert offers.next_task(jane, actor=actor, now=later).task is soon
    assert soon.last_attempt_agent == jane.login_user_id


def test_a_new_demo_password_file_resets_the_password_and_ends_sessions(app, tmp_path):
    actor = Actor.operator()
    first = demo.seed(PLATFORM, str(tmp_path), actor=actor).supervisor_password
    db.session.commit()
    supervisor = db.session.scalar(select(Supervisor).filter_by(email=demo.SUPERVISOR))
    sessions.start_session(
        supervisor, sessions.SessionLimits(timedelta(hours=1), timedelta(hours=1))
    )
    db.session.commit()

    (tmp_path / "demo-supervisor-password").write_text("Zq8-correct-horse-staple\n")
    second = demo.seed(PLATFORM, str(tmp_path), actor=actor).supervisor_password
    db.session.commit()

    assert second == "Zq8-correct-horse-staple" != first
    assert authenticate(demo.SUPERVISOR, second) is not None
    assert authenticate(demo.SUPERVISOR, first) is None
    assert db.session.scalar(select(LoginSession)) is None
    actions = db.session.scalars(
        select(AuditRecord.action)
        .where(AuditRecord.entity_id == demo.SUPERVISOR)
        .order_by(AuditRecord.id)
    ).all()
    assert actions == ["supervisor.added", "supervisor.password_changed"]


def test_a_new_agent_password_file_gives_the_agent_that_password(app, tmp_path):
    actor = Actor.operator()
    first = demo.seed(PLATFORM, str(tmp_path), actor=actor).agent_passwords[demo.RAJ.login]
    db.session.commit()

    (tmp_path / demo.RAJ.password_file).write_text("Zq8-correct-horse-staple\n")
    second = demo.seed(PLATFORM, str(tmp_path), actor=actor).agent_passwords[demo.RAJ.login]
    db.session.commit()

    assert second == "Zq8-correct-horse-staple" != first
    raj = demo_agent(demo.RAJ.login)
    assert agents.authenticate(raj.tenant, raj.login_user_id, second) is raj
    assert agents.authenticate(raj.tenant, raj.login_user_id, first) is None


def test_the_demo_shows_hours_a_calling_window_and_the_do_not_call_list_at_work(app, tmp_path):
    demo.seed(PLATFORM, str(tmp_path), actor=Actor.operator())
    db.session.commit()
    tenant = tenants.find_tenant(PLATFORM, demo.COMPANY, demo.ENVIRONMENT)
    assert tenants.get_skill_queue(tenant, "Retention").schedule.name == demo.RETENTION_HOURS
    assert tenants.get_skill_queue(tenant, "Sales").schedule is None  # the agents' sure work
    winback = campaigns.get_campaign(tenant, "Win-back")
    assert (winback.window_opens_at, winback.window_closes_at, winback.max_attempts) == (
        8 * 60,
        21 * 60,
        5,
    )
    assert dnc.listed_numbers(tenant.id, [demo.DNC_NUMBER]) == {demo.DNC_NUMBER}
    retention = tenants.get_skill_queue(tenant, "Retention")
    assert [(g.name, g.required, g.multiple) for g in retention.work_code_groups] == [
        ("Outcome", True, False),
        ("Topics", False, True),
    ]
    # SPR-0003 has only the listed number: Jane, who works Sales, is never given it.
    jane = demo_agent(demo.JANE.login)
    actor = Actor.agent(jane.login_user_id)
    now = utcnow() + timedelta(hours=1)  # SPR-0027 is due too
    agent_state.set_agent_state(jane, AgentState.AVAILABLE, actor=actor, now=now)
    given = []
    while (task := offers.next_task(jane, actor=actor, now=now).task) is not None:
        given.append(task.client_id)
        closing.close_task(jane, task.record_id, "COMPLETE", actor=actor, now=now)
    assert "SPR-0003" not in given and "SPR-0001" in given


def test_the_demo_shows_a_paused_campaign_and_seeding_again_leaves_a_resume(app, runner, tmp_path):
    seed_cli(app, runner, tmp_path)
    tenant = tenants.get_tenant(PLATFORM, demo.COMPANY, demo.ENVIRONMENT)
    autumn = campaigns.get_campaign(tenant, "Autumn Offers")
    assert autumn.status == "PAUSED"
    assert len(autumn_tasks(autumn)) == 8
    campaign_status.resume(autumn, actor=Actor.operator())
    db.session.commit()
    seed_cli(app, runner, tmp_path)
    db.session.expire_all()
    assert campaigns.get_campaign(tenant, "Autumn Offers").status == "ACTIVE"


def autumn_tasks(campaign) -> list[Task]:
    return list(db.session.scalars(select(Task).filter_by(campaign_id=campaign.id)))


def test_the_demo_has_a_progressive_campaign_whose_results_suggest_codes(app, tmp_path):
    demo.seed(PLATFORM, str(tmp_path), actor=Actor.operator())
    db.session.commit()
    tenant = tenants.get_tenant(PLATFORM, demo.COMPANY, demo.ENVIRONMENT)
    upgrades = campaigns.get_campaign(tenant, "Upgrade Calls")
    assert dial_settings(upgrades) == DialSettings("PROGRESSIVE", 20, True, "desk")
    tasks = list(
        db.session.scalars(  # the new tasks; the others are the past's (test_history.py)
            select(Task).filter_by(campaign_id=upgrades.id, worked_state=WorkedState.NOTWORKED)
        )
    )
    assert sorted(task.client_id for task in tasks) == [f"UPG-{n:04d}" for n in range(101, 113)]
    phones = {
        task.client_id: item.value
        for task in tasks
        for item in task.items
        if item.key == "Mobile Phone"
    }
    assert phones["UPG-0101"] == "+14155550101"
    assert not dnc.listed_numbers(tenant.id, list(phones.values()))
    outbound = tenants.get_skill_queue(tenant, "Outbound")
    assert outbound.schedule is None and upgrades.window_opens_at is None  # always workable
    offer = offered(outbound)
    wanted = {
        "ANSWERED": "Sale",
        "BUSY": "Busy",
        "NO_ANSWER": "No answer",
        "VOICEMAIL": "Left voicemail",
        "INVALID_NUMBER": "Wrong number",
    }
    for result, code in wanted.items():
        assert suggested(offer, result) == [("Call result", code)]
    [group] = offer
    assert not group.required
    effects = {code.name: (code.outcome, code.reschedule_minutes) for code in group.codes}
    assert effects["Busy"] == ("RESCHEDULE", 30)
    assert effects["No answer"] == ("RESCHEDULE", 120)
    assert effects["Left voicemail"] == ("RESCHEDULE", 240)
    assert effects["Wrong number"] == ("REMOVE", None)
    retention = offered(tenants.get_skill_queue(tenant, "Retention"))
    assert suggested(retention, "NO_ANSWER") == [("Outcome", "No answer")]


def test_jane_works_the_progressive_campaign_and_its_busy_code_reschedules(app, tmp_path):
    demo.seed(PLATFORM, str(tmp_path), actor=Actor.operator())
    db.session.commit()
    jane = demo_agent(demo.JANE.login)
    actor = Actor.agent(jane.login_user_id)
    now = utcnow()
    agent_state.set_agent_state(jane, AgentState.AVAILABLE, actor=actor, now=now)
    held = offers.next_task(jane, actor=actor, now=now).task
    assert held.client_id == "SPR-0025"
    closing.close_task(jane, held.record_id, "COMPLETE", actor=actor, now=now)
    # Campaigns take turns: the one never delivered from comes next.
    task = offers.next_task(jane, actor=actor, now=now).task
    assert task.client_id.startswith("UPG-")
    closing.close_task(
        jane, task.record_id, work_codes=[("Call result", "Busy")], actor=actor, now=now
    )
    assert task.worked_state == WorkedState.WORKED
    assert task.next_earliest_work_at == now + timedelta(minutes=30)


def test_the_seeded_history_is_consistent(app, runner, tmp_path):
    """Past attempts of every demo campaign by both agents: each on a task of its campaign,
    its times in order and past, its contact and success as the codes' flags make them;
    each agent's spans follow one another, the last one open and OFFLINE as the agent is."""
    seed_cli(app, runner, tmp_path)
    before = utcnow()
    tenant = tenants.get_tenant(PLATFORM, demo.COMPANY, demo.ENVIRONMENT)
    rows = list(db.session.scalars(select(Attempt).order_by(Attempt.id)))
    assert len(rows) > 200
    names = {c.id: c.name for c in db.session.scalars(select(Campaign))}
    assert {names[row.campaign_id] for row in rows} == {
        "Spring Renewals",
        "Win-back",
        "Upgrade Calls",
    }
    assert {row.agent_login for row in rows} == set(QUEUES)
    flags = {(c.group.name, c.name): c for c in db.session.scalars(select(WorkCodeChoice))}
    for row in rows:
        task = db.session.get(Task, row.task_id)
        assert task is not None and task.campaign_id == row.campaign_id
        assert row.ended_how is not None and row.delivered_at < row.ended_at < before
        if row.ended_how != "CLOSED":
            assert row.call_id is None and not row.contact and not row.success
            continue
        times = [row.delivered_at, row.call_started_at, row.connected_at, row.call_ended_at]
        times = [t for t in times if t is not None] + [row.closed_at]
        assert times == sorted(times) and row.closed_at == row.ended_at
        assert (row.connected_at is not None) == (row.call_result == "ANSWERED")
        offered = {group.name for group in task.skill_queue.work_code_groups}
        chosen = [
            flags.get((code["key"], code["value"]))
            for code in row.work_codes
            if code["key"] in offered  # a queue with no group closes with free labels
        ]
        chosen = [c for c in chosen if c is not None]
        assert row.contact == (row.call_result == "ANSWERED" or any(c.contact for c in chosen)), (
            row.work_codes
        )
        assert row.success == any(c.success for c in chosen)
    assert any(row.success for row in rows) and any(row.contact for row in rows)
    assert not all(row.contact for row in rows)
    for login in QUEUES:
        spans = list(
            db.session.scalars(
                select(AgentStateSpan).filter_by(agent_login=login).order_by(AgentStateSpan.id)
            )
        )
        assert {span.state for span in spans} == {"AVAILABLE", "AWAY", "OFFLINE"}
        for span, following in zip(spans, spans[1:], strict=False):
            assert span.started_at <= span.ended_at == following.started_at
        assert (spans[-1].state, spans[-1].ended_at) == ("OFFLINE", None)
        assert demo_agent(login).desk_state == AgentState.OFFLINE
        assert tenant.id == spans[-1].tenant_id
    counts = (count(Attempt), count(AgentStateSpan))
    seed_cli(app, runner, tmp_path)
    assert (count(Attempt), count(AgentStateSpan)) == counts


def test_the_demo_counts_calls_per_account_and_its_three_number_task_rotates(app, tmp_path):
    demo.seed(PLATFORM, str(tmp_path), actor=Actor.operator())
    db.session.commit()
    tenant = tenants.get_tenant(PLATFORM, demo.COMPANY, demo.ENVIRONMENT)
    assert tenant.person_key == "Account"
    assert [limit_words(lim) for lim in list_limits(tenant) if lim.region is None] == [
        "at most 7 calls within 7 days per person, across every campaign",
        "at most 3 calls within 24 hours per person, across every campaign",
    ]
    # The customer who never answers is kept back in both campaigns (test_history.py).
    now = utcnow()
    for name in ("Spring Renewals", "Win-back"):
        counted = progress.campaign_progress(campaigns.get_campaign(tenant, name), now)
        assert {why.key: why.count for why in counted.kept_back_by}["limits"] == 1, name

    # Jane's held task has three numbers; each call without a number dials the next one,
    # until the third call in 24 hours to the account: Florida's limit refuses a fourth.
    jane = demo_agent(demo.JANE.login)
    actor = Actor.agent(jane.login_user_id)
    agent_state.set_agent_state(jane, AgentState.AVAILABLE, actor=actor, now=now)
    task = offers.next_task(jane, actor=actor, now=now).task
    assert task.client_id == "SPR-0025"
    keys = ["Mobile Phone", "Home Phone", "Work Phone"]
    assert [(n.key, n.callable) for n in numbers.task_numbers(task, now)] == [
        (key, True) for key in keys
    ]
    for minute, key in enumerate(keys):
        at = now + timedelta(minutes=minute)
        assert numbers.suggested_phone_key(task, at) == key
        placed = placing.start_call(jane, task.record_id, actor=actor, now=at)
        assert placed.call.phone_key == key
        end = at + timedelta(seconds=30)
        call_events.call_event(
            jane, task.record_id, placed.call_id, "ENDED", "NO_ANSWER", actor=actor, now=end
        )
        db.session.commit()
    later = now + timedelta(minutes=5)
    assert numbers.suggested_phone_key(task, later) == "Mobile Phone"  # round again ...
    with pytest.raises(NotAvailable) as refused:
        placing.start_call(jane, task.record_id, actor=actor, now=later)
    assert refused.value.rule == "CONTACT_LIMIT"  # ... but the account has had its three
    assert "person ACC-0025" in str(refused.value)


def test_the_demo_loads_the_us_pack_and_requires_consent_on_a_campaign_of_regions(app, tmp_path):
    from app.services.calling_rules import pack
    from app.services.calling_rules.rules import list_rules
    from app.services.contact_rules import engine

    demo.seed(PLATFORM, str(tmp_path), actor=Actor.operator())
    db.session.commit()
    tenant = tenants.find_tenant(PLATFORM, demo.COMPANY, demo.ENVIRONMENT)
    assert len(list_rules(tenant)) == len(pack.pack_rules())
    outreach = campaigns.get_campaign(tenant, demo.CONSENT_CAMPAIGN[0])
    assert (outreach.zone_from, outreach.consent_required) == ("number", "all")
    tasks = {
        t.client_id: t
        for t in db.session.scalars(select(Task).where(Task.campaign_id == outreach.id))
    }
    florida, boise, arizona = (tasks[c] for c in ("CON-0001", "CON-0002", "CON-0003"))
    assert florida.regions == ",US-FL," and florida.time_zone == "America/New_York"
    assert boise.zones == ",America/Boise,America/Los_Angeles,"
    assert arizona.time_zone == "America/Phoenix"
    # 21:00 in New York: Florida's pack rule (08:00-20:00) holds its customer back.
    evening = utcnow().replace(hour=2, minute=0, second=0, microsecond=0)
    assert engine.REGION_HOURS in engine.explain(florida, evening).rules
    noon_mountain = evening.replace(hour=19)
    assert engine.explain(arizona, noon_mountain).rules == [engine.NO_CONSENT]
    assert engine.explain(boise, noon_mountain).callable_now
    demo.seed(PLATFORM, str(tmp_path), actor=Actor.operator())  # again: nothing twice
    db.session.commit()
    assert len(list_rules(tenant)) == len(pack.pack_rules())

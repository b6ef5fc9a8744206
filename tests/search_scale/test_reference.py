"""Every search plan answers as the straightforward query does, on generated data.

Random keys and values (`%`, `_`, mixed case, unicode, numbers written many ways), tasks
added, replaced, moved between campaigns, deleted and given another queue, zone, preferred
agent, next work time and attempts (so the trigram table's triggers see inserts, deletes
and updates, and every system key has values to tell apart); then hundreds of random searches, each
with several limits and offsets, compared with reference.py's two answers. Limits span
both sides of the count where a plan stops collecting matches and walks or follows
instead, so every plan is compared.
"""

from __future__ import annotations

import random

import pytest
from sqlalchemy import update

from app.extensions import db
from app.models import Task, search_index
from app.services.campaigns import catalogue as campaigns
from app.services.search import plan as search_plan
from app.services.search import query as search
from app.services.search.criteria import Condition, Criterion
from app.services.tasks.changes import (
    Locator,
    TaskChanges,
    add_or_update_task,
    change_status,
    delete_task,
    transfer_task,
)
from app.services.tasks.validation import ItemInput
from app.wire.times import sent_time
from tests.conftest import SETUP
from tests.search_scale.reference import (
    AGENTS,
    TIMES,
    ZONES,
    Model,
    random_criteria,
    random_items,
    reference_query,
)

TASKS = 160
SEARCHES = 150
LIMITS = ((1, 0), (4, 0), (4, 3), (40, 0), (1000, 0), (1000, 5))


def _add(rng: random.Random, campaign, model: Model, client_id: str, items: dict) -> None:
    """Add the task, or replace its items (its state stays)."""
    task, _ = add_or_update_task(
        campaign,
        client_id,
        [ItemInput(k, v) for k, v in items.items()],
        preferred_agent=rng.choice(AGENTS),
        next_earliest=sent_time(rng.choice(TIMES), "nextEarliestWorkTimeUTC"),
        actor=SETUP,
    )
    state = model.tasks[task.id][1] if task.id in model.tasks else "NOTWORKED"
    model.tasks[task.id] = ({"Id": client_id, **items}, state)


def _generate(rng: random.Random, renewals, winback) -> dict[str, Model]:
    """Tasks in two campaigns, then changes of every kind; returns each campaign's model."""
    models = {"Renewals": Model(), "Winback": Model()}
    for number in range(TASKS):
        name = rng.choice(("Renewals", "Renewals", "Winback"))
        campaign = renewals if name == "Renewals" else winback
        _add(rng, campaign, models[name], f"T{number}", random_items(rng))
    for number, (key, value) in enumerate(EDGE_ITEMS * 3):
        _add(rng, renewals, models["Renewals"], f"E{number}", {key: value})
    db.session.commit()
    ids = {task_id: name for name, model in models.items() for task_id in model.tasks}
    for task_id in rng.sample(sorted(ids), 60):
        name = ids[task_id]
        campaign, model = renewals if name == "Renewals" else winback, models[name]
        items, state = model.tasks[task_id]
        locator = Locator(client_id=items["Id"])
        match rng.choice(("replace", "delete", "move", "queue", "state")):
            case "replace":
                _add(rng, campaign, model, items["Id"], random_items(rng))
            case "delete":
                delete_task(campaign, locator, actor=SETUP)
                del model.tasks[task_id]
            case "move":
                other = "Winback" if name == "Renewals" else "Renewals"
                if any(i["Id"] == items["Id"] for i, _ in models[other].tasks.values()):
                    continue
                transfer_task(campaign, locator, other, TaskChanges(), actor=SETUP)
                moved = dict(items)
                if "SkillQueue" in moved:  # the destination's default queue, kept in step
                    moved["SkillQueue"] = "Sales" if other == "Renewals" else "Support"
                models[other].tasks[task_id] = (moved, state)
                del model.tasks[task_id]
            case "queue":
                changes = TaskChanges(
                    skill_queue="Support",
                    preferred_agent=rng.choice(AGENTS),
                    next_earliest=sent_time(rng.choice(TIMES), "nextEarliestWorkTimeUTC"),
                    time_zone=rng.choice(ZONES),
                )
                change_status(campaign, locator, state, changes, actor=SETUP)
                if "SkillQueue" in items:
                    items["SkillQueue"] = "Support"
            case "state":
                state = rng.choice(("COMPLETED", "REMOVED", "NOTWORKED"))
                change_status(campaign, locator, state, TaskChanges(), actor=SETUP)
                model.tasks[task_id] = (items, state)
        db.session.commit()
    for task_id in rng.sample(sorted(ids), 40):  # attempts only an agent's work changes
        db.session.execute(
            update(Task).where(Task.id == task_id).values(work_attempts=rng.randint(1, 3))
        )
    db.session.commit()
    models["Renewals"].read_system(renewals)
    models["Winback"].read_system(winback)
    return models


def _compare(campaign, model: Model, criteria: list[Criterion]) -> None:
    expected = model.answer(criteria)
    assert reference_query(campaign, criteria) == expected, criteria
    for limit, offset in LIMITS:
        found = [task.id for task in search.search_tasks(campaign, criteria, limit, offset)]
        assert found == expected[offset : offset + limit], (criteria, limit, offset)
    assert search.count_tasks(campaign, criteria) == len(expected), criteria


@pytest.fixture
def generated(app, tenant):
    acme = tenant[0]
    renewals = campaigns.find_campaign(acme, "Renewals")
    winback = campaigns.find_campaign(acme, "Winback")
    models = _generate(random.Random(20261122), renewals, winback)
    return {"Renewals": (renewals, models["Renewals"]), "Winback": (winback, models["Winback"])}


@pytest.mark.parametrize("seed", [1, 2])
def test_every_plan_answers_as_the_reference_query(generated, seed):
    rng = random.Random(seed)
    for _ in range(SEARCHES):
        campaign, model = generated[rng.choice(("Renewals", "Winback"))]
        _compare(campaign, model, random_criteria(rng, model))


def test_the_same_answers_without_the_trigram_index(generated):
    """Where pg_trgm cannot be created (or FTS5 is missing) CONTAINS scans: same answers."""
    connection = db.session.connection()
    if connection.dialect.name == "sqlite":
        search_index.drop(connection)
    else:
        connection.exec_driver_sql(f"DROP INDEX {search_index.TRIGRAM_INDEX}")
    connection.info.pop("trigram_index", None)
    try:
        rng = random.Random(3)
        for _ in range(SEARCHES // 3):
            campaign, model = generated[rng.choice(("Renewals", "Winback"))]
            criteria = [
                Criterion(criterion.key, rng.choice(TEXT_CONDITIONS), criterion.value[:4])
                if not criterion.key.startswith("sys_") and rng.random() < 0.7
                else criterion
                for criterion in random_criteria(rng, model)
            ]
            _compare(campaign, model, criteria)
    finally:
        db.session.rollback()  # the index is back: DDL is transactional on both databases
        db.session.connection().info.pop("trigram_index", None)


TEXT_CONDITIONS = (Condition.CONTAINS, Condition.BEGINSWITH)

# Values that only an exact test tells apart: the trigrams of "abcab" in another order, a
# prefix in the middle, LIKE's wildcards, the characters beside the surrogates and the
# last one (the ends of BEGINSWITH's range), numbers written as text.
EDGE_ITEMS = tuple(
    ("Edge", value)
    for value in (
        "abcab",
        "abcXbcab",
        "Paris",
        "x Paris",
        "paris",
        "50% off",
        "50%_off",
        "500_off",
        "a\ud7ffz",
        "a\ue000",
        "a\U0010ffff",
        "a\U0010ffffb",
        "b",
    )
) + tuple(("Edge number", value) for value in ("10", "010", "9.5", "abc", "1e400", "-0"))
EDGE_CRITERIA = [
    ("Edge", Condition.CONTAINS, "abcab"),
    ("Edge", Condition.CONTAINS, "bca"),
    ("Edge", Condition.BEGINSWITH, "Paris"),
    ("Edge", Condition.BEGINSWITH, "ari"),
    ("Edge", Condition.CONTAINS, "ari"),
    ("Edge", Condition.CONTAINS, "0%_"),
    ("Edge", Condition.CONTAINS, "0_o"),
    ("Edge", Condition.BEGINSWITH, "50%"),
    ("Edge", Condition.BEGINSWITH, "50_"),
    ("Edge", Condition.BEGINSWITH, "a\ud7ff"),
    ("Edge", Condition.BEGINSWITH, "a\U0010ffff"),
    ("Edge", Condition.BEGINSWITH, "\U0010ffff"),
    ("Edge", Condition.BEGINSWITH, "a"),
    ("Edge", Condition.BEGINSWITH, ""),
    ("Edge", Condition.CONTAINS, ""),
    ("Edge", Condition.EQUALS, "paris"),
    ("Edge", Condition.GREATERTHAN, "a\ue000"),
    ("Edge", Condition.LESSTHAN, "P"),
    ("Edge number", Condition.EQUALS, "10"),
    ("Edge number", Condition.GREATERTHAN, "9.5"),
    ("Edge number", Condition.LESSTHAN, "10"),
    ("Edge number", Condition.LESSTHAN, "abc"),
    ("Edge number", Condition.GREATERTHAN, "-1"),
    ("Edge number", Condition.NOTEQUALS, "10"),
]


def test_the_edges_of_each_condition(generated, monkeypatch):
    """Each edge alone, and beside a criterion that most tasks pass; with FEW at 1 a single
    criterion is counted too, so the plans that walk and follow read the edges; with
    SMALL_SHARE above 1 PostgreSQL reads a campaign's items for CONTAINS, not pg_trgm."""
    campaign, model = generated["Renewals"]
    most = Criterion("sys_worked_state", Condition.NOTEQUALS, "REMOVED")
    share = search_plan.SMALL_SHARE
    for few, small in ((search_plan.FEW, share), (1, share), (1, 2)):
        monkeypatch.setattr(search_plan, "FEW", few)
        monkeypatch.setattr(search_plan, "SMALL_SHARE", small)
        for key, condition, value in EDGE_CRITERIA:
            criterion = Criterion(key, condition, value)
            _compare(campaign, model, [criterion])
            _compare(campaign, model, [criterion, most])

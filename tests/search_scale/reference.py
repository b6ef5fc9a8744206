"""What a search must answer, worked out two plain ways: in Python, and as the straightforward
query (each criterion an `IN` of its items, as searches were first written).

Every plan the service may choose (collect, walk, follow; the trigram indexes or not)
must give exactly these answers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from sqlalchemy import func, or_, select

from app.extensions import db
from app.models import SkillQueue, Task, TaskItem
from app.services.search.criteria import Condition, Criterion
from app.services.values import parse_number
from app.wire.times import from_epoch_ms, to_epoch_ms

# Keys and values that trip up LIKE, case, collation and number parsing.
KEYS = ("Name", "name", "City", "Amount", "Code", "Nöte", "日本", "a_b", "a%b", "SkillQueue")
# U+D7FF and U+E000 lie either side of the surrogates, U+10FFFF is the last character: the
# edges of the range a BEGINSWITH reads.
CHARS = "aAbBcZz%_/\\ .-+e0123456789éÉßß日本語😀\ud7ff\ue000\U0010ffff"
COMMON = ("Paris", "paris", "PARIS", "50%_off", "50% off", "500_off", "a_b%c", "日本語テキスト")
NUMBERS = ("10", "010", "9.50", "9.5", "-3", "+7", ".5", "1e3", "1E-2", " 5", "1e400", "0", "-0")
# The system keys' values: agents and zones that differ by case or hold LIKE's wildcards,
# next work times a millisecond apart.
AGENTS = (None, "", "ann", "Ann", "a_b%", "bob")
ZONES = ("UTC", "Europe/Paris", "America/New_York", "Asia/Tokyo")
TIMES = (None, 0, 1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000)
WHOLE = (Condition.EQUALS, Condition.NOTEQUALS, Condition.GREATERTHAN, Condition.LESSTHAN)


def random_value(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.35:
        return rng.choice(COMMON)
    if roll < 0.6:
        return rng.choice(NUMBERS) if rng.random() < 0.5 else str(rng.randint(-50, 2000))
    return "".join(rng.choice(CHARS) for _ in range(rng.randint(0, 14)))


def random_items(rng: random.Random) -> dict[str, str]:
    items = {key: random_value(rng) for key in KEYS[:-1] if rng.random() < 0.7}
    if rng.random() < 0.3:
        items["SkillQueue"] = "Sales"  # kept in step when the task's queue changes
    return items


@dataclass
class Model:
    """The tasks of one campaign as Python sees them: id → (items, worked state), and their
    other system fields (read back once the tasks are made: `read_system`)."""

    tasks: dict[int, tuple[dict[str, str], str]] = field(default_factory=dict)
    system: dict[int, dict[str, object]] = field(default_factory=dict)

    def answer(self, criteria: list[Criterion]) -> list[int]:
        return sorted(
            task_id
            for task_id, (items, state) in self.tasks.items()
            if all(
                _holds(items, state, self.system.get(task_id, {}), criterion)
                for criterion in criteria
            )
        )

    def read_system(self, campaign) -> None:
        """The tasks' queue, zone, preferred agent, next work time and attempts."""
        rows = db.session.execute(
            select(
                Task.id,
                SkillQueue.name,
                Task.time_zone,
                Task.preferred_agent,
                Task.next_earliest_work_at,
                Task.work_attempts,
            )
            .join(SkillQueue, SkillQueue.id == Task.skill_queue_id)
            .where(Task.campaign_id == campaign.id)
        )
        self.system = {
            task_id: {
                "sys_skill_queue": queue,
                "sys_item_time_zone": zone,
                "sys_preferred_agent": agent or "",
                "sys_next_earliest_worktime_long": None if moment is None else to_epoch_ms(moment),
                "sys_worked_attempts": attempts,
            }
            for task_id, queue, zone, agent, moment, attempts in rows
        }


def _holds(items: dict[str, str], state: str, system: dict, criterion: Criterion) -> bool:
    key, condition, value = criterion.key, criterion.condition, criterion.value
    if key == "sys_worked_state":
        return _compares(state, condition, value, numbers=False)
    if key in ("sys_worked_attempts", "sys_next_earliest_worktime_long"):
        found, wanted = system[key], int(value)
        if found is None:  # no next work time: only NOTEQUALS holds
            return condition is Condition.NOTEQUALS
        return {
            Condition.EQUALS: found == wanted,
            Condition.NOTEQUALS: found != wanted,
            Condition.GREATERTHAN: found > wanted,
            Condition.LESSTHAN: found < wanted,
        }[condition]
    if key in system:
        return _compares(system[key], condition, value, numbers=False)
    if condition is Condition.NOTEQUALS:
        return items.get(key) != value
    return key in items and _compares(items[key], condition, value, numbers=True)


def _compares(stored: str, condition: Condition, value: str, numbers: bool) -> bool:
    match condition:
        case Condition.EQUALS:
            return stored == value
        case Condition.NOTEQUALS:
            return stored != value
        case Condition.CONTAINS:
            return value in stored
        case Condition.BEGINSWITH:
            return stored.startswith(value)
    above = condition is Condition.GREATERTHAN
    wanted, found = parse_number(value), parse_number(stored)
    if numbers and wanted is not None and found is not None:
        return found > wanted if above else found < wanted
    return stored > value if above else stored < value  # code point order, as C collation


def reference_query(campaign, criteria: list[Criterion]) -> list[int]:
    """The straightforward SQL: every criterion an IN (or NOT IN) of the campaign's items."""
    query = select(Task.id).where(Task.campaign_id == campaign.id)
    for criterion in criteria:
        key, condition, value = criterion.key, criterion.condition, criterion.value
        if key.startswith("sys_"):
            query = query.where(_system_test(criterion))
            continue
        items = select(TaskItem.task_id).where(
            TaskItem.campaign_id == campaign.id, TaskItem.key == key
        )
        if condition is Condition.NOTEQUALS:
            query = query.where(Task.id.not_in(items.where(TaskItem.value == value)))
            continue
        number = parse_number(value)
        if condition in (Condition.GREATERTHAN, Condition.LESSTHAN) and number is not None:
            numeric = TaskItem.number > number
            if condition is Condition.LESSTHAN:
                numeric = TaskItem.number < number
            textual = TaskItem.number.is_(None) & _sql_test(TaskItem.value, condition, value)
            query = query.where(Task.id.in_(items.where(numeric | textual)))
        else:
            query = query.where(
                Task.id.in_(items.where(_sql_test(TaskItem.value, condition, value)))
            )
    return list(db.session.scalars(query.order_by(Task.id)))


def _system_test(criterion: Criterion):
    """A system key's criterion: a test of the task's own columns."""
    key, condition, value = criterion.key, criterion.condition, criterion.value
    match key:
        case "sys_worked_state":
            return _sql_test(Task.worked_state, condition, value)
        case "sys_item_time_zone":
            return _sql_test(Task.time_zone, condition, value)
        case "sys_preferred_agent":
            return _sql_test(func.coalesce(Task.preferred_agent, ""), condition, value)
        case "sys_skill_queue":
            names = select(SkillQueue.name).where(SkillQueue.id == Task.skill_queue_id)
            return _sql_test(names.scalar_subquery(), condition, value)
        case "sys_worked_attempts":
            return _sql_test(Task.work_attempts, condition, int(value))
    moment = from_epoch_ms(int(value), key)
    test = _sql_test(Task.next_earliest_work_at, condition, moment)
    if condition is Condition.NOTEQUALS:
        return or_(Task.next_earliest_work_at.is_(None), test)
    return test


def _sql_test(column, condition: Condition, value):
    return {
        Condition.EQUALS: lambda: column == value,
        Condition.NOTEQUALS: lambda: column != value,
        Condition.GREATERTHAN: lambda: column > value,
        Condition.LESSTHAN: lambda: column < value,
        Condition.CONTAINS: lambda: column.contains(value, autoescape=True),
        Condition.BEGINSWITH: lambda: column.startswith(value, autoescape=True),
    }[condition]()


def random_criteria(rng: random.Random, model: Model) -> list[Criterion]:
    """One to three criteria, their values mostly taken (or cut) from stored values."""
    stored = [value for items, _ in model.tasks.values() for value in items.values()]
    criteria = []
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
        condition = rng.choice(list(Condition))
        if rng.random() < 0.25:
            criteria.append(_system_criterion(rng, condition))
            continue
        value = rng.choice(stored) if stored and rng.random() < 0.7 else random_value(rng)
        if condition is Condition.CONTAINS:
            start = rng.randint(0, len(value))
            value = value[start : start + rng.randint(0, 6)]
        elif condition is Condition.BEGINSWITH:
            value = value[: rng.randint(0, 6)]
        criteria.append(Criterion(rng.choice((*KEYS, "Missing")), condition, value))
    return criteria


def _system_criterion(rng: random.Random, condition: Condition) -> Criterion:
    """A criterion on a system key, valid for it (whole numbers compare without CONTAINS)."""
    key = rng.choice(
        (
            "sys_worked_state",
            "sys_skill_queue",
            "sys_item_time_zone",
            "sys_preferred_agent",
            "sys_worked_attempts",
            "sys_next_earliest_worktime_long",
        )
    )
    if key == "sys_worked_attempts":
        return Criterion(key, rng.choice(WHOLE), str(rng.randint(-1, 4)))
    if key == "sys_next_earliest_worktime_long":
        return Criterion(
            key, rng.choice(WHOLE), str(max(0, rng.choice(TIMES[1:]) + rng.choice((-1, 0, 1))))
        )
    value = rng.choice(
        {
            "sys_worked_state": ("NOTWORKED", "COMPLETED", "REMOVED", "WORK"),
            "sys_skill_queue": ("Sales", "Support", "sales", "S"),
            "sys_item_time_zone": ZONES,
            "sys_preferred_agent": tuple(agent or "" for agent in AGENTS),
        }[key]
    )
    if condition in (Condition.CONTAINS, Condition.BEGINSWITH):
        start = rng.randint(0, len(value)) if condition is Condition.CONTAINS else 0
        value = value[start : start + rng.randint(0, 4)]
    return Criterion(key, condition, value)


def stored_count(campaign) -> int:
    return db.session.scalar(select(func.count()).where(Task.campaign_id == campaign.id))

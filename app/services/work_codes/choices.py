"""What closing a task offers and accepts: its queue's work-code groups.

`offered` is what the agent is shown (the desk page, the Desk API's nextTask); `check_choice`
checks the codes of a closing against the same groups (delivery/closing.py derives the
outcome from them). A queue without groups takes any codes as free labels.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from app.extensions import db
from app.models import SkillQueue, WorkCodeChoice, WorkCodeGroup, queue_work_code_groups
from app.services.errors import CodeProblem, WorkCodeRefused
from app.services.work_codes.groups import delay_words, find_code


@dataclass(frozen=True)
class OfferedCode:
    """An enabled code as the agent is offered it."""

    name: str
    description: str
    outcome: str | None
    reschedule_minutes: int | None
    adds_to_dnc: bool
    # The call result after which the desk preselects it (a CallResult), or none.
    suggested_for: str | None = None
    revokes_consent: bool = False

    @property
    def delay(self) -> str | None:
        return delay_words(self.reschedule_minutes)


@dataclass(frozen=True)
class OfferedGroup:
    name: str
    required: bool
    multiple: bool
    codes: list[OfferedCode]


def queue_groups(queue: SkillQueue) -> list[WorkCodeGroup]:
    """The queue's groups by name with their codes: two queries, however many groups."""
    return list(
        db.session.scalars(
            select(WorkCodeGroup)
            .join(queue_work_code_groups)
            .where(queue_work_code_groups.c.skill_queue_id == queue.id)
            .order_by(WorkCodeGroup.name)
            .options(selectinload(WorkCodeGroup.codes))
        )
    )


def offered(queue: SkillQueue) -> list[OfferedGroup]:
    """What closing a task of this queue offers: its groups by name, each with its enabled
    codes in sort order; a group with no enabled code is left out (nothing to choose).
    One query of plain rows: every nextTask answer and desk page asks it."""
    rows = db.session.execute(
        select(
            WorkCodeGroup.name,
            WorkCodeGroup.required,
            WorkCodeGroup.multiple,
            WorkCodeChoice.name,
            WorkCodeChoice.description,
            WorkCodeChoice.outcome,
            WorkCodeChoice.reschedule_minutes,
            WorkCodeChoice.adds_to_dnc,
            WorkCodeChoice.suggested_for,
            WorkCodeChoice.revokes_consent,
        )
        .join(queue_work_code_groups)
        .join(WorkCodeChoice, WorkCodeChoice.group_id == WorkCodeGroup.id)
        .where(queue_work_code_groups.c.skill_queue_id == queue.id, WorkCodeChoice.enabled)
        .order_by(WorkCodeGroup.name, WorkCodeChoice.sort_order, WorkCodeChoice.name)
    )
    groups: dict[str, OfferedGroup] = {}
    for name, required, multiple, *code in rows:
        group = groups.setdefault(name, OfferedGroup(name, required, multiple, []))
        group.codes.append(OfferedCode(code[0], code[1] or "", *code[2:]))
    return list(groups.values())


def suggested(groups: list[OfferedGroup], result: str) -> list[tuple[str, str]]:
    """The codes to preselect after a call ended with `result`, as (group, code): of a
    multiple-choice group every code suggested for it, of a single-choice group the first."""
    picks = []
    for group in groups:
        codes = [code for code in group.codes if code.suggested_for == result]
        picks += [(group.name, code.name) for code in (codes if group.multiple else codes[:1])]
    return picks


def check_choice(
    queue: SkillQueue, chosen: Sequence[tuple[str, str]]
) -> list[WorkCodeChoice] | None:
    """The codes of a closing, checked against what the task's queue offers: each an enabled
    code of one of its groups, given once; at most one per single-choice group; one at least
    of every required group. None when the queue has no group: its codes are free labels."""
    groups = {group.name: group for group in queue_groups(queue)}
    if not groups:
        return None
    codes: list[WorkCodeChoice] = []
    for group_name, code_name in chosen:
        group = groups.get(group_name)
        if group is None:
            raise WorkCodeRefused(
                f"work code group '{group_name}' is not one of skill queue '{queue.name}' "
                f"(its groups: {', '.join(groups)})",
                kind=CodeProblem.GROUP_NOT_OFFERED,
                group=group_name,
            )
        code = find_code(group, code_name)
        problem = _code_problem(code, codes)
        if problem is not None:
            said = {
                CodeProblem.UNKNOWN_CODE: f"is not a code of group '{group_name}'",
                CodeProblem.DISABLED: f"of group '{group_name}' is disabled",
                CodeProblem.TWICE: f"of group '{group_name}' is given twice",
            }[problem]
            raise WorkCodeRefused(
                f"work code '{code_name}' {said}", kind=problem, group=group_name, code=code_name
            )
        codes.append(code)
    counts = Counter(code.group.name for code in codes)
    for group in groups.values():
        if counts[group.name] > 1 and not group.multiple:
            raise WorkCodeRefused(
                f"work code group '{group.name}' takes one code, not {counts[group.name]}",
                kind=CodeProblem.ONE_ONLY,
                group=group.name,
            )
        enabled = [code.name for code in group.codes if code.enabled]
        if group.required and enabled and not counts[group.name]:
            raise WorkCodeRefused(
                f"work code group '{group.name}' is required: choose "
                f"{'one or more' if group.multiple else 'one'} of {', '.join(enabled)}",
                kind=CodeProblem.REQUIRED,
                group=group.name,
            )
    return codes


def _code_problem(code: WorkCodeChoice | None, taken: list[WorkCodeChoice]) -> str | None:
    """What is wrong with one code chosen (none found, disabled, already given), or None."""
    if code is None:
        return CodeProblem.UNKNOWN_CODE
    if not code.enabled:
        return CodeProblem.DISABLED
    return CodeProblem.TWICE if code in taken else None

"""One made-up attempt of the demo's past (app/demo/history.py): a preview, a call
that rings and may be answered, talk, wrap-up and the close with a work code, now and then
a skip or a lapse. Its outcome, contact and success follow the chosen codes as the ledger
and the closing make them; the attempt limit is the history's to apply."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from app.models import Campaign, User, WorkCodeChoice
from app.models.attempts import CallResult, EndedHow

# Call results and their weights.
RESULTS = (
    (CallResult.ANSWERED, 42),
    (CallResult.NO_ANSWER, 28),
    (CallResult.BUSY, 10),
    (CallResult.VOICEMAIL, 15),
    (CallResult.INVALID_NUMBER, 5),
)
# The codes an agent chooses after each result, by the group the queue offers, with
# weights; a queue with no group closes with a free label (its key and value).
CODES: dict[str, dict[str, tuple[tuple[str, int], ...]]] = {
    "Outcome": {
        CallResult.ANSWERED: (
            ("Renewed", 30),
            ("Call back", 25),
            ("Not interested", 35),
            ("Do not call", 10),
        ),
        CallResult.NO_ANSWER: (("No answer", 1),),
        CallResult.BUSY: (("Call back", 1), ("No answer", 2)),
        CallResult.VOICEMAIL: (("No answer", 1),),
        CallResult.INVALID_NUMBER: (("Wrong number", 1),),
    },
    "Call result": {
        CallResult.ANSWERED: (("Sale", 30), ("Not interested", 70)),
        CallResult.NO_ANSWER: (("No answer", 1),),
        CallResult.BUSY: (("Busy", 1),),
        CallResult.VOICEMAIL: (("Left voicemail", 1),),
        CallResult.INVALID_NUMBER: (("Wrong number", 1),),
    },
}
FREE_LABELS = {
    CallResult.ANSWERED: (("Renewed", "COMPLETE", 35), ("Call back", "RESCHEDULE", 65)),
    CallResult.INVALID_NUMBER: (("Wrong number", "REMOVE", 1),),
}
TOPICS = ("Price", "Coverage", "Competitor offer")
CALL_BACK = "Call back"


@dataclass(frozen=True)
class Called:
    """An attempt's row, with what its close asks of the task: the codes' longest
    reschedule delay (None: the agent names a time) and whether they list the number."""

    row: dict
    delay_minutes: int | None = None
    lists_number: bool = False


def attempt(
    agent: User,
    campaign: Campaign,
    task: dict,
    delivered: datetime,
    choices: dict,
    rng: random.Random,
    *,
    call_back: bool = False,
    result: CallResult | None = None,
) -> Called:
    """A random attempt of `task` (its queue, groups and phone: its id is given when the
    task is written) by `agent`; with `call_back`, an answered call the customer ends asking
    to be called later; with `result`, a call that ends so (never a skip or a lapse)."""
    row: dict = {
        "campaign_id": campaign.id,
        "skill_queue_id": task["skill_queue_id"],
        "agent_id": agent.id,
        "agent_login": agent.login_user_id,
        "delivered_at": delivered,
        "work_codes": [],
        "contact": False,
        "success": False,
        "outcome": None,
        "closed_at": None,
    }
    luck = 1.0 if call_back or result else rng.random()
    if luck < 0.06:  # skipped at the preview, or left until the offer lapsed
        how = EndedHow.RELEASED if luck < 0.045 else EndedHow.LAPSED
        wait = rng.randint(5, 40) if how == EndedHow.RELEASED else 300
        ended = delivered + timedelta(seconds=wait)
        return Called({**row, "ended_how": how.value, "ended_at": ended})
    if call_back:
        result = CallResult.ANSWERED
    elif result is None:
        result = rng.choices([r for r, _ in RESULTS], [w for _, w in RESULTS])[0]
    # A progressive campaign's desk dials when the preview's seconds are up.
    started = delivered + timedelta(seconds=campaign.auto_dial_seconds or rng.randint(4, 45))
    rang = timedelta(seconds=rng.randint(4, 25))
    connected = started + rang if result == CallResult.ANSWERED else None
    talk = timedelta(seconds=min(int(rng.lognormvariate(4.8, 0.7)), 1500)) if connected else None
    call_ended = (connected or started + rang) + (talk or timedelta())
    closed = call_ended + timedelta(seconds=rng.randint(5, 90))
    row.update(
        call_id=str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        call_started_at=started,
        connected_at=connected,
        call_ended_at=call_ended,
        call_result=result.value,
        phone_key="Mobile Phone",
        phone_number=task["phone"],
        placed_by=campaign.call_placement or "desk",
        ended_how=EndedHow.CLOSED.value,
        ended_at=closed,
        closed_at=closed,
    )
    return _codes(row, task["groups"], result, choices, rng, call_back)


def _codes(
    row: dict, groups: list[str], result: CallResult, choices: dict, rng, call_back: bool
) -> Called:
    """The codes closing the attempt, its outcome and its rollups, as the ledger makes them."""
    chosen: list[WorkCodeChoice | None] = []
    for group in groups:
        offered = CODES.get(group, {}).get(result)
        if call_back and group == "Outcome":
            offered = ((CALL_BACK, 1),)
        if offered:
            name = rng.choices([n for n, _ in offered], [w for _, w in offered])[0]
            chosen.append(choices.get((group, name)))
    if "Topics" in groups and result == CallResult.ANSWERED and rng.random() < 0.4:
        chosen.append(choices.get(("Topics", rng.choice(TOPICS))))
    picked = [c for c in chosen if c is not None]  # a code a supervisor renamed is left out
    answered = result == CallResult.ANSWERED
    if picked:
        implied = {c.outcome for c in picked}
        outcome = next((o for o in ("REMOVE", "COMPLETE") if o in implied), "RESCHEDULE")
        delays = [c.reschedule_minutes for c in picked if c.outcome == "RESCHEDULE"]
        row.update(
            work_codes=[{"key": c.group.name, "value": c.name} for c in picked],
            outcome=outcome,
            contact=answered or any(c.contact for c in picked),
            success=any(c.success for c in picked),
        )
        delay = max((d for d in delays if d), default=None)
        return Called(row, delay, any(c.adds_to_dnc for c in picked))
    labels = FREE_LABELS.get(result, (("No answer", "RESCHEDULE", 1),))
    if call_back:
        labels = ((CALL_BACK, "RESCHEDULE", 1),)
    value, outcome, _ = rng.choices(labels, [w for *_, w in labels])[0]
    row.update(work_codes=[{"key": "Outcome", "value": value}], outcome=outcome, contact=answered)
    return Called(row)

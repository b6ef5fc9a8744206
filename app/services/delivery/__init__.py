"""Delivery: which task an agent works next, and how the agent's work on it ends.

One engine for every door (the desk page, the Desk API, the supervisors' pages):
- `rules`: the eligibility rules, small named SQL conditions (shared with progress counts);
- `agents`: the agent's state and heartbeat;
- `offers`: `next_task`, the order and the reservation;
- `closing`: `close_task` (an outcome, an attempt) and `release_task` (no attempt);
- `ownership`: whose task it is, and a close after a lapse that left the task to its agent;
- `presence`: the open desk's heartbeat, "Keep it", and when each lapse would come;
- `sweeps`: holds, reservations and silent desks that time ends (the worker's clock);
- `progress`: the supervisors' counts, the agents' board, a supervisor's release.
"""

from app.services.delivery.agents import heartbeat, set_agent_state
from app.services.delivery.closing import OUTCOME_RULES, Outcome, close_task, release_task
from app.services.delivery.offers import Offer, next_task, reserved_task
from app.services.delivery.progress import agent_board, campaign_progress, release_by_supervisor
from app.services.delivery.rules import ELIGIBILITY, effective_state
from app.services.delivery.sweeps import expire_holds, expire_reservations
from app.services.errors import NotAvailable

__all__ = [
    "ELIGIBILITY",
    "OUTCOME_RULES",
    "NotAvailable",
    "Offer",
    "Outcome",
    "agent_board",
    "campaign_progress",
    "close_task",
    "effective_state",
    "expire_holds",
    "expire_reservations",
    "heartbeat",
    "next_task",
    "release_by_supervisor",
    "release_task",
    "reserved_task",
    "set_agent_state",
]

"""Delivery: which task an agent works next, and how the agent's work on it ends.

One engine for every door (the desk page, the Desk API, the supervisors' pages):
- `seat`: one agent asking for work at one moment, what every rule is evaluated for;
- `rules`: the eligibility rules, small named SQL conditions (shared with progress counts);
  the rules of other domains (a campaign's life, hours, calling windows, the do-not-call
  list) plug in here, each with the blocker that says when it keeps tasks back;
- `agent_state`: the agent's state and heartbeat;
- `offers`: `next_task`, the order and the reservation;
- `closing`: `close_task` (an outcome, an attempt) and `release_task` (no attempt);
- `ownership`: whose task it is, and a close after a lapse that left the task to its agent;
- `presence`: the open desk's heartbeat, "Keep it", and when each lapse would come;
- `sweeps`: holds, reservations and silent desks that time ends (the worker's clock);
- `progress`, `progress_groups`, `kept_back`: the supervisors' counts, the agents' board, a
  supervisor's release, and why tasks are kept back.
"""

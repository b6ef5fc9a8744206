"""Webhooks: tenants' endpoints, and the delivery of outbox events to them, signed as the
Standard Webhooks specification says, at least once, in order per task.

- `event_types`: the event types.
- `destinations`: where a webhook may be sent (the outbound-address guard).
- `endpoints`: register, edit, rotate the secret, enable, disable, delete.
- `dispatch`: events of the outbox become deliveries.
- `due_deliveries`: due deliveries are claimed, sent and retried with backoff.
- `log`: an endpoint's delivery log and replay.
- `runner`: `run_once()`, what the worker calls.
"""

from app.services.webhooks.runner import run_once

__all__ = ["run_once"]

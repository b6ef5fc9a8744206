"""The audit trail.

- `trail`: what every change leaves, in its own transaction: one audit record and, when others
  should hear of it, one outbox event (`record`, `record_all`, `Change`);
- `reading`: one entity's history, what each change changed, export and pruning.
"""

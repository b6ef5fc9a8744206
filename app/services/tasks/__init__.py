"""Tasks: the records an agent previews and calls, and every rule of their data and life.

- `changes`: add or update, change status, transfer, delete (each with its actor, audit record
  and event);
- `saving`, `writes`: the checked plan of an add or update, then its writes (shared with intake);
- `validation`: the rules a task's data items obey;
- `lookups`: finding a campaign's tasks by previewRecordID or clientId, to read or to change;
- `data`: a task with its items and work codes, loaded as plain rows for many tasks;
- `snapshots`: a task as it stands, for its audit records, its events and the doors;
- `tracing`: a task's change as its audit record and event, in one call;
- `history`: a task's history as its page shows it;
- `display`: how an agent sees a task (the special data-item keys).
"""

"""The domain rules, one package per domain, called by every door (the JSON APIs, the
supervisors' pages, the desk, the commands, the worker's jobs).

A service takes domain values and an `Actor` (app/services/actors.py) for every change, and
writes the change, its audit record and its event in the caller's transaction. Services never
import a door, never read a request or `flask.g`, and queue background work through
`app.jobs.queue.enqueue` alone. Failures are `ServiceError`s (app/services/errors.py), which
each door turns into its own answer.

Packages: `tasks`, `search`, `delivery`, `schedules`, `dnc`, `work_codes`, `campaigns`,
`tenants`, `people`, `contact_centre`, `intake`, `bulk`, `webhooks`, `audit`. Shared by them:
`actors`, `errors`, `values` (phone numbers, zones, numbers), `record_ids`, `csv_files`,
`shown_once`; `demo` seeds a fresh install.
"""

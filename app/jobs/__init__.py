"""The background worker's jobs, on a huey queue (SQLite by default, Redis with REDIS_URL).

- `queue`: the huey instance the app's settings configure, the `job` decorator, and
  `enqueue`, through which services queue a job by its name.
- `leases`: a job that must not run twice at once holds a lease with a heartbeat.
- `intake`: intake loads from the UI and the drop watcher, and the sweep that takes up
  loads a dead worker left.
- `bulk`: bulk actions on a search result, and the sweep that takes up jobs a dead worker
  left.
- `clock`: the tick (webhook deliveries), the minute and the day.

Start a worker with `flask --app wsgi worker [--workers N]`.

Jobs call services; services queue jobs through `enqueue` alone, never importing a job
module. The app factory imports the job modules, which registers them with the queue.
"""

from app.jobs.queue import enqueue, huey, init_app

__all__ = ["enqueue", "huey", "init_app"]

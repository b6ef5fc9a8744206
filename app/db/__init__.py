"""How the app talks to its database, SQLite or PostgreSQL.

- `engines`: each engine's set-up (SQLite's pragmas, its BEGIN, its file; PostgreSQL's pooled
  connections checked at checkout).
- `transactions`: the write-lock protocol: a view's mode (`read_only`, `writes`,
  `reads_first`), `take_write_lock`, and `transaction(session, read_only=...)` for work
  outside a request.
- `side_transactions`: short transactions of their own beside the request's (rate-limit
  counts, session stamps).
- `sqlite_writes`: the turns SQLite's writers take for its one write lock, and checkpoints.
- `plain_reads`: reads built once with SQLAlchemy and run on the driver.
- `bulk_inserts`: rows by the thousand straight to the driver.
- `pg_connections`: PostgreSQL connections known open before a request uses them.
- `rate_limit_counters`: the `database://` storage of the rate limits.
- `private_files`: files no other account of the machine may read.
"""

"""Where a benchmark runs on PostgreSQL: a database of its own on TEST_DATABASE_URL's server.

Each benchmark empties and loads its database, so none of them touches TEST_DATABASE_URL's
own database (the test suite's) or another benchmark's.
"""

from __future__ import annotations

import os
import tempfile
import time

from sqlalchemy import create_engine, make_url, text

from app.config import database_url


def postgresql_url(own: str, variable: str = "BENCH_DATABASE_URL") -> str | None:
    """`variable`'s URL when set; else TEST_DATABASE_URL's server with the database
    `<its database>_<own>`, created when absent; None when neither is set."""
    if url := os.environ.get(variable):
        return database_url(url)
    if not (url := os.environ.get("TEST_DATABASE_URL")):
        return None
    server = make_url(database_url(url))
    name = f"{server.database}_{own}"
    engine = create_engine(server.set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            exists = connection.scalar(
                text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": name}
            )
            if not exists:
                connection.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        engine.dispose()
    return server.set(database=name).render_as_string(hide_password=False)


def on_both(name: str, report) -> None:
    """`report(database name, URL)` on SQLite in a temporary folder, then on PostgreSQL
    (postgresql_url's database `<test>_<name>_bench`) when TEST_DATABASE_URL or
    BENCH_DATABASE_URL is set."""
    started = time.perf_counter()
    print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    with tempfile.TemporaryDirectory() as folder:
        report("SQLite", f"sqlite:///{folder}/{name}.db")
    print(f"(SQLite part: {time.perf_counter() - started:.0f} s)")
    url = postgresql_url(f"{name}_bench")
    if not url:
        print("PostgreSQL: set TEST_DATABASE_URL to run it there too")
        return
    print()
    report("PostgreSQL", url)

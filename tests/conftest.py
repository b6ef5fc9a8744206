"""Fixtures: an app on a fresh schema (SQLite, or TEST_DATABASE_URL), a client, a tenant."""

from __future__ import annotations

import json
import logging
import os
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import Dialect, Engine, create_engine, make_url, text
from werkzeug.routing.rules import Rule

from app import config, create_app
from app.config import database_url, test_settings
from app.extensions import db
from app.services.actors import Actor
from app.services.campaigns import catalogue as campaigns
from app.services.tenants import api_keys as keys
from app.services.tenants import setup as tenants

# Fixtures of Redis for the tests that need one: the shared server, a private one; Chromium
# and the live servers of the browser tests, one of each per test process.
pytest_plugins = ["tests.redis_support", "tests.fixtures", "tests.browser.shared"]

PREVIEW = "/service-previewcontact-service/svc/rs/PreviewContactServiceExternal/"
PLATFORM = "AWS Connect"
# Who sets up a test's data: an operator at the shell, as the CLI would.
SETUP = Actor.operator()


# The slowest files start first, so that the two processes of `make test` (pytest-xdist,
# `--dist loadfile --no-loadscope-reorder`) end together instead of one of them starting a
# minute-long file last: tests/file_weights.json holds each slow file's seconds as a run
# recorded them, and the files it does not name keep their order after those.
# `RECORD_TEST_WEIGHTS=1 make test` writes it again from a whole run.
FILE_WEIGHTS = Path(__file__).with_name("file_weights.json")
_SPENT: defaultdict[str, float] = defaultdict(float)


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items) -> None:
    weights = json.loads(FILE_WEIGHTS.read_text()) if FILE_WEIGHTS.exists() else {}
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        first.setdefault(_file_of(item.nodeid), index)
    items.sort(
        key=lambda item: (-weights.get(_file_of(item.nodeid), 0), first[_file_of(item.nodeid)])
    )


def pytest_runtest_logreport(report) -> None:
    if os.environ.get("RECORD_TEST_WEIGHTS") == "1":
        _SPENT[_file_of(report.nodeid)] += report.duration


def pytest_sessionfinish(session) -> None:
    # Under pytest-xdist the reports reach the controlling process too: it alone writes.
    if _SPENT and not hasattr(session.config, "workerinput"):
        slow = {name: round(spent, 1) for name, spent in sorted(_SPENT.items()) if spent >= 2}
        FILE_WEIGHTS.write_text(json.dumps(slow, indent=1) + "\n")


# Every test builds its own app, and Werkzeug writes and compiles two URL-building functions
# for each of its ~90 routes, three quarters of the app's making (some 90 ms a test). A
# builder depends only on its rule (the function takes the rule as its first argument), so
# the run compiles each once and every later app binds the same function.
_compile_builder = Rule._compile_builder
_BUILDERS: dict[tuple, object] = {}


def _compiled_once(rule: Rule, append_unknown: bool = True):
    defaults = repr(sorted((rule.defaults or {}).items()))
    key = (rule.rule, tuple(rule._trace), defaults, append_unknown)
    builder = _BUILDERS.get(key)
    if builder is None:
        builder = _BUILDERS[key] = _compile_builder(rule, append_unknown)
    return builder


Rule._compile_builder = _compiled_once

# Parsing a rule (its parts, the regular expressions of its converters, their weights) was
# four fifths of what was left of an app's making: every app of the run parses the same
# rules with the same converters, so each is parsed once, and a later rule of the same text
# takes the parts, the trace, the converters and the arguments the first one made.
_parse_rule = Rule._parse_rule
_PARSED: dict[tuple, tuple] = {}


def _parsed_once(rule: Rule, text: str):
    converters = tuple(sorted((name, id(kind)) for name, kind in rule.map.converters.items()))
    key = (text, converters)
    parsed = _PARSED.get(key)
    if parsed is None:
        traced, had, named = len(rule._trace), set(rule._converters), set(rule.arguments)
        parts = list(_parse_rule(rule, text))
        converters_made = {k: v for k, v in rule._converters.items() if k not in had}
        parsed = _PARSED[key] = (
            parts, rule._trace[traced:], converters_made, rule.arguments - named,
        )  # fmt: skip
        return parts
    parts, trace, converters_made, arguments = parsed
    rule._trace.extend(trace)
    rule._converters.update(converters_made)
    rule.arguments.update(arguments)
    return list(parts)


Rule._parse_rule = _parsed_once


# Each app also makes its own engines, and an engine keeps the SQL it compiled in a cache of
# its own, keyed by its dialect: every test compiled again each statement it sent, a fifth
# of the suite's time. Engines of the same settings share one dialect and one cache for
# the run; everything else (pool, connections, listeners, SQLite's write turns) stays the
# test's own, and the `app` fixture disposes of it after each test.
_make_engine = SQLAlchemy._make_engine
_COMPILED: dict[str, tuple[Dialect, object]] = {}


def _engine_compiling_once(self, bind_key, options: dict, app) -> Engine:
    engine = _make_engine(self, bind_key, options, app)
    key = repr((str(engine.url), sorted(options.items(), key=lambda item: item[0])))
    shared = _COMPILED.get(key)
    # A dialect is set up by its engine's first connection; until one has been, each new
    # engine offers its own.
    if shared is None or shared[0].server_version_info is None:
        _COMPILED[key] = (engine.dialect, engine._compiled_cache)
    else:
        engine.dialect, engine._compiled_cache = shared
        engine.pool._dialect = engine.dialect
    return engine


SQLAlchemy._make_engine = _engine_compiling_once


@pytest.fixture(scope="session")
def database_uri(tmp_path_factory, worker_id) -> str:
    """TEST_DATABASE_URL when set (PostgreSQL in CI), else a SQLite file of this run.

    Under pytest-xdist each worker process gets a database of its own on that server
    (`<name>_gw0`, `<name>_gw1`…), since every test empties the tables it runs on.
    """
    url = os.environ.get("TEST_DATABASE_URL")
    if not url:
        return f"sqlite:///{tmp_path_factory.mktemp('db') / 'test.db'}"
    if worker_id == "master":
        return url
    return _database_of_its_own(url, worker_id)


def _database_of_its_own(url: str, worker_id: str) -> str:
    server_url = make_url(database_url(url))
    name = f"{server_url.database}_{worker_id}"
    server = create_engine(server_url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        with server.connect() as connection:
            exists = connection.scalar(
                text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": name}
            )
            if not exists:
                connection.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        server.dispose()
    return server_url.set(database=name).render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def _schema(database_uri):
    """Create the tables once per run; each test then starts from empty tables."""
    app = create_app(test_settings(database_uri))
    with app.app_context():
        db.drop_all()
        db.create_all()
    yield
    with app.app_context():
        db.drop_all()
        for engine in db.engines.values():
            engine.dispose()


def _empty_tables() -> None:
    # DELETE beats TRUNCATE on PostgreSQL for tables this small; there all of them go in one
    # round trip (statements without parameters are sent as one query).
    tables = list(reversed(db.metadata.sorted_tables))
    connection = db.session.connection()
    if connection.dialect.name == "postgresql":
        quote = connection.dialect.identifier_preparer.quote
        connection.exec_driver_sql("; ".join(f"DELETE FROM {quote(t.name)}" for t in tables))
    else:
        for table in tables:
            db.session.execute(table.delete())
    db.session.commit()


@pytest.fixture
def settings(database_uri) -> dict:
    """The test settings; a test may change them before asking for `app`."""
    return test_settings(database_uri)


@pytest.fixture
def app(settings, _schema):
    app = create_app(settings)
    with app.app_context():
        _empty_tables()
        yield app
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


def sc_headers(company: str, environment: str, region: str, key: str) -> dict:
    """The five X-sc- headers both APIs require."""
    return {
        "X-sc-platform-code": PLATFORM,
        "X-sc-company-code": company,
        "X-sc-company-environment": environment,
        "X-sc-secrets-region": region,
        "X-sc-company-api-key": key,
    }


@dataclass
class Api:
    """Calls the Preview API as one tenant: headers, the common body, a default campaign."""

    client: object
    company: str
    environment: str
    region: str
    key: str
    campaign: str = "Renewals"
    extra_headers: dict = field(default_factory=dict)

    @property
    def headers(self) -> dict:
        return {**sc_headers(self.company, self.environment, self.region, self.key),
                **self.extra_headers}  # fmt: skip

    def body(self, **fields) -> dict:
        return {
            "platform": PLATFORM,
            "companyCode": self.company,
            "environment": self.environment,
            "region": self.region,
            "campaignName": self.campaign,
            **fields,
        }

    def post(self, action: str, **fields):
        """POST the action with the common body plus `fields`; the raw response."""
        return self.client.post(PREVIEW + action, json=self.body(**fields), headers=self.headers)

    def call(self, action: str, **fields) -> dict:
        """POST the action and return its JSON body (asserting HTTP 200)."""
        response = self.post(action, **fields)
        assert response.status_code == 200, response.data
        return response.get_json()

    def status(self, action: str, **fields) -> str:
        return self.call(action, **fields)["previewResult"]["previewResultStatus"]

    def add(self, client_id: str, data: dict | list | None = None, **fields) -> dict:
        """Add or update a task; `data` as {key: value} or a list of item dicts."""
        if isinstance(data, dict) or data is None:
            data = [{"key": k, "value": v} for k, v in (data or {"Name": client_id}).items()]
        return self.call(
            "addOrUpdateCampaignRecord", clientId=client_id, previewRecordData=data, **fields
        )

    def find(self, client_id: str, **fields) -> dict | None:
        """The task with this clientId as search returns it, or None."""
        answer = self.call("searchPreviewCampaign", clientId=client_id, **fields)
        records = answer["previewRecordClientData"]
        return records[0] if records else None

    def search(self, *criteria: tuple[str, str, str], **fields) -> list[dict]:
        """Tasks matching (key, condition, value) criteria; asserts SUCCESS."""
        answer = self.call(
            "searchPreviewCampaign",
            previewRecordData=[{"key": k, "condition": c, "value": v} for k, c, v in criteria],
            **fields,
        )
        assert answer["previewResult"]["previewResultStatus"] == "SUCCESS", answer
        return answer["previewRecordClientData"]


def make_tenant(
    company: str = "Acme",
    environment: str = "prod",
    region: str = "us-east-1",
    auth_mode: str = "saml",
    queues: tuple[str, ...] = ("Sales", "Support"),
    campaigns_: tuple[tuple[str, str, str], ...] = (
        ("Renewals", "Sales", "America/New_York"),
        ("Winback", "Support", "Europe/London"),
    ),
):
    """A committed tenant with queues and campaigns; returns (tenant, api key)."""
    tenant = tenants.create_tenant(PLATFORM, company, environment, region, auth_mode, actor=SETUP)
    key = keys.issue_key(tenant, actor=SETUP)
    for queue in queues:
        tenants.create_skill_queue(tenant, queue, actor=SETUP)
    db.session.flush()
    for name, queue, zone in campaigns_:
        campaigns.create_campaign(tenant, name, queue, zone, actor=SETUP)
    db.session.commit()
    return tenant, key


@pytest.fixture
def tenant(app):
    """Tenant Acme/prod in us-east-1 with queues Sales, Support and two campaigns."""
    return make_tenant()


@pytest.fixture
def api(client, tenant) -> Api:
    _tenant, key = tenant
    return Api(client, "Acme", "prod", "us-east-1", key)


@pytest.fixture
def acme(tenant):
    """Tenant Acme/prod: queues Sales, Support; campaigns Renewals (Sales, America/New_York)
    and Winback (Support, Europe/London). The `api` fixture calls the API as this tenant."""
    return tenant[0]


@pytest.fixture
def renewals(acme):
    return campaigns.find_campaign(acme, "Renewals")


@pytest.fixture
def winback(acme):
    return campaigns.find_campaign(acme, "Winback")


# Databases built by the migrations (tests/test_migrations.py, the storage check).


@pytest.fixture
def _logging_kept():
    """env.py runs fileConfig(alembic.ini); put the process's logging back afterwards."""
    root = logging.getLogger()
    saved_root = (root.level, root.handlers[:])
    saved = {
        name: (logger.disabled, logger.level, logger.handlers[:])
        for name, logger in logging.root.manager.loggerDict.items()
        if isinstance(logger, logging.Logger)
    }
    yield
    root.setLevel(saved_root[0])
    root.handlers[:] = saved_root[1]
    for name, logger in logging.root.manager.loggerDict.items():
        if isinstance(logger, logging.Logger):
            logger.disabled, level, handlers = saved.get(name, (False, logging.NOTSET, []))
            logger.setLevel(level)
            logger.handlers[:] = handlers


@pytest.fixture
def empty_database(database_uri, tmp_path):
    """The URI of a new, empty database: a SQLite file, or a PostgreSQL database of its own."""
    url = make_url(config.test_settings(database_uri)["SQLALCHEMY_DATABASE_URI"])
    if url.get_backend_name() != "postgresql":
        yield f"sqlite:///{tmp_path / 'migrated.db'}"
        return
    name = f"migrations_check_{uuid.uuid4().hex[:12]}"
    server = create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        with server.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        yield url.set(database=name).render_as_string(hide_password=False)
        with server.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        server.dispose()


@pytest.fixture
def fresh_app(empty_database, _logging_kept):
    app = create_app(config.test_settings(empty_database))
    with app.app_context():
        yield app
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()

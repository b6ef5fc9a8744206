"""Settings come from environment variables, with safe defaults for a fresh machine."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from sqlalchemy import text

from app import config
from app.extensions import db


def test_without_database_url_the_database_is_a_sqlite_file_in_the_instance_folder(
    app, monkeypatch
):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("SECRET_KEY", "from-env")
    url = config.from_environment()["SQLALCHEMY_DATABASE_URI"]
    assert url.startswith("sqlite:///")
    assert Path(url.removeprefix("sqlite:///")).parent == Path(app.instance_path)


@pytest.mark.parametrize("url", [None, ""])
def test_an_empty_database_url_means_sqlite_in_the_instance_folder(url):
    assert config.database_url(url) == f"sqlite:///{config.INSTANCE_PATH / 'service.db'}"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("postgres://u:p@db:5432/prod", "postgresql+psycopg://u:p@db:5432/prod"),
        ("postgresql://u:p@db:5432/prod", "postgresql+psycopg://u:p@db:5432/prod"),
        ("postgresql+psycopg://u@db/prod", "postgresql+psycopg://u@db/prod"),
        ("sqlite:////srv/data/service.db", "sqlite:////srv/data/service.db"),
    ],
)
def test_postgres_urls_get_the_psycopg_driver(given, expected):
    assert config.database_url(given) == expected


def test_database_url_from_the_environment_is_used(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgres://u@db/prod")
    monkeypatch.setenv("SECRET_KEY", "from-env")
    assert config.from_environment()["SQLALCHEMY_DATABASE_URI"] == "postgresql+psycopg://u@db/prod"


def test_secret_key_is_generated_once_into_the_instance_folder_owner_only(tmp_path, monkeypatch):
    monkeypatch.delenv("SECRET_KEY", raising=False)
    instance = tmp_path / "instance"
    key = config._secret_key(instance)
    path = instance / "secret_key"
    assert path.read_text().strip() == key
    assert len(key) >= 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert config._secret_key(instance) == key


def test_secret_key_files_differ_between_installations(tmp_path, monkeypatch):
    monkeypatch.delenv("SECRET_KEY", raising=False)
    assert config._secret_key(tmp_path / "a") != config._secret_key(tmp_path / "b")


def test_secret_key_from_the_environment_wins(tmp_path, monkeypatch):
    monkeypatch.setenv("SECRET_KEY", "from-env")
    assert config._secret_key(tmp_path) == "from-env"
    assert not (tmp_path / "secret_key").exists()


def test_production_settings_use_the_instance_secret_key(tmp_path, monkeypatch):
    monkeypatch.delenv("SECRET_KEY", raising=False)
    monkeypatch.setattr(config, "INSTANCE_PATH", tmp_path)
    secret = config.from_environment()["SECRET_KEY"]
    assert secret == (tmp_path / "secret_key").read_text().strip()


@pytest.mark.parametrize(
    ("name", "default"),
    [
        ("PLATFORM_CODE", "AWS Connect"),
        ("KEY_GRACE_SECONDS", 7200),
        ("PASSWORD_HASH_METHOD", "scrypt"),
    ],
)
def test_settings_have_defaults(monkeypatch, name, default):
    monkeypatch.delenv(name, raising=False)
    assert config.defaults()[name] == default


@pytest.mark.parametrize(
    ("name", "raw", "value"),
    [
        ("PLATFORM_CODE", "Genesys Cloud", "Genesys Cloud"),
        ("KEY_GRACE_SECONDS", "60", 60),
        ("SQLITE_BUSY_TIMEOUT_MS", "250", 250),
        ("PASSWORD_HASH_METHOD", "pbkdf2:sha256:600000", "pbkdf2:sha256:600000"),
        ("PASSWORD_HASH_METHOD", "scrypt:65536:8:1", "scrypt:65536:8:1"),
    ],
)
def test_settings_are_read_from_environment_variables(monkeypatch, name, raw, value):
    monkeypatch.setenv(name, raw)
    assert config.defaults()[name] == value


@pytest.mark.parametrize("raw", ["md5", "plain", "scrypt:fast", "pbkdf2:sha1:1", ""])
def test_an_unknown_password_hash_method_stops_the_app_at_start(monkeypatch, raw):
    monkeypatch.setenv("PASSWORD_HASH_METHOD", raw)
    with pytest.raises(ValueError, match="PASSWORD_HASH_METHOD"):
        config.defaults()


def test_default_key_grace_outlasts_the_hour_a_client_caches_a_key(monkeypatch):
    monkeypatch.delenv("KEY_GRACE_SECONDS", raising=False)
    assert config.defaults()["KEY_GRACE_SECONDS"] > 3600


@pytest.mark.parametrize(
    ("env", "pool_size", "max_overflow"),
    [
        ({}, 16, 16),
        ({"GUNICORN_THREADS": "4"}, 4, 4),
        ({"DB_POOL_SIZE": "3", "DB_MAX_OVERFLOW": "1"}, 3, 1),
    ],
    ids=["default", "threads", "explicit"],
)
def test_the_pool_holds_a_connection_for_every_thread(env, pool_size, max_overflow):
    options = config.engine_options("sqlite:///x.db", env)
    assert (options["pool_size"], options["max_overflow"]) == (pool_size, max_overflow)
    assert "connect_args" not in options  # SQLite's driver takes no server options


def test_postgresql_sessions_get_the_service_settings():
    options = config.engine_options("postgresql+psycopg://db/x", {})
    assert options["connect_args"] == {
        "options": config.POSTGRESQL_OPTIONS,
        **config.POSTGRESQL_KEEPALIVES,
    }
    assert options["isolation_level"] == "READ COMMITTED"
    custom = config.engine_options("postgresql+psycopg://db/x", {"PG_OPTIONS": "-c jit=on"})
    assert custom["connect_args"]["options"] == "-c jit=on"


def test_the_app_s_postgresql_connections_run_without_jit(app):
    if db.engine.dialect.name != "postgresql":
        pytest.skip("a PostgreSQL setting")
    assert db.session.scalar(text("SHOW jit")) == "off"
    assert db.session.scalar(text("SHOW max_parallel_workers_per_gather")) == "0"
    assert db.session.scalar(text("SHOW idle_in_transaction_session_timeout")) == "1min"

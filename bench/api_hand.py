"""Search by clientId and add, hand-written on the bare driver: the ceiling of those two
requests with their database work, which bench/api.py measures the Preview API against
beside the bare endpoint.

Each request does what the service's must, with nothing around it: the key checked against
its stored hash, the campaign found by name, then for a search the task and its items read
and answered; for an add the task, its items, an audit record and an event inserted in one
transaction. No ORM, no validation, no rate limit, no trail rules: one connection per
thread, plain SQL, the service's own schema and database. Served by gunicorn with the
API's own settings, at DATABASE_URL (SQLite or PostgreSQL).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from flask import Flask, jsonify, request
from sqlalchemy import make_url

app = Flask(__name__)
_URL = make_url(os.environ["DATABASE_URL"])
_SQLITE = _URL.get_backend_name() == "sqlite"
_local = threading.local()

_KEY = """SELECT k.key_hash, t.id FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
WHERE t.platform = ? AND t.company_code = ? AND t.environment = ?
AND (k.expires_at IS NULL OR k.expires_at > ?)"""
_CAMPAIGN = """SELECT id, default_skill_queue_id, default_time_zone, client_id_field_name
FROM campaigns WHERE tenant_id = ? AND name = ?"""
_TASK = """SELECT id, record_id, client_id, worked_state, work_attempts, preferred_agent,
next_earliest_work_at FROM tasks WHERE campaign_id = ? AND client_id = ?"""
_ITEMS = "SELECT key, value FROM task_items WHERE task_id = ? ORDER BY position"
_ADD_TASK = """INSERT INTO tasks (record_id, campaign_id, client_id, client_id_field,
skill_queue_id, time_zone, worked_state, work_attempts, created_at, updated_at, version)
VALUES (?, ?, ?, ?, ?, ?, 'NOT_WORKED', 0, ?, ?, 1) RETURNING id"""
_ADD_ITEM = """INSERT INTO task_items (task_id, campaign_id, key, value, number, position)
VALUES (?, ?, ?, ?, ?, ?)"""
_ADD_AUDIT = """INSERT INTO audit_records (tenant_id, at, actor_kind, actor_id, action,
entity_kind, entity_id, after) VALUES (?, ?, 'api_key', ?, 'task.added', 'task', ?, ?)"""
_ADD_EVENT = """INSERT INTO events (event_id, tenant_id, type, subject, payload, created_at)
VALUES (?, ?, 'task.added', ?, ?, ?)"""


def _sql(text: str) -> str:
    return text if _SQLITE else text.replace("?", "%s")


def _connection():
    if not hasattr(_local, "connection"):
        if _SQLITE:
            connection = sqlite3.connect(_URL.database, isolation_level=None, timeout=15)
            for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "busy_timeout=15000"):
                connection.execute(f"PRAGMA {pragma}")
        else:
            import psycopg

            connection = psycopg.connect(
                _URL.set(drivername="postgresql").render_as_string(hide_password=False)
            )
        _local.connection = connection
    return _local.connection


def _now():
    moment = datetime.now(UTC).replace(tzinfo=None)
    return moment.isoformat(sep=" ") if _SQLITE else moment


def _caller(cursor, body: dict) -> tuple[int, tuple]:
    """The tenant of a live key matching the headers, and its campaign's row."""
    headers = request.headers
    names = ("X-sc-platform-code", "X-sc-company-code", "X-sc-company-environment")
    identity = [headers.get(name, "") for name in names]
    presented = hashlib.sha256(headers.get("X-sc-company-api-key", "").encode()).hexdigest()
    cursor.execute(_sql(_KEY), (*identity, _now()))
    tenant = next((t for stored, t in cursor.fetchall()
                   if hmac.compare_digest(stored, presented)), None)  # fmt: skip
    if tenant is None:
        raise PermissionError("the API key is not valid")
    cursor.execute(_sql(_CAMPAIGN), (tenant, body["campaignName"]))
    return tenant, cursor.fetchone()


@contextmanager
def _request() -> Iterator[tuple]:
    """The body, a cursor in a transaction begun as a reader, the caller's tenant and
    campaign; the transaction is committed at the end, rolled back on an error."""
    body = request.get_json()
    connection = _connection()
    cursor = connection.cursor()
    if _SQLITE:
        cursor.execute("BEGIN")
    try:
        yield body, cursor, *_caller(cursor, body)
    except BaseException:
        cursor.execute("ROLLBACK") if _SQLITE else connection.rollback()
        raise
    cursor.execute("COMMIT") if _SQLITE else connection.commit()


@app.post("/hand/search")
def search():
    with _request() as (body, cursor, _tenant, campaign):
        cursor.execute(_sql(_TASK), (campaign[0], body["clientId"]))
        task = cursor.fetchone()
        cursor.execute(_sql(_ITEMS), (task[0],))
        items = cursor.fetchall()
    record = {"previewRecordID": task[1], "clientId": task[2], "sys_worked_state": task[3],
              "sys_worked_attempts": task[4],
              "previewRecordData": [{"key": k, "value": v} for k, v in items]}  # fmt: skip
    return jsonify({"status": "SUCCESS", "previewRecordClientData": [record], **body})


@app.post("/hand/add")
def add():
    with _request() as (body, cursor, tenant, campaign):
        campaign_id, queue, zone, field = campaign
        record_id, now = secrets.token_hex(16), _now()
        if _SQLITE:  # the write lock taken once the reads are done, as the service does
            cursor.execute("COMMIT")
            cursor.execute("BEGIN IMMEDIATE")
        values = (record_id, campaign_id, body["clientId"], field, queue, zone, now, now)
        cursor.execute(_sql(_ADD_TASK), values)
        task_id = cursor.fetchone()[0]
        items = body["previewRecordData"]
        cursor.executemany(
            _sql(_ADD_ITEM),
            [(task_id, campaign_id, item["key"], item["value"], None, n)
             for n, item in enumerate(items)],
        )  # fmt: skip
        data = json.dumps({"previewRecordID": record_id, "clientId": body["clientId"],
                           "previewRecordData": items})  # fmt: skip
        cursor.execute(_sql(_ADD_AUDIT), (tenant, now, "1", record_id, data))
        cursor.execute(_sql(_ADD_EVENT), (str(uuid.uuid4()), tenant, record_id, data, now))
    return jsonify({"status": "SUCCESS", **body})


@app.errorhandler(PermissionError)
def unauthorized(error):
    return jsonify({"status": "unauthorized", "message": str(error)}), 401

"""The service's application factory."""

from __future__ import annotations

from pathlib import Path

from flask import Flask, request
from flask_login import current_user
from werkzeug.middleware.proxy_fix import ProxyFix

from app import cli, scim
from app.admin import bp as admin
from app.admin.wallboard import answer_unchanged_first
from app.api import preview, reports, users
from app.api.docs import bp as api_docs
from app.config import INSTANCE_PATH, from_environment
from app.db import rate_limit_counters  # noqa: F401 - registers the database:// storage
from app.db.engines import register_database
from app.desk import api as desk_api  # noqa: F401 - the Desk API's views, on api_bp
from app.desk import (
    api_bp,
    live,  # noqa: F401 - the desk's live channel, on bp
    page_json,  # noqa: F401 - the JSON the desk page's script calls, on bp
    pages,  # noqa: F401 - the desk's views register themselves on bp
    sso,  # noqa: F401 - signing agents in through their company's identity provider
)
from app.desk import bp as desk
from app.extensions import csrf, db, limiter, login_manager, migrate
from app.jobs import bulk, clock, intake  # noqa: F401 - registers the jobs with the queue
from app.jobs.queue import init_app as init_job_queue
from app.services.contact_limits.contacts import keep_contact_marks
from app.services.reports.rollups import keep_rollups
from app.web.api_paths import API_PREFIXES
from app.web.broadcast import install_hub
from app.web.errors import register_error_handlers
from app.web.json_provider import OrjsonProvider
from app.web.security import register_security

ROOT = Path(__file__).resolve().parent.parent
# Form posts that carry a file: they may exceed MAX_CONTENT_LENGTH (INTAKE_MAX_UPLOAD_BYTES).
UPLOADS = frozenset({"admin.upload_intake", "admin.dnc_import"})


def create_app(config: dict | None = None) -> Flask:
    """Build the app: settings (from the environment unless given), extensions,
    blueprints, error handlers and commands."""
    app = Flask(
        __name__,
        instance_path=str(INSTANCE_PATH),
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    app.json = OrjsonProvider(app)
    app.config.from_mapping(from_environment() if config is None else config)
    if app.config.get("TRUST_PROXY"):
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=1, x_proto=1, x_host=1)
    register_extensions(app)
    register_blueprints(app)
    register_error_handlers(app)
    register_security(app)
    cli.register(app)
    return app


def register_extensions(app: Flask) -> None:
    @app.before_request
    def _upload_limit() -> None:
        # Runs before CSRF reads the form: intake and do-not-call files may be far larger
        # than API bodies.
        # Only for a signed-in supervisor: nobody else makes the server read a large body.
        if request.endpoint in UPLOADS and current_user.is_authenticated:
            request.max_content_length = app.config["INTAKE_MAX_UPLOAD_BYTES"]

    db.init_app(app)
    keep_rollups(db.session)  # the reports' rollups move with each flush of an attempt
    keep_contact_marks(db.session)  # an attempt made a contact marks it for contact limits
    migrate.init_app(app, db, directory=str(ROOT / "migrations"))
    csrf.init_app(app)
    login_manager.init_app(app)
    limiter.json_paths = API_PREFIXES
    limiter.init_app(app)
    register_database(app, db)
    init_job_queue(app)  # on the storage the settings choose


def register_blueprints(app: Flask) -> None:
    for blueprint in (preview.bp, users.bp, api_bp, reports.bp, scim.bp):
        app.register_blueprint(blueprint)
        # The JSON APIs authenticate by header key, not by session cookie.
        csrf.exempt(blueprint)
    app.register_blueprint(admin)
    app.register_blueprint(desk)
    app.register_blueprint(api_docs)
    install_hub(app)  # the live streams of the wallboard and the desk
    answer_unchanged_first(app)  # a live page's conditional GET, before the app runs

"""Extension objects, created without an app and bound in the factory."""

from flask import request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_login import LoginManager
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_wtf import CSRFProtect
from sqlalchemy import MetaData
from sqlalchemy.orm import DeclarativeBase

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


db = SQLAlchemy(model_class=Base)
migrate = Migrate(render_as_batch=True, compare_type=True)
csrf = CSRFProtect()
login_manager = LoginManager()


class PagesLimiter(Limiter):
    """Flask-Limiter for the pages (sign-in attempts). The JSON APIs count their own rate
    limit per tenant (app/web/api_keys.py), so a request filter (`skips_json_paths`)
    exempts their paths.

    With its storage unreachable it counts in memory (RATELIMIT_IN_MEMORY_FALLBACK_ENABLED),
    logging the switch once, and goes back once the storage answers.

    Flask-Limiter keeps its storage's state on the limiter object, and one limiter serves the
    views of every app made in the process (the tests make many): `init_app` starts each app
    with storage options of its own and its storage taken to be up. Those two attributes are
    the library's own, written against the version pyproject.toml pins (docs/decisions.md)."""

    # The JSON APIs' path prefixes (app/web/api_paths.py), set by the app factory.
    json_paths: tuple[str, ...] = ()

    def init_app(self, app) -> None:
        self._storage_options = {}
        self._storage_dead = False
        super().init_app(app)

    def skips_json_paths(self) -> bool:
        return request.path.startswith(self.json_paths)


limiter = PagesLimiter(key_func=get_remote_address, default_limits=[])
limiter.request_filter(limiter.skips_json_paths)

"""Pages ask the database a fixed number of questions, however many rows they show."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import event

from app.extensions import db
from app.services.people.users import NewUser, add_user
from app.services.tenants.setup import TemplateSettings, create_user_template
from tests.admin.conftest import page
from tests.conftest import SETUP


@contextmanager
def statements() -> Iterator[list[str]]:
    """The SQL statements run inside the block."""
    seen: list[str] = []

    def spy(_conn, _cursor, statement, *_args) -> None:
        seen.append(statement)

    event.listen(db.engine, "before_cursor_execute", spy)
    try:
        yield seen
    finally:
        event.remove(db.engine, "before_cursor_execute", spy)


def _users_page_statements(client, url: str) -> int:
    with statements() as seen:
        page(client, url)
    return len(seen)


def test_the_users_page_loads_desk_queues_and_templates_in_a_fixed_number_of_queries(
    signed_in, acme
):
    url = f"/tenants/{acme.id}/users"

    def grow(count: int) -> None:
        create_user_template(
            acme, f"T{count}", TemplateSettings(), actor=SETUP, skill_queues=["Sales"]
        )
        for n in range(count):
            add_user(acme, NewUser(f"u{count}-{n}", "A", "B", f"T{count}"), actor=SETUP)
        db.session.commit()

    grow(1)
    few = _users_page_statements(signed_in, url)
    grow(4)
    assert _users_page_statements(signed_in, url) == few

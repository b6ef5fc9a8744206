"""The tenant's audit page: every change of the tenant, searched by who, what and when,
newest first and paged, and the same records as a guarded CSV; a search it cannot run says
why beside the field and shows nothing."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import pytest

from app.extensions import db
from app.models import AuditRecord
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from tests.admin.conftest import page, soup

AT = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def trail(acme):
    """Five records of Acme's (and one of another tenant's, never shown)."""
    made = [
        (Actor.supervisor("boss@example.com"), "user.added", "user", "ann", 0),
        (Actor.supervisor("boss@example.com"), "task.deleted", "task", "t1", 1),
        (Actor.api_key(3), "user.deleted", "user", "ann", 2),
        (Actor.system("reservation-timeout"), "task.reservation_lapsed", "task", "t2", 3),
        (Actor.identity_provider(7), "user.added", "user", "=HYPERLINK(1)", 4),
    ]
    for actor, action, kind, entity, day in made:
        record(actor, Change(action, kind, entity, acme.id, after={"n": day}),
               AT.replace(day=1 + day))  # fmt: skip
    record(Actor.supervisor("boss@example.com"), Change("user.added", "user", "x", acme.id + 99))
    db.session.commit()
    return acme


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"to": "2026-04-01T00:00"},
         [("user.added", "user =HYPERLINK(1)"), ("task.reservation_lapsed", "task t2"),
          ("user.deleted", "user ann"), ("task.deleted", "task t1"), ("user.added", "user ann")]),
        ({"who": "BOSS@"}, [("task.deleted", "task t1"), ("user.added", "user ann")]),
        ({"who": "system"}, [("task.reservation_lapsed", "task t2")]),
        ({"action": "user."}, [("user.added", "user =HYPERLINK(1)"), ("user.deleted", "user ann"),
                               ("user.added", "user ann")]),
        ({"from": "2026-03-02T00:00", "to": "2026-03-04T00:00"},
         [("user.deleted", "user ann"), ("task.deleted", "task t1")]),
    ],
    ids=["everything before April", "who", "who by kind", "what", "when"],
)  # fmt: skip
def test_a_search_selects_exactly_its_records_newest_first(signed_in, trail, args, expected):
    query = "&".join(f"{k}={v}" for k, v in args.items())
    url = f"/tenants/{trail.id}/audit" + (f"?{query}" if query else "")
    rows = page(signed_in, url).select("table.history tbody tr")
    shown = [(r.select_one("[data-label=Action]").get_text(strip=True),
              r.select_one("[data-label=What]").get_text(strip=True)) for r in rows]  # fmt: skip
    assert shown == expected


def test_pages_hold_page_size_records(signed_in, trail, app):
    app.config["PAGE_SIZE"] = 2
    first = page(signed_in, f"/tenants/{trail.id}/audit?action=user.")
    assert "3 records, page 1 of 2" in first.get_text()
    older = first.find("a", rel="next")["href"]
    assert len(page(signed_in, older).select("table.history tbody tr")) == 1


def test_a_search_it_cannot_run_says_why_beside_the_field(signed_in, trail):
    answer = signed_in.get(f"/tenants/{trail.id}/audit?from=2026-03-05T00:00&to=2026-03-01T00:00")
    assert answer.status_code == 422
    shown = soup(answer)
    assert "the end must come after the start" in shown.find(id="to-error").get_text()
    assert shown.select("table.history") == []
    bad = soup(signed_in.get(f"/tenants/{trail.id}/audit?from=yesterday"))
    assert "picker" in bad.find(id="from-error").get_text()


def test_the_csv_holds_the_search_guarded(signed_in, trail):
    kept = db.session.query(AuditRecord).count()
    answer = signed_in.get(f"/tenants/{trail.id}/audit.csv?action=user.")
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    rows = list(csv.reader(io.StringIO(answer.get_data(as_text=True))))
    assert rows[0] == ["at", "who", "action", "entity", "entity id", "before", "after"]
    assert [(r[2], r[4]) for r in rows[1:]] == [
        ("user.added", "ann"), ("user.deleted", "ann"), ("user.added", "'=HYPERLINK(1)"),
    ]  # fmt: skip
    assert (
        rows[1][1] == "supervisor boss@example.com"
        and rows[3][1] == "identity provider, SCIM token #7"
    )
    assert rows[1][6] == '{"n":0}'
    assert db.session.query(AuditRecord).count() == kept  # reading changed nothing

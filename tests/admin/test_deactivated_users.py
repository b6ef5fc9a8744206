"""The Users page says which users their identity provider deactivated."""

from __future__ import annotations

from app.extensions import db
from app.services.people.user_changes import set_active
from tests.admin.conftest import page
from tests.conftest import SETUP
from tests.delivery.delivery_support import make_agent


def test_the_users_page_says_which_users_are_deactivated(signed_in, acme):
    ann, _bob = make_agent(acme, "ann"), make_agent(acme, "bob")
    set_active(ann, False, actor=SETUP)
    db.session.commit()
    shown = page(signed_in, f"/tenants/{acme.id}/users")
    cells = [tr.find("td").get_text(" ", strip=True) for tr in shown.find("tbody").find_all("tr")]
    assert sorted(cells) == ["ann deactivated by the identity provider", "bob"]

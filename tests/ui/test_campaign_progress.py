"""The campaign page's Progress panel: the counts as of the page's load, the fragment the
page's script fetches again, and who may see either."""

from __future__ import annotations

from datetime import timedelta

import pytest

from app.extensions import db
from app.models.types import utcnow
from app.services import calling_windows
from app.services.delivery import progress
from tests.conftest import SETUP, make_tenant
from tests.desk.delivery_support import add, available, make_agent, ms, offer
from tests.ui.conftest import make_supervisor, page, session_for, soup
from tests.ui.test_security import (
    CSRF_ON,
    assert_no_inline_script_or_style,
    assert_strict_csp,
)

COUNTS = (
    "NOTWORKED",
    "WORKED",
    "COMPLETED",
    "REMOVED",
    "deliverable",
    "waiting",
    "held",
    "in_work",
    "kept_back",
)


def counts(html) -> dict[str, str]:
    return {dd["data-count"]: dd.get_text(strip=True) for dd in html.select("dd[data-count]")}


@pytest.fixture
def busy(acme, renewals):
    """Renewals with one task of each kind: deliverable, waiting, held for bob, in work."""
    add(renewals, "in-work")
    ann = make_agent(acme, "ann")
    available(ann, utcnow())
    offer(ann, utcnow())
    add(renewals, "free")
    add(renewals, "later", next_earliest_ms=ms(utcnow() + timedelta(hours=1)))
    add(renewals, "for-bob", preferred_agent="bob")
    return renewals


def test_the_campaign_page_shows_the_counts_and_loads_the_refresh_script(signed_in, acme, busy):
    url = f"/tenants/{acme.id}/campaigns/{busy.id}"
    html = page(signed_in, url)
    panel = html.find("section", class_="progress")
    assert panel.find("h2").get_text() == "Progress"
    assert panel["data-progress-url"] == f"{url}/progress"
    assert counts(panel) == {
        "NOTWORKED": "4",
        "WORKED": "0",
        "COMPLETED": "0",
        "REMOVED": "0",
        "deliverable": "1",
        "waiting": "1",
        "held": "1",
        "in_work": "1",
        "kept_back": "0",
    }
    scripts = [script["src"] for script in html.find_all("script", src=True)]
    assert "/static/progress.js" in scripts


def test_the_fragment_is_the_panels_counts_alone_as_they_are_now(signed_in, acme, busy):
    url = f"/tenants/{acme.id}/campaigns/{busy.id}/progress"
    response = signed_in.get(url)
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    fragment = soup(response)
    assert fragment.find("nav") is None and fragment.find("h1") is None
    assert set(counts(fragment)) == set(COUNTS)
    add(busy, "another")
    assert counts(soup(signed_in.get(url)))["deliverable"] == "2"


def test_the_panel_says_what_the_service_counts(signed_in, acme, busy):
    now = progress.campaign_progress(busy)
    shown = counts(soup(signed_in.get(f"/tenants/{acme.id}/campaigns/{busy.id}/progress")))
    assert shown["deliverable"] == str(now.deliverable)
    assert shown["in_work"] == str(now.in_work)
    assert shown["NOTWORKED"] == str(now.by_state["NOTWORKED"])


def test_the_script_is_served_by_the_app(signed_in):
    response = signed_in.get("/static/progress.js")
    assert response.status_code == 200
    script = response.get_data(as_text=True)
    response.close()
    assert "visibilitychange" in script and "10000" in script


@CSRF_ON
def test_the_campaign_page_keeps_its_strict_csp(signed_in, acme, busy):
    response = signed_in.get(f"/tenants/{acme.id}/campaigns/{busy.id}")
    assert_strict_csp(response)
    assert_no_inline_script_or_style(soup(response))


def test_signed_out_the_fragment_sends_to_sign_in(client, acme, renewals):
    response = client.get(f"/tenants/{acme.id}/campaigns/{renewals.id}/progress")
    assert response.status_code == 302 and "/login" in response.location


def test_another_tenants_progress_is_not_found(client, acme, renewals):
    other, _ = make_tenant("Other")
    session_for(client, make_supervisor("other@example.com", [other]))
    assert client.get(f"/tenants/{acme.id}/campaigns/{renewals.id}/progress").status_code == 404
    # Acme's campaign through the tenant this supervisor sees: not found either.
    assert client.get(f"/tenants/{other.id}/campaigns/{renewals.id}/progress").status_code == 404
    assert client.get(f"/tenants/{other.id}/campaigns/999999/progress").status_code == 404


def test_the_panel_says_why_tasks_are_kept_back_and_until_when(signed_in, acme, renewals):
    minute = utcnow().hour * 60 + utcnow().minute
    opens, closes = (minute + 360) % 1440, (minute + 480) % 1440  # opens in about 6 hours
    calling_windows.set_calling_window(renewals, opens, closes, actor=SETUP)
    db.session.commit()
    add(renewals, "later-today")
    fragment = soup(signed_in.get(f"/tenants/{acme.id}/campaigns/{renewals.id}/progress"))
    assert counts(fragment)["kept_back"] == "1"
    why = fragment.select("ul.progress-why li")
    assert len(why) == 1
    said = why[0].get_text(strip=True)
    assert said.startswith("outside the calling window: the next task can be called from ")
    assert said.endswith("America/New_York")
    until = progress.campaign_progress(renewals).kept_back_why[0].until
    assert why[0]["data-until"] == until.isoformat(timespec="seconds")

"""A campaign's dry run in the console: its own page (by hour or by day) and the campaign
page's panel, asked for once the page has shown; the chart's table holds the service's
figures, read in the campaign's zone."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.admin import forecast as forecast_pages
from app.extensions import db
from app.services.dnc import numbers as dnc
from app.services.schedules import calling_windows
from tests.admin.conftest import make_supervisor, page, session_for
from tests.calls.calls_support import add_phones
from tests.conftest import SETUP, make_tenant

NOW = datetime(2026, 11, 25, 13, 20, tzinfo=UTC)  # 08:20 in New York


@pytest.fixture
def world(acme, renewals, monkeypatch):
    monkeypatch.setattr(forecast_pages, "utcnow", lambda: NOW)
    calling_windows.set_calling_window(renewals, 9 * 60, 20 * 60, actor=SETUP)
    dnc.add_numbers(acme, ["+14155550111"], actor=SETUP)
    db.session.commit()
    add_phones(renewals, "c1", Phone="+13055550100")
    add_phones(renewals, "c2", Phone="+14155550111")
    return f"/tenants/{acme.id}/campaigns/{renewals.id}"


def _table(found) -> list[list[str]]:
    table = found.find("table", id="forecast-table")
    return [
        [c.get_text(strip=True) for c in tr.find_all(["th", "td"])] for tr in table.find_all("tr")
    ]


def test_the_page_shows_every_hour_of_the_next_7_days(signed_in, world):
    found = page(signed_in, f"{world}/forecast")
    assert found.find("div", attrs={"data-chart": "forecast"})["data-table"] == "forecast-table"
    rows = _table(found)
    assert rows[0] == ["Starts", "Callable", "CALLING_WINDOW", "DO_NOT_CALL"]
    assert len(rows) == 1 + 7 * 24
    # The hour begun: 08:00 in New York is outside the window; 09:00 inside.
    assert rows[1] == ["Wed 25 Nov 08:00", "0", "2", "1"]
    assert rows[2] == ["Wed 25 Nov 09:00", "1", "0", "1"]
    assert "2 open tasks" in found.get_text()


def test_the_page_shows_days_when_asked(signed_in, world):
    found = page(signed_in, f"{world}/forecast?interval=day")
    rows = _table(found)
    assert len(rows) == 1 + 7
    assert rows[1][0] == "Wed 25 Nov"
    assert found.find("strong", attrs={"aria-current": "page"}).get_text() == "By day"


def test_the_campaign_page_asks_for_its_panel_after_showing(signed_in, world):
    found = page(signed_in, world)
    section = found.find("section", class_="forecast")
    assert section["data-forecast-url"] == f"{world}/forecast/panel"
    # Without scripts, the link to the page stays.
    assert section.find("a")["href"] == f"{world}/forecast"
    assert found.find("table", id="forecast-table") is None  # not read with the page
    panel = page(signed_in, section["data-forecast-url"])
    assert _table(panel)[1] == ["Wed 25 Nov 08:00", "0", "2", "1"]
    assert panel.find("html") is None  # a fragment


def test_a_supervisor_of_another_tenant_gets_no_dry_run(client, world):
    other, _ = make_tenant("Other")
    session_for(client, make_supervisor("other@example.com", tenants=[other]))
    page(client, f"{world}/forecast", 404)
    page(client, f"{world}/forecast/panel", 404)

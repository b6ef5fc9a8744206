"""The Reports page: each section shows the service's figures for the filters, every table's
CSV equals the table, the filters are checked naming the field, an empty range says so, and
the page works without script (the tables are the view; the charts draw from them)."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest

from app.admin.reports import heat_level
from app.services import reports
from tests.admin.conftest import page
from tests.admin.test_security import assert_no_inline_script_or_style
from tests.delivery.delivery_support import make_agent
from tests.reports.generated import DAYS, START, generate

FIRST = START.date().isoformat()
LAST = (START + timedelta(days=DAYS - 1)).date().isoformat()
ALL_DAYS = {"from": FIRST, "to": LAST, "zone": "UTC"}
TABLES = ("summary", "outcomes", "work-codes", "intervals", "hours", "agents")


@pytest.fixture
def data(acme):
    for login in ("ann", "bob", "cy"):
        make_agent(acme, login)
    return generate(acme)


def url(tenant, table: str | None = None, **filters) -> str:
    query = "&".join(f"{key}={value}" for key, value in filters.items())
    path = f"/tenants/{tenant.id}/reports" + (f"/{table}.csv" if table else "")
    return f"{path}?{query}"


def shown(document, name: str) -> list[list[str]]:
    table = document.find("table", id=f"{name}-table")
    assert table is not None, name
    return [
        [cell.get_text(strip=True) for cell in row.find_all(["th", "td"])]
        for row in table.find_all("tr")
    ]


def figures(document) -> dict[str, str]:
    return dict(shown(document, "summary")[1:])


def _scope(acme, **filters):
    return reports.report_scope(acme, START, START + timedelta(days=DAYS), zone="UTC", **filters)


@pytest.mark.parametrize(
    ("filters", "service"),
    [
        ({}, {}),
        ({"campaign": "Renewals"}, {"campaign_name": "Renewals"}),
        ({"queue": "Sales", "agent": "bob"}, {"queue_name": "Sales", "agent": "bob"}),
    ],
)
def test_the_summary_shows_the_services_figures(signed_in, acme, data, filters, service):
    document = page(signed_in, url(acme, **ALL_DAYS, **filters))
    expected = reports.campaign_summary(_scope(acme, **service))
    assert expected.attempts > 0
    got = figures(document)
    assert got["Attempts"] == str(expected.attempts)
    assert got["Contacts"] == str(expected.contacts)
    assert got["Successes"] == str(expected.successes)
    assert got["Tasks attempted"] == str(expected.attempted_tasks)
    assert got["Lapsed"] == str(expected.lapsed)
    assert got["Contact rate"] == f"{expected.contacts / expected.attempts:.1%}"
    outcomes = {row[0]: row[1] for row in shown(document, "outcomes")[1:]}
    assert outcomes == {outcome: str(count) for outcome, count in expected.outcomes}
    codes = {(row[0], row[1]): row[2] for row in shown(document, "work-codes")[1:]}
    assert codes == {(key, value): str(count) for key, value, count in expected.work_codes}


@pytest.mark.parametrize("minutes", [15, 30, 60])
def test_intervals_show_every_interval_with_its_counts(signed_in, acme, data, minutes):
    document = page(signed_in, url(acme, **ALL_DAYS, interval=minutes))
    rows = shown(document, "intervals")[1:]
    expected = reports.attempts_by_interval(_scope(acme), minutes)
    assert len(rows) == len(expected) == DAYS * 24 * 60 // minutes
    assert [[int(cell) for cell in row[1:]] for row in rows] == [
        [cell.attempts, cell.contacts, cell.successes] for cell in expected
    ]
    assert rows[0][0] == "2026-03-27 00:00"


def test_best_hours_and_agents_show_the_services_figures(signed_in, acme, data):
    document = page(signed_in, url(acme, **ALL_DAYS))
    grid = shown(document, "hours")
    assert grid[0] == ["Weekday", *(f"{hour:02d}" for hour in range(24))]
    for cell in reports.best_hours(_scope(acme)):
        rate = f"{cell.contacts / cell.attempts:.1%}" if cell.attempts else "—"
        assert grid[1 + cell.weekday][1 + cell.hour] == rate
    heat = document.find("table", id="hours-table").find_all("td")
    assert any(cell["class"] != ["heat-0"] for cell in heat)
    agents = {row[0]: row for row in shown(document, "agents")[1:]}
    for row in reports.agent_summary(_scope(acme)):
        assert agents[row.agent][1:5] == [
            str(row.attempts),
            str(row.contacts),
            str(row.successes),
            str(row.closed),
        ]


@pytest.mark.parametrize("table", TABLES)
def test_every_tables_csv_equals_the_table(signed_in, acme, data, table):
    document = page(signed_in, url(acme, **ALL_DAYS))
    link = document.find("a", href=lambda h: h and f"/reports/{table}.csv" in h)
    assert link is not None
    response = signed_in.get(link["href"])
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True), newline="")))
    assert rows == shown(document, table)


def test_a_csv_guards_cells_a_spreadsheet_would_run(signed_in, acme, data):
    data.attempts[0].agent_login = "=HYPERLINK(1)"
    from app.extensions import db

    db.session.commit()
    text = signed_in.get(url(acme, "agents", **ALL_DAYS)).get_data(as_text=True)
    assert "'=HYPERLINK(1)" in text
    assert not any(line.startswith("=") for line in text.splitlines())


@pytest.mark.parametrize(
    ("filters", "field", "words"),
    [
        ({"from": "2026-03-10", "to": "2026-03-09"}, "to", "on or after From"),
        ({"from": "2025-01-01", "to": "2026-01-02"}, "to", "at most 366 days"),
        ({"from": "yesterday"}, "from", "must be a date"),
        ({"zone": "Mars/Olympus"}, "zone", "IANA"),
        ({"campaign": "Nope"}, "campaign", "Nope"),
        ({"queue": "Nope"}, "queue", "Nope"),
        ({"agent": "nobody"}, "agent", "nobody"),
        ({"interval": "7"}, "interval", "15, 30 or 60"),
    ],
)
def test_bad_filters_are_refused_naming_the_field(signed_in, acme, filters, field, words):
    document = page(signed_in, url(acme, **filters), status=422)
    control = document.find(attrs={"name": field})
    assert control["aria-invalid"] == "true"
    message = document.find(id=f"{field}-error").get_text()
    assert words in message
    # Said once, beside the field; the summary at the top links to it.
    assert document.get_text().count(message) == 1
    summary = document.select_one("main > .error-summary")
    assert [a["href"] for a in summary.select("a")] == [f"#{control['id']}"]
    assert document.find("table", id="summary-table") is None
    if "from" in filters:  # the form keeps what was typed
        assert document.find(attrs={"name": "from"})["value"] == filters["from"]
    response = signed_in.get(url(acme, "summary", **filters))
    assert response.status_code == 422
    assert words in response.get_data(as_text=True)


def test_the_summary_of_refused_filters_links_them_in_the_forms_order(signed_in, acme):
    document = page(signed_in, url(acme, **{"interval": "7", "from": "yesterday"}), status=422)
    summary = document.select_one("main > .error-summary")
    assert [a["href"] for a in summary.select("a")] == ["#report-from", "#report-interval"]


def test_a_range_of_exactly_366_days_is_read(signed_in, acme):
    page(signed_in, url(acme, **{"from": "2025-01-01", "to": "2026-01-01"}))


def test_a_range_with_no_data_says_so(signed_in, acme):
    document = page(signed_in, url(acme, **{"from": "2020-01-01", "to": "2020-01-02"}))
    assert "No attempts and no agent activity" in document.find(role="status").get_text()
    assert document.find("table", id="summary-table") is None


def test_the_default_is_today_in_the_campaigns_zone(signed_in, acme, data):
    document = page(signed_in, url(acme, campaign="Renewals"))
    start, end = document.find(attrs={"name": "from"}), document.find(attrs={"name": "to"})
    assert start["value"] == end["value"]
    assert "America/New_York" in document.get_text()


def test_the_page_works_without_script_and_charts_enhance_tables(signed_in, acme, data):
    document = page(signed_in, url(acme, **ALL_DAYS))
    assert_no_inline_script_or_style(document)
    scripts = [tag["src"] for tag in document.find_all("script")]
    assert any("vendor/chartjs/chart.umd.min.js" in src for src in scripts)
    assert any(src.endswith("reports.js") for src in scripts)
    for box in document.find_all(attrs={"data-chart": True}):
        assert document.find("table", id=box["data-table"]) is not None
    nav = document.find("a", attrs={"aria-current": "page"})
    assert nav.get_text() == "Reports"


def test_the_campaign_page_links_to_its_report(signed_in, acme, renewals):
    document = page(signed_in, f"/tenants/{acme.id}/campaigns/{renewals.id}")
    link = document.find("a", string="Reports", attrs={"role": "button"})
    report = page(signed_in, link["href"])
    assert report.find("select", attrs={"name": "campaign"}).find(selected=True).text == "Renewals"


@pytest.mark.parametrize(
    ("cell", "level"),
    [
        ("—", 0),
        ("0.0%", 1),
        ("19.9%", 1),
        ("20.0%", 2),
        ("59.0%", 3),
        ("79.9%", 4),
        ("80.0%", 5),
        ("100.0%", 5),
    ],
)
def test_a_heat_map_cell_is_darker_for_a_higher_contact_rate(cell, level):
    assert heat_level(cell) == level

"""The hours pages: the list, creating and editing a schedule, exception dates, queues, delete
with confirmation, the week view; CSRF, strict CSP and tenant scoping."""

from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import Schedule, ScheduleException
from app.models.types import utcnow
from app.services.schedules import hours
from app.services.tenants.setup import get_skill_queue
from tests.admin.conftest import (
    find_form,
    form_values,
    make_supervisor,
    page,
    refusal,
    session_for,
    soup,
    submit,
)
from tests.admin.test_security import (
    CSRF_ON,
    assert_csrf_on_every_post_form,
    assert_no_inline_script_or_style,
    assert_strict_csp,
)
from tests.conftest import SETUP, make_tenant
from tests.schedules.hours_support import make_schedule, stored


def count(model) -> int:
    return db.session.scalar(select(func.count()).select_from(model))


@pytest.fixture
def list_url(acme) -> str:
    return f"/tenants/{acme.id}/hours"


@pytest.fixture
def office(acme):
    schedule = make_schedule(acme, "mon-fri 08:00-18:00", "fri 22:00-02:00", zone="Europe/London",
                             holidays="GB-ENG")  # fmt: skip
    hours.set_queue_schedule(get_skill_queue(acme, "Sales"), schedule, actor=SETUP)
    db.session.commit()
    return schedule


def url_of(acme, schedule, tail: str = "") -> str:
    return f"/tenants/{acme.id}/hours/{schedule.id}{tail}"


# --- the list and creating -----------------------------------------------------------------


def test_the_list_shows_each_schedule_now_and_its_queues(signed_in, list_url, office):
    html = page(signed_in, list_url)
    [row] = html.select("table.schedules tbody tr")
    cells = [td.get_text(" ", strip=True) for td in row("td")]
    assert cells[:4] == [
        "Office", "Europe/London", "mon-thu 08:00-18:00 fri 08:00-18:00,22:00-02:00 sat-sun closed",
        "GB-ENG",
    ]  # fmt: skip
    assert cells[4].startswith(("Open now", "Closed now"))
    assert cells[5] == "Sales"


def test_a_schedule_is_created_from_the_form(signed_in, acme, list_url):
    response = submit(signed_in, list_url, list_url, {
        "new-name": "Front desk", "new-time_zone": "America/Chicago", "new-holidays": "us",
        "new-fri": "08:00-12:00, 22:00-02:00", "new-sat": "09:00-13:00",
    })  # fmt: skip
    schedule = stored(acme, "Front desk")
    assert response.status_code == 302
    assert response.location.endswith(f"/hours/{schedule.id}")
    assert hours.fields(schedule) == {
        "name": "Front desk",
        "timeZone": "America/Chicago",
        "weeklyHours": [
            "mon-thu 08:00-18:00", "fri 08:00-12:00,22:00-02:00", "sat 09:00-13:00", "sun closed",
        ],
        "holidays": "US",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"new-tue": "8-18"}, "new-tue", "'8' is not a time of day"),
        ({"new-wed": "08:00-12:00,11:00-13:00"}, "new-wed", "08:00-12:00 overlaps 11:00-13:00"),
        ({"new-holidays": "US-ZZ"}, "new-holidays", "'ZZ' is not a subdivision of US"),
        ({"new-name": "No/slashes"}, "new-name", "letters, digits, hyphens or spaces"),
        ({"new-time_zone": ""}, "new-time_zone", "Time zone"),
    ],
)
def test_a_refused_schedule_is_shown_beside_its_field(signed_in, list_url, changes, field, words):
    response = submit(signed_in, list_url, list_url, {"new-name": "Office",
                      "new-time_zone": "UTC", **changes})  # fmt: skip
    assert words in refusal(response)
    assert soup(response).find(id=field)["aria-invalid"] == "true"
    assert count(Schedule) == 0


def test_a_duplicate_name_is_refused(signed_in, list_url, office):
    response = submit(signed_in, list_url, list_url, {"new-name": "Office",
                      "new-time_zone": "UTC"})  # fmt: skip
    assert "schedule 'Office' already exists" in refusal(response)
    assert count(Schedule) == 1


# --- one schedule --------------------------------------------------------------------------


def week_days(html) -> list:
    return html.select("ol.week > li.week-day")


def test_the_week_view_draws_seven_days_with_their_blocks(signed_in, acme, office):
    hours.set_exception(office, date(2026, 12, 24), "09:00-13:00", actor=SETUP)
    db.session.commit()
    html = page(signed_in, url_of(acme, office, "?week=2026-12-23"))
    days = week_days(html)
    assert [d["data-day"] for d in days] == [f"2026-12-{n}" for n in range(21, 28)]
    blocks = {
        d["data-day"]: [(int(r["y"]), int(r["height"])) for r in d.select("rect.open")]
        for d in days
    }
    assert blocks["2026-12-21"] == [(480, 600)]  # 08:00 for ten hours
    assert blocks["2026-12-24"] == [(540, 240)]  # the exception's hours
    assert blocks["2026-12-25"] == []  # Christmas Day: closed, so no Friday night either
    assert blocks["2026-12-26"] == []
    ranges = {d["data-day"]: d.select_one(".day-ranges").get_text(" ", strip=True) for d in days}
    assert ranges["2026-12-24"] == "09:00 –13:00"
    assert ranges["2026-12-25"] == "Closed"
    assert "Christmas Day" in days[4].get_text()
    assert "Exception" in days[3].get_text()


def test_a_night_is_drawn_into_the_next_morning(signed_in, acme, office):
    html = page(signed_in, url_of(acme, office, "?week=2026-11-23"))
    friday, saturday = week_days(html)[4:6]
    assert [(int(r["y"]), int(r["height"])) for r in friday.select("rect.open")] == [
        (480, 600), (1320, 120),
    ]  # fmt: skip
    assert [(int(r["y"]), int(r["height"])) for r in saturday.select("rect.open")] == [(0, 120)]
    assert friday.select_one(".day-ranges").get_text(" ", strip=True).endswith("02:00 +1")


def test_today_is_marked_and_the_exceptions_ahead_are_listed(signed_in, acme, office):
    today = hours.calendar(office).local_date(utcnow())
    ahead = date(today.year + 1, 1, 4)
    hours.set_exception(office, ahead, None, actor=SETUP)
    db.session.commit()
    html = page(signed_in, url_of(acme, office))
    [marked] = html.select('li.week-day[aria-current="date"]')
    assert marked["data-day"] == today.isoformat()
    assert marked.select_one("line.now") is not None
    listed = html.select_one(f'ul.exceptions li[data-exception="{ahead.isoformat()}"]')
    assert "closed all day" in listed.get_text()
    assert html.select_one(".hours-status").get_text().startswith(("Open now", "Closed now"))


@pytest.mark.parametrize("week", ["soon", "9999-12-31", "0001-01-01"])
def test_a_week_that_is_not_a_date_shows_this_week(signed_in, acme, office, week):
    html = page(signed_in, url_of(acme, office, f"?week={week}"))
    assert len(week_days(html)) == 7
    assert html.select('li.week-day[aria-current="date"]')


def test_the_settings_and_weekly_hours_are_saved(signed_in, acme, office):
    url = url_of(acme, office)
    response = submit(signed_in, url, "/edit", {"edit-mon": "", "edit-sat": "10:00-14:00",
                      "edit-holidays": ""})  # fmt: skip
    assert response.status_code == 302
    assert hours.fields(stored(acme)) == {
        "name": "Office",
        "timeZone": "Europe/London",
        "weeklyHours": [
            "mon closed", "tue-thu 08:00-18:00", "fri 08:00-18:00,22:00-02:00", "sat 10:00-14:00",
            "sun closed",
        ],
        "holidays": None,
    }  # fmt: skip
    history = page(signed_in, url).select_one("table.history").get_text(" ", strip=True)
    assert "schedule.updated" in history


def test_an_exception_is_added_and_removed(signed_in, acme, office):
    url = url_of(acme, office)
    response = submit(signed_in, url, "/exceptions", {"exception-day": "2027-01-04",
                      "exception-kind": "open", "exception-hours": "10:00-12:00"})  # fmt: skip
    assert response.status_code == 302
    assert hours.exceptions_from(stored(acme), date(2027, 1, 1))[0][1][0].text() == "10:00-12:00"
    response = submit(signed_in, url, "/exceptions/2027-01-04/remove")
    assert response.status_code == 302
    assert count(ScheduleException) == 0


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"exception-kind": "open", "exception-hours": ""}, "give hours"),
        ({"exception-kind": "open", "exception-hours": "10-12"}, "'10' is not a time of day"),
        ({"exception-day": "24/12/2026"}, "Date"),
        ({"exception-day": "9999-12-31"}, "Date 9999-12-31 must be between"),
    ],
)
def test_a_refused_exception_says_why(signed_in, acme, office, changes, words):
    response = submit(signed_in, url_of(acme, office), "/exceptions",
                      {"exception-day": "2026-12-24", **changes})  # fmt: skip
    assert words in refusal(response)
    assert count(ScheduleException) == 0


def test_the_ticked_queues_follow_the_schedule(signed_in, acme, office):
    response = submit(signed_in, url_of(acme, office), "/queues", {"queues-queues": ["Support"]})
    assert response.status_code == 302
    db.session.expire_all()
    assert [q.name for q in hours.queues_of(office)] == ["Support"]


def test_delete_asks_first_then_frees_the_queues(signed_in, acme, office, list_url):
    url = url_of(acme, office, "/delete")
    html = page(signed_in, url)
    assert "Sales" in html.find("main").get_text() and "always open" in html.find("main").get_text()
    assert count(Schedule) == 1
    response = submit(signed_in, url, None)
    assert response.status_code == 302 and response.location.endswith(list_url)
    assert count(Schedule) == 0
    db.session.expire_all()
    assert get_skill_queue(acme, "Sales").schedule_id is None


# --- safety --------------------------------------------------------------------------------


@CSRF_ON
@pytest.mark.parametrize("tail", ["", "/1", "/1?week=2026-03-29", "/1/delete"])
def test_each_page_is_strict_csp_inline_free_and_csrf_protected(signed_in, acme, office, tail):
    response = signed_in.get(f"/tenants/{acme.id}/hours" + tail.replace("1", str(office.id), 1))
    assert response.status_code == 200
    assert_strict_csp(response)
    html = soup(response)
    assert_no_inline_script_or_style(html)
    assert_csrf_on_every_post_form(html)
    assert html.select_one('link[href="/static/hours.css"]')
    served = signed_in.get("/static/hours.css")
    assert served.status_code == 200
    served.close()


@CSRF_ON
def test_a_form_without_its_token_is_refused_and_changes_nothing(signed_in, acme, office):
    url = url_of(acme, office)
    form = find_form(page(signed_in, url), "/edit")
    values = form_values(form)
    values["edit-mon"] = "10:00-11:00"
    without = values.copy()
    del without[next(name for name in values if name.endswith("csrf_token"))]
    assert signed_in.post(form["action"], data=without).status_code == 400
    assert hours.fields(stored(acme))["weeklyHours"][0] == "mon-thu 08:00-18:00"
    assert signed_in.post(form["action"], data=values).status_code == 302
    assert hours.fields(stored(acme))["weeklyHours"][0] == "mon 10:00-11:00"


def test_another_tenants_schedule_is_not_found(signed_in, acme, office):
    globex = make_tenant("Globex", "test")[0]
    for tail in ("", "/delete"):
        assert signed_in.get(f"/tenants/{globex.id}/hours/{office.id}{tail}").status_code == 404
    for tail in ("/edit", "/exceptions", "/queues", "/delete", "/exceptions/2026-12-24/remove"):
        assert signed_in.post(f"/tenants/{globex.id}/hours/{office.id}{tail}").status_code == 404
    assert count(Schedule) == 1


def test_a_supervisor_of_another_tenant_sees_none_of_it(client, acme, office):
    globex = make_tenant("Globex", "test")[0]
    other = session_for(client, make_supervisor("globex@example.com", [globex]))
    assert other.get(f"/tenants/{acme.id}/hours").status_code == 404
    assert other.get(url_of(acme, office)).status_code == 404
    assert other.post(url_of(acme, office, "/delete")).status_code == 404
    assert page(other, f"/tenants/{globex.id}/hours").select("table.schedules") == []
    assert count(Schedule) == 1

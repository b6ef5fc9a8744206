"""The campaign page's Progress panel: the counts as of the page's load, the fragment the
page's script fetches again, and who may see either."""

from __future__ import annotations

from datetime import timedelta

import pytest

from app.extensions import db
from app.models.types import utcnow
from app.services.delivery import progress
from app.services.schedules import calling_windows
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from app.wire.times import sent_time
from tests.admin.conftest import make_supervisor, page, session_for, soup
from tests.admin.test_security import (
    CSRF_ON,
    assert_no_inline_script_or_style,
    assert_strict_csp,
)
from tests.conftest import SETUP, make_tenant
from tests.delivery.delivery_support import add, available, make_agent, ms, offer
from tests.dnc.dnc_support import put

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
    add(
        renewals,
        "later",
        next_earliest=sent_time(ms(utcnow() + timedelta(hours=1)), "nextEarliestWorkTimeUTC"),
    )
    add(renewals, "for-bob", preferred_agent="bob")
    return renewals


def test_the_campaign_page_shows_the_counts_and_loads_the_refresh_script(signed_in, acme, busy):
    url = f"/tenants/{acme.id}/campaigns/{busy.id}"
    html = page(signed_in, url)
    panel = html.find("section", class_="progress")
    assert panel.find("h2").get_text() == "Progress"
    assert panel["data-live-url"] == f"{url}/progress"
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
    assert "/static/live.js" in scripts


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
    response = signed_in.get("/static/live.js")
    assert response.status_code == 200
    script = response.get_data(as_text=True)
    response.close()
    assert "visibilitychange" in script and "If-None-Match" in script


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


# --- each count links to its tasks ----------------------------------------------------------


def listed_ids(html) -> list[str]:
    return [row.find("td").get_text(strip=True) for row in html.select("table.tasks tbody tr")]


def follow(signed_in, panel, count: str):
    """The page a count of the panel links to (the count is the link)."""
    link = panel.select_one(f"dd[data-count='{count}'] a")
    assert link is not None, f"the {count} count links nowhere"
    return page(signed_in, link["href"])


@pytest.mark.parametrize(
    ("count", "tasks"),
    [
        ("NOTWORKED", ["in-work", "free", "later", "for-bob"]),
        ("deliverable", ["free"]),
        ("waiting", ["later"]),
        ("held", ["for-bob"]),
        ("in_work", ["in-work"]),
    ],
)
def test_each_count_links_to_the_tasks_it_counts(signed_in, acme, busy, count, tasks):
    panel = page(signed_in, f"/tenants/{acme.id}/campaigns/{busy.id}").select_one(
        "section.progress"
    )
    shown = follow(signed_in, panel, count)
    assert listed_ids(shown) == tasks
    assert shown.select_one("p.count").get_text(strip=True).startswith(f"{len(tasks)} task")


def test_a_count_of_zero_links_nowhere(signed_in, acme, busy):
    fragment = soup(signed_in.get(f"/tenants/{acme.id}/campaigns/{busy.id}/progress"))
    assert fragment.select_one("dd[data-count='kept_back']").find("a") is None
    assert fragment.select_one("dd[data-count='COMPLETED']").find("a") is None


def test_a_group_narrows_the_search_and_survives_paging_and_a_new_search(signed_in, acme, busy):
    url = f"/tenants/{acme.id}/campaigns/{busy.id}"
    shown = page(signed_in, f"{url}?group=deliverable&k=Name&c=EQUALS&v=Free")
    assert listed_ids(shown) == ["free"]
    assert "deliverable now" in shown.select_one("p.group-filter").get_text()
    form = shown.find("form", class_="search")
    assert form.find("input", attrs={"name": "group"})["value"] == "deliverable"
    every = shown.select_one("p.group-filter a")["href"]
    assert "group=" not in every
    assert len(listed_ids(page(signed_in, every))) == 1  # the search alone: Name is Free
    download = shown.find("a", attrs={"download": True})["href"]
    assert "group=deliverable" in download
    lines = signed_in.get(download).get_data(as_text=True).splitlines()
    assert [line.split(",")[0] for line in lines[1:]] == ["free"]


def test_an_unknown_group_is_refused_with_a_reason(signed_in, acme, busy):
    response = signed_in.get(f"/tenants/{acme.id}/campaigns/{busy.id}?group=nonsense")
    assert response.status_code == 422
    assert "'nonsense' is not a group of tasks" in soup(response).find(role="alert").get_text()
    assert not soup(response).select("table.tasks")
    download = signed_in.get(f"/tenants/{acme.id}/campaigns/{busy.id}/export.csv?group=nonsense")
    assert download.status_code == 400


def test_kept_back_names_its_reasons_and_links_to_the_tasks_of_each(signed_in, acme, renewals):
    """One of three tasks is kept back by the do-not-call list while the others are
    deliverable: the panel said "Kept back: 1" with no reason and no way to see which."""
    put(acme, "+14155550100")  # the number delivery_support.add gives every task
    add(renewals, "listed")
    for name in ("callable-1", "callable-2"):
        task, _ = add_or_update_task(
            renewals, name, [ItemInput("Name", name), ItemInput("Phone", "+14155550142")],
            actor=SETUP,
        )  # fmt: skip
    db.session.commit()
    url = f"/tenants/{acme.id}/campaigns/{renewals.id}"
    panel = page(signed_in, url).select_one("section.progress")
    assert counts(panel)["kept_back"] == "1" and counts(panel)["deliverable"] == "2"
    [reason] = panel.select("ul.progress-reasons li")
    assert reason.get_text(" ", strip=True) == "1 task : every number on the do-not-call list"
    assert listed_ids(page(signed_in, reason.find("a")["href"])) == ["listed"]
    assert listed_ids(follow(signed_in, panel, "kept_back")) == ["listed"]

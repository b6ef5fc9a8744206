"""A campaign's life on the supervisors' pages: the buttons, the archive confirmation, the
settings form and its refusals, the list without archived campaigns, CSRF on every form."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import AuditRecord, Campaign
from app.services.campaigns import life_cycle as campaign_status
from tests.admin.conftest import (
    add_task,
    csrf_token,
    find_form,
    form_values,
    page,
    refusal,
    said_beside,
    soup,
    submit,
)
from tests.admin.test_security import (
    assert_csrf_on_every_post_form,
    assert_no_inline_script_or_style,
)
from tests.conftest import SETUP

CSRF_ON = pytest.mark.parametrize(
    "settings", [{"WTF_CSRF_ENABLED": True}], indirect=True, ids=["csrf-on"]
)


def url(acme, campaign, end: str = "") -> str:
    return f"/tenants/{acme.id}/campaigns/{campaign.id}{end}"


def status(campaign) -> str:
    db.session.expire_all()
    return db.session.get(Campaign, campaign.id).status


def settings_of(campaign) -> tuple:
    db.session.expire_all()
    found = db.session.get(Campaign, campaign.id)
    return found.type, found.default_skill_queue.name, found.default_time_zone


def buttons(shown) -> list[str]:
    life = shown.select_one(".campaign-life")
    return [b.get_text(strip=True) for b in life.select("button, a[role=button]")]


def press(client, acme, campaign, end: str):
    """Press a button of the campaign page: its form as the page shows it."""
    form = find_form(page(client, url(acme, campaign)), end)
    return client.post(form["action"], data=form_values(form))


def records(action: str) -> int:
    return db.session.scalar(select(func.count(AuditRecord.id)).filter_by(action=action))


# --- the buttons ---------------------------------------------------------------------------


def test_pause_then_resume_from_the_campaign_page(signed_in, acme, renewals):
    assert buttons(page(signed_in, url(acme, renewals))) == ["Pause", "Edit settings", "Archive…"]
    response = press(signed_in, acme, renewals, "/pause")
    assert response.status_code == 302 and response.location.endswith(url(acme, renewals))
    assert status(renewals) == "PAUSED"
    shown = page(signed_in, url(acme, renewals))
    assert "is paused: nothing new is delivered" in shown.select_one(".notice").get_text()
    notice = shown.select_one(".campaign-status").get_text(" ", strip=True)
    assert notice.startswith("PAUSED Nothing new is delivered")
    assert "by supervisor boss@example.com" in notice
    assert buttons(shown) == ["Resume", "Edit settings", "Archive…"]
    press(signed_in, acme, renewals, "/resume")
    assert status(renewals) == "ACTIVE"
    [record] = db.session.scalars(select(AuditRecord).filter_by(action="campaign.resumed"))
    assert (record.actor_kind, record.actor_id) == ("supervisor", "boss@example.com")


def test_a_pause_pressed_again_in_another_tab_changes_nothing(signed_in, acme, renewals):
    stale = find_form(page(signed_in, url(acme, renewals)), "/pause")
    press(signed_in, acme, renewals, "/pause")
    response = signed_in.post(stale["action"], data=form_values(stale), follow_redirects=True)
    notices = [notice.text for notice in soup(response).select(".notice")]
    assert "was already paused; nothing changed" in notices[-1]
    assert records("campaign.paused") == 1


def test_the_progress_panel_says_the_campaign_is_paused(signed_in, acme, renewals):
    add_task(renewals, "C1")
    campaign_status.pause(renewals, actor=SETUP)
    db.session.commit()
    panel = page(signed_in, url(acme, renewals, "/progress"))
    assert [li.get_text(strip=True) for li in panel.select(".progress-why li")] == [
        "the Renewals campaign is paused"
    ]
    assert panel.select_one('[data-count="kept_back"]').get_text() == "1"


# --- archive, with a confirmation -----------------------------------------------------------


def test_archive_asks_first_then_hides_the_campaign_until_asked(signed_in, acme, renewals):
    add_task(renewals, "C1")
    link = page(signed_in, url(acme, renewals)).find("a", string="Archive…")
    assert link["href"] == url(acme, renewals, "/archive")
    confirm = page(signed_in, link["href"])
    text = confirm.find("main").get_text(" ", strip=True)
    assert "Archive campaign Renewals?" in text
    assert "its 1 open task waits, undelivered" in text and "takes no new tasks" in text
    assert status(renewals) == "ACTIVE"  # asking changes nothing
    assert confirm.find("a", string="Keep it")["href"] == url(acme, renewals)

    response = submit(signed_in, link["href"], None)
    assert response.status_code == 302
    assert status(renewals) == "ARCHIVED"
    shown = page(signed_in, url(acme, renewals))
    assert buttons(shown) == ["Restore", "Edit settings"]
    assert shown.find("a", string="Add a task") is None
    assert "takes no intake files" in shown.select_one("details.intake").get_text()

    listed = page(signed_in, f"/tenants/{acme.id}/campaigns")
    names = [a.get_text() for a in listed.select("table.campaigns tbody a")]
    assert names == ["Winback"]
    assert "1 archived campaign is not shown" in listed.select_one(".archived-toggle").get_text()
    toggle = listed.select_one(".archived-toggle a")["href"]
    shown_all = page(signed_in, toggle)
    rows = {
        row.select("td")[0].get_text(strip=True): row.select("td")[1].get_text(strip=True)
        for row in shown_all.select("table.campaigns tbody tr")
    }
    assert rows == {"Renewals": "ARCHIVED", "Winback": "ACTIVE"}

    press(signed_in, acme, renewals, "/restore")
    assert status(renewals) == "PAUSED"


def test_an_archived_campaign_is_not_offered_as_a_transfer_destination(signed_in, acme, winback):
    task = add_task(
        db.session.scalar(select(Campaign).filter_by(name="Renewals")), "C1", {"Name": "Ann"}
    )
    campaign_status.archive(winback, actor=SETUP)
    db.session.commit()
    shown = page(signed_in, f"/tenants/{acme.id}/tasks/{task.record_id}")
    form = find_form(shown, "/transfer")
    offered = [o.get("value", o.text) for o in form.select("select[name$=destination] option")]
    assert offered == ["Renewals"]


# --- editing the settings ---------------------------------------------------------------------


def test_the_settings_form_saves_and_shows_its_history(signed_in, acme, renewals):
    edit = url(acme, renewals, "/edit")
    form = find_form(page(signed_in, edit), "/edit")
    assert form_values(form)["settings-time_zone"] == "America/New_York"
    changes = {"settings-skill_queue": "Support", "settings-campaign_type": "progressive"}
    response = submit(signed_in, edit, "/edit", changes)
    assert response.status_code == 302
    assert settings_of(renewals) == ("progressive", "Support", "America/New_York")
    history = page(signed_in, edit).select_one("table.history").get_text(" ", strip=True)
    assert "campaign.updated" in history and "Support" in history


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"settings-time_zone": "Mars/Olympus"}, "settings-time_zone", "Default time zone"),
        ({"settings-skill_queue": "Nope"}, "settings-skill_queue", "Default skill queue 'Nope'"),
        ({"settings-campaign_type": "predictive"}, "settings-campaign_type", "Type 'predictive'"),
    ],
)
def test_a_refused_edit_keeps_what_was_sent_names_the_field_and_changes_nothing(
    signed_in, acme, renewals, changes, field, words
):
    before = settings_of(renewals)
    edit = url(acme, renewals, "/edit")
    changes = {"settings-skill_queue": "Support", **changes}
    response = submit(signed_in, edit, "/edit", changes)
    said = refusal(response)
    assert words in said
    shown = soup(response)
    marked = shown.find(attrs={"name": field})
    assert marked["aria-invalid"] == "true"
    sent = form_values(find_form(shown, "/edit"))
    assert {name: sent[name] for name in changes} == changes  # what was sent, kept
    assert words in said_beside(shown, field)  # beside the field, the summary links to it
    assert settings_of(renewals) == before
    assert records("campaign.updated") == 0


# --- CSRF ---------------------------------------------------------------------------------


@CSRF_ON
def test_every_form_of_the_life_cycle_carries_its_token_and_needs_it(signed_in, acme, renewals):
    campaign_page = page(signed_in, url(acme, renewals))
    for shown in (
        campaign_page,
        page(signed_in, url(acme, renewals, "/edit")),
        page(signed_in, url(acme, renewals, "/archive")),
    ):
        assert_csrf_on_every_post_form(shown)
        assert_no_inline_script_or_style(shown)
    for end in ("/pause", "/archive", "/edit"):
        assert signed_in.post(url(acme, renewals, end)).status_code == 400
    assert status(renewals) == "ACTIVE"
    token = csrf_token(campaign_page)
    response = signed_in.post(url(acme, renewals, "/pause"), data={"csrf_token": token})
    assert response.status_code == 302 and status(renewals) == "PAUSED"


def test_another_tenants_campaign_answers_404(signed_in, acme, renewals):
    from tests.conftest import make_tenant

    other, _ = make_tenant(company="Globex")
    for end in ("/edit", "/archive"):
        assert signed_in.get(f"/tenants/{other.id}/campaigns/{renewals.id}{end}").status_code == 404
    assert signed_in.post(f"/tenants/{other.id}/campaigns/{renewals.id}/pause").status_code == 404
    assert status(renewals) == "ACTIVE"


# --- the agent's desk ---------------------------------------------------------------------


def test_the_desk_page_says_the_campaign_is_paused_then_delivers_on_resume(client, acme, renewals):
    from tests.desk.desk_support import desk_session, make_agent

    add_task(renewals, "C1")
    campaign_status.pause(renewals, actor=SETUP)
    db.session.commit()
    desk = desk_session(client, make_agent(acme))
    desk.post("/desk/state", data={"state": "AVAILABLE"})
    idle = page(desk, "/desk").find("article", class_="desk-idle")
    assert idle.find(attrs={"data-reason": True}).get_text(strip=True) == (
        "The Renewals campaign is paused."  # the desk's sentence of the reason
    )
    campaign_status.resume(renewals, actor=SETUP)
    db.session.commit()
    assert page(desk, "/desk").find("article", class_="desk-idle") is None

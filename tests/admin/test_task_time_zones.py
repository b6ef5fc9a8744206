"""Time zones are the IANA database's zone names: its canonical zones and its
backward-compatible links, never a host's `localtime`, tzdata's `Factory` placeholder or
the `posix/` and `right/` copies. The API (ItemTimeZone, timeZone) and the forms agree."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.services.values import is_time_zone, time_zones
from tests.admin.conftest import add_task, find_form, form_values, page, said_beside, soup, submit

CHANGE = "changeCampaignRecordStatus"
# zone name, accepted
ZONES = [
    ("Europe/Paris", True),
    ("America/Argentina/Buenos_Aires", True),
    ("UTC", True),
    ("Etc/GMT+5", True),
    ("US/Eastern", True),  # a backward-compatible link of America/New_York
    ("localtime", False),  # the host's own setting, a file of its zoneinfo folder
    ("Factory", False),  # tzdata's placeholder "zone" for unconfigured machines
    ("posixrules", False),
    ("posix/Europe/Paris", False),
    ("right/Europe/Paris", False),
    ("Mars/Olympus_Mons", False),
    ("europe/paris", False),  # names are case-sensitive
]
IDS = [zone for zone, _ in ZONES]


@pytest.mark.parametrize(("zone", "accepted"), ZONES, ids=IDS)
def test_the_rule_and_the_pickers_accept_only_zone_names(zone, accepted):
    assert is_time_zone(zone) is accepted
    assert (zone in time_zones()) is accepted


@pytest.mark.parametrize(("zone", "accepted"), ZONES, ids=IDS)
def test_item_time_zone_through_the_api(api, zone, accepted):
    answer = api.add("C1", {"Name": "Ann", "ItemTimeZone": zone})
    result = answer["previewResult"]
    assert (result["previewResultStatus"] == "SUCCESS") is accepted, result
    if not accepted:
        assert "ItemTimeZone" in result["error"]
        assert api.find("C1") is None


@pytest.mark.parametrize(("zone", "accepted"), ZONES, ids=IDS)
def test_time_zone_of_a_status_change_through_the_api(api, zone, accepted):
    api.add("C1")
    answer = api.call(CHANGE, clientId="C1", previewRecordStateEnum="COMPLETED", timeZone=zone)
    result = answer["previewResult"]
    assert (result["previewResultStatus"] == "SUCCESS") is accepted, result
    if not accepted:
        assert "timeZone" in result["error"]
        assert api.find("C1")["workedState"] == "NOTWORKED"


@pytest.mark.parametrize(("zone", "accepted"), ZONES, ids=IDS)
def test_the_status_form_offers_and_takes_only_zone_names(
    signed_in, acme, renewals, zone, accepted
):
    task = add_task(renewals, "C1")
    url = f"/tenants/{acme.id}/tasks/{task.record_id}"
    form = find_form(page(signed_in, url), "/status")
    offered = [
        o["value"] for o in form.find("select", attrs={"name": "status-time_zone"})("option")
    ]
    assert (zone in offered) is accepted
    response = submit(signed_in, url, "/status", {"status-time_zone": zone})
    assert response.status_code == (302 if accepted else 422)


@pytest.mark.parametrize(("zone", "accepted"), ZONES, ids=IDS)
def test_the_new_campaign_form_takes_only_zone_names(signed_in, acme, zone, accepted):
    url = f"/tenants/{acme.id}/campaigns"
    form = find_form(page(signed_in, url), "/campaigns")
    assert form_values(form)["campaign-time_zone"] == "UTC"
    changes = {"campaign-name": "Spring", "campaign-time_zone": zone}
    response = submit(signed_in, url, "/campaigns", changes)
    assert response.status_code == (302 if accepted else 422)


def test_a_zone_stored_before_the_rule_is_shown_not_replaced(signed_in, acme, renewals):
    """A task kept with `localtime` from before the rule tightened: the Status form shows
    that zone rather than the list's first one, and saving it asks for a real zone."""
    task = add_task(renewals, "C1")
    task.time_zone = "localtime"
    db.session.commit()
    url = f"/tenants/{acme.id}/tasks/{task.record_id}"
    assert form_values(find_form(page(signed_in, url), "/status"))["status-time_zone"] == (
        "localtime"
    )
    response = submit(signed_in, url, "/status", {"status-state": "COMPLETED"})
    assert response.status_code == 422
    said = said_beside(soup(response), "status-time_zone")
    assert "Time zone 'localtime' is not an IANA time zone name" in said
    db.session.expire_all()
    assert (task.worked_state, task.time_zone) == ("NOTWORKED", "localtime")

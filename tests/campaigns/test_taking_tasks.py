"""What a paused or archived campaign takes: a paused one takes tasks through the Preview API
and intake files; an archived one takes no new task but keeps, finds and lets go of its own."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import IntakeLoad, Task
from app.services.campaigns import life_cycle as campaign_status
from tests.conftest import SETUP

ARCHIVED = "campaign 'Renewals' is archived: it takes no new tasks (restore it first)"


@pytest.fixture
def app(app, tmp_path):
    """The app, keeping intake files and reports under this test's tmp_path."""
    app.instance_path = str(tmp_path / "instance")
    return app


def client_ids() -> set[str]:
    db.session.expire_all()
    return set(db.session.scalars(select(Task.client_id)))


def failed(answer: dict) -> str:
    result = answer["previewResult"]
    assert result["previewResultStatus"] == "FAILED", answer
    return result["error"]


def load_file(runner, tmp_path, text: str):
    path = tmp_path / "tasks.csv"
    path.write_text(text, encoding="utf-8")
    return runner.invoke(args=["intake", "load", "Acme", "prod", "Renewals", str(path)])


def test_a_paused_campaign_takes_tasks_through_the_api_and_intake(api, renewals, runner, tmp_path):
    campaign_status.pause(renewals, actor=SETUP)
    db.session.commit()
    assert api.add("c1")["previewResult"]["previewResultStatus"] == "SUCCESS"
    result = load_file(runner, tmp_path, "Id,Name\nf1,Fay\n")
    assert result.exit_code == 0, result.output
    assert client_ids() == {"c1", "f1"}
    assert api.find("f1")["workedState"] == "NOTWORKED"


def test_an_archived_campaign_refuses_an_add_and_keeps_nothing(api, renewals):
    campaign_status.archive(renewals, actor=SETUP)
    db.session.commit()
    assert failed(api.add("c1")) == ARCHIVED
    assert client_ids() == set()


def test_an_archived_campaigns_tasks_are_found_changed_moved_out_and_deleted(api, renewals):
    for client_id in ("c1", "c2", "c3", "c4"):
        api.add(client_id, {"Name": client_id, "Plan": "Gold"})
    campaign_status.archive(renewals, actor=SETUP)
    db.session.commit()
    assert [t["clientId"] for t in api.search(("Plan", "EQUALS", "Gold"))] == [
        "c1", "c2", "c3", "c4"
    ]  # fmt: skip
    changed = api.add("c1", {"Name": "Changed", "Plan": "Gold"})
    assert changed["previewResult"]["previewResultStatus"] == "SUCCESS"
    assert (
        api.status("changeCampaignRecordStatus", clientId="c2", previewRecordStateEnum="COMPLETED")
        == "SUCCESS"
    )
    assert api.status("transferCampaignRecord", clientId="c3", transferToCampaign="Winback") == (
        "SUCCESS"
    )
    assert api.status("deleteRecordFromCampaign", clientId="c4") == "SUCCESS"
    assert [t["clientId"] for t in api.search(("Plan", "EQUALS", "Gold"))] == ["c1", "c2"]
    assert api.find("c2")["workedState"] == "COMPLETED"


def test_a_transfer_into_an_archived_campaign_is_refused(api, winback):
    api.add("c1")
    campaign_status.archive(winback, actor=SETUP)
    db.session.commit()
    answer = api.call("transferCampaignRecord", clientId="c1", transferToCampaign="Winback")
    assert failed(answer) == (
        "transferToCampaign 'Winback' is archived: it takes no new tasks (restore it first)"
    )
    assert api.find("c1") is not None  # still in Renewals


def test_an_archived_campaign_refuses_an_intake_file_before_reading_it(renewals, runner, tmp_path):
    campaign_status.archive(renewals, actor=SETUP)
    db.session.commit()
    result = load_file(runner, tmp_path, "Id,Name\nf1,Fay\n")
    assert result.exit_code == 1, result.output
    assert ARCHIVED in result.output
    assert client_ids() == set()
    [load] = db.session.scalars(select(IntakeLoad))
    assert (load.status, load.message) == ("refused", ARCHIVED)


def test_a_restored_campaign_takes_tasks_again(api, renewals):
    campaign_status.archive(renewals, actor=SETUP)
    campaign_status.restore(renewals, actor=SETUP)
    db.session.commit()
    assert api.add("c1")["previewResult"]["previewResultStatus"] == "SUCCESS"

"""The drop location: each file under <company>/<environment>/<campaign>/ is loaded once (a
worker job) and moved aside (done/ or failed/) with its report; in a folder and in S3 (moto)."""

from __future__ import annotations

import os
import re
import tempfile
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import boto3
import pytest
from moto import mock_aws
from sqlalchemy import select

from app.extensions import db
from app.jobs import intake as intake_jobs
from app.jobs.intake import sweep_intake
from app.models import IntakeLoad
from app.services.campaigns.catalogue import find_campaign
from app.services.intake import folder_drop, s3_drop, watch
from app.services.intake.folder_drop import FolderDrop
from app.services.intake.s3_drop import S3Drop
from app.services.intake.watch import watch_once
from tests.conftest import make_tenant
from tests.intake.conftest import tasks_of
from tests.jobs.conftest import run_queued_jobs

STAMPED = re.compile(r"\d{8}T\d{12}Z-(.+)")
GOOD = "Id,Name\nA,Ann\nB,Bob\nA,Ann 2\n"
BAD_HEADER = "Name,Plan\nAnn,Gold\n"


def put(root: Path, where: str, name: str, text: str) -> Path:
    folder = root / where
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def aside(folder: Path) -> dict[str, str]:
    """Files set aside in done/ or failed/, by their name without the time stamp."""
    if not folder.exists():
        return {}
    found = {}
    for path in folder.iterdir():
        match = STAMPED.fullmatch(path.name)
        assert match, path.name
        found[match[1]] = path.read_text(encoding="utf-8")
    return found


def outcomes_by_file(outcomes) -> dict[str, tuple[str, str | None]]:
    return {o.file: (o.status, o.message) for o in outcomes}


def test_a_folder_drop_loads_each_file_once(renewals, winback, tmp_path):
    root = tmp_path / "drop"
    put(root, "Acme/prod/Renewals", "first.csv", GOOD)
    put(root, "Acme/prod/Winback", "bad.csv", BAD_HEADER)
    put(root, "Acme/prod/Nope", "lost.csv", GOOD)
    put(root, "Other/prod/Renewals", "stranger.csv", GOOD)

    outcomes = outcomes_by_file(watch_once(FolderDrop(root)))
    assert outcomes["first.csv"] == ("done", None)
    assert outcomes["bad.csv"][0] == "refused"
    assert "first column must be 'Id'" in outcomes["bad.csv"][1]
    assert outcomes["lost.csv"] == ("refused", "no campaign Acme/prod/Nope")
    assert outcomes["stranger.csv"] == ("refused", "no campaign Other/prod/Renewals")
    assert len(outcomes) == 4

    renewals_dir = root / "Acme/prod/Renewals"
    done = aside(renewals_dir / "done")
    assert set(done) == {"first.csv", "first.csv.report.csv"}
    assert done["first.csv"] == GOOD
    assert done["first.csv.report.csv"].splitlines() == [
        "line,clientId,outcome,reason",
        "2,A,superseded,clientId repeated on line 4; the last row wins",
    ]
    assert [p.name for p in renewals_dir.iterdir()] == ["done"]
    assert aside(root / "Acme/prod/Winback/failed")["bad.csv"] == BAD_HEADER
    assert [p.name for p in (root / "Acme/prod/Winback").iterdir()] == ["failed"]
    assert aside(root / "Acme/prod/Nope/failed")["lost.csv"] == GOOD
    assert aside(root / "Other/prod/Renewals/failed")["stranger.csv"] == GOOD

    assert tasks_of(renewals)["A"].data["Name"] == "Ann 2"
    assert set(tasks_of(renewals)) == {"A", "B"}
    assert tasks_of(winback) == {}
    loads = db.session.scalars(select(IntakeLoad)).all()
    assert sorted((load.file_name, load.source, load.status) for load in loads) == [
        ("bad.csv", "watch", "refused"),
        ("first.csv", "watch", "done"),
    ]

    # A second look finds nothing new and changes nothing.
    before = tasks_of(renewals)
    assert watch_once(FolderDrop(root)) == []
    assert tasks_of(renewals) == before
    assert len(aside(renewals_dir / "done")) == 2
    assert len(db.session.scalars(select(IntakeLoad)).all()) == 2


def test_a_new_file_in_the_folder_is_loaded_by_the_next_look(renewals, tmp_path):
    root = tmp_path / "drop"
    put(root, "Acme/prod/Renewals", "one.csv", "Id,Name\nA,Ann\n")
    assert [o.file for o in watch_once(FolderDrop(root))] == ["one.csv"]
    put(root, "Acme/prod/Renewals", "one.csv", "Id,Name\nA,Ann again\n")  # same name, new file
    assert [o.file for o in watch_once(FolderDrop(root))] == ["one.csv"]
    assert tasks_of(renewals)["A"].data["Name"] == "Ann again"
    names = [STAMPED.fullmatch(p.name)[1] for p in (root / "Acme/prod/Renewals/done").iterdir()]
    assert sorted(names) == ["one.csv", "one.csv", "one.csv.report.csv", "one.csv.report.csv"]


def test_files_outside_the_layout_hidden_or_aside_are_left_alone(renewals, tmp_path):
    root = tmp_path / "drop"
    put(root, "Acme", "shallow.csv", GOOD)
    put(root, "Acme/prod", "shallow.csv", GOOD)
    put(root, "Acme/prod/Renewals/extra", "deep.csv", GOOD)
    put(root, "Acme/prod/Renewals", ".hidden.csv", GOOD)
    put(root, "Acme/prod/Renewals/done", "old.csv", GOOD)
    put(root, "Acme/prod/Renewals/failed", "old.csv", GOOD)
    assert watch_once(FolderDrop(root)) == []
    assert tasks_of(renewals) == {}
    assert (root / "Acme/prod/Renewals/.hidden.csv").exists()


def test_an_all_tenants_folder_routes_each_file_to_its_campaign(app, renewals, tmp_path):
    other, _ = make_tenant("Globex", "test", campaigns_=(("Renewals", "Sales", "UTC"),))
    root = tmp_path / "drop"
    put(root, "Acme/prod/Renewals", "a.csv", "Id,Name\nA,Ann\n")
    put(root, "Globex/test/Renewals", "g.csv", "Id,Name\nG,Gus\n")
    assert {o.status for o in watch_once(FolderDrop(root))} == {"done"}
    assert set(tasks_of(renewals)) == {"A"}
    assert set(tasks_of(find_campaign(other, "Renewals"))) == {"G"}


BUCKET, PREFIX = "intake-drop", "incoming"


@pytest.fixture
def s3(monkeypatch, tmp_path):
    """A moto S3 with an empty bucket; no real credentials are read or needed."""
    # S3Drop downloads into a scratch folder of its own: keep it under tmp_path.
    scratch = SimpleNamespace(
        mkdtemp=partial(tempfile.mkdtemp, dir=tmp_path),
        TemporaryDirectory=partial(tempfile.TemporaryDirectory, dir=tmp_path),
    )
    monkeypatch.setattr(s3_drop, "tempfile", scratch)
    monkeypatch.setattr(watch, "tempfile", scratch)
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    with mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket=BUCKET)
        yield client


def keys_of(client, prefix: str = "") -> list[str]:
    answer = client.list_objects_v2(Bucket=BUCKET, Prefix=prefix)
    return sorted(entry["Key"] for entry in answer.get("Contents", []))


def body(client, key: str) -> str:
    return client.get_object(Bucket=BUCKET, Key=key)["Body"].read().decode()


def test_an_s3_drop_loads_each_object_once(s3, renewals):
    s3.put_object(Bucket=BUCKET, Key=f"{PREFIX}/Acme/prod/Renewals/file.csv", Body=GOOD.encode())
    s3.put_object(Bucket=BUCKET, Key=f"{PREFIX}/Acme/prod/Renewals/bad.csv", Body=BAD_HEADER)
    s3.put_object(Bucket=BUCKET, Key=f"{PREFIX}/Acme/prod/Nope/lost.csv", Body=GOOD.encode())
    s3.put_object(Bucket=BUCKET, Key="elsewhere/Acme/prod/Renewals/other.csv", Body=GOOD)
    s3.put_object(Bucket=BUCKET, Key=f"{PREFIX}/Acme/prod/file.csv", Body=GOOD.encode())

    outcomes = outcomes_by_file(watch_once(S3Drop(BUCKET, PREFIX, s3)))
    assert outcomes["file.csv"] == ("done", None)
    assert outcomes["bad.csv"][0] == "refused"
    assert outcomes["lost.csv"] == ("refused", "no campaign Acme/prod/Nope")
    assert len(outcomes) == 3
    assert set(tasks_of(renewals)) == {"A", "B"}

    campaign = f"{PREFIX}/Acme/prod/Renewals/"
    keys = [key.removeprefix(campaign) for key in keys_of(s3, campaign)]
    done = {STAMPED.fullmatch(k.removeprefix("done/"))[1]: k for k in keys if k.startswith("done/")}
    failed = {
        STAMPED.fullmatch(k.removeprefix("failed/"))[1]: k for k in keys if k.startswith("failed/")
    }
    assert all(k.startswith(("done/", "failed/")) for k in keys)  # none left in place
    assert set(done) == {"file.csv", "file.csv.report.csv"}
    assert "bad.csv" in failed
    assert body(s3, campaign + failed["bad.csv"]) == BAD_HEADER
    assert done["file.csv.report.csv"] == done["file.csv"] + ".report.csv"
    assert body(s3, campaign + done["file.csv"]) == GOOD
    assert body(s3, campaign + done["file.csv.report.csv"]).splitlines()[1] == (
        "2,A,superseded,clientId repeated on line 4; the last row wins"
    )
    lost, reason = sorted(keys_of(s3, f"{PREFIX}/Acme/prod/Nope/"))
    assert STAMPED.fullmatch(lost.removeprefix(f"{PREFIX}/Acme/prod/Nope/failed/"))[1] == "lost.csv"
    assert reason == lost + ".report.csv"  # why it failed, beside it
    assert "refused,no campaign Acme/prod/Nope" in body(s3, reason)
    # Objects outside the prefix or the layout are left alone.
    assert "elsewhere/Acme/prod/Renewals/other.csv" in keys_of(s3)
    assert f"{PREFIX}/Acme/prod/file.csv" in keys_of(s3)

    # A second run loads nothing.
    before, all_keys = tasks_of(renewals), keys_of(s3)
    assert watch_once(S3Drop(BUCKET, PREFIX, s3)) == []
    assert tasks_of(renewals) == before
    assert keys_of(s3) == all_keys
    assert len(db.session.scalars(select(IntakeLoad)).all()) == 2


def test_an_s3_drop_without_a_prefix(s3, renewals):
    s3.put_object(Bucket=BUCKET, Key="Acme/prod/Renewals/file.csv", Body=b"Id,Name\nA,Ann\n")
    assert [(o.file, o.status) for o in watch_once(S3Drop(BUCKET, "", s3))] == [
        ("file.csv", "done")
    ]
    assert set(tasks_of(renewals)) == {"A"}
    assert [k.split("/")[3] for k in keys_of(s3)] == ["done", "done"]
    assert watch_once(S3Drop(BUCKET, "", s3)) == []


@pytest.fixture
def queued_jobs(settings, tmp_path):
    """Settings whose jobs wait in a queue for a worker instead of running in the caller."""
    settings.update(WORKER_IMMEDIATE=False, WORKER_DB=str(tmp_path / "worker.db"))
    return settings


def test_a_dropped_files_load_is_a_worker_job_that_moves_it_aside(queued_jobs, renewals, tmp_path):
    root = tmp_path / "drop"
    put(root, "Acme/prod/Renewals", "first.csv", GOOD)
    put(root, "Acme/prod/Nope", "lost.csv", GOOD)
    outcomes = outcomes_by_file(watch_once(FolderDrop(root)))
    assert outcomes == {
        "first.csv": ("queued", None),
        "lost.csv": ("refused", "no campaign Acme/prod/Nope"),
    }
    assert aside(root / "Acme/prod/Nope/failed")["lost.csv"] == GOOD  # no load: aside at once
    campaign_dir = root / "Acme/prod/Renewals"
    assert [p.name for p in campaign_dir.iterdir()] == [".first.csv.loading"]  # claimed
    assert tasks_of(renewals) == {}
    assert watch_once(FolderDrop(root)) == []  # a claimed file is not loaded twice

    assert run_queued_jobs() == 1  # the worker
    assert set(aside(campaign_dir / "done")) == {"first.csv", "first.csv.report.csv"}
    assert set(tasks_of(renewals)) == {"A", "B"}


def test_the_sweep_moves_aside_a_file_whose_load_ended_without_it(renewals, tmp_path, monkeypatch):
    """A worker killed between a load's end and moving its file: the next sweep moves it."""
    root = tmp_path / "drop"
    put(root, "Acme/prod/Renewals", "first.csv", GOOD)
    monkeypatch.setattr(intake_jobs, "move_aside", lambda load_id: False)
    assert outcomes_by_file(watch_once(FolderDrop(root))) == {"first.csv": ("done", None)}
    assert not (root / "Acme/prod/Renewals/done").exists()
    monkeypatch.undo()
    assert sweep_intake() == {"requeued": 0, "moved_aside": 1}
    assert set(aside(root / "Acme/prod/Renewals/done")) == {"first.csv", "first.csv.report.csv"}


SECRET = "s3cr3t-" + "k" * 57  # what instance/secret_key holds: 64 characters


@pytest.fixture
def secret(tmp_path) -> Path:
    path = tmp_path / "instance" / "secret_key"
    path.parent.mkdir()
    path.write_text(SECRET)
    return path


def everything_under(folder: Path) -> str:
    """Every file's text under `folder`, links not followed."""
    files = [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]
    return "".join(p.read_text(errors="replace") for p in files)


def test_a_linked_file_is_refused_unread_and_set_aside(renewals, tmp_path, secret):
    root = tmp_path / "drop"
    put(root, "Acme/prod/Renewals", "good.csv", "Id,Name\nA,Ann\n")
    (root / "Acme/prod/Renewals/leak.csv").symlink_to(secret)

    outcomes = outcomes_by_file(watch_once(FolderDrop(root)))
    assert outcomes["good.csv"] == ("done", None)
    status, message = outcomes["leak.csv"]
    assert status == "refused" and "symbolic link" in message
    assert SECRET[:8] not in message
    failed = root / "Acme/prod/Renewals/failed"
    [link] = [p for p in failed.iterdir() if p.is_symlink()]  # set aside, still a link
    assert STAMPED.fullmatch(link.name)[1] == "leak.csv"
    assert "symbolic link" in aside(failed)["leak.csv.report.csv"]
    assert SECRET[:8] not in everything_under(root)
    assert set(tasks_of(renewals)) == {"A"}
    assert secret.read_text() == SECRET
    assert watch_once(FolderDrop(root)) == []


@pytest.mark.parametrize(
    "linked",
    ["Acme/prod/Renewals", "Acme/prod", "Acme"],
    ids=["campaign", "environment", "company"],
)
def test_a_linked_folder_is_not_followed_and_is_reported_once(renewals, tmp_path, linked):
    elsewhere = tmp_path / "elsewhere"
    outside = put(elsewhere, "Acme/prod/Renewals", "outside.csv", "Id,Name\nA,Ann\n")
    root = tmp_path / "drop"
    (root / linked).parent.mkdir(parents=True, exist_ok=True)
    (root / linked).symlink_to(elsewhere / linked, target_is_directory=True)

    drop = FolderDrop(root)
    assert outcomes_by_file(watch_once(drop)) == {
        linked: ("refused", "a symbolic link to a folder: the watcher does not follow links")
    }
    assert watch_once(drop) == []  # said once per watcher
    assert tasks_of(renewals) == {}
    assert outside.read_text() == "Id,Name\nA,Ann\n"
    assert [p.name for p in outside.parent.iterdir()] == ["outside.csv"]


def test_a_file_with_another_hard_link_is_refused(renewals, tmp_path):
    root = tmp_path / "drop"
    dropped = put(root, "Acme/prod/Renewals", "twice.csv", "Id,Name\nA,Ann\n")
    os.link(dropped, tmp_path / "other-name.csv")
    outcomes = outcomes_by_file(watch_once(FolderDrop(root)))
    assert outcomes["twice.csv"][0] == "refused"
    assert "hard links" in outcomes["twice.csv"][1]
    assert tasks_of(renewals) == {}


def test_a_claimed_file_swapped_for_a_link_is_not_read(renewals, tmp_path, secret, monkeypatch):
    """A link put in place of the file between its claim and its read: opened, not followed."""
    root = tmp_path / "drop"
    put(root, "Acme/prod/Renewals", "swap.csv", "Id,Name\nA,Ann\n")
    claim = os.rename

    def claim_then_swap(source, target):
        claim(source, target)
        if str(target).endswith(".loading"):
            os.unlink(target)
            os.symlink(secret, target)

    monkeypatch.setattr(folder_drop.os, "rename", claim_then_swap)
    outcomes = outcomes_by_file(watch_once(FolderDrop(root)))
    monkeypatch.undo()
    assert outcomes["swap.csv"][0] == "refused"
    assert SECRET[:8] not in outcomes["swap.csv"][1]
    assert tasks_of(renewals) == {}

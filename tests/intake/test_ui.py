"""The campaign page's intake parts: upload (the worker's job runs in the test), the load's
page with its counts and report, recent loads, and the export of the current search."""

from __future__ import annotations

import csv
import io
from urllib.parse import urlencode

import pytest
from huey.signals import SIGNAL_ENQUEUED
from sqlalchemy import select

from app.extensions import db
from app.jobs import huey
from app.models import IntakeLoad
from app.services.campaigns.catalogue import create_campaign
from tests.admin.conftest import RequestClient, make_supervisor, page, session_for, submit
from tests.conftest import SETUP, make_tenant
from tests.intake.conftest import tasks_of

FILE = "Id,Name,Mobile Phone,workedState\nA,Ann,+14155550123,\nB,Bob,,\nA,Ann 2,,\nC,Cy,555,\n"


@pytest.fixture
def settings(settings, request):
    return {**settings, **getattr(request, "param", {})}


@pytest.fixture(autouse=True)
def _synchronous_loads():
    """The ids of the loads the upload handed to the worker; their jobs run here, in the
    request, to their end (WORKER_IMMEDIATE, the tests' setting)."""
    queued = []

    def note(_signal, task) -> None:
        if task.name == "intake.load":
            queued.append(task.args[0])

    huey.signal(SIGNAL_ENQUEUED)(note)
    yield queued
    huey.disconnect_signal(note, SIGNAL_ENQUEUED)


@pytest.fixture
def client(app):
    app.test_client_class = RequestClient
    return app.test_client()


@pytest.fixture
def signed_in(client, acme):
    return session_for(client, make_supervisor())


def campaign_url(campaign) -> str:
    return f"/tenants/{campaign.tenant_id}/campaigns/{campaign.id}"


def upload(client, campaign, content: str | bytes, name="tasks.csv", **options):
    data = content.encode() if isinstance(content, str) else content
    changes = {"file": (io.BytesIO(data), name)}
    changes.update({option: "y" for option, chosen in options.items() if chosen})
    return submit(client, campaign_url(campaign), "/intake", changes)


def counts_table(shown) -> dict[str, str]:
    return {
        row.th.get_text(strip=True): row.td.get_text(strip=True)
        for row in shown.select("table.counts tr")
    }


def download(client, url: str):
    """GET a download and read it whole, closing the file it was served from."""
    response = client.get(url)
    try:
        return response.status_code, response.headers, response.get_data(as_text=True)
    finally:
        response.close()


def test_an_upload_loads_the_file_and_shows_the_load(signed_in, acme, renewals, _synchronous_loads):
    response = upload(signed_in, renewals, FILE)
    [load] = db.session.scalars(db.select(IntakeLoad))
    assert response.status_code == 302
    assert response.location == f"/tenants/{acme.id}/loads/{load.id}"
    assert _synchronous_loads == [load.id]
    assert (load.source, load.file_name) == ("upload", "tasks.csv")
    assert set(tasks_of(renewals)) == {"A", "B"}

    shown = page(signed_in, response.location)
    assert shown.select_one(".load-status").get_text(strip=True) == "Done"
    assert shown.find("progress")["value"] == "100"
    assert "4 of 4 rows read" in shown.get_text(" ", strip=True)
    assert counts_table(shown) == {
        "Added": "2",
        "Updated": "0",
        "Rejected": "1",
        "Superseded by a later row": "1",
        "Phone numbers normalised to E.164": "0",
    }
    assert "ignored columns: workedState" in shown.select_one(".notice").get_text()
    assert not shown.find("meta", attrs={"http-equiv": "refresh"})

    link = shown.find("a", string="Download the report")
    assert link["href"] == f"/tenants/{acme.id}/loads/{load.id}/report.csv"
    status, headers, text = download(signed_in, link["href"])
    assert status == 200
    assert headers["Content-Type"].startswith("text/csv")
    assert headers["Content-Disposition"].startswith("attachment")
    assert "tasks-report.csv" in headers["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows[0] == ["line", "clientId", "outcome", "reason"]
    assert sorted((r[0], r[1], r[2]) for r in rows[1:]) == [
        ("2", "A", "superseded"),
        ("5", "C", "rejected"),
    ]


def test_the_campaign_page_lists_recent_loads(signed_in, acme, renewals):
    upload(signed_in, renewals, "Id\nA\n", name="first.csv")
    upload(signed_in, renewals, "Id\nB\n", name="second.csv", dry_run=True)
    shown = page(signed_in, campaign_url(renewals))
    rows = shown.select("table.loads tbody tr")
    assert [row.a.get_text(strip=True) for row in rows] == ["second.csv", "first.csv"]
    assert "(dry run)" in rows[0].get_text()
    loads = {load.file_name: load for load in db.session.scalars(db.select(IntakeLoad))}
    assert rows[1].a["href"] == f"/tenants/{acme.id}/loads/{loads['first.csv'].id}"
    assert [td.get_text(strip=True) for td in rows[1].find_all("td")][2:] == [
        "done", "1", "1", "0", "0",
    ]  # fmt: skip


def test_a_dry_run_upload_writes_nothing_and_says_would_be(signed_in, renewals):
    response = upload(signed_in, renewals, FILE, dry_run=True)
    shown = page(signed_in, response.location)
    assert "dry run" in shown.find("hgroup").get_text()
    assert counts_table(shown)["Would be added"] == "2"
    assert tasks_of(renewals) == {}


def test_an_all_or_nothing_upload_with_a_bad_row_is_refused(signed_in, renewals):
    response = upload(signed_in, renewals, FILE, all_or_nothing=True)
    shown = page(signed_in, response.location)
    assert shown.select_one(".load-status").get_text(strip=True) == "Refused"
    assert "all-or-nothing" in shown.select_one(".alert").get_text()
    assert counts_table(shown)["Rejected"] == "1"
    assert tasks_of(renewals) == {}
    status, _, text = download(signed_in, shown.find("a", string="Download the report")["href"])
    assert status == 200
    assert ",C,rejected," in text


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"Name,Id\nAnn,A\n", "the first column must be 'Id'"),
        ("Id,Name\nA,Müller\n".encode("latin-1"), "not UTF-8"),
        (b"", "empty"),
    ],
    ids=["no clientId column", "latin-1", "empty"],
)
def test_a_refused_upload_shows_the_reason_and_no_dead_link(signed_in, renewals, content, words):
    response = upload(signed_in, renewals, content)
    shown = page(signed_in, response.location)
    assert shown.select_one(".load-status").get_text(strip=True) == "Refused"
    assert words in shown.select_one(".alert").get_text()
    assert tasks_of(renewals) == {}
    # A link to the report is only offered when there is a report to download.
    for link in shown.select("article a[href]"):
        status, _, _ = download(signed_in, link["href"])
        assert status == 200, link["href"]


def test_an_upload_without_a_file_goes_back_to_the_campaign(signed_in, renewals):
    response = signed_in.post(f"{campaign_url(renewals)}/intake", data={})
    assert response.status_code == 302
    assert response.location == campaign_url(renewals)
    assert "Choose a CSV file" in page(signed_in, response.location).get_text()
    assert db.session.scalars(db.select(IntakeLoad)).all() == []


@pytest.mark.parametrize("settings", [{"WTF_CSRF_ENABLED": True}], indirect=True)
def test_the_upload_form_carries_its_csrf_token(signed_in, renewals):
    response = upload(signed_in, renewals, "Id\nA\n")
    assert response.status_code == 302, response.status_code
    assert set(tasks_of(renewals)) == {"A"}
    forged = signed_in.post(
        f"{campaign_url(renewals)}/intake", data={"file": (io.BytesIO(b"Id\nB\n"), "x.csv")}
    )
    assert forged.status_code == 400
    assert set(tasks_of(renewals)) == {"A"}


def test_another_tenants_load_is_not_found(signed_in, client, acme, renewals):
    globex, _ = make_tenant("Globex", "test")
    load_url = upload(signed_in, renewals, FILE).location
    load_id = load_url.rsplit("/", 1)[1]
    for url in (
        f"/tenants/{globex.id}/loads/{load_id}",
        f"/tenants/{globex.id}/loads/{load_id}/report.csv",
    ):
        assert download(signed_in, url)[0] == 404
    assert download(signed_in, f"/tenants/{acme.id}/loads/no-such-load")[0] == 404

    # A supervisor of Globex alone sees neither Acme's load nor its report.
    limited = make_supervisor("globex@example.com", [globex])
    other = session_for(client.application.test_client(), limited)
    for url in (load_url, f"{load_url}/report.csv"):
        assert download(other, url)[0] == 404


def test_pages_and_downloads_need_a_sign_in(client, acme, renewals):
    for url in (f"{campaign_url(renewals)}/export.csv", f"/tenants/{acme.id}/loads/x"):
        response = client.get(url)
        assert response.status_code == 302
        assert response.location.startswith("/login")
    assert client.post(f"{campaign_url(renewals)}/intake").status_code == 302
    assert db.session.scalars(db.select(IntakeLoad)).all() == []


@pytest.fixture
def plans(api, renewals):
    api.add("A", {"Name": "Ann", "Plan": "Gold"})
    api.add("B", {"Name": "Bob", "Plan": "Silver", "Balance": "3"})
    api.add("C", {"Name": "Cy", "Plan": "Gold"})
    return renewals


def test_the_export_link_downloads_the_current_search(signed_in, plans):
    search = urlencode({"k": "Plan", "c": "EQUALS", "v": "Gold"})
    shown = page(signed_in, f"{campaign_url(plans)}?{search}")
    link = shown.find("a", string="Download these tasks (CSV)")
    assert link["href"].startswith(f"{campaign_url(plans)}/export.csv?")
    status, headers, text = download(signed_in, link["href"])
    assert status == 200
    assert headers["Content-Type"].startswith("text/csv")
    assert headers["Content-Disposition"] == 'attachment; filename="Renewals.csv"'
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert [(r["Id"], r["Plan"]) for r in rows] == [("A", "Gold"), ("C", "Gold")]
    assert "Balance" not in rows[0]

    everything = page(signed_in, campaign_url(plans)).find("a", string="Download these tasks (CSV)")
    _, _, text = download(signed_in, everything["href"])
    assert [r["Id"] for r in csv.DictReader(io.StringIO(text, newline=""))] == ["A", "B", "C"]


def test_the_download_is_safe_to_open_in_a_spreadsheet(signed_in, api, renewals):
    api.add("A", {"Name": '=HYPERLINK("http://x")', "Mobile Phone": "+14155550123"})
    _, _, text = download(signed_in, f"{campaign_url(renewals)}/export.csv")
    row = next(csv.DictReader(io.StringIO(text, newline="")))
    assert (row["Name"], row["Mobile Phone"]) == ('\'=HYPERLINK("http://x")', "+14155550123")


def test_the_export_file_is_named_after_the_campaign(signed_in, acme):
    campaign = create_campaign(acme, "Spring Renewals / 2030", "Sales", "UTC", actor=SETUP)
    db.session.commit()
    _, headers, text = download(signed_in, f"{campaign_url(campaign)}/export.csv")
    assert headers["Content-Disposition"] == 'attachment; filename="Spring_Renewals___2030.csv"'
    assert text.startswith("Id,previewRecordID,")


@pytest.mark.parametrize(
    "search",
    [
        {"k": "Plan", "c": "LIKE", "v": "Gold"},
        {"k": "sys_worked_attempts", "c": "GREATERTHAN", "v": "many"},
    ],
    ids=["unknown condition", "not a whole number"],
)
def test_an_export_of_a_search_in_error_is_a_400(signed_in, plans, search):
    status, _, _ = download(signed_in, f"{campaign_url(plans)}/export.csv?{urlencode(search)}")
    assert status == 400


def test_the_load_page_shows_an_escaped_excerpt(signed_in, renewals):
    header = "<script>alert(1)</script>" + "q" * 61 + "XyZ"
    response = upload(signed_in, renewals, f"{header},Name\nA,Ann\n")
    shown = page(signed_in, response.location)
    alert = shown.select_one(".alert")
    assert "it is '<script>alert(1)</script… (89 characters)'" in alert.get_text()
    assert "&lt;script&gt;alert(1)" in str(alert)
    assert not shown.select("article script")
    assert "XyZ" not in str(shown)
    assert "XyZ" not in db.session.scalars(select(IntakeLoad)).one().message

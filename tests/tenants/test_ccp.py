"""The Contact Control Panel a tenant on Amazon Connect embeds in the desk: its URL's rules,
its trail, `tenant set-instance --ccp-url/--no-ccp`, and the tenants page."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, Tenant
from app.services.errors import InvalidInput
from app.services.fields import TENANT_CCP_URL
from app.services.tenants.ccp import ccp_origin, set_ccp_url
from app.services.tenants.setup import set_instance
from tests.admin.conftest import page
from tests.cli.test_commands import assert_fails, last_line
from tests.conftest import SETUP

CCP = "https://acme.my.connect.aws/ccp-v2/"
INSTANCE = ["--amazon-connect", "--instance-id", "inst-1", "--connect-region", "eu-west-2"]


def stored(tenant: Tenant) -> str | None:
    db.session.expire_all()
    return db.session.get(Tenant, tenant.id).connect_ccp_url


def trail() -> list[tuple]:
    rows = db.session.scalars(
        select(AuditRecord).filter_by(action="tenant.ccp_url_set").order_by(AuditRecord.id)
    )
    return [(row.before, row.after, row.actor_kind) for row in rows]


@pytest.fixture
def on_connect(acme):
    set_instance(acme, "amazon-connect", "inst-1", "eu-west-2", actor=SETUP)
    db.session.commit()
    return acme


@pytest.mark.parametrize(
    "url",
    [
        CCP,
        "https://acme.my.connect.aws/ccp-v2",
        "https://acme-prod.awsapps.com/connect/ccp-v2/",
        "  https://acme.my.connect.aws/ccp-v2/  ",
    ],
)
def test_a_ccp_url_on_the_instances_domain_is_kept(on_connect, url):
    assert set_ccp_url(on_connect, url, actor=SETUP) is True
    db.session.commit()
    assert stored(on_connect) == url.strip()
    assert trail() == [({"connectCcpUrl": None}, {"connectCcpUrl": url.strip()}, "operator")]
    assert ccp_origin(on_connect) == url.strip().split("/ccp-v2")[0].split("/connect")[0]


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://acme.my.connect.aws/ccp-v2/", "must be an https URL"),
        ("acme.my.connect.aws/ccp-v2/", "must be an https URL"),
        ("javascript:alert(1)", "must be an https URL"),
        ("https://evil.example/ccp-v2/", "Amazon Connect domain"),
        ("https://acme.my.connect.aws.evil.example/ccp-v2/", "Amazon Connect domain"),
        ("https://user:pw@acme.my.connect.aws/ccp-v2/", "Amazon Connect domain"),
        ("https://acme.my.connect.aws:8443/ccp-v2/", "Amazon Connect domain"),
        ("https://acme.my.connect.aws:x/ccp-v2/", "must be an https URL"),
        ("https://acme.my.connect.aws/ccp-v2/?a=1", "no query or fragment"),
        ("https://acme.my.connect.aws/ccp-v2/#x", "no query or fragment"),
        ("https://acme.my.connect.aws/" + "x" * 250, "at most 255"),
    ],
)
def test_a_ccp_url_elsewhere_is_refused_by_its_field(on_connect, url, words):
    with pytest.raises(InvalidInput, match=words) as refused:
        set_ccp_url(on_connect, url, actor=SETUP)
    assert refused.value.field == TENANT_CCP_URL
    db.session.rollback()
    assert stored(on_connect) is None and trail() == []


def test_only_a_tenant_on_amazon_connect_has_a_ccp(acme):
    with pytest.raises(InvalidInput, match="only for a tenant whose instance is Amazon Connect"):
        set_ccp_url(acme, CCP, actor=SETUP)
    assert ccp_origin(acme) is None


def test_the_same_url_again_records_nothing_and_leaving_connect_removes_it(on_connect):
    set_ccp_url(on_connect, CCP, actor=SETUP)
    assert set_ccp_url(on_connect, CCP, actor=SETUP) is False
    set_instance(on_connect, "local", actor=SETUP)
    db.session.commit()
    assert stored(on_connect) is None
    assert [after for _before, after, _kind in trail()] == [
        {"connectCcpUrl": CCP},
        {"connectCcpUrl": None},
    ]


# --- the CLI ----------------------------------------------------------------------------


def cli(runner, *args: str):
    return runner.invoke(args=["tenant", "set-instance", "Acme", "prod", *args])


def test_the_cli_sets_keeps_and_removes_the_ccp(runner, acme):
    result = cli(runner, *INSTANCE, "--ccp-url", CCP)
    assert result.exit_code == 0, result.output
    assert last_line(result).endswith(f"the desk embeds the CCP {CCP}.")
    assert stored(acme) == CCP
    result = cli(runner, *INSTANCE)  # not given: kept
    assert stored(acme) == CCP
    result = cli(runner, *INSTANCE, "--no-ccp")
    assert result.exit_code == 0, result.output
    assert last_line(result).endswith("the desk uses tel: links.")
    assert stored(acme) is None


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ([*INSTANCE, "--ccp-url", "http://acme.my.connect.aws/ccp-v2/"], ["https"]),
        ([*INSTANCE, "--ccp-url", CCP, "--no-ccp"], ["--ccp-url URL or --no-ccp"]),
        (["--local", "--ccp-url", CCP], ["Amazon Connect"]),
    ],
)
def test_the_cli_refuses_a_bad_ccp_and_changes_nothing(runner, acme, args, words):
    assert_fails(cli(runner, *args), *words)
    db.session.expire_all()
    assert db.session.get(Tenant, acme.id).instance_kind == "local"
    assert stored(acme) is None


def test_the_tenants_page_shows_the_ccp(signed_in, on_connect):
    set_ccp_url(on_connect, CCP, actor=SETUP)
    db.session.commit()
    text = page(signed_in, "/tenants").find("main").get_text(" ", strip=True)
    assert f"CCP in the desk: {CCP}" in text

"""Which tenants a supervisor sees: all of them, or only those given; other tenants' pages
answer 404 as if they did not exist, and their forms change nothing."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Campaign, Task
from app.services.campaigns.catalogue import find_campaign, list_campaigns
from app.services.people.users import list_users
from app.services.tenants.setup import list_skill_queues, list_user_templates
from tests.admin.conftest import add_task, make_supervisor, page, session_for
from tests.conftest import make_tenant


@pytest.fixture
def globex(app):
    """A second tenant, Globex/test, with the same campaign names as Acme."""
    return make_tenant("Globex", "test")[0]


@pytest.fixture
def acme_only(client, acme, globex):
    """A client signed in as a supervisor who sees only Acme."""
    return session_for(client, make_supervisor("acme@example.com", [acme]))


def tenant_links(client) -> list[str]:
    return [a.get_text() for a in page(client, "/tenants").select("main table a")]


def test_a_supervisor_with_tenants_sees_only_those(acme_only):
    assert tenant_links(acme_only) == ["Acme"]


def test_a_supervisor_without_tenants_sees_every_tenant(signed_in, acme, globex):
    assert tenant_links(signed_in) == ["Acme", "Globex"]
    assert page(signed_in, f"/tenants/{globex.id}/campaigns").h1.get_text() == "Campaigns"


OTHER_TENANT = [
    ("GET", "/tenants/{t}/campaigns"),
    ("GET", "/tenants/{t}/campaigns/{c}"),
    ("GET", "/tenants/{t}/campaigns/{c}/tasks/new"),
    ("GET", "/tenants/{t}/tasks/{r}"),
    ("GET", "/tenants/{t}/tasks/{r}/agent"),
    ("GET", "/tenants/{t}/tasks/{r}/delete"),
    ("GET", "/tenants/{t}/users"),
    ("GET", "/tenants/{t}/keys"),
    ("POST", "/tenants/{t}/campaigns"),
    ("POST", "/tenants/{t}/queues"),
    ("POST", "/tenants/{t}/campaigns/{c}/tasks/new"),
    ("POST", "/tenants/{t}/tasks/{r}/items"),
    ("POST", "/tenants/{t}/tasks/{r}/status"),
    ("POST", "/tenants/{t}/tasks/{r}/transfer"),
    ("POST", "/tenants/{t}/tasks/{r}/delete"),
    ("POST", "/tenants/{t}/users"),
    ("POST", "/tenants/{t}/templates"),
    ("POST", "/tenants/{t}/keys/rotate"),
]
FORM = {
    "campaign-name": "New",
    "queue-name": "New",
    "client_id": "New",
    "data-items-0-key": "Name",
    "data-items-0-value": "Changed",
    "status-state": "COMPLETED",
    "transfer-destination": "Winback",
    "user-login_user_id": "new",
    "template-name": "New",
}


def snapshot(tenant) -> tuple:
    """Everything a form could change in the tenant."""
    db.session.expire_all()
    tasks = db.session.scalars(
        select(Task).join(Campaign).where(Campaign.tenant_id == tenant.id)
    ).all()
    return (
        len(tenant.api_keys),
        [c.name for c in list_campaigns(tenant)],
        [q.name for q in list_skill_queues(tenant)],
        [t.name for t in list_user_templates(tenant)],
        [u.login_user_id for u in list_users(tenant)],
        [(t.client_id, t.worked_state, t.campaign.name, [i.value for i in t.items]) for t in tasks],
    )


@pytest.mark.parametrize(("method", "path"), OTHER_TENANT)
def test_pages_of_another_tenant_answer_404(acme_only, globex, method, path):
    campaign = find_campaign(globex, "Renewals")
    task = add_task(campaign, "G1", {"Name": "Gail"})
    before = snapshot(globex)
    url = path.format(t=globex.id, c=campaign.id, r=task.record_id)
    assert acme_only.open(url, method=method, data=FORM).status_code == 404
    assert snapshot(globex) == before


@pytest.mark.parametrize(
    "path",
    ["/tenants/{a}/campaigns/{c}", "/tenants/{a}/tasks/{r}", "/tenants/{a}/tasks/{r}/agent"],
)
def test_another_tenants_campaign_or_task_is_404_under_a_visible_tenant(
    acme_only, acme, globex, path
):
    campaign = find_campaign(globex, "Renewals")
    task = add_task(campaign, "G1")
    url = path.format(a=acme.id, c=campaign.id, r=task.record_id)
    assert acme_only.get(url).status_code == 404


def test_an_unknown_tenant_is_404(signed_in, acme):
    assert signed_in.get(f"/tenants/{acme.id + 999}/campaigns").status_code == 404

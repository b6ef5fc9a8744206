"""The Preview Campaign Realtime API: the five actions on a campaign's tasks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, jsonify
from pydantic import ValidationError

from app.api import wire
from app.api.fields import NEXT_EARLIEST, refusal_message
from app.api.schemas import (
    AddOrUpdateRequest,
    ChangeStatusRequest,
    Common,
    DeleteRequest,
    SearchRequest,
    TransferRequest,
)
from app.db.transactions import in_one_transaction, read_only, reads_first
from app.extensions import db
from app.models import Campaign
from app.services.actors import Actor
from app.services.errors import InvalidInput, ServiceError
from app.services.search.query import result_limit, search_tasks
from app.services.tasks import changes as tasks
from app.services.tasks.data import with_data
from app.services.tasks.lookups import CampaignRef, CampaignRow
from app.web.api_keys import Caller, authenticate
from app.web.bodies import json_object, receive
from app.web.schemas import describe
from app.wire.times import sent_time

PREFIX = "/service-previewcontact-service/svc/rs/PreviewContactServiceExternal"

bp = Blueprint("preview", __name__, url_prefix=PREFIX)


def _check_tenant(caller: Caller, common: Common) -> None:
    """The body must name the tenant the headers authenticated, in the tenant's region."""
    if problem := caller.mismatch(common.platform, common.companyCode, common.environment):
        raise InvalidInput(problem)
    if common.region != caller.region:
        raise InvalidInput(
            f"region '{common.region}' is not the region of this environment ({caller.region})"
        )


def _validated(schema: type[Common], body: dict[str, Any], caller: Caller) -> Any:
    """The body as `schema` reads it, naming the caller's tenant and region.

    The common fields and the tenant are checked first, so a request refused for both
    names them; a valid body is read once.
    """
    try:
        request = schema.model_validate(body)
    except ValidationError:
        _check_tenant(caller, Common.model_validate(body))
        raise
    _check_tenant(caller, request)
    return request


def _run(
    schema: type[Common],
    action: Callable[[Any, Any, Actor], dict],
    campaign_of: Callable[[int, str], Any] = tasks.campaign_named,
    reads_only: bool = False,
    **on_failure: Any,
):
    """Authenticate, validate, run one action in one transaction, answer the envelope.

    The action acts as the caller's key on the campaign `campaign_of` finds (a model by
    default; a read takes a plain row); a refused action rolls back with its change the
    audit record and the event it wrote. An action that writes begins as a reader and
    takes the write lock when it is ready to write (app/db/transactions.py, `reads_first`). An
    action that `reads_only` has nothing to commit or roll back: its transaction ends with
    the request, when the session closes.
    """
    receive()
    caller = authenticate()
    body = json_object()

    def act() -> dict:
        request = _validated(schema, body, caller)
        campaign = campaign_of(caller.tenant_id, request.campaignName)
        return action(campaign, request, caller.actor)

    extra, refused = in_one_transaction(
        db.session, act, refusals=(ValidationError, ServiceError), writes=not reads_only
    )
    if isinstance(refused, ValidationError):
        return jsonify(wire.envelope(body, wire.FAILED, describe(refused), **on_failure))
    if refused is not None:
        return jsonify(
            wire.envelope(body, wire.status_of(refused), refusal_message(refused), **on_failure)
        )
    return jsonify(wire.envelope(body, wire.SUCCESS, None, **extra))


@bp.post("/addOrUpdateCampaignRecord", provide_automatic_options=False)
@reads_first
def add_or_update_campaign_record():
    """Add a task, or replace all the data of an existing one."""

    def action(campaign: CampaignRow, request: AddOrUpdateRequest, actor: Actor) -> dict:
        tasks.add_or_update_record(
            campaign,
            request.clientId,
            request.items(),
            record_id=request.previewRecordId or None,
            client_id_field_name=request.clientIdFieldName or None,
            preferred_agent=request.preferredAgent,
            next_earliest=sent_time(request.nextEarliestWorkTimeUTC, NEXT_EARLIEST),
            actor=actor,
        )
        return {}

    return _run(AddOrUpdateRequest, action, tasks.campaign_row)


@bp.post("/searchPreviewCampaign", provide_automatic_options=False)
@read_only
def search_preview_campaign():
    """Look up one task by id, or the tasks matching every criterion."""

    def action(campaign: CampaignRef, request: SearchRequest, _actor: Actor) -> dict:
        locator = request.locator()
        if locator.record_id or locator.client_id:
            stored = tasks.find_task_snapshot(campaign, locator)
            return {"previewRecordClientData": [wire.stored_record(stored)]}
        found = search_tasks(campaign, _criteria(request), result_limit(request.maxRecords))
        return {"previewRecordClientData": [wire.found_record(one) for one in with_data(found)]}

    return _run(
        SearchRequest, action, tasks.campaign_ref, reads_only=True, previewRecordClientData=[]
    )


def _criteria(request: SearchRequest) -> list:
    if not request.previewRecordData:
        raise InvalidInput(
            "previewRecordData is required (at least one criterion) "
            "unless previewRecordId or clientId is given"
        )
    return [criterion.criterion() for criterion in request.previewRecordData]


@bp.post("/changeCampaignRecordStatus", provide_automatic_options=False)
@reads_first
def change_campaign_record_status():
    """Set a task's worked state and, optionally, its queue, agent, time and zone."""

    def action(campaign: Campaign, request: ChangeStatusRequest, actor: Actor) -> dict:
        tasks.change_status(
            campaign,
            request.locator(),
            request.previewRecordStateEnum,
            request.changes(),
            actor=actor,
        )
        return {}

    return _run(ChangeStatusRequest, action)


@bp.post("/transferCampaignRecord", provide_automatic_options=False)
@reads_first
def transfer_campaign_record():
    """Move a task to another campaign and/or skill queue."""

    def action(campaign: Campaign, request: TransferRequest, actor: Actor) -> dict:
        tasks.transfer_task(
            campaign,
            request.locator(),
            request.transferToCampaign,
            request.changes(),
            actor=actor,
        )
        return {}

    return _run(TransferRequest, action)


@bp.post("/deleteRecordFromCampaign", provide_automatic_options=False)
@reads_first
def delete_record_from_campaign():
    """Remove a task from its campaign."""

    def action(campaign: Campaign, request: DeleteRequest, actor: Actor) -> dict:
        tasks.delete_task(campaign, request.locator(), actor=actor)
        return {}

    return _run(DeleteRequest, action)

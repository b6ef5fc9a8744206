"""Schemathesis hooks for the contract run (loaded through SCHEMATHESIS_HOOKS).

Generated bodies name random tenants and campaigns, which the service refuses at once with
a 200 FAILED; so that the fuzzing reaches the task and user rules too, most bodies are made
to name the tenant, a campaign, the user template and the agent of the live server (given
in the CONTRACT_* variables). Only string values are replaced: a wrong type stays, to be
answered as such.
"""

from __future__ import annotations

import os
import zlib
from typing import Any

import schemathesis

_IDENTITY = ("platform", "companyCode", "environment")
# One generated body in this many keeps its random identity (the refusal path is fuzzed too).
_KEEP_RANDOM_ONE_IN = 5


def _tenant() -> dict[str, str]:
    return {name: os.environ[f"CONTRACT_{name.upper()}"] for name in _IDENTITY}


def _real(body: dict[str, Any], names: dict[str, str]) -> None:
    for name, value in names.items():
        if isinstance(body.get(name), str):
            body[name] = value


@schemathesis.hook
def map_body(ctx: Any, body: Any) -> Any:
    """Name the live tenant (one of its campaigns, its agent) in most generated bodies."""
    if not isinstance(body, dict):
        return body
    # Derived from the body, not drawn: Hypothesis must be able to replay and shrink a case.
    pick = zlib.crc32(repr(body).encode("utf-8", "surrogatepass"))
    if pick % _KEEP_RANDOM_ONE_IN == 0:
        return body
    tenant = _tenant()
    if isinstance(body.get("tenant"), dict):
        _real(body["tenant"], tenant)
    campaigns = os.environ["CONTRACT_CAMPAIGNS"].split(",")
    _real(body, {**tenant, "region": os.environ["CONTRACT_REGION"]})
    _real(body, {"campaignName": campaigns[pick % len(campaigns)]})
    _real(body, {"transferToCampaign": campaigns[(pick // 7) % len(campaigns)]})
    _real(body, {"userTemplateName": os.environ["CONTRACT_USER_TEMPLATE"]})
    _real(body, {"agent": os.environ["CONTRACT_AGENT"]})
    if "/reports-api/" in ctx.operation.path:
        # A real queue and, mostly, a range the reports accept (at most 366 days).
        queues = os.environ["CONTRACT_QUEUES"].split(",")
        _real(body, {"skillQueue": queues[pick % len(queues)]})
        _real(body, {"timeZone": "Europe/Paris"})
        start = body.get("from")
        if pick % 3 and isinstance(start, int) and not isinstance(start, bool):
            body["to"] = start + (pick % 366 + 1) * 86_400_000
    if ctx.operation.path.endswith("/searchPreviewCampaign") and pick % 3 == 0:
        # A lookup of a seeded task: search answers then hold every field of a task.
        seeded = os.environ["CONTRACT_CLIENT_IDS"].split(",")
        if isinstance(body.get("clientId"), str):
            body.pop("previewRecordId", None)
            body["clientId"] = seeded[(pick // 11) % len(seeded)]
    return body

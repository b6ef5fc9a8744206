"""What the tenant's SCIM endpoints say of themselves (RFC 7644, section 4):
/ServiceProviderConfig, /ResourceTypes and /Schemas, each read only (other methods 405)."""

from __future__ import annotations

from scim2_models import Context, ListResponse, Meta, ResourceType, Schema

from app.scim import resources
from app.scim.access import answer, base_url, bp, error

READ_ONLY = ("POST", "PUT", "PATCH", "DELETE")


def _dumped(found) -> dict:
    return found.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE)


def _listed(found: list) -> dict:
    kind = ListResponse[type(found[0])] if found else ListResponse[Schema]
    page = kind(total_results=len(found), start_index=1, items_per_page=len(found), resources=found)
    return _dumped(page)


@bp.get("/ServiceProviderConfig")
def service_provider_config():
    found = resources.config()
    found.meta = Meta(resource_type="ServiceProviderConfig",
                      location=f"{base_url()}/ServiceProviderConfig")  # fmt: skip
    return answer(_dumped(found))


def _types() -> list[ResourceType]:
    found = resources.resource_types()
    for each in found:
        each.meta = Meta(
            resource_type="ResourceType", location=f"{base_url()}/ResourceTypes/{each.id}"
        )
    return found


def _schemas() -> list[Schema]:
    found = resources.schemas()
    for each in found:
        each.meta = Meta(resource_type="Schema", location=f"{base_url()}/Schemas/{each.id}")
    return found


@bp.get("/ResourceTypes")
def resource_types():
    return answer(_listed(_types()))


@bp.get("/ResourceTypes/<name>")
def resource_type(name: str):
    found = next((t for t in _types() if t.id == name), None)
    return answer(_dumped(found)) if found else error(404, f"No resource type {name}.")


@bp.get("/Schemas")
def schemas():
    return answer(_listed(_schemas()))


@bp.get("/Schemas/<path:urn>")
def schema(urn: str):
    found = next((s for s in _schemas() if s.id == urn), None)
    return answer(_dumped(found)) if found else error(404, f"No schema {urn}.")


@bp.route("/ServiceProviderConfig", methods=READ_ONLY)
@bp.route("/ResourceTypes", methods=READ_ONLY)
@bp.route("/ResourceTypes/<name>", methods=READ_ONLY)
@bp.route("/Schemas", methods=READ_ONLY)
@bp.route("/Schemas/<path:urn>", methods=READ_ONLY)
def read_only(**_ignored):
    return error(405, "This endpoint is read only.")

"""Tenants, their skill queues and user templates."""

from __future__ import annotations

from sqlalchemy import select

from app.extensions import db
from app.models import REGIONS, AuthMode, SkillQueue, Tenant, UserTemplate
from app.services.errors import Conflict, InvalidInput, NotFound


def find_tenant(platform: str, company_code: str, environment: str) -> Tenant | None:
    return db.session.scalar(
        select(Tenant).filter_by(
            platform=platform, company_code=company_code, environment=environment
        )
    )


def get_tenant(platform: str, company_code: str, environment: str) -> Tenant:
    tenant = find_tenant(platform, company_code, environment)
    if tenant is None:
        raise NotFound(f"no tenant {company_code}/{environment}")
    return tenant


def create_tenant(
    platform: str, company_code: str, environment: str, region: str, auth_mode: str
) -> Tenant:
    """Register a company environment; its first API key is issued separately."""
    for name, value in (("company code", company_code), ("environment", environment)):
        if not value.strip() or len(value) > 128:
            raise InvalidInput(f"{name} must be 1 to 128 characters")
    if region not in REGIONS:
        raise InvalidInput(f"region '{region}' is not one of {', '.join(REGIONS)}")
    if auth_mode not in set(AuthMode):
        raise InvalidInput(f"auth mode '{auth_mode}' is not one of saml, directory, internal")
    if find_tenant(platform, company_code, environment):
        raise Conflict(f"tenant {company_code}/{environment} already exists")
    tenant = Tenant(
        platform=platform,
        company_code=company_code,
        environment=environment,
        region=region,
        auth_mode=auth_mode,
    )
    db.session.add(tenant)
    return tenant


def _check_name(name: str, what: str) -> None:
    if not name.strip() or len(name) > 255:
        raise InvalidInput(f"{what} name must be 1 to 255 characters")


def find_skill_queue(tenant: Tenant, name: str) -> SkillQueue | None:
    return db.session.scalar(select(SkillQueue).filter_by(tenant_id=tenant.id, name=name))


def get_skill_queue(tenant: Tenant, name: str, field: str = "skill queue") -> SkillQueue:
    queue = find_skill_queue(tenant, name)
    if queue is None:
        raise InvalidInput(f"{field} '{name}' is not a skill queue of this environment")
    return queue


def list_skill_queues(tenant: Tenant) -> list[SkillQueue]:
    return list(
        db.session.scalars(
            select(SkillQueue).filter_by(tenant_id=tenant.id).order_by(SkillQueue.name)
        )
    )


def create_skill_queue(tenant: Tenant, name: str) -> SkillQueue:
    _check_name(name, "skill queue")
    if find_skill_queue(tenant, name):
        raise Conflict(f"skill queue '{name}' already exists")
    queue = SkillQueue(tenant=tenant, name=name)
    db.session.add(queue)
    return queue


def find_user_template(tenant: Tenant, name: str) -> UserTemplate | None:
    return db.session.scalar(select(UserTemplate).filter_by(tenant_id=tenant.id, name=name))


def create_user_template(tenant: Tenant, name: str) -> UserTemplate:
    _check_name(name, "user template")
    if find_user_template(tenant, name):
        raise Conflict(f"user template '{name}' already exists")
    template = UserTemplate(tenant=tenant, name=name)
    db.session.add(template)
    return template

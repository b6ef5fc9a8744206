"""Tenants, their skill queues and user templates."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from app.extensions import db
from app.models import REGIONS, AuthMode, InstanceKind, PhoneType, SkillQueue, Tenant, UserTemplate
from app.models.tenants import AWS_REGION
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.errors import Conflict, InvalidInput, NotFound
from app.services.fields import (
    SKILL_QUEUE_NAME,
    TENANT_COMPANY_CODE,
    TENANT_ENVIRONMENT,
    USER_TEMPLATE_AFTER_CONTACT_WORK,
    USER_TEMPLATE_DESK_PHONE_NUMBER,
    USER_TEMPLATE_NAME,
    USER_TEMPLATE_PHONE_TYPE,
    USER_TEMPLATE_QUEUES,
    Field,
)
from app.services.tenants.ccp import set_ccp_url
from app.services.values import is_e164

_CONNECT_ID = re.compile(r"[A-Za-z0-9:/_.-]{1,256}")
_INSTANCE_ID = re.compile(r"[A-Za-z0-9:/_.-]{1,100}")  # Connect's InstanceId limit
MAX_SECURITY_PROFILES = 10


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


def tenant_fields(tenant: Tenant) -> dict:
    """A tenant as the trail records it."""
    return {
        "platform": tenant.platform,
        "companyCode": tenant.company_code,
        "environment": tenant.environment,
        "region": tenant.region,
        "authMode": tenant.auth_mode,
        "instanceKind": tenant.instance_kind,
        "connectInstanceId": tenant.connect_instance_id,
        "connectRegion": tenant.connect_region,
    }


def create_tenant(
    platform: str,
    company_code: str,
    environment: str,
    region: str,
    auth_mode: str,
    *,
    actor: Actor,
) -> Tenant:
    """Register a company environment; its first API key is issued separately."""
    for named, value in (
        (TENANT_COMPANY_CODE.said_as("company code"), company_code),
        (TENANT_ENVIRONMENT.said_as("environment"), environment),
    ):
        if not value.strip() or len(value) > 128:
            raise InvalidInput(f"{named} must be 1 to 128 characters", field=named)
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
        instance_kind=InstanceKind.LOCAL,
    )
    db.session.add(tenant)
    db.session.flush()  # its id keys the trail
    record(
        actor,
        Change("tenant.added", "tenant", str(tenant.id), tenant.id, after=tenant_fields(tenant)),
    )
    return tenant


# How this module's refusals name their fields.
QUEUE = SKILL_QUEUE_NAME.said_as("skill queue")
TEMPLATE_NAME = USER_TEMPLATE_NAME.said_as("user template name")


def _check_name(name: str, field: Field) -> None:
    if not name.strip() or len(name) > 255:
        raise InvalidInput(f"{field} must be 1 to 255 characters", field=field)


def find_skill_queue(tenant: Tenant, name: str) -> SkillQueue | None:
    return db.session.scalar(select(SkillQueue).filter_by(tenant_id=tenant.id, name=name))


def get_skill_queue(tenant: Tenant, name: str, field: Field = QUEUE) -> SkillQueue:
    """The tenant's queue of that name, or a refusal about `field`: named first by its
    `said` words, else by "skill queue" (a queue among several the refusal says whole)."""
    queue = find_skill_queue(tenant, name)
    if queue is None:
        raise InvalidInput(
            f"{field.said or 'skill queue'} '{name}' is not a skill queue of this environment",
            field=field,
        )
    return queue


def list_skill_queues(tenant: Tenant) -> list[SkillQueue]:
    return list(
        db.session.scalars(
            select(SkillQueue).filter_by(tenant_id=tenant.id).order_by(SkillQueue.name)
        )
    )


def create_skill_queue(tenant: Tenant, name: str, *, actor: Actor) -> SkillQueue:
    _check_name(name, SKILL_QUEUE_NAME.said_as("skill queue name"))
    if find_skill_queue(tenant, name):
        raise Conflict(f"skill queue '{name}' already exists", field=SKILL_QUEUE_NAME)
    queue = SkillQueue(tenant=tenant, name=name)
    db.session.add(queue)
    db.session.flush()
    record(
        actor,
        Change("skill_queue.added", "skill_queue", str(queue.id), tenant.id, after={"name": name}),
    )
    return queue


def _instance_fields(tenant: Tenant) -> dict:
    fields = tenant_fields(tenant)
    return {name: fields[name] for name in ("instanceKind", "connectInstanceId", "connectRegion")}


def set_instance(
    tenant: Tenant,
    kind: str,
    instance_id: str | None = None,
    region: str | None = None,
    *,
    actor: Actor,
) -> None:
    """Point the tenant at its contact-centre instance: the local one, or Amazon Connect
    (leaving Connect removes the desk's Contact Control Panel)."""
    _check_instance(kind, instance_id, region)
    before = _instance_fields(tenant)
    if kind == InstanceKind.LOCAL:
        instance_id = region = None
        set_ccp_url(tenant, None, actor=actor)
    tenant.instance_kind = kind
    tenant.connect_instance_id, tenant.connect_region = instance_id, region
    record(
        actor,
        Change(
            "tenant.instance_set",
            "tenant",
            str(tenant.id),
            tenant.id,
            before=before,
            after=_instance_fields(tenant),
        ),
    )


def _check_instance(kind: str, instance_id: str | None, region: str | None) -> None:
    if kind == InstanceKind.LOCAL:
        return
    if kind != InstanceKind.AMAZON_CONNECT:
        raise InvalidInput(f"instance kind '{kind}' is not one of local, amazon-connect")
    if not instance_id or not _INSTANCE_ID.fullmatch(instance_id):
        raise InvalidInput(
            "an Amazon Connect instance id (or ARN) of at most 100 characters is required"
        )
    if not region or not AWS_REGION.fullmatch(region):
        raise InvalidInput(f"'{region}' is not an AWS region name")


@dataclass(frozen=True)
class TemplateSettings:
    """What a user template stands for in an Amazon Connect instance."""

    security_profile_ids: list[str] = field(default_factory=list)
    routing_profile_id: str | None = None
    hierarchy_group_id: str | None = None
    phone_type: str = PhoneType.SOFT_PHONE
    auto_accept: bool = False
    after_contact_work_seconds: int = 0
    desk_phone_number: str | None = None

    def check(self) -> None:
        if len(self.security_profile_ids) > MAX_SECURITY_PROFILES:
            raise InvalidInput(
                f"a template takes at most {MAX_SECURITY_PROFILES} security profiles"
            )
        ids = [*self.security_profile_ids, self.routing_profile_id, self.hierarchy_group_id]
        if any(value is not None and not _CONNECT_ID.fullmatch(value) for value in ids):
            raise InvalidInput("profile and group ids are 1 to 256 letters, digits or :/_.-")
        if self.phone_type not in set(PhoneType):
            raise InvalidInput(
                f"phone type '{self.phone_type}' is not SOFT_PHONE or DESK_PHONE",
                field=USER_TEMPLATE_PHONE_TYPE.said_as("phone type"),
            )
        if not 0 <= self.after_contact_work_seconds <= 2**31 - 1:
            raise InvalidInput(
                "after-contact work time must be 0 to 2147483647 seconds",
                field=USER_TEMPLATE_AFTER_CONTACT_WORK.said_as("after-contact work time"),
            )
        if self.phone_type == PhoneType.DESK_PHONE and not (
            self.desk_phone_number and is_e164(self.desk_phone_number)
        ):
            raise InvalidInput(
                "a DESK_PHONE template needs an E.164 desk phone number",
                field=USER_TEMPLATE_DESK_PHONE_NUMBER,
            )


def find_user_template(tenant: Tenant, name: str) -> UserTemplate | None:
    return db.session.scalar(select(UserTemplate).filter_by(tenant_id=tenant.id, name=name))


def list_user_templates(tenant: Tenant) -> list[UserTemplate]:
    return list(
        db.session.scalars(
            select(UserTemplate)
            .filter_by(tenant_id=tenant.id)
            .order_by(UserTemplate.name)
            .options(selectinload(UserTemplate.default_skill_queues))
        )
    )


def create_user_template(
    tenant: Tenant,
    name: str,
    settings: TemplateSettings | None = None,
    *,
    actor: Actor,
    skill_queues: tuple[str, ...] | list[str] = (),
) -> UserTemplate:
    """Create a user template with what it stands for in the instance, and the skill
    queues the users made from it work at the desk."""
    _check_name(name, TEMPLATE_NAME)
    settings = settings or TemplateSettings()
    settings.check()
    queues = [
        get_skill_queue(tenant, queue, USER_TEMPLATE_QUEUES) for queue in sorted(set(skill_queues))
    ]
    if find_user_template(tenant, name):
        raise Conflict(f"user template '{name}' already exists", field=USER_TEMPLATE_NAME)
    template = UserTemplate(
        tenant=tenant,
        name=name,
        security_profile_ids=list(settings.security_profile_ids),
        routing_profile_id=settings.routing_profile_id,
        hierarchy_group_id=settings.hierarchy_group_id,
        phone_type=settings.phone_type,
        auto_accept=settings.auto_accept,
        after_contact_work_seconds=settings.after_contact_work_seconds,
        desk_phone_number=settings.desk_phone_number,
        default_skill_queues=queues,
    )
    db.session.add(template)
    db.session.flush()
    after = {"name": name, **asdict(settings), "skillQueues": [q.name for q in queues]}
    record(
        actor,
        Change("user_template.added", "user_template", str(template.id), tenant.id, after=after),
    )
    return template

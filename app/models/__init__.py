"""The database models, one module per aggregate."""

from app.models.agents import AgentSession, AgentState
from app.models.campaigns import Campaign, CampaignType, SkillQueue
from app.models.history import AuditRecord, Event, WebhookDelivery, WebhookEndpoint
from app.models.intake import IntakeLoad, LoadStatus
from app.models.limits import RateLimitCounter
from app.models.supervisors import LoginSession, Supervisor
from app.models.tasks import Task, TaskItem, WorkCode, WorkedState
from app.models.tenants import REGIONS, ApiKey, AuthMode, InstanceKind, Tenant
from app.models.users import LocalInstanceUser, PhoneType, User, UserTemplate

__all__ = [
    "AgentSession",
    "AgentState",
    "REGIONS",
    "ApiKey",
    "AuditRecord",
    "AuthMode",
    "Campaign",
    "CampaignType",
    "Event",
    "InstanceKind",
    "IntakeLoad",
    "LoadStatus",
    "LocalInstanceUser",
    "LoginSession",
    "PhoneType",
    "RateLimitCounter",
    "SkillQueue",
    "Supervisor",
    "Task",
    "TaskItem",
    "Tenant",
    "User",
    "UserTemplate",
    "WebhookDelivery",
    "WebhookEndpoint",
    "WorkCode",
    "WorkedState",
]

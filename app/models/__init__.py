"""The database models, one module per aggregate."""

from app.models.campaigns import Campaign, CampaignType, SkillQueue
from app.models.intake import IntakeLoad, LoadStatus
from app.models.supervisors import Supervisor
from app.models.tasks import Task, TaskItem, WorkCode, WorkedState
from app.models.tenants import REGIONS, ApiKey, AuthMode, InstanceKind, Tenant
from app.models.users import LocalInstanceUser, PhoneType, User, UserTemplate

__all__ = [
    "REGIONS",
    "ApiKey",
    "AuthMode",
    "Campaign",
    "CampaignType",
    "InstanceKind",
    "IntakeLoad",
    "LoadStatus",
    "LocalInstanceUser",
    "PhoneType",
    "SkillQueue",
    "Supervisor",
    "Task",
    "TaskItem",
    "Tenant",
    "User",
    "UserTemplate",
    "WorkCode",
    "WorkedState",
]

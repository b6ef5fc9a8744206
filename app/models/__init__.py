"""The database models, one module per aggregate."""

from app.models.campaigns import Campaign, CampaignType, SkillQueue
from app.models.people import Supervisor, UserTemplate
from app.models.tasks import Task, TaskItem, WorkCode, WorkedState
from app.models.tenants import REGIONS, ApiKey, AuthMode, Tenant

__all__ = [
    "REGIONS",
    "ApiKey",
    "AuthMode",
    "Campaign",
    "CampaignType",
    "SkillQueue",
    "Supervisor",
    "Task",
    "TaskItem",
    "Tenant",
    "UserTemplate",
    "WorkCode",
    "WorkedState",
]

"""The database models, one module per aggregate."""

from app.models.agents import AgentSession, AgentState, AwayReason
from app.models.attempts import AgentStateSpan, Attempt, CallResult, EndedHow
from app.models.bulk import BulkAction, BulkFailure, BulkJob, BulkState
from app.models.calling_rules import CallingRule
from app.models.calls import Call
from app.models.campaigns import (
    AUTO_DIAL_SECONDS,
    CallPlacement,
    Campaign,
    CampaignStatus,
    CampaignType,
    SkillQueue,
)
from app.models.consent import ConsentRecord
from app.models.contact_limits import ContactLimit, ContactMark, ContactScope
from app.models.directory import DirectoryGroup, GroupMapping, directory_group_members
from app.models.dnc import DncNumber
from app.models.history import AuditRecord, Event, WebhookDelivery, WebhookEndpoint
from app.models.intake import IntakeLoad, LoadStatus
from app.models.limits import RateLimitCounter
from app.models.progress_counts import ProgressSnapshot
from app.models.report_rollups import (
    AttemptDayRollup,
    AttemptedTaskCount,
    AttemptRollup,
    WorkCodeDayRollup,
    WorkCodeRollup,
)
from app.models.schedules import Schedule, ScheduleException, ScheduleHours
from app.models.shown_once import ShownOnce
from app.models.sso import IdentityProvider, ProviderKind, SeenAssertion
from app.models.supervisors import GivenBy, LoginSession, Role, Supervisor, TenantRole
from app.models.tasks import Task, TaskItem, WorkCode, WorkedState
from app.models.tenants import REGIONS, ApiKey, AuthMode, InstanceKind, Tenant
from app.models.users import LocalInstanceUser, PhoneType, User, UserTemplate
from app.models.work_codes import WorkCodeChoice, WorkCodeGroup, queue_work_code_groups

__all__ = [
    "CallingRule",
    "ConsentRecord",
    "IdentityProvider",
    "ProviderKind",
    "SeenAssertion",
    "queue_work_code_groups",
    "WorkCodeGroup",
    "WorkCodeChoice",
    "ScheduleHours",
    "ScheduleException",
    "Schedule",
    "ShownOnce",
    "ContactLimit",
    "ContactMark",
    "ContactScope",
    "DirectoryGroup",
    "GroupMapping",
    "directory_group_members",
    "DncNumber",
    "AgentSession",
    "AgentState",
    "AwayReason",
    "AgentStateSpan",
    "Attempt",
    "Call",
    "AttemptDayRollup",
    "AttemptRollup",
    "AttemptedTaskCount",
    "ProgressSnapshot",
    "WorkCodeDayRollup",
    "WorkCodeRollup",
    "CallResult",
    "EndedHow",
    "REGIONS",
    "ApiKey",
    "AuditRecord",
    "BulkAction",
    "BulkFailure",
    "BulkJob",
    "BulkState",
    "AuthMode",
    "Campaign",
    "CampaignStatus",
    "CampaignType",
    "CallPlacement",
    "AUTO_DIAL_SECONDS",
    "Event",
    "InstanceKind",
    "IntakeLoad",
    "LoadStatus",
    "LocalInstanceUser",
    "LoginSession",
    "PhoneType",
    "RateLimitCounter",
    "GivenBy",
    "Role",
    "SkillQueue",
    "Supervisor",
    "TenantRole",
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

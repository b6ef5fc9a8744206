"""The inputs a refusal can be about, in the domain's words: a subject and its attribute.

A `ServiceError` names the field it refuses by one of these values (`TASK_NEXT_EARLIEST`,
`CAMPAIGN_TIME_ZONE`, `TASK_ITEMS.item(1, "key")`), never by a door's spelling of it; each
door says it in its own words: the APIs by the spec's names (app/api/fields.py), the pages
by the form's field (app/admin/problems.py), the desk by the place on its close form.

`said` is how the refusal's message names the field, when it names it first ("campaign
name must be..."): the rest of the message is the refusal's `reason`. It is wording only:
it takes no part in a field's equality, so no door chooses a field by it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

# The parts of one data item a refusal can be about (or the special key whose value is wrong).
KEY, VALUE, DISPLAY_ORDER = "key", "value", "display_order"


@dataclass(frozen=True)
class Field:
    """`subject`'s `attribute`; for a list of parts (a task's data items, a schedule's
    weekdays), `index` and `part` say which one and which part of it."""

    subject: str
    attribute: str
    index: int | None = None
    part: str | None = None
    said: str | None = field(default=None, compare=False, repr=False)

    def item(self, index: int | None, part: str | None = None) -> Field:
        """One element (`index`) of this field, or one part of it."""
        return Field(self.subject, self.attribute, index, part)

    def said_as(self, words: str) -> Field:
        """The same field, named in the refusal's message by `words`."""
        return replace(self, said=words)

    @property
    def whole(self) -> Field:
        """The field itself, without the element or the part."""
        return Field(self.subject, self.attribute)

    def __str__(self) -> str:
        if self.said is not None:
            return self.said
        where = "" if self.index is None else f"[{self.index}]"
        return f"{self.subject}.{self.attribute}{where}" + (f".{self.part}" if self.part else "")


def _fields(subject: str, *attributes: str) -> list[Field]:
    return [Field(subject, attribute) for attribute in attributes]


# A task, as added, updated, moved and closed.
(
    TASK_CLIENT_ID,
    TASK_CLIENT_ID_FIELD_NAME,
    TASK_ITEMS,
    TASK_NEXT_EARLIEST,
    TASK_PREFERRED_AGENT,
    TASK_SKILL_QUEUE,
    TASK_TIME_ZONE,
    TASK_STATE,
    TASK_CAMPAIGN,
    TASK_OUTCOME,
    TASK_NOTE,
    TASK_WORK_CODES,
    TASK_PHONE_KEY,
) = _fields(
    "task",
    "client_id",
    "client_id_field_name",
    "items",
    "next_earliest",
    "preferred_agent",
    "skill_queue",
    "time_zone",
    "state",
    "campaign",
    "outcome",
    "note",
    "work_codes",
    "phone_key",
)

# A call placed for a task, and what the contact centre says of it.
CALL_EVENT, CALL_RESULT = _fields("call", "event", "result")

# A campaign: its settings, its calling window and its dialling.
(
    CAMPAIGN_NAME,
    CAMPAIGN_TYPE,
    CAMPAIGN_CLIENT_ID_FIELD_NAME,
    CAMPAIGN_SKILL_QUEUE,
    CAMPAIGN_TIME_ZONE,
    CAMPAIGN_OPENS_AT,
    CAMPAIGN_CLOSES_AT,
    CAMPAIGN_MAX_ATTEMPTS,
    CAMPAIGN_COUNTDOWN_SECONDS,
    CAMPAIGN_PLACEMENT,
    CAMPAIGN_QUEUE_ARN,
    CAMPAIGN_CONTACT_FLOW_ID,
    CAMPAIGN_CALLER_ID,
    CAMPAIGN_DEFAULT_COUNTRY,
    CAMPAIGN_CONSENT,
    CAMPAIGN_ZONE_FROM,
) = _fields(
    "campaign",
    "name",
    "campaign_type",
    "client_id_field_name",
    "skill_queue",
    "time_zone",
    "opens_at",
    "closes_at",
    "max_attempts",
    "countdown_seconds",
    "placement",
    "queue_arn",
    "contact_flow_id",
    "caller_id",
    "default_country",
    "consent",
    "zone_from",
)

(SKILL_QUEUE_NAME,) = _fields("skill_queue", "name")

# A search of the tenant's audit trail.
AUDIT_WHO, AUDIT_ACTION, AUDIT_SINCE, AUDIT_UNTIL = _fields(
    "audit", "who", "action", "since", "until"
)

# A group the tenant's identity provider pushes (SCIM), and what its name maps to.
GROUP_NAME, GROUP_EXTERNAL_ID, GROUP_MEMBERS, GROUP_QUEUE = _fields(
    "group", "name", "external_id", "members", "queue"
)

# A contact limit of a tenant's contact rules.
(
    CONTACT_LIMIT_ID,
    CONTACT_LIMIT_MAX,
    CONTACT_LIMIT_WITHIN,
    CONTACT_LIMIT_PER,
    CONTACT_LIMIT_COUNTING,
    CONTACT_LIMIT_CAMPAIGN,
) = _fields("contact_limit", "id", "max_count", "within", "per", "counting", "campaign")

# A user (an agent or a supervisor) and the desk settings of an agent.
(
    USER_LOGIN_USER_ID,
    USER_FIRST_NAME,
    USER_LAST_NAME,
    USER_PRIMARY_EMAIL,
    USER_SECONDARY_EMAIL,
    USER_TEMPLATE,
    USER_TIME_ZONE,
    USER_QUEUES,
    USER_EXTERNAL_ID,
    USER_ACTIVE,
) = _fields(
    "user",
    "login_user_id",
    "first_name",
    "last_name",
    "primary_email",
    "secondary_email",
    "template",
    "time_zone",
    "queues",
    "external_id",
    "active",
)
AGENT_STATE, AGENT_AWAY_REASON = _fields("agent", "state", "away_reason")

(
    USER_TEMPLATE_NAME,
    USER_TEMPLATE_PHONE_TYPE,
    USER_TEMPLATE_AFTER_CONTACT_WORK,
    USER_TEMPLATE_DESK_PHONE_NUMBER,
    USER_TEMPLATE_QUEUES,
) = _fields(
    "user_template",
    "name",
    "phone_type",
    "after_contact_work_seconds",
    "desk_phone_number",
    "skill_queues",
)

# An hours-of-operation schedule: `SCHEDULE_HOURS.item(None, day)` is one weekday's hours.
SCHEDULE_NAME, SCHEDULE_TIME_ZONE, SCHEDULE_HOLIDAYS, SCHEDULE_HOURS, SCHEDULE_QUEUES = _fields(
    "schedule", "name", "time_zone", "holidays", "hours", "queues"
)
EXCEPTION_DAY, EXCEPTION_HOURS = _fields("schedule_exception", "day", "hours")

DNC_NUMBERS, DNC_NOTE = _fields("dnc", "numbers", "note")
(TASK_PERSONAL_CALLBACK,) = _fields("task", "personal_callback")

# A regional calling rule of a tenant's contact rules.
(
    CALLING_RULE_ID,
    CALLING_RULE_REGION,
    CALLING_RULE_HOURS,
    CALLING_RULE_DAYS,
    CALLING_RULE_NO_CALLS_ON,
    CALLING_RULE_PER,
    CALLING_RULE_SOURCE,
) = _fields("calling_rule", "id", "region", "hours", "days", "no_calls_on", "per", "source")

# One consent given or revoked, in the tenant's consent ledger.
CONSENT_NUMBERS, CONSENT_AT, CONSENT_SOURCE, CONSENT_CAMPAIGN, CONSENT_PURPOSE = _fields(
    "consent", "numbers", "at", "source", "campaign", "purpose"
)

WEBHOOK_URL, WEBHOOK_DESCRIPTION, WEBHOOK_TYPES, WEBHOOK_REPLAY_SINCE = _fields(
    "webhook", "url", "description", "types", "replay_since"
)

(WORK_CODE_GROUP_NAME, WORK_CODE_GROUP_QUEUES) = _fields("work_code_group", "name", "queues")
(
    WORK_CODE_NAME,
    WORK_CODE_DESCRIPTION,
    WORK_CODE_OUTCOME,
    WORK_CODE_DELAY,
    WORK_CODE_SORT_ORDER,
    WORK_CODE_SUGGESTED_FOR,
) = _fields(
    "work_code", "name", "description", "outcome", "delay_minutes", "sort_order", "suggested_for"
)

AWAY_REASON_NAME, AWAY_REASON_SORT_ORDER = _fields("away_reason", "name", "sort_order")
(WRAP_UP_LIMIT,) = _fields("wrap_up", "seconds")

# A report's filters.
(
    REPORT_START,
    REPORT_END,
    REPORT_CAMPAIGN,
    REPORT_QUEUE,
    REPORT_AGENT,
    REPORT_ZONE,
    REPORT_INTERVAL,
) = _fields("report", "start", "end", "campaign", "queue", "agent", "zone", "interval_minutes")

# A tenant's own settings.
(
    TENANT_COMPANY_CODE,
    TENANT_ENVIRONMENT,
    TENANT_CCP_URL,
    TENANT_PERSON_KEY,
    TENANT_PROVISIONING_TEMPLATE,
) = _fields(
    "tenant", "company_code", "environment", "ccp_url", "person_key", "provisioning_template"
)

# A console account and its role in a tenant.
SUPERVISOR_EMAIL, SUPERVISOR_ROLE = _fields("supervisor", "email", "role")

# Sign-in providers.
SSO_KIND, SSO_LOCAL_AGENT_PASSWORDS, SSO_IDENTITY = _fields(
    "sso", "kind", "local_agent_passwords", "identity"
)
(
    LDAP_URL,
    LDAP_START_TLS,
    LDAP_TIMEOUT,
    LDAP_CA_FILE,
    LDAP_TEMPLATE,
) = _fields("ldap", "url", "start_tls", "timeout_seconds", "ca_file", "template")
OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_LOGIN_CLAIM = _fields(
    "oidc", "issuer", "client_id", "client_secret", "login_claim"
)
SAML_METADATA, SAML_URL, SAML_LOGIN_ATTRIBUTE = _fields(
    "saml", "metadata", "url", "login_attribute"
)

# A search's criteria: `SEARCH_CRITERION.said_as(key)` is one, named by its key.
(SEARCH_CRITERION,) = _fields("search", "criterion")

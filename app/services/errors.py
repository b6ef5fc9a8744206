"""The failures that domain rules raise; each front door turns them into its own answer."""

from __future__ import annotations

from app.services.fields import TASK_WORK_CODES, Field

# What is wrong with a field (`ServiceError.kind`): left out, a time not in the future, a
# value outside the range allowed.
REQUIRED = "required"
PAST = "past"
# A time at which the contact rules would not let the customer be called.
NOT_CALLABLE = "not_callable"
OUT_OF_RANGE = "out_of_range"


class ServiceError(Exception):
    """A rule refused the request; the message says why, naming the field at fault.

    `field` is that field as a domain value (app/services/fields.py), for the doors that
    speak of it in words of their own (the spec's name, a form's label, a file's column);
    `reason` is the refusal without the field's name when the message names it first
    (`field.said`), else the whole message; `kind` what is wrong with the field (REQUIRED,
    PAST, OUT_OF_RANGE, or a refusal's own), so a door can word it without reading the
    message.
    """

    def __init__(
        self,
        message: str,
        *,
        field: Field | None = None,
        reason: str | None = None,
        kind: str | None = None,
    ) -> None:
        super().__init__(message)
        if field is not None and not isinstance(field, Field):
            raise TypeError(f"a refusal names its field by a fields.Field, not {field!r}")
        self.message = message
        self.kind = kind
        self.field = field
        if reason is None and field is not None and field.said and field.index is None:
            named = field.said
            reason = message[len(named) :].lstrip() if message.startswith(named) else None
        self.reason = message if reason is None else reason

    @property
    def names_first(self) -> bool:
        """True when the message names the field first, then says `reason` of it."""
        return self.field is not None and self.reason != self.message


class InvalidInput(ServiceError):
    """A value breaks a rule (a bad zone, an unknown queue, displayOrder below one)."""


class NotFound(ServiceError):
    """A named thing (tenant, campaign, queue, template) does not exist."""


class Conflict(ServiceError):
    """The change would duplicate something that must be unique."""


class TaskNotFound(ServiceError):
    """No task matches the record id or client id given."""


class TaskTaken(TaskNotFound):
    """The agent's task is no longer theirs: `what` happened, by `who`, `at` (UTC), `via`
    what acted for them (a bulk job), if anything did."""

    def __init__(self, message: str, *, what: str, who: str | None, at, via=None) -> None:
        super().__init__(message)
        self.what, self.who, self.at, self.via = what, who, at, via


class WorkCodeRefused(InvalidInput):
    """A closing's work codes do not fit the task's queue: `kind` says how (one of the
    `CodeProblem`s), about `group` and, when one code is at fault, `code`."""

    def __init__(self, message: str, *, kind: str, group: str, code: str | None = None) -> None:
        super().__init__(message, field=TASK_WORK_CODES, reason=message, kind=kind)
        self.group, self.code = group, code


class CodeProblem:
    """The kinds of WorkCodeRefused."""

    GROUP_NOT_OFFERED = "group_not_offered"  # not a group of the task's queue
    UNKNOWN_CODE = "unknown_code"
    DISABLED = "disabled"
    TWICE = "twice"
    ONE_ONLY = "one_only"  # a single-choice group given several
    REQUIRED = REQUIRED  # a required group given none


class InvalidClientId(ServiceError):
    """An add or update named no clientId."""


class InvalidDataKey(ServiceError):
    """A task's data holds an item under the key its client id is stored under."""


class NotAvailable(ServiceError):
    """The agent asked for a task while not AVAILABLE (or silent past AGENT_IDLE_SECONDS)."""


class StaleTask(Conflict):
    """The change was prepared from an older copy of the task than the one stored."""


class Unavailable(ServiceError):
    """Something the request needs cannot be reached now (the job queue): nothing was kept,
    and the same request may succeed later."""

"""The failures that domain rules raise; each front door turns them into its own answer."""


class ServiceError(Exception):
    """A rule refused the request; the message says why, naming the field at fault."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidInput(ServiceError):
    """A value breaks a rule (a bad zone, an unknown queue, displayOrder below one)."""


class NotFound(ServiceError):
    """A named thing (tenant, campaign, queue, template) does not exist."""


class Conflict(ServiceError):
    """The change would duplicate something that must be unique."""


class TaskNotFound(ServiceError):
    """No task matches the previewRecordId or clientId given."""


class TaskTaken(TaskNotFound):
    """The agent's task is no longer theirs: `what` happened, by `who`, `at` (UTC)."""

    def __init__(self, message: str, *, what: str, who: str | None, at) -> None:
        super().__init__(message)
        self.what, self.who, self.at = what, who, at


class InvalidClientId(ServiceError):
    """An add or update named no clientId."""


class InvalidDataKey(ServiceError):
    """previewRecordData holds a key equal to the clientId field name."""


class NotAvailable(ServiceError):
    """The agent asked for a task while not AVAILABLE (or silent past AGENT_IDLE_SECONDS)."""


class StaleTask(Conflict):
    """The change was prepared from an older copy of the task than the one stored."""


class Unavailable(ServiceError):
    """Something the request needs cannot be reached now (the job queue): nothing was kept,
    and the same request may succeed later."""

"""The answers' building blocks shared by the JSON doors, as pydantic models for the
published OpenAPI document: closed objects (`Answer`) and a task as the Preview API's search
returns it (`TaskRecord`), which the Desk API's answers extend.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from app.models import WorkedState

TIME_PATTERN = r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$"
Time = Annotated[
    str,
    Field(
        pattern=TIME_PATTERN,
        description="UTC, `CCYY-MM-DD HH:MM:SS.mmm`.",
        examples=["2026-03-01 14:05:09.120"],
    ),
]


def _optional_key(schema: dict[str, Any]) -> None:
    """A key that is left out when it has no value: never null, so no null default."""
    schema.pop("default", None)


class Answer(BaseModel):
    """Closed objects: a key the service starts sending must be published first."""

    model_config = ConfigDict(extra="forbid")


class RecordItem(Answer):
    key: str
    value: str
    displayOrder: int = Field(
        None,
        ge=1,
        description="Present only when the item was given one.",
        json_schema_extra=_optional_key,
    )


class WorkCode(Answer):
    key: str = Field(description="The work code group.")
    value: str = Field(description="The selected work code.")


class TaskRecord(Answer):
    """One element of previewRecordClientData."""

    previewRecordID: str = Field(description="Service-assigned id (capital D on the wire).")
    clientId: str
    preferredAgent: str | None
    skillQueue: str
    createdTime: Time
    lastUpdatedTime: Time
    nextEarliestWorkTime: Time | None
    workedState: WorkedState
    workAttempts: int = Field(ge=0)
    lastAttemptAgent: str | None
    lastAttemptTime: Time | None
    workCodes: list[WorkCode] = Field(
        None,
        description="Present only when an agent set work codes on completion.",
        json_schema_extra=_optional_key,
    )
    previewRecordData: list[RecordItem]

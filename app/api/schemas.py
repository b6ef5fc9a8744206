"""Request bodies of the Preview API, validated strictly at the edge."""

from __future__ import annotations

from typing import Annotated

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from app.services.search import Condition, Criterion
from app.services.tasks import Locator, TaskChanges
from app.services.validation import ItemInput

Name = Annotated[str, StringConstraints(max_length=255)]
RECORD_ID = Field(None, validation_alias=AliasChoices("previewRecordId", "previewRecordID"))


class Strict(BaseModel):
    """Types as sent: no string is taken for a number, no number for a string."""

    model_config = ConfigDict(strict=True, extra="ignore")


class Common(Strict):
    """The properties every Preview API request carries."""

    platform: Name
    companyCode: Name
    environment: Name
    campaignName: Name
    region: Name


class _Locating(Common):
    previewRecordId: Name | None = RECORD_ID
    clientId: Name | None = None

    def locator(self) -> Locator:
        return Locator(record_id=self.previewRecordId or None, client_id=self.clientId or None)


class _Changing(_Locating):
    skillQueue: Name | None = None
    preferredAgent: Name | None = None
    nextEarliestWorkTimeUTC: int | None = None
    timeZone: Name | None = None

    def changes(self) -> TaskChanges:
        return TaskChanges(
            skill_queue=self.skillQueue or None,  # "" names no queue: as if not given
            preferred_agent=self.preferredAgent,
            next_earliest_ms=self.nextEarliestWorkTimeUTC,
            time_zone=self.timeZone,
        )


class DataItem(Strict):
    key: str
    value: str
    displayOrder: int | None = None


class AddOrUpdateRequest(Common):
    previewRecordId: Name | None = RECORD_ID
    # Checked by the service, which answers INVALIDCLIENTID when it is missing or empty.
    clientId: str | None = None
    clientIdFieldName: Name | None = None
    preferredAgent: str | None = None
    nextEarliestWorkTimeUTC: int | None = None
    # Required, but checked by the service after clientId (INVALIDCLIENTID comes first).
    previewRecordData: list[DataItem] | None = None

    def items(self) -> list[ItemInput] | None:
        if self.previewRecordData is None:
            return None
        return [ItemInput(i.key, i.value, i.displayOrder) for i in self.previewRecordData]


class SearchCriterion(Strict):
    key: Name
    value: str
    condition: Annotated[Condition, Field(strict=False)]

    def criterion(self) -> Criterion:
        return Criterion(self.key, self.condition, self.value)


class SearchRequest(_Locating):
    maxRecords: int | None = None
    previewRecordData: list[SearchCriterion] | None = Field(None, max_length=50)


class ChangeStatusRequest(_Changing):
    previewRecordStateEnum: Name


class TransferRequest(_Changing):
    transferToCampaign: Name


class DeleteRequest(_Locating):
    pass


def describe(error: ValidationError, within: str = "") -> str:
    """A readable message naming each field at fault, e.g. `previewRecordData[2].value`."""
    parts = []
    for problem in error.errors()[:3]:
        where = within
        for step in problem["loc"]:
            where += f"[{step}]" if isinstance(step, int) else f".{step}"
        where = where.lstrip(".") or "body"
        if problem["type"] == "missing":
            parts.append(f"{where} is required")
        else:
            parts.append(f"{where}: {problem['msg']}")
    return "; ".join(parts)

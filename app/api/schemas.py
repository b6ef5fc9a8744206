"""Request bodies of the Preview API, validated strictly at the edge.

The same models generate the published OpenAPI document (app/api/openapi.py); their
building blocks (`Strict`, `published`, `describe`) are those of every JSON door
(app/web/schemas.py).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AliasChoices, ConfigDict, Field, StringConstraints

from app.api.fields import NEXT_EARLIEST
from app.models import WorkedState
from app.services.search.criteria import Condition, Criterion
from app.services.tasks.batches import TaskChanges
from app.services.tasks.changes import Locator
from app.services.tasks.validation import MAX_INT, MAX_ITEMS, MAX_KEY, ItemInput
from app.web.schemas import EPOCH_MS, TIME_RULES, Strict, published
from app.wire.times import sent_time

Name = Annotated[str, StringConstraints(max_length=255)]
RECORD_ID = Field(
    None,
    validation_alias=AliasChoices("previewRecordId", "previewRecordID"),
    description="Locates a task; clientId is then ignored. `previewRecordID` is accepted too.",
)
WORKED_STATES = [state.value for state in WorkedState]


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
    skillQueue: Name | None = Field(None, description="Sets the task's skill queue.")
    preferredAgent: Name | None = Field(
        None, description="Agent user id; an empty string clears the preferred agent."
    )
    nextEarliestWorkTimeUTC: int | None = Field(None, description=EPOCH_MS)
    timeZone: Name | None = Field(None, description="IANA time zone name, e.g. Europe/Paris.")

    def changes(self) -> TaskChanges:
        return TaskChanges(
            skill_queue=self.skillQueue or None,  # "" names no queue: as if not given
            preferred_agent=self.preferredAgent,
            next_earliest=sent_time(self.nextEarliestWorkTimeUTC, NEXT_EARLIEST),
            time_zone=self.timeZone,
        )


class DataItem(Strict):
    model_config = ConfigDict(
        json_schema_extra=published(
            key={"minLength": 1, "maxLength": MAX_KEY},
            displayOrder={"minimum": 1, "maximum": MAX_INT},
        )
    )

    key: str = Field(description="Not blank.")
    value: str = Field(description="At most 2,000 bytes in UTF-8.")
    displayOrder: int | None = Field(
        None, description="Order shown to the agent; greater than zero when given."
    )


class AddOrUpdateRequest(Common):
    model_config = ConfigDict(
        json_schema_extra=published(
            ("clientId", "previewRecordData"),
            clientId={"minLength": 1, "maxLength": 255},
            previewRecordData={"maxItems": MAX_ITEMS},
            **TIME_RULES,
        )
    )

    previewRecordId: Name | None = RECORD_ID
    # Checked by the service, which answers INVALIDCLIENTID when it is missing or empty.
    clientId: str | None = None
    clientIdFieldName: Name | None = Field(
        None, description="Key under which clientId is put into the data when adding (`Id`)."
    )
    preferredAgent: str | None = Field(None, description="Agent user id.")
    nextEarliestWorkTimeUTC: int | None = Field(None, description=EPOCH_MS)
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
    model_config = ConfigDict(json_schema_extra=published(maxRecords={"minimum": 1}))

    maxRecords: int | None = None
    previewRecordData: list[SearchCriterion] | None = Field(None, max_length=50)


class ChangeStatusRequest(_Changing):
    model_config = ConfigDict(
        json_schema_extra=published(previewRecordStateEnum={"enum": WORKED_STATES}, **TIME_RULES)
    )

    previewRecordStateEnum: Name = Field(
        description="The new state; nextEarliestWorkTimeUTC is required with WORKED."
    )


class TransferRequest(_Changing):
    model_config = ConfigDict(json_schema_extra=published(**TIME_RULES))

    transferToCampaign: Name


class DeleteRequest(_Locating):
    pass

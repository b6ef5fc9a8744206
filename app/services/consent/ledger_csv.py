"""The consent ledger from a CSV file, all or nothing.

Each row is one record: `number, action, at, source[, campaign[, purpose]]`, where action is
`given` or `revoked`, `at` an ISO 8601 time with its zone (empty: now), source where a
consent came from or how it was revoked, campaign the name of the one campaign a consent is
for (empty: every campaign). A first row whose first cell holds no digit is a header. Rows
are numbered as the file's lines. Every row is checked first: one refused row records
nothing, and the report names every refused row and why. A file that is recorded leaves
each record's audit record and event, and one summary record (`consent.imported`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from app.models import Campaign, Tenant
from app.models.consent import GIVEN, REVOKED
from app.models.types import utcnow
from app.services import csv_files
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.campaigns.catalogue import find_campaign
from app.services.consent import ledger
from app.services.errors import InvalidInput
from app.services.values import is_e164

ACTIONS = (GIVEN, REVOKED)
MAX_NAME = 255


@dataclass(frozen=True)
class RefusedRow:
    row: int
    reason: str


@dataclass
class ImportReport:
    file_name: str
    given: int = 0
    revoked: int = 0
    refused: list[RefusedRow] = field(default_factory=list)

    def summary(self) -> str:
        if self.refused:
            return f"{len(self.refused)} rows refused: nothing recorded"
        return f"{self.given + self.revoked} rows: {self.given} given, {self.revoked} revoked"


@dataclass(frozen=True)
class _Row:
    number: str
    action: str
    at: datetime
    source: str
    campaign: Campaign | None
    purpose: str


def parse_at(text: str) -> datetime:
    """An ISO 8601 time with its zone (`2026-03-01T10:00:00Z`, `…+01:00`); InvalidInput
    for another text or one without a zone."""
    try:
        at = datetime.fromisoformat(text.strip())
    except ValueError:
        raise InvalidInput(f"'{text}' is not an ISO 8601 time (2026-03-01T10:00:00Z)") from None
    if at.tzinfo is None:
        raise InvalidInput(f"'{text}' must say its zone (Z or an offset such as +01:00)")
    return at


def _row(tenant: Tenant, cells: list[str], now: datetime) -> _Row:
    cells = cells + [""] * (6 - len(cells))
    number, action, at_text, source, campaign_name, purpose = cells[:6]
    if not is_e164(number):
        raise InvalidInput(f"'{number}' is not an E.164 number (+ then 2 to 15 digits)")
    action = action.lower()
    if action not in ACTIONS:
        raise InvalidInput(f"the action '{cells[1]}' is not given or revoked")
    at = ledger.check_at(parse_at(at_text) if at_text else None, now)
    if len(source) > ledger.MAX_TEXT or len(purpose) > ledger.MAX_TEXT:
        raise InvalidInput(f"source and purpose are at most {ledger.MAX_TEXT} characters")
    campaign = None
    if campaign_name:
        if action == REVOKED:
            raise InvalidInput("a revocation counts for every campaign: leave campaign empty")
        campaign = find_campaign(tenant, campaign_name)
        if campaign is None:
            raise InvalidInput(f"no campaign named '{campaign_name}'")
    return _Row(number, action, at, source, campaign, purpose)


def import_consent(
    tenant: Tenant, data: bytes, file_name: str, *, actor: Actor, now: datetime | None = None
) -> ImportReport:
    """Record the file's rows in the tenant's ledger, or none of them when one is refused
    (the report says which). A file that is not UTF-8 CSV is refused whole (InvalidInput)."""
    now = now or utcnow()
    report = ImportReport(file_name[:MAX_NAME])
    checked: list[_Row] = []
    for index, (line, cells) in enumerate(csv_files.rows(csv_files.decoded(data))):
        if index == 0 and not any(c.isdigit() for c in cells[0]):
            continue
        try:
            checked.append(_row(tenant, cells, now))
        except InvalidInput as refused:
            report.refused.append(RefusedRow(line, refused.message))
    if report.refused:
        return report
    for row in checked:
        if row.action == GIVEN:
            ledger.give(tenant, [row.number], actor=actor, at=row.at, source=row.source,
                        campaign=row.campaign, purpose=row.purpose, now=now)  # fmt: skip
            report.given += 1
        else:
            ledger.revoke(tenant, [row.number], actor=actor, at=row.at, how=row.source, now=now)
            report.revoked += 1
    counts = {"file": report.file_name, "given": report.given, "revoked": report.revoked}
    record(actor, Change("consent.imported", "consent_import", report.file_name, tenant.id,
                         after=counts))  # fmt: skip
    return report

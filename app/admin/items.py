"""Turning item rows and date-time pickers of the forms into service inputs."""

from __future__ import annotations

from wtforms import FieldList

from app.services.tasks.validation import ItemInput


def kept_rows(rows: FieldList) -> list:
    """The rows to keep, in their order; blank rows and rows marked for removal are dropped.

    The services number items in this list (`previewRecordData[i]`): its i-th row is the one
    a refusal is about."""
    return [
        row
        for row in rows
        if not row.remove.data and ((row.key.data or "").strip() or row.value.data)
    ]


def item_inputs(rows: FieldList) -> list[ItemInput]:
    """The kept rows as the services' item inputs."""
    return [
        ItemInput((row.key.data or "").strip(), row.value.data or "", row.display_order.data)
        for row in kept_rows(rows)
    ]


def sent_rows(rows: FieldList) -> list[tuple[str, str, str]]:
    """The kept rows exactly as typed (key, value, order), to show a save that was refused."""
    return [
        (row.key.data or "", row.value.data or "", " ".join(row.display_order.raw_data or ()))
        for row in kept_rows(rows)
    ]

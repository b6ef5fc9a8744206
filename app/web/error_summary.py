"""What a refused form's page says at its top: a summary that names each field at fault and
links to it, and says in full only what belongs to no field.

A field's own message is shown once, beside the field (the templates' `field` and
`item_rows` macros, `aria-invalid` and `aria-describedby` on its input); the summary names
the field as the form does ("Secondary e-mail", "Value in row 2") so a reader finds it,
without saying the message a second time. A refusal about the whole form (a conflict, a
page out of date, a rule across fields) is said in the summary, and only there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wtforms import Field, FieldList, FormField
from wtforms.widgets import ListWidget


@dataclass(frozen=True)
class FieldLink:
    """One field at fault: the id of its input and its name as the form says it."""

    anchor: str
    name: str


@dataclass(frozen=True)
class ErrorSummary:
    """A refusal as a page's summary shows it: links to the fields at fault (whose
    messages are beside them) and what is said about no field."""

    links: tuple[FieldLink, ...] = ()
    said: str | None = None


def words(field: Field) -> str:
    """A field's label without its parenthesised hint: "Preferred agent (empty: none)"."""
    return re.sub(r"\s*\([^)]*\)$", "", field.label.text)


def _hidden(field: Field) -> bool:
    return getattr(field.widget, "input_type", None) == "hidden"


def _anchor(field: Field) -> str:
    # A list of options (radio buttons, checkboxes): its first option's input is the one to go to.
    return f"{field.id}-0" if isinstance(field.widget, ListWidget) else field.id


def _walk(fields, links: list[FieldLink], unseen: list[str], row: int | None = None) -> None:
    for field in fields:
        if isinstance(field, FieldList):
            for number, entry in enumerate(field.entries, start=1):
                _walk([entry] if not isinstance(entry, FormField) else entry, links, unseen, number)
        elif isinstance(field, FormField):
            _walk(field, links, unseen, row)
        elif field.errors and _hidden(field):  # nothing beside it to go to: said here
            unseen.append(" ".join(map(str, field.errors)))
        elif field.errors:
            name = words(field) if row is None else f"{words(field)} in row {row}"
            links.append(FieldLink(_anchor(field), name))


def summary_of(form, said: str | None = None) -> ErrorSummary:
    """The summary of `form` as it stands after validation or a refusal: a link to each
    field holding an error, in the form's order; `said` and the errors of no visible field
    in words."""
    links: list[FieldLink] = []
    unseen = [said] if said else []
    _walk(form, links, unseen)
    unseen += [str(error) for error in getattr(form, "form_errors", ())]
    return ErrorSummary(tuple(links), " ".join(unseen) or None)

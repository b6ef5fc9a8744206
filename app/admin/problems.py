"""A form's problems in the form's own words, each shown by the field at fault.

The services' refusals name the field they are about as a domain value (`CAMPAIGN_NAME`,
`TASK_ITEMS.item(1, "display_order")`, app/services/fields.py). A form names its fields by
their labels and its item rows by their number on the page ("Row 2: order must be…"), so a
refusal is told here with those, and attached to the field it is about, where the templates
mark it `aria-invalid` and show it beside it; the page's summary (app/web/error_summary.py)
links to that field and says in full only a refusal that is about no field.

A form says which refusals are its own by naming its fields after the domain's attributes
of its `refusal_subject` (a `CampaignForm`'s `time_zone` is `campaign.time_zone`), and, for
a field named otherwise, in `refusal_fields` (domain field → the form's field). The field is
chosen by that value alone, never by the refusal's words.
"""

from __future__ import annotations

from wtforms import FieldList

from app.admin.items import kept_rows
from app.services.errors import ServiceError
from app.services.fields import DISPLAY_ORDER, KEY, TASK_ITEMS, VALUE, Field
from app.services.tasks.validation import SPECIAL_KEYS
from app.web.error_summary import ErrorSummary, summary_of, words

# The parts of an item a row's columns hold: each column is named after its part.
ROW_COLUMNS = (KEY, VALUE, DISPLAY_ORDER)


def _mark(field, message: str) -> None:
    # After validation a field's errors are a list; before it, a tuple.
    field.errors = [*field.errors, message]


def _row_refusal(form, error: ServiceError) -> str | None:
    field, rows = error.field, getattr(form, "items", None)
    if field is None or field.whole != TASK_ITEMS or field.index is None or rows is None:
        return None
    kept = kept_rows(rows)
    if field.index >= len(kept):
        return None
    row, reason = kept[field.index], error.reason
    number = list(rows).index(row) + 1
    if field.part in SPECIAL_KEYS:  # the key is right, the value it holds is not
        column, beside = "value", f"{field.part} {reason}"
        said = beside
    elif field.part not in ROW_COLUMNS:
        return f"Row {number}: {reason}"
    else:
        # The row's message names each field at fault ("Row 2: Value: ..."): beside the
        # field the reason goes without the field's name, which the alert's sentence needs.
        column = field.part
        beside, said = reason, f"{words(row[column]).lower()} {reason}"
    _mark(row[column], beside[0].upper() + beside[1:])
    return f"Row {number}: {said}"


def form_field_of(form, field: Field | None):
    """The form's field a refusal about `field` marks, or None: the one `refusal_fields`
    names for it, else the one named after its attribute when it is of the form's subject."""
    if field is None:
        return None
    name = getattr(form, "refusal_fields", {}).get(field)
    whole = field.index is None and field.part is None
    if name is None and whole and field.subject == getattr(form, "refusal_subject", None):
        name = field.attribute
    if name is None or name not in form:
        return None
    target = form[name]
    # A list of rows has no label to say: a refusal about all of them is said whole.
    return None if isinstance(target, FieldList) else target


def _field_refusal(form, error: ServiceError) -> str | None:
    target = form_field_of(form, error.field)
    if target is None:
        return None
    # A refusal that names its field first is said with the field's label instead.
    said = f"{words(target)} {error.reason}".rstrip() if error.names_first else error.message
    _mark(target, said)  # beside one field only: said once
    return said


def refusal_in_form_words(form, error: ServiceError) -> ErrorSummary:
    """The service's refusal told with the form's labels and row numbers, beside the field
    it is about (the templates show it there, `aria-invalid`); the summary links to that
    field, or says the refusal when it is about no field of the form."""
    said = _row_refusal(form, error) or _field_refusal(form, error)
    if said is None:
        said = error.message
        if error.field is not None and error.field.whole == TASK_ITEMS:
            said = said[0].upper() + said[1:]  # "Data items holds at most…", "Data item 3…"
    summary = summary_of(form)  # the field marked above, if any
    return summary if summary.links or summary.said else ErrorSummary(said=said)


def form_problems(form) -> ErrorSummary:
    """What is wrong with a form's fields, for the page's summary: a link to each field at
    fault (its message is beside it), or "Check the form." when no field holds one."""
    return summary_of(form) if form.errors else ErrorSummary(said="Check the form.")


def form_problems_in_words(form) -> str:
    """What is wrong with a form's fields, said in full, for a page that shows no field
    (a message carried across a redirect)."""
    problems = []
    for name, errors in form.errors.items():
        if isinstance(errors, list) and errors and isinstance(errors[0], dict):  # item rows
            for number, row in enumerate(errors, start=1):
                for field, messages in (row or {}).items():
                    label = words(form[name][number - 1][field]).lower()
                    problems.append(f"Row {number}: {label}: {' '.join(messages)}")
        else:
            problems.append(f"{words(form[name])}: {' '.join(map(str, errors))}")
    return "Check the form: " + "; ".join(problems) if problems else "Check the form."

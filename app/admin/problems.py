"""A form's problems in the form's own words, each shown by the field at fault.

The services' refusals name the field they are about (`previewRecordData[1].displayOrder`,
`nextEarliestWorkTimeUTC`). A form names its fields by their labels and its item rows by
their number on the page ("Row 2: order must be…"), so a refusal is told here with those,
and attached to the field it is about, where the templates mark it `aria-invalid` and show
it beside it; the page's summary (app/web/error_summary.py) links to that field and says in
full only a refusal that is about no field.
"""

from __future__ import annotations

from app.admin.items import kept_rows
from app.services.errors import ITEMS, ServiceError
from app.services.tasks.validation import SPECIAL_KEYS
from app.web.error_summary import ErrorSummary, summary_of, words

# An item's API field, by the column of the form's item rows that holds it.
ITEM_COLUMNS = {"key": "key", "value": "value", "displayOrder": "display_order"}


def _mark(field, message: str) -> None:
    # After validation a field's errors are a list; before it, a tuple.
    field.errors = [*field.errors, message]


def _row_refusal(form, error: ServiceError) -> str | None:
    field, rows = error.field, getattr(form, "items", None)
    if field is None or field.name != ITEMS or field.index is None or rows is None:
        return None
    kept = kept_rows(rows)
    if field.index >= len(kept):
        return None
    row, reason = kept[field.index], error.reason
    number = list(rows).index(row) + 1
    if field.part in SPECIAL_KEYS:  # the key is right, the value it holds is not
        column, beside = "value", f"{field.part} {reason}"
        said = beside
    elif (column := ITEM_COLUMNS.get(field.part or "")) is None:
        return f"Row {number}: {reason}"
    else:
        # The row's message names each field at fault ("Row 2: Value: ..."): beside the
        # field the reason goes without the field's name, which the alert's sentence needs.
        beside, said = reason, f"{words(row[column]).lower()} {reason}"
    _mark(row[column], beside[0].upper() + beside[1:])
    return f"Row {number}: {said}"


def _named_field(form, error: ServiceError) -> str | None:
    names = getattr(form, "api_names", {})
    if error.field is not None and error.field.index is None and error.field.name in names:
        field = form[names[error.field.name]]
        said = f"{words(field)} {error.reason}".rstrip()  # the reason may be the name alone
        _mark(field, said)
        return said
    return None


def refusal_in_form_words(form, error: ServiceError) -> ErrorSummary:
    """The service's refusal told with the form's labels and row numbers, beside the field
    it is about (the templates show it there, `aria-invalid`); the summary links to that
    field, or says the refusal when it is about no field of the form."""
    said = _row_refusal(form, error) or _named_field(form, error)
    if said is None:
        said = error.message
        if error.field is not None and error.field.name == ITEMS and hasattr(form, "items"):
            said = "Data items" + said[len(ITEMS) :]
        mentions = getattr(form, "api_mentions", {}).items()
        if mentioned := [name for mention, name in mentions if mention in said]:
            _mark(form[mentioned[0]], said)  # beside one field only: said once
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

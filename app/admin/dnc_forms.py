"""The do-not-call page's forms. They check shape only; the rules live in services/dnc."""

from __future__ import annotations

import re
from typing import ClassVar

from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import HiddenField, StringField, TextAreaField
from wtforms.validators import DataRequired, Length

from app.services.dnc.numbers import MAX_NOTE

# Numbers typed into the add form: one per line, or separated by spaces, commas, semicolons.
SEPARATORS = re.compile(r"[\s,;]+")
MAX_TYPED = 100_000  # characters: several thousand numbers; larger lists are imported


class DncAddForm(FlaskForm):
    refusal_subject: ClassVar = "dnc"
    numbers = TextAreaField(
        "Numbers (E.164, e.g. +14155550123; one per line)",
        validators=[DataRequired(), Length(max=MAX_TYPED)],
        render_kw={"rows": 3, "autocomplete": "off"},
    )
    note = StringField("Note (optional: why)", validators=[Length(max=MAX_NOTE)])

    def typed_numbers(self) -> list[str]:
        return [n for n in SEPARATORS.split(self.numbers.data or "") if n]


class DncRemoveForm(FlaskForm):
    """One row's Remove button: the number, and the search to come back to."""

    number = HiddenField(validators=[DataRequired(), Length(max=64)])
    q = HiddenField(validators=[Length(max=64)])


class DncImportForm(FlaskForm):
    file = FileField("CSV file (one number per row; optional note column and header)",
                     validators=[FileRequired()])  # fmt: skip
    note = StringField("Note for rows without one", default="import",
                       validators=[Length(max=MAX_NOTE)])  # fmt: skip

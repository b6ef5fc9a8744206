"""The bulk actions' forms: the fields of the task page's status and transfer forms, where
an empty choice leaves a field of each task as it is."""

from __future__ import annotations

from typing import ClassVar

from flask_wtf import FlaskForm
from wtforms import HiddenField, SelectField, StringField
from wtforms.validators import DataRequired, Length, Optional

from app.admin.forms import NextTimeMixin
from app.models import WorkedState
from app.services.fields import TASK_CAMPAIGN

UNCHANGED = ""


class BulkForm(FlaskForm):
    """A bulk action's fields; its review (app/services/bulk/reviews.py) keeps the count
    shown, and a different count when it is confirmed asks for a new review."""


class BulkStatusForm(BulkForm, NextTimeMixin):
    refusal_subject: ClassVar = "task"
    state = SelectField("New worked state", choices=[s.value for s in WorkedState])
    skill_queue = SelectField("Skill queue", validators=[Optional()])
    time_zone = SelectField("Time zone", validators=[Optional()])
    preferred_agent = StringField(
        "Preferred agent (empty: unchanged)", validators=[Length(max=255)]
    )


class BulkTransferForm(BulkForm):
    refusal_subject: ClassVar = "task"
    refusal_fields: ClassVar = {TASK_CAMPAIGN: "destination"}
    destination = SelectField("Destination campaign", validators=[DataRequired()])
    skill_queue = SelectField("Skill queue", validators=[Optional()])
    preferred_agent = StringField(
        "Preferred agent (empty: unchanged)", validators=[Length(max=255)]
    )


class BulkAgentForm(BulkForm):
    refusal_subject: ClassVar = "task"
    preferred_agent = StringField(
        "Preferred agent (empty: clear the preferred agent)", validators=[Length(max=255)]
    )


class BulkDeleteForm(BulkForm):
    """Deleting needs no field: the confirmation is the form."""


class BulkConfirmForm(FlaskForm):
    """The review page's confirmation: the signed review it confirms."""

    review = HiddenField("Review", validators=[DataRequired()])

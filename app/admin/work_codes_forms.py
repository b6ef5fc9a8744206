"""The work-codes pages' forms. They check shape only; the rules live in
app/services/work_codes/groups.py."""

from __future__ import annotations

from typing import ClassVar

from flask_wtf import FlaskForm
from wtforms import BooleanField, IntegerField, SelectField, SelectMultipleField, StringField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, Length, NumberRange, Optional
from wtforms.widgets import CheckboxInput, ListWidget, TextArea

from app.services.work_codes import groups as work_codes

OUTCOME_CHOICES = [
    SelectChoice("", "None (a plain label)"),
    SelectChoice("COMPLETE", "Complete"),
    SelectChoice("RESCHEDULE", "Reschedule"),
    SelectChoice("REMOVE", "Remove"),
]

# Call results as people read them: NO_ANSWER → "No answer".
SUGGESTED_CHOICES = [
    SelectChoice("", "None"),
    *(
        SelectChoice(result, result.replace("_", " ").capitalize())
        for result in work_codes.CALL_RESULTS
    ),
]


class GroupForm(FlaskForm):
    refusal_subject: ClassVar = "work_code_group"
    name = StringField("Group name", validators=[DataRequired(), Length(max=work_codes.MAX_NAME)])
    required = BooleanField("Required: closing a task needs a code of this group")
    multiple = BooleanField("Multiple choice: several codes at once")


class CodeForm(FlaskForm):
    refusal_subject: ClassVar = "work_code"
    name = StringField("Code name", validators=[DataRequired(), Length(max=work_codes.MAX_NAME)])
    description = StringField(
        "Description (shown to the agent)",
        widget=TextArea(),
        validators=[Length(max=work_codes.MAX_DESCRIPTION)],
    )
    outcome = SelectField("Outcome it implies", choices=OUTCOME_CHOICES)
    delay_minutes = IntegerField(
        "Default delay in minutes (Reschedule only; the agent may choose another time)",
        validators=[Optional(), NumberRange(min=1, max=work_codes.MAX_DELAY_MINUTES)],
    )
    sort_order = IntegerField(
        "Sort order (lower first)",
        default=0,
        validators=[Optional(), NumberRange(min=-1_000_000, max=1_000_000)],
    )
    adds_to_dnc = BooleanField("Adds the task's phone numbers to the do-not-call list")
    revokes_consent = BooleanField(
        "Revokes the consent of the task's phone numbers (in every campaign)"
    )
    suggested_for = SelectField(
        "Suggested after the call result (the desk preselects it)", choices=SUGGESTED_CHOICES
    )
    contact = BooleanField("Counts as a contact in the reports (a person was reached)")
    success = BooleanField("Counts as a success in the reports (the campaign's goal was met)")

    def settings(self) -> work_codes.CodeSettings:
        return work_codes.CodeSettings(
            description=self.description.data or "",
            sort_order=self.sort_order.data or 0,
            outcome=self.outcome.data or None,
            reschedule_minutes=self.delay_minutes.data,
            adds_to_dnc=self.adds_to_dnc.data,
            revokes_consent=self.revokes_consent.data,
            suggested_for=self.suggested_for.data or None,
            contact=self.contact.data,
            success=self.success.data,
        )


class GroupQueuesForm(FlaskForm):
    """The exact set of skill queues offering a group."""

    refusal_subject: ClassVar = "work_code_group"
    queues = SelectMultipleField(
        "Skill queues offering this group",
        choices=[],
        widget=ListWidget(prefix_label=False),
        option_widget=CheckboxInput(),
    )

"""The desk's forms. They check shape only; every rule lives in the services."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import DateTimeLocalField, PasswordField, RadioField, SelectField, StringField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, EqualTo, Length, Optional

from app.models import AgentState
from app.services.people.passwords import MAX_PASSWORD, MIN_PASSWORD

OUTCOMES = [
    SelectChoice("COMPLETE", "Complete"),
    SelectChoice("RESCHEDULE", "Reschedule"),
    SelectChoice("REMOVE", "Remove"),
]


class DeskLoginForm(FlaskForm):
    company = StringField(
        "Company",
        validators=[DataRequired(), Length(max=128)],
        render_kw={"autocomplete": "organization"},
    )
    environment = StringField("Environment", validators=[DataRequired(), Length(max=128)])
    login_user_id = StringField(
        "Login user id",
        validators=[DataRequired(), Length(max=255)],
        render_kw={"autocomplete": "username"},
    )
    password = PasswordField(
        "Password",
        validators=[DataRequired(), Length(max=MAX_PASSWORD)],
        render_kw={"autocomplete": "current-password"},
    )


class InviteForm(FlaskForm):
    new = PasswordField(
        "Choose a password",
        validators=[DataRequired(), Length(max=MAX_PASSWORD)],
        render_kw={"autocomplete": "new-password", "minlength": MIN_PASSWORD},
    )
    again = PasswordField(
        "The password again",
        validators=[DataRequired(), EqualTo("new", message="The two passwords differ.")],
        render_kw={"autocomplete": "new-password"},
    )


class StateForm(FlaskForm):
    """The state switch: each button sends its state."""

    state = SelectField(choices=[s.value for s in AgentState], validators=[DataRequired()])


class CloseForm(FlaskForm):
    """Closing a task. No outcome: the work codes' (or, with a time, RESCHEDULE)."""

    outcome = RadioField("Outcome", choices=OUTCOMES, validators=[Optional()])
    next_time = DateTimeLocalField("Next attempt (customer's time)", validators=[Optional()])


# The close form has one field per work-code group of the task's queue, named by the group
# (radios for a single-choice group, checkboxes for a multiple one), whose values are codes.
WORK_CODE_FIELD = "wc:"


def chosen_work_codes(formdata) -> list[tuple[str, str]]:
    """The (group, code) pairs the close form sent, in the order sent."""
    return [
        (name.removeprefix(WORK_CODE_FIELD), value)
        for name in formdata
        if name.startswith(WORK_CODE_FIELD)
        for value in formdata.getlist(name)
        if value
    ]


class DeskButtonForm(FlaskForm):
    """A button that only needs its CSRF token: release, sign out."""

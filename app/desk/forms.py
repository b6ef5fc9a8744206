"""The desk's forms. They check shape only; every rule lives in the services."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import DateTimeLocalField, PasswordField, RadioField, SelectField, StringField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, EqualTo, Length, Optional

from app.models import AgentState
from app.services.supervisors import MAX_PASSWORD, MIN_PASSWORD

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
    outcome = RadioField("Outcome", choices=OUTCOMES, validators=[DataRequired()])
    next_time = DateTimeLocalField("Next attempt (customer's time)", validators=[Optional()])


class DeskButtonForm(FlaskForm):
    """A button that only needs its CSRF token: release, sign out."""

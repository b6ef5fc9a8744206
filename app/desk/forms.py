"""The desk's forms. They check shape only; every rule lives in the services."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    DateTimeLocalField,
    PasswordField,
    RadioField,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, EqualTo, Length, Optional

from app.models import AgentState, CallResult
from app.services.people.passwords import MAX_PASSWORD, MIN_PASSWORD

OUTCOMES = [
    SelectChoice("COMPLETE", "Complete"),
    SelectChoice("RESCHEDULE", "Reschedule"),
    SelectChoice("REMOVE", "Remove"),
]


class TenantLoginForm(FlaskForm):
    """Signing in on a tenant's own page: the company and environment are in its address."""

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


class DeskLoginForm(TenantLoginForm):
    """Signing in on the plain sign-in page: the company and environment typed too."""

    company = StringField(
        "Company",
        validators=[DataRequired(), Length(max=128)],
        render_kw={"autocomplete": "organization"},
    )
    environment = StringField("Environment", validators=[DataRequired(), Length(max=128)])


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
    # AWAY's reason, one of the tenant's (the service checks it); empty: none.
    reason = StringField(validators=[Optional(), Length(max=40)])


class CloseForm(FlaskForm):
    """Closing a task. No outcome: the work codes' (or, with a time, RESCHEDULE)."""

    outcome = RadioField("Outcome", choices=OUTCOMES, validators=[Optional()])
    next_time = DateTimeLocalField("Next attempt (customer's time)", validators=[Optional()])
    # A personal callback: kept for this agent from that time (closing.check_callback).
    personal_callback = BooleanField("I call back myself at this time")
    # The button a refused callback time offers: the first time the rules allow, sent in
    # place of the time typed (refusals.Refused.offer).
    offered_time = DateTimeLocalField(validators=[Optional()])
    # The note kept with the attempt: its length is the service's rule (closing.NOTE_LIMIT).
    note = TextAreaField("Note on this attempt", validators=[Optional()])


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


class CallForm(FlaskForm):
    """ "Call": the phone item to dial (none: the task's first)."""

    phone_key = StringField(validators=[Optional(), Length(max=255)])


# The results the agent says a call ended with, in the order the desk offers them.
CALL_RESULTS = [
    SelectChoice(CallResult.ANSWERED.value, "Answered"),
    SelectChoice(CallResult.NO_ANSWER.value, "No answer"),
    SelectChoice(CallResult.BUSY.value, "Busy"),
    SelectChoice(CallResult.VOICEMAIL.value, "Voicemail"),
    SelectChoice(CallResult.INVALID_NUMBER.value, "Wrong number"),
    SelectChoice(CallResult.FAILED.value, "Failed"),
]
CALL_EVENTS = ["CONNECTED", "ENDED"]


class CallEventForm(FlaskForm):
    """What became of a call: CONNECTED (with the contact id) or ENDED with its result.
    The form checks shape only; the service says which result an event needs."""

    call_id = StringField(validators=[DataRequired(), Length(max=36)])
    event = SelectField(choices=CALL_EVENTS, validators=[DataRequired()])
    result = SelectField(
        choices=["", *(r.value for r in CallResult)], default="", validators=[Optional()]
    )
    contact_id = StringField(validators=[Optional(), Length(max=255)])

"""The forms of the hours-of-operation pages. They check shape only; the schedules service
(app/services/schedules/hours.py) holds every rule and names the field at fault."""

from __future__ import annotations

from typing import ClassVar

from flask_wtf import FlaskForm
from wtforms import DateField, RadioField, SelectField, SelectMultipleField, StringField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, Length, Optional
from wtforms.widgets import CheckboxInput, ListWidget

from app.services.schedules.opening_hours import DAY_NAMES, DAYS, day_hours

DAY_HINT = "e.g. 08:00-18:00, or 08:00-12:00,13:00-17:00; 22:00-02:00 runs past midnight"


class ScheduleForm(FlaskForm):
    """A schedule's settings and its weekly hours, one field per weekday (empty: closed)."""

    refusal_subject: ClassVar = "schedule"
    refusal_fields: ClassVar = {day_hours(day): day for day in DAYS}
    name = StringField("Name", validators=[DataRequired(), Length(max=30)])
    time_zone = SelectField("Time zone", choices=[], validate_choice=False)
    holidays = StringField(
        "Public holidays (country code, optional subdivision)", validators=[Length(max=24)]
    )
    mon = StringField(DAY_NAMES[0], validators=[Length(max=200)])
    tue = StringField(DAY_NAMES[1], validators=[Length(max=200)])
    wed = StringField(DAY_NAMES[2], validators=[Length(max=200)])
    thu = StringField(DAY_NAMES[3], validators=[Length(max=200)])
    fri = StringField(DAY_NAMES[4], validators=[Length(max=200)])
    sat = StringField(DAY_NAMES[5], validators=[Length(max=200)])
    sun = StringField(DAY_NAMES[6], validators=[Length(max=200)])

    def day_fields(self):
        return [self[day] for day in DAYS]

    def weekly_specs(self) -> list[str]:
        """One spec per weekday: `mon 08:00-18:00`, `sun closed` for an empty one."""
        return [f"{day} {(self[day].data or '').strip() or 'closed'}" for day in DAYS]


class ExceptionForm(FlaskForm):
    """One date closed all day, or with its own hours."""

    refusal_subject: ClassVar = "schedule_exception"
    day = DateField("Date", validators=[DataRequired(message="Give a date.")])
    kind = RadioField(
        "On that date",
        choices=[
            SelectChoice("closed", "Closed all day"),
            SelectChoice("open", "Open these hours"),
        ],
        default="closed",
    )
    hours = StringField("Hours", validators=[Optional(), Length(max=200)])


class ScheduleQueuesForm(FlaskForm):
    """The exact set of the tenant's skill queues that follow the schedule."""

    refusal_subject: ClassVar = "schedule"
    queues = SelectMultipleField(
        "Skill queues following this schedule",
        choices=[],
        widget=ListWidget(prefix_label=False),
        option_widget=CheckboxInput(),
    )

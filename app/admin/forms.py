"""The UI's forms. They check shape only; every domain rule lives in the services."""

from __future__ import annotations

from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import (
    BooleanField,
    DateTimeLocalField,
    EmailField,
    FieldList,
    Form,
    FormField,
    IntegerField,
    PasswordField,
    SelectField,
    StringField,
)
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, Length, NumberRange, Optional

from app.models import CampaignType, PhoneType, WorkedState

BLANK_ROWS = 3


class ConfirmForm(FlaskForm):
    """A button that only needs its CSRF token: delete, sign out, rotate."""


class LoginForm(FlaskForm):
    email = EmailField(
        "E-mail",
        validators=[DataRequired(), Length(max=255)],
        render_kw={"autocomplete": "username"},
    )
    password = PasswordField(
        "Password",
        validators=[DataRequired(), Length(max=1024)],
        render_kw={"autocomplete": "current-password"},
    )


class SkillQueueForm(FlaskForm):
    name = StringField("Queue name", validators=[DataRequired(), Length(max=255)])


class CampaignForm(FlaskForm):
    name = StringField("Name", validators=[DataRequired(), Length(max=255)])
    campaign_type = SelectField(
        "Type", choices=[SelectChoice(t.value, t.value.title()) for t in CampaignType]
    )
    skill_queue = SelectField("Default skill queue", validators=[DataRequired()])
    time_zone = SelectField("Default time zone", validators=[DataRequired()])
    client_id_field_name = StringField(
        "clientId field name", default="Id", validators=[DataRequired(), Length(max=255)]
    )


class ItemRow(Form):
    key = StringField("Key", validators=[Optional(), Length(max=255)])
    value = StringField("Value", validators=[Optional()])
    # The range is the services' rule (displayOrder > 0); the form only checks the type.
    display_order = IntegerField("Order", validators=[Optional()])
    remove = BooleanField("Remove")


class ItemsForm(FlaskForm):
    items = FieldList(FormField(ItemRow), min_entries=0)


class NextTimeMixin:
    next_time = DateTimeLocalField("Next earliest time", validators=[Optional()])
    next_zone = SelectField("in time zone", default="UTC")


class NewTaskForm(ItemsForm, NextTimeMixin):
    client_id = StringField("clientId", validators=[DataRequired(), Length(max=255)])
    preferred_agent = StringField("Preferred agent", validators=[Length(max=255)])


class StatusForm(FlaskForm, NextTimeMixin):
    state = SelectField("Worked state", choices=[s.value for s in WorkedState])
    skill_queue = SelectField("Skill queue")
    time_zone = SelectField("Time zone")
    preferred_agent = StringField("Preferred agent (empty: none)", validators=[Length(max=255)])


class TransferForm(FlaskForm):
    destination = SelectField("Destination campaign", validators=[DataRequired()])
    skill_queue = SelectField("Skill queue")
    preferred_agent = StringField("Preferred agent (empty: none)", validators=[Length(max=255)])


class UserForm(FlaskForm):
    login_user_id = StringField("Login user id", validators=[DataRequired(), Length(max=255)])
    first_name = StringField("First name", validators=[DataRequired(), Length(max=100)])
    last_name = StringField("Last name", validators=[DataRequired(), Length(max=100)])
    primary_email = StringField("Primary e-mail", validators=[Length(max=320)])
    secondary_email = StringField("Secondary e-mail", validators=[Length(max=320)])
    template = SelectField("User template", validators=[DataRequired()])
    create_in_instance = BooleanField("Also create in the contact-centre instance")


class TemplateForm(FlaskForm):
    name = StringField("Name", validators=[DataRequired(), Length(max=255)])
    security_profile_ids = StringField("Security profile ids (comma-separated)")
    routing_profile_id = StringField("Routing profile id", validators=[Length(max=255)])
    hierarchy_group_id = StringField("Hierarchy group id", validators=[Length(max=255)])
    phone_type = SelectField("Phone type", choices=[p.value for p in PhoneType])
    auto_accept = BooleanField("Auto-accept calls")
    after_contact_work_seconds = IntegerField(
        "After-contact work (seconds)",
        default=0,
        validators=[Optional(), NumberRange(min=0, max=2**31 - 1)],
    )
    desk_phone_number = StringField("Desk phone number (E.164)", validators=[Length(max=32)])


class IntakeForm(FlaskForm):
    file = FileField("Intake file (CSV)", validators=[FileRequired()])
    dry_run = BooleanField("Dry run: check and report, write nothing")
    all_or_nothing = BooleanField("All or nothing: refuse the file if any row is bad")

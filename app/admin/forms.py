"""The UI's forms. They check shape only; every domain rule lives in the services."""

from __future__ import annotations

from typing import ClassVar

from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import (
    BooleanField,
    DateTimeLocalField,
    EmailField,
    FieldList,
    Form,
    FormField,
    HiddenField,
    IntegerField,
    PasswordField,
    SelectField,
    SelectMultipleField,
    StringField,
)
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, InputRequired, Length, NumberRange, Optional
from wtforms.widgets import CheckboxInput, HiddenInput, ListWidget

from app.models import CampaignType, PhoneType, WorkedState
from app.services.fields import TASK_CAMPAIGN, TASK_NEXT_EARLIEST

BLANK_ROWS = 3
OUT_OF_DATE = "This page is out of date: reload it and make your change again."

# A service's refusal names the field at fault as a domain value (app/services/fields.py).
# A form whose fields are named after the attributes of its `refusal_subject` needs nothing
# more; `refusal_fields` names the form's field of a domain field named otherwise. The
# refusal is then told with that field's label and marks it (app/admin/problems.py).


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
    refusal_subject: ClassVar = "skill_queue"
    name = StringField("Queue name", validators=[DataRequired(), Length(max=255)])


class CampaignForm(FlaskForm):
    refusal_subject: ClassVar = "campaign"
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
    """Data item rows; a refusal about data item i (`TASK_ITEMS.item(i, ...)`) marks the row
    it came from."""

    items = FieldList(FormField(ItemRow), min_entries=0)


class TaskVersion:
    """The version of the task a form showed: a save from an older copy is refused."""

    version = IntegerField(
        "Version", widget=HiddenInput(), validators=[InputRequired(message=OUT_OF_DATE)]
    )


class TaskShown(TaskVersion):
    """The version a form showed and a stamp of the fields it edits as they were
    (app/services/tasks/shown.py): a save is refused only when those fields changed."""

    shown = HiddenField("Shown")


class TaskItemsForm(ItemsForm, TaskShown):
    pass


class NextTimeMixin:
    refusal_fields: ClassVar = {TASK_NEXT_EARLIEST: "next_time"}
    next_time = DateTimeLocalField("Next earliest time", validators=[Optional()])
    next_zone = SelectField("in time zone", default="UTC")


class NewTaskForm(ItemsForm, NextTimeMixin):
    refusal_subject: ClassVar = "task"
    client_id = StringField("clientId", validators=[DataRequired(), Length(max=255)])
    preferred_agent = StringField("Preferred agent", validators=[Length(max=255)])


class StatusForm(FlaskForm, NextTimeMixin, TaskShown):
    refusal_subject: ClassVar = "task"
    state = SelectField("Worked state", choices=[s.value for s in WorkedState])
    skill_queue = SelectField("Skill queue")
    time_zone = SelectField("Time zone")
    preferred_agent = StringField("Preferred agent (empty: none)", validators=[Length(max=255)])


class TransferForm(FlaskForm, TaskShown):
    refusal_subject: ClassVar = "task"
    refusal_fields: ClassVar = {TASK_CAMPAIGN: "destination"}
    destination = SelectField("Destination campaign", validators=[DataRequired()])
    skill_queue = SelectField("Skill queue")
    preferred_agent = StringField("Preferred agent (empty: none)", validators=[Length(max=255)])


class DeleteTaskForm(FlaskForm, TaskVersion):
    """The confirmation of a task's deletion, for the version it showed."""


class UserForm(FlaskForm):
    refusal_subject: ClassVar = "user"
    login_user_id = StringField("Login user id", validators=[DataRequired(), Length(max=255)])
    first_name = StringField("First name", validators=[DataRequired(), Length(max=100)])
    last_name = StringField("Last name", validators=[DataRequired(), Length(max=100)])
    primary_email = StringField("Primary e-mail", validators=[Length(max=320)])
    secondary_email = StringField("Secondary e-mail", validators=[Length(max=320)])
    template = SelectField("User template", validators=[DataRequired()])
    create_in_instance = BooleanField("Also create in the contact-centre instance")


class TemplateForm(FlaskForm):
    refusal_subject: ClassVar = "user_template"
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
    skill_queues = SelectMultipleField(
        "Desk skill queues of its users",
        choices=[],
        widget=ListWidget(prefix_label=False),
        option_widget=CheckboxInput(),
    )


class AgentQueuesForm(FlaskForm):
    """The exact set of skill queues an agent works at the desk."""

    refusal_subject: ClassVar = "user"

    queues = SelectMultipleField(
        "Skill queues",
        choices=[],
        widget=ListWidget(prefix_label=False),
        option_widget=CheckboxInput(),
    )


class AgentZoneForm(FlaskForm):
    """The agent's own time zone, in which the desk says times (none: UTC)."""

    refusal_subject: ClassVar = "user"

    time_zone = SelectField("Time zone", choices=[], validate_choice=False)


class IntakeForm(FlaskForm):
    file = FileField("Intake file (CSV)", validators=[FileRequired()])
    dry_run = BooleanField("Dry run: check and report, write nothing")
    all_or_nothing = BooleanField("All or nothing: refuse the file if any row is bad")

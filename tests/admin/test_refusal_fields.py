"""A refusal marks the form's field by the domain field it names, never by its words: a
refusal reworded entirely, or worded with what another field's refusal says, marks the same
field; and every form's declared fields exist."""

from __future__ import annotations

import inspect

import pytest
from flask_wtf import FlaskForm
from werkzeug.datastructures import MultiDict

from app.admin import (
    bulk_forms,
    calling,
    campaign_life,
    dnc_forms,
    forms,
    hours_forms,
    webhooks,
    work_codes_forms,
    workspace,
)
from app.admin.problems import form_field_of, refusal_in_form_words
from app.services import fields
from app.services.campaigns import catalogue, dialing
from app.services.errors import Conflict, InvalidInput
from app.services.people import users
from app.services.schedules.opening_hours import day_hours
from app.services.tasks import batches, validation

# Words no refusal's field is chosen by (each once chose one: "skill queue '", "note is"...).
REWORDED = [
    "something else entirely",
    "skill queue 'x' campaign 'y' user 'z' note is hours of mon weekly hours 'tue 8'",
    "",
]

# A form, a refusal about a field as the services raise it, and the form's field it marks.
CASES = {
    "campaign name": (
        forms.CampaignForm,
        lambda words: InvalidInput(words, field=catalogue.NAME),
        "name",
    ),
    "campaign taken": (
        forms.CampaignForm,
        lambda words: Conflict(words, field=fields.CAMPAIGN_NAME),
        "name",
    ),
    "campaign zone": (
        forms.CampaignForm,
        lambda words: InvalidInput(words, field=catalogue.ZONE),
        "time_zone",
    ),
    "next time": (
        forms.StatusForm,
        lambda words: InvalidInput(words, field=validation.NEXT_EARLIEST),
        "next_time",
    ),
    "bulk next time": (
        bulk_forms.BulkStatusForm,
        lambda words: InvalidInput(words, field=validation.NEXT_EARLIEST),
        "next_time",
    ),
    "destination": (
        forms.TransferForm,
        lambda words: InvalidInput(words, field=batches.CAMPAIGN),
        "destination",
    ),
    "e-mail": (
        forms.UserForm,
        lambda words: InvalidInput(words, field=users.PRIMARY_EMAIL),
        "primary_email",
    ),
    "user taken": (
        forms.UserForm,
        lambda words: Conflict(words, field=fields.USER_LOGIN_USER_ID),
        "login_user_id",
    ),
    "agent queues": (
        forms.AgentQueuesForm,
        lambda words: InvalidInput(words, field=fields.USER_QUEUES),
        "queues",
    ),
    "weekday": (
        hours_forms.ScheduleForm,
        lambda words: InvalidInput(words, field=day_hours("tue")),
        "tue",
    ),
    "dnc note": (
        dnc_forms.DncAddForm,
        lambda words: InvalidInput(words, field=fields.DNC_NOTE),
        "note",
    ),
    "countdown": (
        calling.DialingForm,
        lambda words: InvalidInput(words, field=dialing.SECONDS_FIELD),
        "seconds",
    ),
}


def _marked(form) -> set[str]:
    return {name for name, field in form._fields.items() if field.errors}


@pytest.mark.parametrize("words", REWORDED)
@pytest.mark.parametrize("case", CASES, ids=str)
def test_a_refusal_marks_its_field_whatever_its_words(app, case, words):
    form_class, refusal, marked = CASES[case]
    with app.test_request_context():
        form = form_class(meta={"csrf": False})
        refusal_in_form_words(form, refusal(words))
        assert _marked(form) == {marked}


@pytest.mark.parametrize("words", REWORDED)
def test_an_item_refusal_marks_its_row_whatever_its_words(app, words):
    rows = MultiDict({"items-0-key": "Name", "items-0-value": "Ann", "items-0-display_order": "0"})
    refusal = validation.item_refusal(0, fields.DISPLAY_ORDER, words or "x")
    with app.test_request_context():
        form = forms.NewTaskForm(formdata=rows, meta={"csrf": False})
        refusal_in_form_words(form, refusal)
        row = form.items[0]
        assert [name for name, f in row.form._fields.items() if f.errors] == ["display_order"]


def test_a_refusal_about_another_subject_marks_nothing(app):
    # A skill queue's name is no campaign's name, though both forms call the field `name`.
    with app.test_request_context():
        form = forms.CampaignForm(meta={"csrf": False})
        refusal_in_form_words(form, InvalidInput("x", field=fields.SKILL_QUEUE_NAME))
        assert _marked(form) == set()


def _forms():
    for module in (
        forms,
        bulk_forms,
        calling,
        campaign_life,
        dnc_forms,
        hours_forms,
        webhooks,
        work_codes_forms,
        workspace,
    ):
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, FlaskForm) and cls.__module__ == module.__name__:
                yield cls


@pytest.mark.parametrize("form_class", list(_forms()), ids=lambda cls: cls.__name__)
def test_every_field_a_form_declares_is_one_of_its_own(app, form_class):
    declared = getattr(form_class, "refusal_fields", {})
    with app.test_request_context():
        form = form_class(meta={"csrf": False})
        for field, name in declared.items():
            assert isinstance(field, fields.Field)
            assert form_field_of(form, field) is form[name]

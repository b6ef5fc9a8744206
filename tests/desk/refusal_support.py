"""What every refused desk form must show: the refusal once, in the agent's words, beside
its field and marked as an error; and never an API field name anywhere on the page."""

from __future__ import annotations

import inspect
import re

import pydantic
from bs4 import BeautifulSoup

from app.desk import schemas

# Every field name of the Desk API's requests and answers written the API's way (camelCase),
# and the Preview API's names for a task's ids and data.
API_NAMES = sorted(
    {
        name
        for model in vars(schemas).values()
        if inspect.isclass(model) and issubclass(model, pydantic.BaseModel)
        for name in model.model_fields
        if re.search("[A-Z]", name)
    }
    | {"previewRecordId", "previewRecordData", "clientId"}
)

# The message's element for each place (app/desk/refusals.py), and the field it marks.
MESSAGE_OF = {"next_time": "#next-time-error", "outcome": "#outcome-error", "form": "#close-error"}


def assert_no_api_names(shown: BeautifulSoup) -> None:
    text = shown.get_text(" ")
    named = [name for name in API_NAMES if re.search(rf"\b{name}\b", text)]
    assert not named, f"API field names on the page: {named}"


def refusal_of(shown: BeautifulSoup, place: str):
    """The refusal's element at `place`: a selector of MESSAGE_OF, or `wc:<group>`."""
    if place.startswith("wc:"):
        group = shown.find("fieldset", attrs={"data-group": place.removeprefix("wc:")})
        assert group is not None and group.get("aria-invalid") == "true"
        return group.select_one(".field-error")
    return shown.select_one(MESSAGE_OF[place])


def assert_refused(shown: BeautifulSoup, words: str, place: str) -> None:
    """The words once on the page, as an error at `place` (role=alert, an error's class),
    its field marked aria-invalid; nothing said as a mere notice; no API name anywhere."""
    said = refusal_of(shown, place)
    assert said is not None, f"no refusal at {place}: {shown.get_text(' ', strip=True)[:600]}"
    assert words in said.get_text(" ", strip=True)
    assert said["role"] == "alert"
    assert {"field-error", "alert"} & set(said["class"])
    assert shown.get_text(" ").count(said.get_text(" ", strip=True)) == 1  # said once
    assert not shown.select(".notice")
    if place == "next_time":
        field = shown.find("input", attrs={"name": "next_time"})
        assert field["aria-invalid"] == "true"
        assert said["id"] in field["aria-describedby"].split()
    assert_no_api_names(shown)

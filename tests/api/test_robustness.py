"""Bad requests on the Preview API: a JSON 4xx or FAILED naming the field, never a 500 or an
HTML page, and never a change to the stored tasks.

The wide tables run as subtests of one test each, so one failing row is reported on its own
without paying a fresh database per row.
"""

import json

import pytest

from app.api import preview
from app.extensions import db
from app.services.tasks import changes as tasks
from tests.conftest import PREVIEW

MISSING = object()
ACTIONS = {
    "addOrUpdateCampaignRecord": {
        "clientId": "C1",
        "previewRecordData": [{"key": "Name", "value": "Zed"}],
    },
    "searchPreviewCampaign": {
        "previewRecordData": [{"key": "Name", "condition": "EQUALS", "value": "Ada"}]
    },
    "changeCampaignRecordStatus": {"clientId": "C1", "previewRecordStateEnum": "COMPLETED"},
    "transferCampaignRecord": {"clientId": "C1", "transferToCampaign": "Winback"},
    "deleteRecordFromCampaign": {"clientId": "C1"},
}
ADD, SEARCH, CHANGE, TRANSFER, DELETE = ACTIONS
LONG = "x" * 256
AFTER_YEAR_9999 = 253402300800000  # 10000-01-01 00:00:00.000 UTC


def everything(api) -> dict[str, list[dict]]:
    """Every task of both campaigns as search shows them."""
    return {
        name: api.search(("sys_worked_state", "NOTEQUALS", ""), campaignName=name)
        for name in ("Renewals", "Winback")
    }


@pytest.fixture
def before(api) -> dict:
    """One task, C1, in Renewals; what search shows before the bad requests."""
    api.add("C1", {"Name": "Ada", "City": "Paris"}, preferredAgent="ann")
    return everything(api)


def send(api, action: str, data, content_type: str | None = "application/json", method="POST"):
    """A raw request with the tenant's headers."""
    headers = dict(api.headers)
    if content_type is not None:
        headers["Content-Type"] = content_type
    return api.client.open(PREVIEW + action, method=method, data=data, headers=headers)


def body_with(api, action: str, field: str, value) -> dict:
    """The action's valid body with `field` set to `value` (or left out for MISSING)."""
    body = {**api.body(**ACTIONS[action]), field: value}
    if value is MISSING:
        del body[field]
    return body


def encoded(api, action: str = DELETE) -> str:
    return json.dumps(api.body(**ACTIONS[action]))


def assert_json_error(response, status: int) -> dict:
    assert response.status_code == status, response.data
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert isinstance(body["message"], str) and body["message"]
    return body


# --- Transport: a JSON 4xx ----------------------------------------------------------------

MALFORMED = [b'{"platform": ', b"{'platform': 'AWS Connect'}", b"", b'{"a": NaN}', b'{"a": 1} {}']
NOT_AN_OBJECT = [b"[]", b'"x"', b"1", b"null", b"true", b'[{"clientId": "C1"}]']
INVALID_UTF8 = [b"C\xff1", b"\xc3", b"\xed\xa0\x80", b"\x80"]
WRONG_CONTENT_TYPES = ["text/plain", "application/x-www-form-urlencoded", "text/json", None]


def test_malformed_json_answers_400(api, before, subtests):
    for action in ACTIONS:
        for data in MALFORMED:
            with subtests.test(action=action, data=data):
                assert_json_error(send(api, action, data), 400)
    assert everything(api) == before


def test_a_body_that_is_not_an_object_answers_400(api, before, subtests):
    for data in NOT_AN_OBJECT:
        with subtests.test(data=data):
            assert_json_error(send(api, DELETE, data), 400)
    assert everything(api) == before


def test_invalid_utf8_answers_400(api, before, subtests):
    for bad in INVALID_UTF8:
        with subtests.test(bad=bad):
            data = encoded(api).encode().replace(b'"C1"', b'"' + bad + b'"')
            assert_json_error(send(api, DELETE, data), 400)
    assert everything(api) == before


NUL_PLACES = {
    "a value": lambda api: body_with(api, ADD, "clientId", "C\x002"),
    "a data item": lambda api: body_with(
        api, ADD, "previewRecordData", [{"key": "Name", "value": "A\x00"}]
    ),
    "a key of the body": lambda api: {**api.body(**ACTIONS[ADD]), "x\x00": "1"},
}


@pytest.mark.parametrize("place", NUL_PLACES)
def test_a_nul_character_anywhere_answers_400_on_every_database(api, before, place):
    body = json.dumps(NUL_PLACES[place](api))
    assert "\\u0000" in body
    assert_json_error(send(api, ADD, body), 400)
    assert everything(api) == before


def test_a_raw_nul_byte_is_invalid_json_and_an_escaped_backslash_is_no_nul(api, before):
    """JSON writes U+0000 only as the escape, which the body check looks for first: a raw
    NUL byte is refused as invalid JSON, and the text "\\u0000" (a backslash kept) is no NUL."""
    raw = encoded(api).encode().replace(b'"C1"', b'"C\x001"')
    assert b"\x00" in raw
    refused = send(api, DELETE, raw)
    assert_json_error(refused, 400)
    assert "not valid JSON" in refused.get_json()["message"]
    assert everything(api) == before
    kept = json.dumps(body_with(api, ADD, "clientId", "C\\u0000"))
    answer = send(api, ADD, kept).get_json()
    assert answer["previewResult"]["previewResultStatus"] == "SUCCESS"


def test_a_wrong_content_type_answers_415(api, before, subtests):
    for content_type in WRONG_CONTENT_TYPES:
        with subtests.test(content_type=content_type):
            assert_json_error(send(api, DELETE, encoded(api), content_type), 415)
    assert everything(api) == before


def test_a_json_content_type_with_a_charset_is_accepted(api, before):
    response = send(api, DELETE, encoded(api), "application/json; charset=utf-8")
    assert response.status_code == 200
    assert response.get_json()["previewResult"]["previewResultStatus"] == "SUCCESS"


def test_a_body_over_the_size_limit_answers_413(app, api, before):
    app.config["MAX_CONTENT_LENGTH"] = 2000
    data = [{"key": f"k{n}", "value": "v" * 50} for n in range(60)]
    body = json.dumps(body_with(api, ADD, "previewRecordData", data))
    assert len(body) > 2000
    assert_json_error(send(api, ADD, body), 413)
    assert everything(api) == before


def test_other_methods_answer_405_allowing_post(api, subtests):
    for action in ACTIONS:
        for method in ("GET", "PUT", "DELETE", "PATCH"):
            with subtests.test(action=action, method=method):
                response = send(api, action, encoded(api, action), method=method)
                assert_json_error(response, 405)
                assert "POST" in response.headers["Allow"]


@pytest.mark.parametrize(
    "path",
    [
        PREVIEW + "nosuchAction",
        PREVIEW + "addorupdatecampaignrecord",
        PREVIEW + "deleteRecordFromCampaign/C1",
        "/service-previewcontact-service/svc/rs/other",
    ],
)
def test_an_unknown_path_under_the_api_prefix_answers_404(api, path):
    assert_json_error(api.client.post(path, json=api.body(), headers=api.headers), 404)


# --- Wrong types and values: HTTP 200 and FAILED naming the field ---------------------------

COMMON_BAD = [
    ("campaignName", 123),
    ("campaignName", None),
    ("campaignName", MISSING),
    ("campaignName", "R" * 256),
    ("campaignName", {"name": "Renewals"}),
    ("region", 1),
    ("region", None),
    ("platform", True),
    ("companyCode", ["Acme"]),
    ("environment", None),
]

WRONG = {
    ADD: [
        ("clientId", 123, "FAILED"),
        ("clientId", {"id": "C1"}, "FAILED"),
        ("clientId", None, "INVALIDCLIENTID"),
        ("clientId", MISSING, "INVALIDCLIENTID"),
        ("previewRecordId", 5, "FAILED"),
        ("clientIdFieldName", LONG, "FAILED"),
        ("preferredAgent", 7, "FAILED"),
        ("preferredAgent", LONG, "FAILED"),
        ("nextEarliestWorkTimeUTC", "1767225600123", "FAILED"),
        ("nextEarliestWorkTimeUTC", True, "FAILED"),
        ("nextEarliestWorkTimeUTC", 1.5, "FAILED"),
        ("previewRecordData", None, "FAILED"),
        ("previewRecordData", {"key": "Name", "value": "Zed"}, "FAILED"),
        ("previewRecordData", ["Name"], "FAILED"),
        ("previewRecordData", [{"key": "Name", "value": 5}], "FAILED"),
        ("previewRecordData", [{"key": "Name"}], "FAILED"),
        ("previewRecordData", [{"key": "Name", "value": "Z", "displayOrder": "1"}], "FAILED"),
        ("previewRecordData", [{"key": "k" * 256, "value": "Zed"}], "FAILED"),
    ],
    SEARCH: [
        ("clientId", 1, "FAILED"),
        ("previewRecordId", True, "FAILED"),
        ("maxRecords", "10", "FAILED"),
        ("maxRecords", True, "FAILED"),
        ("maxRecords", 0, "FAILED"),
        ("previewRecordData", None, "FAILED"),
        ("previewRecordData", {"key": "Name", "condition": "EQUALS", "value": "A"}, "FAILED"),
        ("previewRecordData", [{"key": "Name", "condition": "LIKE", "value": "A"}], "FAILED"),
        ("previewRecordData", [{"key": "Name", "condition": "EQUALS", "value": 5}], "FAILED"),
        ("previewRecordData", [{"key": None, "condition": "EQUALS", "value": "A"}], "FAILED"),
        ("previewRecordData", [{"key": LONG, "condition": "EQUALS", "value": "A"}], "FAILED"),
    ],
    CHANGE: [
        ("previewRecordStateEnum", 1, "FAILED"),
        ("previewRecordStateEnum", None, "FAILED"),
        ("previewRecordStateEnum", MISSING, "FAILED"),
        ("previewRecordStateEnum", True, "FAILED"),
        ("previewRecordStateEnum", LONG, "FAILED"),
        ("clientId", ["C1"], "FAILED"),
        ("previewRecordID", {"id": "x"}, "FAILED"),
        ("skillQueue", 1, "FAILED"),
        ("skillQueue", LONG, "FAILED"),
        ("preferredAgent", 1, "FAILED"),
        ("preferredAgent", LONG, "FAILED"),
        ("nextEarliestWorkTimeUTC", "1767225600123", "FAILED"),
        ("nextEarliestWorkTimeUTC", {"ms": 1}, "FAILED"),
        ("timeZone", 1, "FAILED"),
        ("timeZone", LONG, "FAILED"),
    ],
    TRANSFER: [
        ("transferToCampaign", None, "FAILED"),
        ("transferToCampaign", MISSING, "FAILED"),
        ("transferToCampaign", 1, "FAILED"),
        ("transferToCampaign", LONG, "FAILED"),
        ("transferToCampaign", {"name": "Winback"}, "FAILED"),
        ("clientId", 1, "FAILED"),
        ("skillQueue", False, "FAILED"),
        ("skillQueue", LONG, "FAILED"),
        ("preferredAgent", ["bob"], "FAILED"),
        ("nextEarliestWorkTimeUTC", "1", "FAILED"),
        ("timeZone", {"tz": "UTC"}, "FAILED"),
    ],
    DELETE: [
        ("clientId", 1, "FAILED"),
        ("clientId", True, "FAILED"),
        ("clientId", {"id": "C1"}, "FAILED"),
        ("previewRecordId", ["x"], "FAILED"),
    ],
}


def assert_refused(api, action: str, field: str, value, status: str = "FAILED") -> None:
    """HTTP 200 with `status` and an error that names `field`."""
    # The standard encoder, unlike the app's, also writes integers beyond 64 bits.
    response = send(api, action, json.dumps(body_with(api, action, field, value)))
    assert response.status_code == 200, response.data
    result = response.get_json()["previewResult"]
    assert result["previewResultStatus"] == status
    assert field.lower() in result["error"].lower()


@pytest.mark.parametrize("action", ACTIONS)
def test_a_bad_common_field_fails_naming_it(api, before, subtests, action):
    for field, value in COMMON_BAD:
        with subtests.test(field=field, value=value):
            assert_refused(api, action, field, value)
            assert everything(api) == before


@pytest.mark.parametrize("action", ACTIONS)
def test_a_field_of_the_wrong_type_fails_naming_it(api, before, subtests, action):
    for field, value, status in WRONG[action]:
        with subtests.test(field=field, value=value):
            assert_refused(api, action, field, value, status)
            assert everything(api) == before


@pytest.mark.parametrize("action", [ADD, CHANGE, TRANSFER])
def test_next_earliest_work_time_out_of_range_fails(api, before, subtests, action):
    for millis in (-1, -1767225600123, AFTER_YEAR_9999, 2**63, 2**64):
        with subtests.test(millis=millis):
            assert_refused(api, action, "nextEarliestWorkTimeUTC", millis)
            assert everything(api) == before


def test_next_earliest_work_time_at_the_ends_of_the_range_is_stored(api, before):
    for millis, shown in (
        (0, "1970-01-01 00:00:00.000"),
        (AFTER_YEAR_9999 - 1, "9999-12-31 23:59:59.999"),
    ):
        fields = {**ACTIONS[CHANGE], "nextEarliestWorkTimeUTC": millis}
        assert api.status(CHANGE, **fields) == "SUCCESS"
        assert api.find("C1")["nextEarliestWorkTime"] == shown


# --- Unexpected errors: a JSON 500 that changes nothing ---------------------------------


def failing_after(original):
    """`original`, whose changes are then flushed before it raises as a bug would."""

    def wrapper(*args, **kwargs):
        original(*args, **kwargs)
        db.session.flush()
        raise RuntimeError("boom")

    return wrapper


@pytest.mark.parametrize(
    ("action", "module", "function"),
    [
        (ADD, tasks, "add_or_update_record"),
        (CHANGE, tasks, "change_status"),
        (TRANSFER, tasks, "transfer_task"),
        (DELETE, tasks, "delete_task"),
        (SEARCH, preview, "search_tasks"),
    ],
)
def test_an_unexpected_error_answers_a_json_500_and_rolls_back(
    app, api, before, monkeypatch, action, module, function
):
    app.config["PROPAGATE_EXCEPTIONS"] = False
    monkeypatch.setattr(module, function, failing_after(getattr(module, function)))
    fields = {**ACTIONS[action], "skillQueue": "Support", "preferredAgent": "bob"}
    body = assert_json_error(api.post(action, **fields), 500)
    assert "boom" not in json.dumps(body)
    monkeypatch.undo()
    assert everything(api) == before

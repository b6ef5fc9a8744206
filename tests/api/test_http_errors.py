"""HTTP-level refusals on both APIs, in the test client: OPTIONS and chunked bodies.

What gunicorn itself answers (431, 414, 400) is proved against a live server in
tests/web/test_serving.py.
"""

from __future__ import annotations

import io
import json

import pytest
from werkzeug.test import EnvironBuilder
from werkzeug.wrappers import Request

from tests.conftest import PREVIEW

USERS = "/service-admin/api/users/"
LIMIT = 4096
ROUTES = [
    *(PREVIEW + action for action in (
        "addOrUpdateCampaignRecord", "searchPreviewCampaign", "changeCampaignRecordStatus",
        "transferCampaignRecord", "deleteRecordFromCampaign")),
    *(USERS + operation for operation in ("add-user", "query-existence", "delete-user")),
    USERS + "no-such-operation",
]  # fmt: skip


@pytest.fixture
def settings(settings) -> dict:
    return {**settings, "MAX_CONTENT_LENGTH": LIMIT}


def chunked(api, path: str, body: bytes):
    """POST `body` as a server hands a chunked body over: no Content-Length, a stream the
    server ends (wsgi.input_terminated)."""
    headers = {**api.headers, "Content-Type": "application/json", "Transfer-Encoding": "chunked"}
    environ = EnvironBuilder(
        path=path, method="POST", headers=headers, input_stream=io.BytesIO(body)
    ).get_environ()
    del environ["CONTENT_LENGTH"]
    environ["wsgi.input_terminated"] = True
    return api.client.open(Request(environ))


def padded(body: bytes, size: int) -> bytes:
    """The JSON body followed by spaces up to `size` bytes: still the same valid JSON."""
    return body + b" " * (size - len(body))


def search_body(api) -> bytes:
    return json.dumps(api.body(clientId="C1")).encode()


@pytest.mark.parametrize("path", [PREVIEW + "searchPreviewCampaign", USERS + "query-existence"])
def test_a_chunked_body_over_the_limit_answers_413(api, path):
    response = chunked(api, path, padded(search_body(api), LIMIT + 1))
    assert response.status_code == 413
    assert response.is_json
    assert response.get_json()["status"] == 413
    if path.startswith(USERS):
        assert response.get_json()["result"] == "INVALID_ARGUMENTS"


def test_a_chunked_body_of_exactly_the_limit_is_read_whole(api):
    response = chunked(api, PREVIEW + "searchPreviewCampaign", padded(search_body(api), LIMIT))
    assert response.status_code == 200
    assert response.get_json()["previewResult"]["previewResultStatus"] == "NORECORDFOUND"


@pytest.mark.parametrize("path", ROUTES)
def test_options_answers_405_json_allowing_only_post(api, path):
    """No cross-origin use is offered, so OPTIONS is refused like every method but POST."""
    response = api.client.options(path, headers=api.headers)
    assert response.status_code == 405
    assert response.is_json
    assert response.headers["Allow"] == "POST"
    body = response.get_json()
    assert body["status"] == 405
    if path.startswith(USERS):
        assert body["result"] == "FAIL"

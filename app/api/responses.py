"""The answers of the JSON APIs as pydantic models, for the published OpenAPI document.

The views build their answers as plain dicts (search answers up to thousands of tasks);
these models say what those dicts are. tests/api/test_openapi.py validates real answers
against the JSON Schema generated from them, and the schemathesis run checks every fuzzed
answer, so the published schema cannot drift from what the service sends.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.web.answers import Answer, TaskRecord

PreviewStatus = Literal[
    "SUCCESS", "FAILED", "INVALIDCLIENTID", "INVALIDRECORDDATAKEY", "NORECORDFOUND"
]
UserResultValue = Literal[
    "SUCCESS",
    "UNAUTHORIZED",
    "INVALID_TENANT",
    "INVALID_ARGUMENTS",
    "ALREADY_EXISTS",
    "NOT_SUPPORTED",
    "NOT_FOUND",
    "FAIL",
]


# --- Preview Campaign Realtime API --------------------------------------------------------


class PreviewResult(Answer):
    previewResultStatus: PreviewStatus = Field(
        description="SUCCESS, or why the action was refused (HTTP 200 either way)."
    )
    error: str | None = Field(description="The reason when the status is not SUCCESS, else null.")


class PreviewResponse(Answer):
    """The common response: the request's identity fields echoed, and the outcome."""

    platform: str | None = Field(description="Echoed from the request; null when not a string.")
    companyCode: str | None
    environment: str | None
    region: str | None
    campaignName: str | None
    previewResult: PreviewResult


class SearchResponse(PreviewResponse):
    previewRecordClientData: list[TaskRecord] = Field(
        description="The tasks found; empty when none matched or the search was refused."
    )


# --- User Provisioning API ----------------------------------------------------------------


class UserResponse(Answer):
    result: UserResultValue = Field(description="SUCCESS, or the kind of failure (HTTP 200).")
    message: str = Field(description="What was done, or why not.")


class AddUserResponse(UserResponse):
    connectUserId: str | None = Field(
        description="The instance's user id when the user was created there, else null."
    )


class QueryExistenceResponse(UserResponse):
    amazonConnectStatus: Literal["EXISTS", "NOT_FOUND"] | None = Field(
        description="Whether the user exists in the instance; null when not in the service."
    )
    connectUserId: str | None


# --- HTTP errors (app/web/errors.py) -----------------------------------------------------------


class HttpError(Answer):
    """The body of every 4xx/5xx answer on an API path."""

    status: int = Field(description="The HTTP status code, repeated.")
    error: str = Field(description="The HTTP reason phrase, e.g. `Unauthorized`.")
    message: str = Field(description="What was wrong.")


class UserHttpError(HttpError):
    """On the User Provisioning API an HTTP error also carries the API's `result`."""

    result: UserResultValue

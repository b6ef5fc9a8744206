"""No secret a URL carries reaches a log line: invitation tokens in paths, and the query
parameters of sign-in answers (OpenID Connect's `code` and `state`, SAML's `SAMLResponse`
and `RelayState` on GET) and tokens, in the request line, the query and the Referer that
gunicorn's access log writes (app/web/redaction.py)."""

from __future__ import annotations

import datetime
import logging

import pytest
from gunicorn.config import Config

from app.web.redaction import REDACTED, SECRET_PARAMETERS, redact
from app.web.serving import RedactingLogger

SECRET = "s3cr3t-Zq8vX2"

# Where providers send their answers: each of these reads one of the secret parameters.
SIGN_IN_ANSWERS = (
    "admin.sso_oidc_callback",
    "admin.sso_acs",
    "admin.sso_slo",
    "desk.sso_oidc_callback",
    "desk.sso_acs",
    "desk.sso_slo",
)


class _Response:
    status = "302 FOUND"
    headers = [("Content-Type", "text/html")]
    sent = 0


def _access_line(path: str, query: str, referer: str) -> str:
    """The access log line gunicorn writes for a GET of `path?query` (its own formatting
    with the project's logger class)."""
    logger = RedactingLogger(Config())
    environ = {
        "REQUEST_METHOD": "GET",
        "RAW_URI": f"{path}?{query}",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_REFERER": referer,
        "REMOTE_ADDR": "127.0.0.1",
    }
    request = type("Request", (), {"headers": [("Referer", referer)]})()
    atoms = logger.atoms_wrapper_class(
        logger.atoms(_Response(), request, environ, datetime.timedelta(seconds=0))
    )
    record = logging.LogRecord(
        "access", logging.INFO, "", 0, logger.cfg.access_log_format, (), None
    )
    return record.msg % atoms + " " + atoms["{referer}i"]


def _concrete(rule) -> str:
    """A path the rule matches: a sample value for each of its arguments."""
    values = {}
    for name, converter in rule._converters.items():
        items = getattr(converter, "items", None)
        values[name] = sorted(items)[0] if items else "1"
    return rule.build(values, append_unknown=False)[1]


def test_every_route_s_secret_parameters_are_redacted_in_the_access_log(app):
    routes = [r for r in app.url_map.iter_rules() if "GET" in r.methods]
    endpoints = {r.endpoint for r in routes}
    assert set(SIGN_IN_ANSWERS) <= endpoints  # the routes that take one are all still there
    for rule in routes:
        path = _concrete(rule)
        for name in SECRET_PARAMETERS:
            query = f"page=2&{name}={SECRET}-{name}&iss=https%3A%2F%2Fidp.example"
            line = _access_line(path, query, f"https://app.example{path}?{query}")
            assert SECRET not in line, (rule.rule, name, line)
            assert f"{name}={REDACTED}" in line
            assert "page=2" in line and "iss=https%3A%2F%2Fidp.example" in line


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("code=abc&state=def", f"code={REDACTED}&state={REDACTED}"),
        ("/cb?state=abc", f"/cb?state={REDACTED}"),
        ("/cb?x=1&amp;code=abc", f"/cb?x=1&amp;code={REDACTED}"),
        ("/cb?CODE=abc", f"/cb?CODE={REDACTED}"),
        ("/cb?barcode=12&zipcode=3", "/cb?barcode=12&zipcode=3"),
        ("/desk/invite/tok?from=mail", f"/desk/invite/{REDACTED}?from=mail"),
        ("/tasks?q=state", "/tasks?q=state"),
    ],
)
def test_redact_touches_the_secret_values_alone(text, expected):
    assert redact(text) == expected

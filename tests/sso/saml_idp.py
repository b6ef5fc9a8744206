"""A real SAML 2.0 identity provider for the tests: pysaml2's own IdP (`saml2.server.Server`)
with a key and self-signed certificate made at set-up, served on loopback by a small WSGI
app in a thread: a sign-in form (user name and password), then the signed answer posted
back to the service provider by the browser; and single logout.

Tests also ask it for answers directly (`answer`), with the faults a hostile or broken
provider would send: unsigned, signed by another key, for another audience, to another
request.
"""

from __future__ import annotations

import base64
import html
import shutil
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from saml2 import BINDING_HTTP_REDIRECT
from saml2.config import IdPConfig
from saml2.metadata import create_metadata_string
from saml2.saml import NAMEID_FORMAT_EMAILADDRESS, NameID
from saml2.server import Server
from saml2.xmldsig import DIGEST_SHA256, SIG_RSA_SHA256

from tests.servers import free_port
from tests.tls_support import self_signed


def make_key_pair(folder: Path, name: str) -> tuple[str, str]:
    """A new RSA key and a self-signed certificate for it, as PEM files (key, cert)."""
    key_file, cert_file = self_signed(folder, name, rsa_key=True)
    return str(key_file), str(cert_file)


@dataclass
class Person:
    password: str
    groups: tuple[str, ...] = ()


def _server(entity_id: str, base_url: str, key_file: str, cert_file: str) -> Server:
    config = IdPConfig()
    config.load(
        {
            "entityid": entity_id,
            "xmlsec_binary": shutil.which("xmlsec1"),
            "key_file": key_file,
            "cert_file": cert_file,
            "metadata": {},
            "service": {
                "idp": {
                    "endpoints": {
                        "single_sign_on_service": [(f"{base_url}/sso", BINDING_HTTP_REDIRECT)],
                        "single_logout_service": [(f"{base_url}/slo", BINDING_HTTP_REDIRECT)],
                    },
                    "policy": {"default": {"lifetime": {"minutes": 5}}},
                    "name_id_format": [NAMEID_FORMAT_EMAILADDRESS],
                }
            },
        }
    )
    return Server(config=config)


@dataclass
class IdentityProvider:
    """The identity provider at `base_url`; `people` may sign in at its form."""

    base_url: str
    folder: Path
    people: dict[str, Person] = field(default_factory=dict)
    signed_out: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.entity_id = f"{self.base_url}/metadata"
        self.server = _server(self.entity_id, self.base_url, *make_key_pair(self.folder, "idp"))
        # Impostors: the same entity id with another key, and a provider nobody configured.
        self.forger = _server(self.entity_id, self.base_url, *make_key_pair(self.folder, "forger"))
        self.stranger = _server(
            f"{self.base_url}/other", self.base_url, *make_key_pair(self.folder, "stranger")
        )

    def metadata(self) -> str:
        return create_metadata_string(None, config=self.server.config).decode()

    def trust(self, sp_metadata: str) -> None:
        """Know a service provider by its metadata (as its administrator would add it)."""
        for server in (self.server, self.forger, self.stranger):
            server.metadata.load("inline", sp_metadata)

    def request_of(self, saml_request: str):
        """The AuthnRequest carried by a HTTP-Redirect `SAMLRequest` value."""
        return self.server.parse_authn_request(saml_request, BINDING_HTTP_REDIRECT).message

    def answer(
        self,
        saml_request: str,
        login: str,
        *,
        by: str = "provider",
        signed: bool = True,
        audience: str | None = None,
        in_response_to: str | None = None,
        name_id: str | None = None,
        sign_alg: str = SIG_RSA_SHA256,
        digest_alg: str = DIGEST_SHA256,
    ) -> tuple[str, str]:
        """(ACS URL, SAMLResponse) answering the request for `login` (its `mail` attribute,
        and its NameID unless `name_id` is given), faults as asked; signed with RSA-SHA256
        as providers do today (pysaml2's own default is SHA-1) unless other algorithms
        are given."""
        request = self.request_of(saml_request)
        server = {"provider": self.server, "forger": self.forger, "stranger": self.stranger}[by]
        person = self.people.get(login, Person(""))
        identity = {"mail": [login], "groups": list(person.groups)}
        response = server.create_authn_response(
            identity,
            in_response_to or request.id,
            request.assertion_consumer_service_url,
            audience or request.issuer.text,
            name_id=NameID(format=NAMEID_FORMAT_EMAILADDRESS, text=name_id or login),
            authn={"class_ref": "urn:oasis:names:tc:SAML:2.0:ac:classes:Password"},
            sign_assertion=signed,
            sign_response=False,
            sign_alg=sign_alg,
            digest_alg=digest_alg,
        )
        encoded = base64.b64encode(str(response).encode()).decode()
        return request.assertion_consumer_service_url, encoded

    # The WSGI app: /sso (the form), /slo, /metadata.

    def __call__(self, environ, start_response):
        path = environ["PATH_INFO"]
        query = {k: v[0] for k, v in parse_qs(environ.get("QUERY_STRING", "")).items()}
        if path == "/metadata":
            return self._reply(start_response, "200 OK", self.metadata(), "application/xml")
        if path == "/sso" and environ["REQUEST_METHOD"] == "GET":
            return self._reply(start_response, "200 OK", self._form(query))
        if path == "/sso" and environ["REQUEST_METHOD"] == "POST":
            size = int(environ.get("CONTENT_LENGTH") or 0)
            posted = parse_qs(environ["wsgi.input"].read(size).decode())
            posted = {k: v[0] for k, v in posted.items()}
            person = self.people.get(posted.get("username", ""))
            if person is None or person.password != posted.get("password"):
                page = self._form(posted, "Wrong user name or password.")
                return self._reply(start_response, "401 Unauthorized", page)
            acs, encoded = self.answer(posted["SAMLRequest"], posted["username"])
            page = _post_form(acs, encoded, posted.get("RelayState", ""))
            return self._reply(start_response, "200 OK", page)
        if path == "/slo":
            return self._logout(start_response, query)
        return self._reply(start_response, "404 Not Found", "not found")

    def _form(self, values: dict, error: str = "") -> str:
        hidden = "".join(
            f'<input type="hidden" name="{name}" value="{html.escape(values.get(name, ""))}">'
            for name in ("SAMLRequest", "RelayState")
        )
        return (
            "<!DOCTYPE html><html><head><title>Test identity provider</title>"
            '<link rel="icon" href="data:,"></head><body>'
            f"<h1>Sign in</h1><p role='alert'>{html.escape(error)}</p>"
            f'<form method="post" action="/sso">{hidden}'
            '<label>User name <input name="username"></label>'
            '<label>Password <input name="password" type="password"></label>'
            '<button type="submit">Sign in</button></form></body></html>'
        )

    def _logout(self, start_response, query: dict):
        request = self.server.parse_logout_request(
            query["SAMLRequest"], BINDING_HTTP_REDIRECT
        ).message
        self.signed_out.append(request.name_id.text)
        sp = request.issuer.text
        slo = self.server.metadata.single_logout_service(sp, BINDING_HTTP_REDIRECT, "spsso")
        destination = slo[0]["location"]
        response = self.server.create_logout_response(request, [BINDING_HTTP_REDIRECT])
        sent = self.server.apply_binding(
            BINDING_HTTP_REDIRECT,
            str(response),
            destination,
            query.get("RelayState", ""),
            response=True,
        )
        location = dict(sent["headers"])["Location"]
        start_response("302 Found", [("Location", location)])
        return [b""]

    @staticmethod
    def _reply(start_response, status: str, body: str, kind: str = "text/html"):
        start_response(status, [("Content-Type", f"{kind}; charset=utf-8")])
        return [body.encode()]


def _post_form(acs: str, encoded: str, relay_state: str) -> str:
    """The page that posts the answer to the service provider (as the IdP's own)."""
    return (
        "<!DOCTYPE html><html><head><link rel='icon' href='data:,'></head>"
        "<body onload='document.forms[0].submit()'>"
        f'<form method="post" action="{html.escape(acs)}">'
        f'<input type="hidden" name="SAMLResponse" value="{encoded}">'
        f'<input type="hidden" name="RelayState" value="{html.escape(relay_state)}">'
        '<button type="submit">Continue</button></form></body></html>'
    )


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args) -> None:
        pass


def serve(folder: Path):
    """Start the provider on a free loopback port; (provider, stop)."""
    port = free_port()
    provider = IdentityProvider(f"http://127.0.0.1:{port}", folder)
    httpd = make_server("127.0.0.1", port, provider, WSGIServer, handler_class=_Quiet)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()

    def stop() -> None:
        httpd.shutdown()
        httpd.server_close()

    return provider, stop


def query_of(location: str) -> dict[str, str]:
    """The query parameters of a redirect's Location."""
    return {k: v[0] for k, v in parse_qs(location.partition("?")[2]).items()}

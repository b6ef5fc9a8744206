"""Secrets the service must show an identity provider (an OpenID client secret, a
directory's service password) are kept sealed: Fernet (AES-128-CBC with HMAC-SHA256) under a
key derived from SECRET_KEY with HKDF, so a copy of the database alone reveals none of them.
Rotating SECRET_KEY means setting those secrets again (`sso oidc ... --client-secret-file`)."""

from __future__ import annotations

import base64

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from flask import current_app

from app.services.errors import InvalidInput

_INFO = b"identity-provider secrets"


def _fernet() -> Fernet:
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO).derive(
        current_app.config["SECRET_KEY"].encode()
    )
    return Fernet(base64.urlsafe_b64encode(key))


def seal(secret: str) -> str:
    return _fernet().encrypt(secret.encode()).decode()


def unseal(sealed: str) -> str:
    """The secret; refused (naming what to do) when SECRET_KEY changed since it was sealed."""
    try:
        return _fernet().decrypt(sealed.encode()).decode()
    except InvalidToken:
        raise InvalidInput(
            "the identity provider's secret was sealed under another SECRET_KEY: set it again"
        ) from None

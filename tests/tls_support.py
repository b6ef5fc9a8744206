"""A TLS listener with a self-signed certificate that notes the name each client asks for
in SNI: proof that a connection pinned to an address still names its host in TLS."""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID


def self_signed(folder: Path, name: str, *, rsa_key: bool = False) -> tuple[Path, Path]:
    """A new key (EC, or RSA for what signs with it) and a self-signed certificate for
    `name`, as PEM files (key, cert)."""
    key = (
        rsa.generate_private_key(public_exponent=65537, key_size=2048)
        if rsa_key
        else ec.generate_private_key(ec.SECP256R1())
    )
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=30))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .sign(key, hashes.SHA256())
    )
    key_file, cert_file = folder / f"{name}.key", folder / f"{name}.crt"
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return key_file, cert_file


@dataclass
class SniListener:
    port: int
    asked: list[str | None] = field(default_factory=list)  # the names asked for in SNI


@contextmanager
def sni_listener(folder: Path, name: str, address: str) -> Iterator[SniListener]:
    """Listen on `address` for one TLS connection, with a certificate for `name` that no
    client trusts; the names its client asked for are in `.asked` once the block ends."""
    key_file, cert_file = self_signed(folder, name)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    listener = socket.create_server((address, 0))
    listener.settimeout(5)
    heard = SniListener(listener.getsockname()[1])
    context.sni_callback = lambda _sock, asked, _ctx: heard.asked.append(asked)

    def serve() -> None:
        try:
            conn, _ = listener.accept()
            with conn, context.wrap_socket(conn, server_side=True):
                pass
        except (OSError, ssl.SSLError):
            pass  # the client refuses the self-signed certificate: expected

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    try:
        yield heard
    finally:
        server.join(5)
        listener.close()

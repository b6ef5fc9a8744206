"""A demo directory beside `make run`: `flask --app wsgi demo directory` (`make demo-ldap`).

It builds an OpenLDAP directory (Debian's `slapd`) in `instance/demo-directory/` holding the
demo agents with new passwords, a CA and a certificate for 127.0.0.1 and localhost, gives the
demo tenant that directory (StartTLS, the certificate checked against that CA), prints how to
sign in, and runs slapd in the foreground until Ctrl-C. The tests' directory is built the
same way (tests/sso/ldap_directory.py).
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import os
import secrets
import shutil
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import click
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from flask import current_app

from app.cli.common import tenant_of
from app.demo import tenant as demo
from app.extensions import db
from app.services.actors import Actor
from app.services.sso import ldap, providers

SLAPD = Path("/usr/sbin/slapd")
SLAPADD = Path("/usr/sbin/slapadd")
SUFFIX = "dc=example,dc=org"
TEMPLATE = "uid={login},ou=people,dc=example,dc=org"

SLAPD_CONF = """\
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
# As many directories do (Active Directory among them), accept a DN with no password as an
# anonymous bind: the service must never send one.
allow bind_anon_dn
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile {folder}/slapd.pid
argsfile {folder}/slapd.args
TLSCACertificateFile {certs.ca}
TLSCertificateFile {certs.cert}
TLSCertificateKeyFile {certs.key}

database mdb
maxsize 10485760
suffix "{suffix}"
rootdn "cn=admin,{suffix}"
directory {folder}/data
access to attrs=userPassword by anonymous auth by self read by * none
access to * by * read
"""


def ssha(password: str) -> str:
    """The password as OpenLDAP's salted SHA-1 userPassword value."""
    salt = os.urandom(8)
    digest = hashlib.sha1(password.encode() + salt).digest()  # noqa: S324 - slapd's scheme
    return "{SSHA}" + base64.b64encode(digest + salt).decode()


def seed_ldif(people: dict[str, str]) -> str:
    """The directory's entries: the organisation, `ou=people`, and each login → password."""
    entries = [
        f"dn: {SUFFIX}\nobjectClass: dcObject\nobjectClass: organization\no: Example\ndc: example",
        f"dn: ou=people,{SUFFIX}\nobjectClass: organizationalUnit\nou: people",
    ]
    for login, password in people.items():
        entries.append(
            f"dn: {ldap.bind_dn(TEMPLATE, login)}\n"
            "objectClass: inetOrgPerson\n"
            f"uid: {login}\ncn: {login}\nsn: {login.split()[0]}\n"
            f"userPassword: {ssha(password)}"
        )
    return "\n\n".join(entries) + "\n"


@dataclass(frozen=True)
class Certificates:
    ca: Path
    cert: Path
    key: Path


def _certificate(subject, issuer, public_key, signer, *extensions) -> x509.Certificate:
    now = datetime.now(UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=30))
    )
    for extension, critical in extensions:
        builder = builder.add_extension(extension, critical)
    return builder.sign(signer, hashes.SHA256())


def make_certificates(folder: Path) -> Certificates:
    """A CA, and a certificate it signs for 127.0.0.1 and localhost, written to `folder`."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Demo directory CA")])
    ca_usage = x509.KeyUsage(False, False, False, False, False, True, True, False, False)
    ca = _certificate(
        ca_name,
        ca_name,
        ca_key.public_key(),
        ca_key,
        (x509.BasicConstraints(ca=True, path_length=None), True),
        (ca_usage, True),
        (x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False),
    )
    key = ec.generate_private_key(ec.SECP256R1())
    names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    cert = _certificate(
        x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]),
        ca_name,
        key.public_key(),
        ca_key,
        (x509.SubjectAlternativeName(names), False),
        (x509.ExtendedKeyUsage([x509.OID_SERVER_AUTH]), False),
        (x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False),
    )
    found = Certificates(folder / "ca.pem", folder / "server.pem", folder / "server.key")
    found.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    found.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    found.key.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    found.key.chmod(0o600)
    return found


def build(folder: Path, people: dict[str, str]) -> Certificates:
    """A fresh directory in `folder` (its configuration, certificates and the people);
    raises RuntimeError with slapadd's words when it cannot be loaded."""
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "data").mkdir(parents=True)
    certs = make_certificates(folder)
    conf = folder / "slapd.conf"
    conf.write_text(SLAPD_CONF.format(folder=folder, certs=certs, suffix=SUFFIX))
    (folder / "seed.ldif").write_text(seed_ldif(people))
    loaded = subprocess.run(  # noqa: S603 - a fixed program on files made here
        [str(SLAPADD), "-f", str(conf), "-l", str(folder / "seed.ldif")],
        capture_output=True,
        check=False,
    )
    if loaded.returncode != 0:
        raise RuntimeError(f"slapadd failed: {loaded.stderr.decode(errors='replace')}")
    return certs


def slapd_command(folder: Path, urls: str) -> list[str]:
    """slapd in the foreground (logging nothing but failures) on `urls`."""
    return [str(SLAPD), "-d", "0", "-f", str(folder / "slapd.conf"), "-h", urls]


@click.command("directory")
@click.option("--port", default=3389, show_default=True, help="The ldap:// port (StartTLS).")
@click.option(
    "--folder",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where the directory is built afresh (default: instance/demo-directory).",
)
def directory_command(port: int, folder: Path | None) -> None:
    """Run a demo LDAP directory holding the demo agents, and sign the demo tenant's agents
    in with it (until `flask --app wsgi sso remove DemoCo demo`)."""
    if not SLAPD.exists():
        raise click.ClickException("slapd is missing: `make demo-ldap` installs it (apt-get)")
    folder = (folder or Path(current_app.instance_path) / "demo-directory").resolve()
    people = {agent.login: secrets.token_urlsafe(12) for agent in demo.AGENTS}
    try:
        certs = build(folder, people)
    except RuntimeError as failed:
        raise click.ClickException(str(failed)) from None
    url = f"ldap://127.0.0.1:{port}"
    tenant = tenant_of(demo.COMPANY, demo.ENVIRONMENT)
    settings = ldap.settings_from(url, TEMPLATE, True, 5, str(certs.ca))
    providers.set_provider(tenant, "ldap", settings, actor=Actor.operator())
    label = tenant.label
    db.session.commit()
    db.session.close()  # hold no transaction (nor SQLite's write turn) while slapd runs
    base = current_app.config["PUBLIC_BASE_URL"].rstrip("/")
    click.echo(f"Demo directory on {url} (StartTLS), for {label}.")
    for login, password in people.items():
        click.echo(
            f"Sign in to the desk at {base}/desk/login/{demo.COMPANY}/{demo.ENVIRONMENT} "
            f"as {login} with directory password {password}"
        )
    click.echo(
        f"Ctrl-C stops it; `flask --app wsgi sso remove {demo.COMPANY} {demo.ENVIRONMENT}` "
        "gives the demo tenant back its desk passwords."
    )
    sys.stdout.flush()
    # slapd takes this process's place: Ctrl-C, or a signal to this process, stops it.
    command = slapd_command(folder, f"{url}/")
    os.execv(command[0], command)  # noqa: S606 - a fixed program on files made here

"""A real LDAP directory for the tests: Debian's OpenLDAP `slapd`, run as a child process on
free loopback ports (ldap:// with StartTLS, and ldaps://) with a temporary configuration, the
mdb backend, people seeded with `slapadd`, and a certificate from a CA made at set-up.

A missing slapd is installed with apt-get (as `make browser` installs Chromium), its
package told not to configure a system directory of its own; SKIP_SSO_PROVIDERS=1 skips
the tests that need it instead.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.servers import free_port

SLAPD = Path("/usr/sbin/slapd")
SLAPADD = Path("/usr/sbin/slapadd")
MODULES = Path("/usr/lib/ldap")
SCHEMAS = Path("/etc/ldap/schema")
SUFFIX = "dc=example,dc=org"
TEMPLATE = "uid={login},ou=people,dc=example,dc=org"
# The directory's people: login → password. "smith, j" has DN specials in the login;
# "root" stands for an entry a crafted login must never reach.
PEOPLE = {
    "ann@acme.example": "ann's directory secret",
    "smith, j": "smith's directory secret",
    "nobody.here": "a person with no agent",
}


def _sudo() -> list[str]:
    return [] if os.geteuid() == 0 else ["sudo"]


def ensure_slapd() -> None:
    """slapd present, installed from Debian's packages when missing; a skip only when
    SKIP_SSO_PROVIDERS is set."""
    if os.environ.get("SKIP_SSO_PROVIDERS"):
        pytest.skip("SKIP_SSO_PROVIDERS is set: no real directory")
    if SLAPD.exists() and SLAPADD.exists():
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    # The package's own set-up would make and start a system directory: not wanted.
    subprocess.run(
        [*_sudo(), "debconf-set-selections"],
        input=b"slapd slapd/no_configuration boolean true\n",
        check=False,
    )
    subprocess.run([*_sudo(), "apt-get", "update", "-qq"], env=env, check=False)
    installed = subprocess.run(
        [*_sudo(), "apt-get", "install", "-y", "-qq", "slapd"],
        env=env,
        capture_output=True,
        check=False,
    )
    if not SLAPD.exists():
        pytest.fail(
            "The directory tests need Debian's slapd, which could not be installed "
            f"(apt-get install slapd): {installed.stderr.decode(errors='replace')[-2000:]}\n"
            "Install it, or set SKIP_SSO_PROVIDERS=1 to skip these tests.",
            pytrace=False,
        )


def ssha(password: str) -> str:
    """The password as OpenLDAP's salted SHA-1 userPassword value."""
    salt = os.urandom(8)
    digest = hashlib.sha1(password.encode() + salt).digest()  # noqa: S324 - slapd's scheme
    return "{SSHA}" + base64.b64encode(digest + salt).decode()


def _escape(value: str) -> str:
    return "".join(f"\\{c}" if c in '\\,+"<>;=' else c for c in value)


def seed_ldif(people: dict[str, str]) -> str:
    entries = [
        f"dn: {SUFFIX}\nobjectClass: dcObject\nobjectClass: organization\no: Example\ndc: example",
        f"dn: ou=people,{SUFFIX}\nobjectClass: organizationalUnit\nou: people",
    ]
    for login, password in people.items():
        entries.append(
            f"dn: uid={_escape(login)},ou=people,{SUFFIX}\n"
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


def make_certificates(folder: Path) -> Certificates:
    """A CA, and a certificate it signs for 127.0.0.1 and localhost."""
    now = datetime.now(UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Test directory CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=2))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.ExtendedKeyUsage([x509.OID_SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
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
    return found


SLAPD_CONF = """\
include {schemas}/core.schema
include {schemas}/cosine.schema
include {schemas}/inetorgperson.schema
# As many directories do (Active Directory among them), accept a DN with no password as an
# anonymous bind: the service must never send one.
allow bind_anon_dn
modulepath {modules}
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


@dataclass
class Directory:
    """A running slapd: `ldap_url` (StartTLS or plain), `ldaps_url`, its CA's `ca_file`."""

    folder: Path
    certs: Certificates
    ldap_port: int
    ldaps_port: int
    process: subprocess.Popen | None = None
    people: dict[str, str] = field(default_factory=lambda: dict(PEOPLE))

    @property
    def ldap_url(self) -> str:
        return f"ldap://127.0.0.1:{self.ldap_port}"

    @property
    def ldaps_url(self) -> str:
        return f"ldaps://127.0.0.1:{self.ldaps_port}"

    @property
    def ca_file(self) -> str:
        return str(self.certs.ca)

    def start(self) -> None:
        urls = f"ldap://127.0.0.1:{self.ldap_port}/ ldaps://127.0.0.1:{self.ldaps_port}/"
        with (self.folder / "slapd.log").open("ab") as log:
            self.process = subprocess.Popen(
                [str(SLAPD), "-d", "0", "-f", str(self.folder / "slapd.conf"), "-h", urls],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"slapd exited early:\n{self.log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.ldaps_port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        pytest.fail(f"slapd did not start:\n{self.log_tail()}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def log_tail(self) -> str:
        return (self.folder / "slapd.log").read_text(errors="replace")[-3000:]


def run_directory(folder: Path, people: dict[str, str] = PEOPLE) -> Directory:
    """A directory set up in `folder` and started (the caller stops it)."""
    ensure_slapd()
    (folder / "data").mkdir(parents=True)
    certs = make_certificates(folder)
    conf = folder / "slapd.conf"
    conf.write_text(
        SLAPD_CONF.format(
            schemas=SCHEMAS, modules=MODULES, folder=folder, certs=certs, suffix=SUFFIX
        )
    )
    seed = folder / "seed.ldif"
    seed.write_text(seed_ldif(people))
    loaded = subprocess.run(
        [str(SLAPADD), "-f", str(conf), "-l", str(seed)], capture_output=True, check=False
    )
    if loaded.returncode != 0:
        pytest.fail(f"slapadd failed: {loaded.stderr.decode(errors='replace')}")
    directory = Directory(folder, certs, free_port(), free_port(), people=dict(people))
    directory.start()
    return directory


@pytest.fixture(scope="module")
def directory(tmp_path_factory) -> Iterator[Directory]:
    """A real directory for this module's tests."""
    folder = tmp_path_factory.mktemp("slapd")
    running = run_directory(folder)
    try:
        yield running
    finally:
        running.stop()
        shutil.rmtree(folder / "data", ignore_errors=True)


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A loopback port that accepts connections and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield listener.getsockname()[1]

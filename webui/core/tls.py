"""HTTPS for ``companion serve --https``: a self-signed certificate made once and kept.

A phone's browser lets a page use the camera only in a secure context: https://, or http:// on the
phone itself. On a home network there is no certificate a public authority would sign for
``192.168.1.20``, so the server makes its own (the ``cryptography`` package) for this computer's
addresses and keeps it in the user's data directory: each phone shows the browser's warning once,
the first time, and remembers the choice as long as the certificate stays the same. It is made
again only when this computer's address is not in it (another network).
"""
from __future__ import annotations

import datetime
import ipaddress
import os
from pathlib import Path
from typing import Sequence

CERT_FILE, KEY_FILE = "companion-cert.pem", "companion-key.pem"
VALID_DAYS = 825
"""Apple's devices refuse server certificates valid for longer than this."""


def default_folder() -> Path:
    """Where the certificate lives: ``tls/`` in the user's data directory (beside the database)."""
    import platformdirs
    return Path(platformdirs.user_data_dir("table-companion")) / "tls"


def _names(hosts: Sequence[str]) -> list[str]:
    return sorted({h for h in (*hosts, "localhost", "127.0.0.1") if h})


def certificate(hosts: Sequence[str], folder: str | Path | None = None) -> tuple[Path, Path]:
    """(certificate, key) PEM files for ``hosts`` (IP addresses or names), made once in ``folder``
    and reused while they cover every host and stay valid for another day."""
    from cryptography import x509
    folder = Path(folder) if folder is not None else default_folder()
    cert_path, key_path = folder / CERT_FILE, folder / KEY_FILE
    wanted = _names(hosts)
    if cert_path.is_file() and key_path.is_file():
        try:
            cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
            if set(wanted) <= set(covered(cert)) and cert.not_valid_after_utc > _now() + datetime.timedelta(days=1):
                return cert_path, key_path
        except ValueError:      # a damaged file: make a new one
            pass
    _make(wanted, cert_path, key_path)
    return cert_path, key_path


def covered(cert: object) -> list[str]:
    """The host names and addresses a certificate is valid for."""
    from cryptography import x509
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value  # type: ignore[attr-defined]
    except x509.ExtensionNotFound:
        return []
    return [str(n) for n in san.get_values_for_type(x509.DNSName)] + \
        [str(n) for n in san.get_values_for_type(x509.IPAddress)]


def fingerprint(cert_path: str | Path) -> str:
    """The certificate's SHA-256 fingerprint as the browsers show it (AB:CD:…)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    cert = x509.load_pem_x509_certificate(Path(cert_path).read_bytes())
    return ":".join(f"{b:02X}" for b in cert.fingerprint(hashes.SHA256()))


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def _make(names: list[str], cert_path: Path, key_path: Path) -> None:
    """A new P-256 key and a self-signed server certificate for ``names``, written owner-only."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
    key = ec.generate_private_key(ec.SECP256R1())
    alt: list[x509.GeneralName] = []
    for name in names:
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            alt.append(x509.DNSName(name))
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Table Companion"),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Table Companion (this computer)")])
    now = _now()
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(key, hashes.SHA256()))
    cert_path.parent.mkdir(parents=True, exist_ok=True)
    key_bytes = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption())
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key_bytes)
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))

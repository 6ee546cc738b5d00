"""The keys and certificates of `up --tls`: a certificate authority of the deployment's own, and for
each process (node i, the front) a PKCS#12 key store with its key and a certificate that CA signed
for the process's address. Made with the JDK's keytool, which every machine that runs a node has.

Layout of <run dir>/tls/ (every file readable by its owner only):
    ca.p12          the CA's key and certificate: keep it to sign more, never give it to a node
    ca.pem          the CA's certificate, for clients that should trust the deployment
    trust.p12       the CA's certificate alone: what nodes trust (overlay TLS: a peer's certificate)
    node-I.p12      node I's key and certificate chain; front.p12 the front's
    password        the one password of every store above
"""
import secrets
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from . import files

FOLDER = "tls"
KEY = ["-keyalg", "EC", "-groupname", "secp256r1"]
# keytool is a JVM started for each step: the fast compiler alone and no parallel GC threads halve
# its start, which is most of what a step costs.
QUICK_JVM = ["-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC"]
CA_DAYS = 3650
CERTIFICATE_DAYS = 825   # the longest a public CA may issue; a deployment makes new ones at every `up`


class TlsError(Exception):
    pass


@dataclass(frozen=True)
class Stores:
    """What a deployment's processes need to speak TLS."""
    folder: Path
    password: str

    def key_store(self, name: str) -> Path:
        return self.folder / f"{name}.p12"

    @property
    def trust_store(self) -> Path:
        return self.folder / "trust.p12"

    @property
    def ca_certificate(self) -> Path:
        return self.folder / "ca.pem"


def make(run_dir: Path, addresses: dict[str, str]) -> Stores:
    """A new CA and one key store per entry of `addresses` (name -> IP address it serves on),
    replacing those of an earlier `up` in run_dir."""
    folder = (run_dir / FOLDER).resolve()
    if folder.exists():
        for old in folder.iterdir():
            old.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)
    stores = Stores(folder, secrets.token_hex(16))
    files.write_private(folder / "password", stores.password + "\n")
    _make_ca(stores)
    with ThreadPoolExecutor(max_workers=2) as pool:  # each step is a JVM start: two at once on two cores
        list(pool.map(lambda item: _make_store(stores, *item), addresses.items()))
    for path in folder.iterdir():
        path.chmod(0o600)
    return stores


def _make_ca(stores: Stores) -> None:
    ca = str(stores.key_store("ca"))
    _keytool(stores, "-genkeypair", "-alias", "ca", *KEY, "-dname", "CN=p2psip deployment CA",
             "-ext", "bc:c", "-validity", str(CA_DAYS), "-keystore", ca, "-storetype", "PKCS12")
    _keytool(stores, "-exportcert", "-alias", "ca", "-keystore", ca, "-rfc", "-file", str(stores.ca_certificate))
    _keytool(stores, "-importcert", "-noprompt", "-alias", "ca", "-file", str(stores.ca_certificate),
             "-keystore", str(stores.trust_store), "-storetype", "PKCS12")


def _make_store(stores: Stores, name: str, address: str) -> None:
    """name.p12: a key pair, its certificate signed by the CA for `address`, and the chain."""
    store = str(stores.key_store(name))
    request = stores.folder / f"{name}.csr"
    signed = stores.folder / f"{name}.pem"
    _keytool(stores, "-genkeypair", "-alias", name, *KEY, "-dname", f"CN={name}", "-keystore", store,
             "-storetype", "PKCS12")
    _keytool(stores, "-certreq", "-alias", name, "-keystore", store, "-file", str(request))
    _keytool(stores, "-gencert", "-alias", "ca", "-keystore", str(stores.key_store("ca")), "-rfc",
             "-infile", str(request), "-outfile", str(signed), "-validity", str(CERTIFICATE_DAYS),
             "-ext", f"san=ip:{address},dns:localhost", "-ext", "eku=serverAuth,clientAuth")
    # the reply as a chain (the certificate, then the CA's) installs without asking whom to trust
    signed.write_text(signed.read_text() + stores.ca_certificate.read_text())
    _keytool(stores, "-importcert", "-noprompt", "-alias", name, "-file", str(signed), "-keystore", store)
    request.unlink()
    signed.unlink()


def _keytool(stores: Stores, *arguments: str) -> None:
    command = ["keytool", *QUICK_JVM, *arguments, "-storepass", stores.password]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise TlsError(f"keytool {arguments[0]}: {e}") from e
    if done.returncode != 0:
        raise TlsError(f"keytool {arguments[0]} failed: {(done.stdout + done.stderr).strip()}")

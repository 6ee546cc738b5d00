"""The alternative front of `up --front kamailio-rr|kamailio-hash`: Kamailio's dispatcher module
before the nodes, for operators who already run Kamailio. Like the Java front it is started once
the nodes answer, recorded with role `front` (its policy as the backend) and stopped by PID; its
folder is <run dir>/front/ (kamailio.cfg and dispatcher.list written there, console.log its
output). deploy/kamailio/front.cfg says what the routing does."""
import shutil
import sys
from pathlib import Path

from . import front, layout, processes, sipp

PACKAGE = "kamailio"
# Shared memory holds the transactions, each for tm's wait timer (5 s) after its answer, at about
# 65 KB per REGISTER/s (530 MB after 8,000/s); at 256 MB a front fed 4,000/s refused requests for
# want of memory. Two UDP workers on a 2-core machine.
SHARED_MB = 2048
PRIVATE_MB = 16
UDP_WORKERS = 2
# Kamailio probes its UDP receive buffer upwards to this cap (-b; its own default 256 KiB). 2 MiB as
# the nodes' (nodefolder.RECEIVE_BUFFER_BYTES): a node resuming after a collector pause answers in a
# burst, and the front relays every request and answer of the deployment through this one socket.
RECEIVE_BUFFER_BYTES = 2 * 1024 * 1024


def binary() -> str | None:
    """Kamailio's path (Debian installs it in /usr/sbin, often not on a user's PATH)."""
    return shutil.which("kamailio") or next(
        (str(p) for p in (Path("/usr/sbin/kamailio"), Path("/usr/local/sbin/kamailio")) if p.is_file()), None)


def ensure_installed() -> str:
    """Kamailio's path, installing the Debian package when it is missing; FrontError if it cannot."""
    if binary() is None:
        print(f"== installing Kamailio (Debian package {PACKAGE}) for the front", file=sys.stderr, flush=True)
        sipp.apt_install(PACKAGE)
    path = binary()
    if path is None:
        raise front.FrontError(f"--front kamailio-*: Kamailio is not installed; get it with "
                               f"`apt-get install {PACKAGE}` (Debian)")
    return path


def dispatcher_list(node_addresses: list[str]) -> str:
    """The dispatcher's destinations: set 1, every node, active from the start (flags 0)."""
    return "".join(f"1 sip:{a} 0 0\n" for a in node_addresses)


def config(template: str, list_file: Path, policy: str, listen: str) -> str:
    """front.cfg with its markers filled in."""
    algorithm = layout.KAMAILIO_FRONT_ALGORITHMS[policy]
    return (template.replace("@LIST_FILE@", str(list_file)).replace("@ALGORITHM@", str(algorithm))
            .replace("@LISTEN@", listen))


def command(kamailio: str, folder: Path, address: str, port: int) -> list[str]:
    """Foreground (-DD), logging to stderr (-E), on one address and port over UDP and TCP."""
    return [kamailio, "-f", str(folder / "kamailio.cfg"), "-DD", "-E",
            "-m", str(SHARED_MB), "-M", str(PRIVATE_MB), "-n", str(UDP_WORKERS), "-b", str(RECEIVE_BUFFER_BYTES),
            "-l", f"udp:{address}:{port}", "-l", f"tcp:{address}:{port}",
            "-Y", str(folder), "-w", str(folder)]


def start(run_dir: Path, address: str, port: int, policy: str, nodes: list[processes.Process],
          timeout: float, namespace: str = "", stores=None, tls_offset: int = 0,
          cpu_list: str = "") -> processes.Process:
    """Writes the front's folder, starts Kamailio, records it, and returns once its first worker
    runs (the sockets are bound before the workers start); FrontError otherwise. The dispatcher
    starts with every node active: they answered before the front was started. It listens for
    UDP and TCP only: with `up --tls` the nodes' own TLS ports serve TLS clients. `cpu_list`: the
    CPUs it and its workers run on (`up --cpus front=...`; "" any)."""
    kamailio = ensure_installed()
    folder = front.fresh_folder(run_dir)
    listen = f"{address}:{port}"
    list_file = folder / "dispatcher.list"
    list_file.write_text(dispatcher_list([n.sip_address for n in nodes]))
    (folder / "kamailio.cfg").write_text(
        config(layout.KAMAILIO_FRONT_CONFIG.read_text(), list_file, policy, listen))
    return front.launch(run_dir, folder, command(kamailio, folder, address, port), address, port, policy,
                        namespace, [f"{front.LISTENING} {listen}"], timeout, kind=" (Kamailio dispatcher)",
                        cpu_list=cpu_list)

"""The processes a deployment started: recorded in <run dir>/processes.json, so that `down` and
`status` act on exactly those. A record holds the PID and the process's start time (from
/proc/PID/stat), so a PID the kernel has since given to another process is never signalled."""
import json
import os
import signal
import socket
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from . import remote

STATE_FILE = "processes.json"


@dataclass
class Process:
    role: str          # node or front
    backend: str       # the DHT (or the front's policy)
    address: str       # SIP address
    port: int          # SIP port
    pid: int
    start_ticks: int   # field 22 of /proc/PID/stat when it was recorded
    folder: str
    overlay_port: int = 0
    netns: str = ""    # the network namespace it runs in (`up --netns`); "" for the root namespace
    tls_port: int = 0  # SIP over TLS (`up --tls`); 0: none
    http_port: int = 0  # its status page and /metrics; 0: none (Kamailio, records of older deployments)
    login: str = ""    # USER@HOST it runs on over ssh (`up --hosts`); "" for this machine
    ssh_config: str = ""  # the ssh configuration file that reaches it (`up --ssh-config`)
    cpus: str = ""     # the CPUs it is pinned to (`up --cpus`, a taskset -c list); "" for any
    cpu_quota: float = 0.0  # the cores its cgroup gives it (`up --cpu-quota`, a host's cpus=); 0: no quota
    cgroup: str = ""   # that group's folder under the cpu controller; "" for none

    @property
    def sip_address(self) -> str:
        return f"{self.address}:{self.port}"


def load(run_dir: Path) -> list[Process]:
    path = run_dir / STATE_FILE
    if not path.is_file():
        return []
    return [Process(**entry) for entry in json.loads(path.read_text())]


def save(run_dir: Path, processes: list[Process]) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    temporary = run_dir / (STATE_FILE + ".tmp")
    temporary.write_text(json.dumps([asdict(p) for p in processes], indent=2) + "\n")
    temporary.replace(run_dir / STATE_FILE)


def record(run_dir: Path, process: Process) -> None:
    save(run_dir, load(run_dir) + [process])


def start_ticks(pid: int) -> int | None:
    """The process's start time in clock ticks since boot, or None when it does not exist."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()   # after "pid (comm) "
    if fields[0] == "Z":
        return None                                  # a zombie has ended already
    return int(fields[19])


def alive(process: Process) -> bool:
    if process.login:
        return remote.alive(process.login, process.ssh_config, process.pid)
    return start_ticks(process.pid) == process.start_ticks


def launch(command: list[str], log: Path, cwd: Path, login: str = "", ssh_config: str = "") -> tuple[int, int]:
    """Starts command detached (own session), stdout and stderr to log; returns (pid, start ticks).
    With `login`, on that machine over ssh (start ticks 0: ps there says whether it lives)."""
    if login:
        return remote.launch(login, ssh_config, command, log, cwd), 0
    with open(log, "ab") as out, open(os.devnull, "rb") as devnull:
        child = subprocess.Popen(command, cwd=cwd, stdin=devnull, stdout=out, stderr=subprocess.STDOUT,
                                 start_new_session=True)
    ticks = start_ticks(child.pid)
    if ticks is None:
        raise RuntimeError(f"{command[0]} ended at once; see {log}")
    return child.pid, ticks


def stop(processes: list[Process], grace_seconds: float) -> list[Process]:
    """TERM to every recorded live process, KILL to those still alive after the grace period.
    Returns the processes that could not be stopped (empty when all are gone)."""
    live = [p for p in processes if alive(p)]
    for process in live:
        _signal(process, signal.SIGTERM)
    deadline = time.monotonic() + grace_seconds
    while any(alive(p) for p in live) and time.monotonic() < deadline:
        time.sleep(0.1)
    for process in live:
        if alive(process):
            _signal(process, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while any(alive(p) for p in live) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [p for p in live if alive(p)]


def stop_gracefully(process: Process, grace_seconds: float) -> bool:
    """TERM, and KILL only if it still runs after the grace period; True when TERM was enough (or
    it had ended already), False when it had to be KILLed or still runs."""
    if not alive(process):
        return True   # its PID may be another process's by now
    _signal(process, signal.SIGTERM)
    deadline = time.monotonic() + grace_seconds
    while alive(process) and time.monotonic() < deadline:
        time.sleep(0.1)
    if not alive(process):
        return True
    stop([process], 0)
    return False


def kill(process: Process) -> bool:
    """KILL without warning (a crash, for failover tests); True once the process is gone. Its record
    stays, so that `down` still frees its ports."""
    if alive(process):
        _signal(process, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while alive(process) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(process)


def _signal(process: Process, sig: int) -> None:
    if process.login:
        remote.signal(process.login, process.ssh_config, process.pid, signal.Signals(sig).name[3:])
        return
    try:
        os.kill(process.pid, sig)
    except ProcessLookupError:
        pass


def port_free(address: str, port: int) -> bool:
    """Whether both UDP and TCP address:port can be bound now."""
    for kind in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
        with socket.socket(socket.AF_INET, kind) as probe:
            if kind == socket.SOCK_STREAM:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((address, port))
            except OSError:
                return False
    return True


def wait_ports_free(ports: list[tuple[str, int]], seconds: float) -> list[tuple[str, int]]:
    """Polls until every (address, port) is free or the deadline passes; returns those still busy."""
    deadline = time.monotonic() + seconds
    while True:
        busy = [(a, p) for a, p in ports if not port_free(a, p)]
        if not busy or time.monotonic() >= deadline:
            return busy
        time.sleep(0.1)

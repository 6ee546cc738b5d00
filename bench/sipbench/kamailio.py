"""The peer reference: Kamailio as an in-memory registrar and record-routing proxy.

Started from bench/kamailio/kamailio.cfg as the bench's own process (foreground, logging to
stderr, in its own process group), listening on one loopback port over UDP and TCP. Sizes fit
a 2-core machine: two UDP workers and one TCP worker (more workers than cores only add
context switches), 8 GiB of shared memory (usrloc keeps every binding there, about 1 KB each,
for its full Expires: at 256 MB Kamailio answered every REGISTER past 300,000 bindings with an
error, "could not allocate shared memory"; `SHARED_MB` says why 8) and 16 MB of private memory per
process; usrloc's timer walks its contacts for expired ones once an hour (`USRLOC_TIMER_S`). Its UDP receive buffer is probed up to 2 MiB (-b; Kamailio's
own cap is 256 KiB), as the nodes', the front's and SIPp's: the reference meets the same bursts.

For the auth experiment it requires Digest credentials on every REGISTER (`auth`): the users' HA1s
for the one algorithm its challenges offer go into a db_text table in its folder, which the htable
module reads once at start into shared memory, so a REGISTER looks its user up in memory as a
node does (bench/kamailio/kamailio.cfg says how; the modules auth, htable and db_text are in
Debian's `kamailio` package).

For the tcp experiment it holds many idle TCP connections (`TcpLimits`): as many connections as
asked (tcp_max_connections; its default, 2048, would refuse the rest), an open-files limit to match,
connections kept as long as the hold lasts (tcp_connection_lifetime; its default closes a connection
idle 120 s), and more TCP workers. Its connections all live in one process, tcp_main, whose open
files the process's hard limit bounds: `open_files_hard_limit` says how many that is.

For the capacity experiment it holds a population of contacts (`Capacity`): shared memory sized
for them (-m), usrloc's hash table sized for them, and a control socket (in a temporary folder) through which
`shmmem_kib` asks core.shmmem with kamcmd (module ctl, in Debian's `kamailio` package; kamcmd comes with it).

Not thread-safe; used from the bench's main thread.
"""
from __future__ import annotations

import csv
import hashlib
import resource
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .procs import BenchError, Processes, port_taken, require_ports_free, wait_until
from .tools import require

CONFIG = Path(__file__).resolve().parents[1] / "kamailio" / "kamailio.cfg"
# Shared memory in the rate searches. The registration searches go round a pool of AORs (sipp.Pool, 100,000
# by default), but the first registrations' search (the register-refresh experiment) registers a new AOR
# with each REGISTER: a 120 s confirmation at 32,000/s leaves 3.8 million contacts, and in 2 GiB Kamailio
# answered none of the next confirmation's REGISTERs at 15,200/s.
SHARED_MB = 8192
# usrloc's hash table in the rate searches: 2^20 slots, for the same millions (expiring after an hour);
# in usrloc's default 2^10 slots the chains grew to thousands and Kamailio, which passed 16,000
# REGISTER/s in 2 s steps, completed 36% of a 120 s confirmation at that rate and 38% of the next at 7,600.
RATE_HASH_BITS = 20
# Seconds between usrloc's walks of every contact for the expired ones (its default 60 s), in every run:
# the bench registers with Expires 3600, so no contact expires within the hour and an earlier walk finds
# nothing; on two million contacts it walked them all every minute, taking each slot's lock from the
# workers, the likely stall when Kamailio, which had passed 18,000 REGISTER/s in 2 s steps, failed its 120 s
# confirmations at 18,000, 14,400 and 13,680.
USRLOC_TIMER_S = 3600
PRIVATE_MB = 16
UDP_WORKERS = 2
TCP_WORKERS = 1
RECEIVE_BUFFER_BYTES = 2 * 1024 * 1024


HASHES = {"MD5": hashlib.md5, "SHA-256": hashlib.sha256}
# db_text's table files: a header naming the columns and their types, then one row per line.
HTABLE_HEADER = "id(int,auto) key_name(string) key_type(int) value_type(int) key_value(string) expires(int) "
VERSION_FILE = "id(int,auto) table_name(string) table_version(int) \n1:htable:2\n"


@dataclass(frozen=True)
class Auth:
    """Kamailio's users for the auth experiment: a `user,domain,password` file and the algorithm."""
    users: Path
    algorithm: str = "SHA-256"


@dataclass(frozen=True)
class TcpLimits:
    """Kamailio's TCP settings for the tcp experiment."""
    max_connections: int
    open_files: int
    lifetime_s: int = 7200
    workers: int = 2     # TCP workers (tcp_children): as many as the machine's cores

    def defines(self) -> list[str]:
        return ["-A", f"TCP_MAX_CONNECTIONS={self.max_connections}", "-A", f"OPEN_FILES_LIMIT={self.open_files}",
                "-A", f"TCP_LIFETIME_S={self.lifetime_s}"]


def open_files_hard_limit() -> int:
    """The hard limit of open files of a process started here (Kamailio inherits the bench's)."""
    return resource.getrlimit(resource.RLIMIT_NOFILE)[1]


def write_user_table(folder: Path, auth: Auth) -> Path:
    """The db_text database htable loads at start: key the user, value the HA1 (a string: value_type 0)
    of the challenges' algorithm, H(user:domain:password), the domain being the realm."""
    hash_of = HASHES[auth.algorithm]
    folder.mkdir(parents=True, exist_ok=True)
    rows = [HTABLE_HEADER]
    with open(auth.users, newline="") as users:
        for number, (user, domain, password) in enumerate(csv.reader(users), 1):
            ha1 = hash_of(f"{user}:{domain.lower()}:{password}".encode()).hexdigest()
            rows.append(f"{number}:{user}:0:0:{ha1}:0")
    (folder / "htable").write_text("\n".join(rows) + "\n")
    (folder / "version").write_text(VERSION_FILE)
    return folder


@dataclass(frozen=True)
class Capacity:
    """Kamailio's settings for the capacity experiment: shared memory and usrloc's hash table."""
    shared_mb: int
    hash_bits: int


def shmmem_used_kib(answer: str) -> int | None:
    """Shared memory in use from kamcmd's core.shmmem answer, in KiB: `real_used` (what the allocations
    take with the allocator's own headers, as a JVM's heap counts object headers), else `used`."""
    values = {}
    for line in answer.splitlines():
        key, _, value = line.strip().partition(":")
        if value.strip().isdigit():
            values[key.strip()] = int(value.strip())
    found = values.get("real_used", values.get("used"))
    return None if found is None else found // 1024


class Kamailio:
    def __init__(self, processes: Processes, folder: Path, port: int, t1_ms: int = 500,
                 auth: Auth | None = None, tcp: TcpLimits | None = None, capacity: Capacity | None = None) -> None:
        self.processes = processes
        self.tcp = tcp
        self.capacity = capacity
        self._control_dir: Path | None = None
        self.folder = folder
        self.port = port
        self.t1_ms = t1_ms
        self.auth = auth
        self.process: subprocess.Popen | None = None

    @property
    def control(self) -> Path:
        """The control socket: in a short temporary folder of its own, since a Unix socket's path may have
        at most 104 characters and the bench's work folders are deeper."""
        if self._control_dir is None:
            self._control_dir = Path(tempfile.mkdtemp(prefix="p2psip-kamctl-"))
        return self._control_dir / "ctl"

    @property
    def user_db(self) -> Path:
        return self.folder / "users-db"

    def command(self, binary: str) -> list[str]:
        tcp_workers = self.tcp.workers if self.tcp else TCP_WORKERS
        shared_mb = self.capacity.shared_mb if self.capacity else SHARED_MB
        command = [binary, "-f", str(CONFIG), "-DD", "-E",
                   "-m", str(shared_mb), "-M", str(PRIVATE_MB), "-n", str(UDP_WORKERS),
                   "-b", str(RECEIVE_BUFFER_BYTES), "-A", f"TCP_WORKERS={tcp_workers}", "-A", f"T1_MS={self.t1_ms}",
                   "-A", f"USRLOC_TIMER_S={USRLOC_TIMER_S}",
                   "-l", f"udp:127.0.0.1:{self.port}", "-l", f"tcp:127.0.0.1:{self.port}",
                   "-Y", str(self.folder), "-w", str(self.folder)]
        if self.tcp is not None:
            command += self.tcp.defines()
        if self.capacity is not None:
            command += ["-A", f"USRLOC_HASH_BITS={self.capacity.hash_bits}", "-A", f'CTL_SOCKET="unix:{self.control}"']
        else:
            command += ["-A", f"USRLOC_HASH_BITS={RATE_HASH_BITS}"]
        if self.auth is not None:
            command += ["-A", f'AUTH_DB_URL="text://{self.user_db}"', "-A", f'AUTH_ALGORITHM="{self.auth.algorithm}"']
        return command

    def start(self) -> None:
        binary = require("kamailio")
        require_ports_free("127.0.0.1", [self.port], "Kamailio")
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.auth is not None:
            write_user_table(self.user_db, self.auth)
        log = self.folder / "kamailio.log"
        self.process = self.processes.start("kamailio", self.command(binary), log, cwd=self.folder)
        up = wait_until(lambda: self.process.poll() is not None or port_taken("127.0.0.1", self.port), 10.0)
        if self.process.poll() is not None or not up:
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            self.stop()
            needs = (" (with authentication it loads the modules auth, htable and db_text, all in Debian's "
                     "kamailio package)" if self.auth is not None else "")
            raise BenchError(f"Kamailio did not start on 127.0.0.1:{self.port}{needs} (log {log}):\n{tail}")

    def shmmem_kib(self) -> int | None:
        """Shared memory in use now (core.shmmem's real_used), in KiB; None without the control socket."""
        if self.capacity is None:
            return None
        try:
            done = subprocess.run([require("kamcmd", install=False), "-s", f"unix:{self.control}", "core.shmmem"],
                                  capture_output=True, text=True, timeout=10)
        except (BenchError, subprocess.TimeoutExpired):
            return None
        return shmmem_used_kib(done.stdout) if done.returncode == 0 else None

    def log(self) -> str:
        path = self.folder / "kamailio.log"
        return path.read_text(errors="replace") if path.exists() else ""

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def stop(self) -> None:
        if self.process is not None:
            self.processes.stop(self.process)
            self.process = None
        if self._control_dir is not None:
            shutil.rmtree(self._control_dir, ignore_errors=True)
            self._control_dir = None

"""Our nodes and the container-ceiling reference, started only through deploy/p2psip.

The bench gives deploy/p2psip its own run folder (--run-dir under the bench's work folder), so
`down` stops exactly the nodes this bench started and never another engineer's deployment.
If `up` fails half-way, `down` still runs, and the processes deploy/p2psip recorded are
signalled by the bench as a last resort when `down` itself fails.

Not thread-safe; used from the bench's main thread.
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from . import nodelogs
from .procs import BenchError, require_ports_free

REPO = Path(__file__).resolve().parents[2]
P2PSIP = REPO / "deploy" / "p2psip"


def available() -> bool:
    return P2PSIP.is_file() and os.access(P2PSIP, os.X_OK)


# A backend the registry says keeps its bindings on disk also runs as NAME-tmpfs, its node folders
# (and so its data, p2psip.data.dir) on tmpfs: the paper's "Bamboo (RAMDISK)".
ON_DISK = "on-disk"
TMPFS_SUFFIX = "-tmpfs"
TMPFS = Path("/dev/shm")


@functools.cache
def registered() -> dict[str, frozenset[str]]:
    """The backends the WAR registers and the traits of each, as `deploy/p2psip backends` lists them
    (NAME SERVLET-CLASS TRAITS JVM-ARGUMENTS; it builds the WAR when missing, and its Maven output
    reaches the console)."""
    done = subprocess.run([sys.executable, str(P2PSIP), "backends"], stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise BenchError(f"{P2PSIP} backends failed (exit {done.returncode}): the bench measures the backends it lists")
    rows = [line.split() for line in done.stdout.splitlines() if line.strip()]
    return {row[0]: frozenset(row[2].split(",")) - {"-"} for row in rows}


def backends() -> list[str]:
    """The backends the bench can run: every registered one, and a disk one also on tmpfs when there is one."""
    found = []
    for name, traits in registered().items():
        found.append(name)
        if ON_DISK in traits and TMPFS.is_dir():
            found.append(name + TMPFS_SUFFIX)
    return found


def dht_of(backend: str) -> str:
    """The p2psip.dht value of a backend name of the bench (NAME-tmpfs runs NAME)."""
    return backend[:-len(TMPFS_SUFFIX)] if backend.endswith(TMPFS_SUFFIX) else backend


def on_tmpfs(backend: str) -> bool:
    return backend.endswith(TMPFS_SUFFIX)


def front_available() -> bool:
    if not available():
        return False
    out = subprocess.run([sys.executable, str(P2PSIP), "up", "--help"], capture_output=True, text=True)
    return "--front" in out.stdout


def front_state_available() -> bool:
    """Whether deploy/p2psip up can start the front in a state mode (--front-state)."""
    if not available():
        return False
    out = subprocess.run([sys.executable, str(P2PSIP), "up", "--help"], capture_output=True, text=True)
    return "--front-state" in out.stdout


LOOPBACK = "127.0.0.1"


class Deployment:
    """One `deploy/p2psip up` ... `down` of N nodes (or the ceiling app): on loopback ports, or
    with `netns` each node in a network namespace of its own (`up --netns`), reached from the root
    namespace's gateway address."""

    def __init__(self, run_dir: Path, log: Path, dht: str, nodes: int, base_port: int,
                 app: str = "p2psip", t1_ms: int | None = None, heap: str | None = None,
                 extra: list[str] | None = None, more_ports: list[int] | None = None,
                 netns: bool = False, young: str | None = None, sip_threads: int | None = None) -> None:
        self.run_dir = run_dir
        self.log = log
        self.dht = dht
        self.nodes = nodes
        self.base_port = base_port
        self.app = app
        self.t1_ms = t1_ms
        self.heap = heap
        self.young = young
        self.sip_threads = sip_threads
        self.extra = extra or []
        self.more_ports = more_ports or []  # e.g. the front's, checked free with the nodes'
        self.netns = netns
        self.up_done = False
        self.network: dict = {}   # with netns: what deploy/p2psip recorded (subnet, gateway), once up

    def ports(self) -> list[int]:
        return [self.base_port + i for i in range(self.nodes)]

    def start(self) -> None:
        if not available():
            raise BenchError(f"{P2PSIP} is missing: the bench starts nodes only through it")
        if not self.netns:  # in fresh namespaces every port is free
            require_ports_free(LOOPBACK, self.ports() + self.more_ports, f"{self.app} node or front")
        # the optimising compiler whatever the node count: `up` runs nodes that outnumber the CPUs
        # on the first tier alone, to start them in seconds, which would measure their start, not
        # their capacity
        command = ["up", "--dht", self.dht, "--nodes", str(self.nodes),
                   "--base-port", str(self.base_port), "--app", self.app, "--jit", "tiered"]
        if self.netns:
            command += ["--netns"]
        if self.t1_ms is not None:
            command += ["--t1", f"{self.t1_ms}ms"]
        if self.heap:
            command += ["--heap", self.heap]
        if self.young:
            command += ["--young", self.young]
        if self.sip_threads:
            command += ["--sip-threads", str(self.sip_threads)]
        if self.app == "p2psip":
            command += ["--set", f"p2psip.metrics.interval={nodelogs.METRICS_INTERVAL}"]
        self.up_done = True  # from here on, `down` must run whatever happens
        code = self._p2psip(command + self.extra)
        if code != 0:
            self.stop()
            raise BenchError(f"deploy/p2psip up --dht {self.dht} --nodes {self.nodes} --app {self.app} "
                             f"failed (exit {code}); its output is in {self.log}:\n{_tail(self.log)}")
        self.network = self._recorded_network()

    @property
    def local_address(self) -> str:
        """Where SIPp binds to reach the nodes: the gateway of their namespaces, or loopback."""
        return self.network.get("gateway", LOOPBACK)

    def addresses(self, role: str = "node") -> list[tuple[str, int]]:
        """(address, SIP port) of every recorded process of `role` (node or front), in start order."""
        return [(e["address"], e["port"]) for e in self._recorded() if e.get("role") == role]

    def http_addresses(self, role: str = "node") -> list[tuple[str, int]]:
        """(address, HTTP port: status page and /metrics) of every recorded process of `role`."""
        return [(e["address"], e["http_port"]) for e in self._recorded() if e.get("role") == role and e.get("http_port")]

    def network_summary(self) -> dict:
        """What the report says of this deployment's network: subnet, gateway, node and front addresses."""
        if not self.network:
            return {}
        fronts = self.addresses("front")
        return {"subnet": self.network["subnet"], "gateway": self.network["gateway"],
                "nodes": [address for address, _ in self.addresses()],
                "front": fronts[0][0] if fronts else ""}

    def _recorded_network(self) -> dict:
        path = self.run_dir / "netns.json"
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return {}

    def stop(self) -> None:
        if not self.up_done:
            return
        self.up_done = False
        if self._p2psip(["down"]) != 0:
            self._signal_recorded()
            if self.netns:
                self._p2psip(["down"])  # its processes gone, `down` can now remove the namespaces
        self._keep_logs()
        if self.run_dir.is_relative_to(TMPFS):
            shutil.rmtree(self.run_dir, ignore_errors=True)  # the data, in memory: give it back
            with contextlib.suppress(OSError):
                self.run_dir.parent.rmdir()  # the bench's own folder there, once its last run left

    KEPT_LOGS = ("console.log", "gc.log")

    def _keep_logs(self) -> None:
        """Copies each node's console and collector logs beside deploy.log (node-N-console.log,
        node-N-gc.log): the next deployment reuses the run folder (or, on tmpfs, it is removed),
        and the logs are what explains a figure later (a collapse past the limit, for one)."""
        for name in self.KEPT_LOGS:
            for log in sorted(self.run_dir.glob(f"node-*/logs/{name}")):
                with contextlib.suppress(OSError):
                    shutil.copyfile(log, self.log.parent / f"{log.parent.parent.name}-{name}")

    def kill(self, index: int) -> None:
        """Crashes node `index` (deploy/p2psip kill: SIGKILL, no goodbye); returns once it is gone."""
        code = self._p2psip(["kill", str(index)])
        if code != 0:
            raise BenchError(f"deploy/p2psip kill {index} failed (exit {code}); see {self.log}")

    def restart(self, index: int) -> int:
        """Starts node `index` again on its folder (deploy/p2psip restart); returns its exit code once
        the node answers or restart gave up. Safe from another thread while the main one works: it
        only runs deploy/p2psip and appends to the deployment's log."""
        return self._p2psip(["restart", str(index)])

    def lookups(self) -> nodelogs.Lookups:
        """The nodes' lookups and hops so far, from their logs (as of their last counters line)."""
        return nodelogs.deployment_lookups(self.run_dir)

    def largest_range(self) -> float | None:
        """The largest share of the ring one node owns (as of the nodes' last counters line)."""
        return nodelogs.largest_range(self.run_dir)

    def recorded_nodes(self) -> list[dict]:
        """deploy/p2psip's record of every node (address, port, http_port, pid, folder ...), node 0 first."""
        return [entry for entry in self._recorded() if entry.get("role", "node") == "node"]

    def pids(self) -> list[int]:
        return [entry["pid"] for entry in self._recorded()]

    def named_pids(self) -> list[tuple[str, int]]:
        """(node-N or front-N, PID) of every recorded process, numbered by role in start order."""
        counts: dict[str, int] = {}
        named = []
        for entry in self._recorded():
            role = entry.get("role", "node")
            named.append((f"{role}-{counts.get(role, 0)}", entry["pid"]))
            counts[role] = counts.get(role, 0) + 1
        return named

    def _p2psip(self, arguments: list[str]) -> int:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "a") as out:
            out.write(f"\n$ deploy/p2psip {' '.join(arguments)} --run-dir {self.run_dir}\n")
            out.flush()
            # Own session: a Ctrl-C at the terminal reaches the bench, which then runs `down`.
            return subprocess.run([sys.executable, str(P2PSIP), *arguments, "--run-dir", str(self.run_dir)],
                                  stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                  cwd=REPO, start_new_session=True).returncode

    def _recorded(self) -> list[dict]:
        path = self.run_dir / "processes.json"
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return []

    def _signal_recorded(self) -> None:
        """Last resort when `down` failed: the recorded PIDs, only if each is still the same process."""
        for entry in self._recorded():
            if _start_ticks(entry.get("pid", 0)) != entry.get("start_ticks"):
                continue  # ended, or the PID now belongs to another process
            try:
                os.kill(entry["pid"], signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def _start_ticks(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2:].split()[19])


def _tail(path: Path, size: int = 1500) -> str:
    try:
        return path.read_text(errors="replace")[-size:]
    except OSError:
        return ""

"""Runs SIPp scenarios from sipp-scenarios/; the verdict is always SIPp's exit code
(0: every call passed, 1: some call failed, 97/99/255: aborted, no calls, fatal)."""
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from . import layout

SIPP = "sipp"


def available() -> bool:
    return shutil.which(SIPP) is not None


def free_port(address: str) -> int:
    """A UDP port the kernel considers free on address now. SIPp left to itself scans upward from
    5060 and may take a port a node is about to bind, so every run is given its ports."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind((address, 0))
        return probe.getsockname()[1]


def run(scenario: str, target: str, args: list[str], cwd: Path | None = None,
        timeout_seconds: float = 600, address: str = "127.0.0.1") -> int:
    """Runs SIPp with sipp-scenarios/<scenario> against target (host:port); returns its exit code.
    Files SIPp writes (stats, rtt, error logs) land in cwd (a temporary folder when None).
    Unless args name them (-p, -mp), SIPp's SIP and media ports are free ports on address."""
    ports = [] if "-p" in args else ["-p", str(free_port(address))]
    ports += [] if "-mp" in args else ["-mp", str(free_port(address))]
    command = [SIPP, "-sf", str(layout.SCENARIOS / scenario), "-nostdin", "-timeout", f"{int(timeout_seconds)}s",
               "-timeout_error", "-i", address, *ports, *args, target]
    if cwd is None:
        with tempfile.TemporaryDirectory(prefix="p2psip-sipp-") as scratch:
            return _run(command, Path(scratch), timeout_seconds)
    cwd.mkdir(parents=True, exist_ok=True)
    return _run(command, cwd, timeout_seconds)


def _run(command: list[str], cwd: Path, timeout_seconds: float) -> int:
    try:
        done = subprocess.run(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=timeout_seconds + 30)
    except subprocess.TimeoutExpired:
        return 255
    return done.returncode


def options_probe(address: str, port: int) -> bool:
    """One OPTIONS to the node; True when it answered 200."""
    return run("options/options.xml", f"{address}:{port}", ["-m", "1", "-t", "u1"],
               timeout_seconds=5, address=address) == 0

"""Every process the bench starts, recorded by PID so that it can stop exactly those.

Each child runs in its own session (its PID is its process group), so stopping it also stops
what it forked (Kamailio's workers) without ever naming a program. `stop_all` runs on normal
exit, on errors and on Ctrl-C. Ports are checked before anything binds them, so that a port
taken by someone else becomes a clear message instead of a measurement of the wrong server.

Thread-safety: a `Processes` is used from the main thread only.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path


class BenchError(Exception):
    """A component cannot start or run; the message says what is missing and how to get it."""


class Processes:
    def __init__(self) -> None:
        self._running: dict[int, tuple[str, subprocess.Popen]] = {}

    def start(self, name: str, command: list[str], log: Path, cwd: Path | None = None,
              env: dict[str, str] | None = None) -> subprocess.Popen:
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as out:
            try:
                process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                           stdin=subprocess.DEVNULL, cwd=cwd, env=env,
                                           start_new_session=True)
            except OSError as e:
                raise BenchError(f"cannot start {name} ({command[0]}): {e}") from e
        self._running[process.pid] = (name, process)
        return process

    def forget(self, process: subprocess.Popen) -> None:
        """For a process that ended by itself (SIPp after its last call)."""
        self._running.pop(process.pid, None)

    def wait(self, process: subprocess.Popen, timeout_s: float) -> int | None:
        """Waits up to `timeout_s`; a process still running then is stopped. Returns its exit code."""
        try:
            code = process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.stop(process)
            code = None
        self.forget(process)
        return code

    def stop(self, process: subprocess.Popen, grace_s: float = 5.0) -> None:
        _signal_group(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            _signal_group(process.pid, signal.SIGKILL)
            process.wait(timeout=grace_s)
        # Children of the group may outlive the leader for a moment: finish them too.
        _signal_group(process.pid, signal.SIGKILL)
        self.forget(process)

    def stop_all(self) -> None:
        for _, process in list(self._running.values()):
            try:
                self.stop(process)
            except Exception:  # keep stopping the others
                pass

    def pids(self) -> list[int]:
        return list(self._running)


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def port_taken(host: str, port: int) -> str | None:
    """Which of UDP/TCP `port` is already bound on `host`, or None when both are free."""
    for kind, name in ((socket.SOCK_DGRAM, "UDP"), (socket.SOCK_STREAM, "TCP")):
        with socket.socket(socket.AF_INET, kind) as s:
            try:
                s.bind((host, port))
            except OSError:
                return f"{name} {host}:{port}"
    return None


def require_ports_free(host: str, ports: list[int], who: str) -> None:
    for port in ports:
        taken = port_taken(host, port)
        if taken:
            raise BenchError(f"{taken} is already in use, so {who} cannot listen there; "
                             f"stop what holds it (ss -lunpt | grep {port}) or pick another "
                             f"port with --base-port")


def wait_until(condition, timeout_s: float, interval_s: float = 0.2) -> bool:
    """Polls `condition` until it holds or the deadline passes."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval_s)
    return condition()

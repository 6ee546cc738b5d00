"""The tcp experiment's sipload processes: one measuring step at a time, and the holders of the idle
part, started in the background and waited for on their `sipload registered ok=N failed=M` line.

Every process is started through Processes (its own session, stopped by its PID); a holder is
ended with SIGTERM, on which it prints its summary and closes its connections.

Not thread-safe: from the bench's main thread.
"""
from __future__ import annotations

import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from . import memory, search, sipload, tcp
from .procs import BenchError, Processes
from .sipp import DOMAIN, Progress

REGISTERED = re.compile(r"^sipload registered ok=(\d+) failed=(\d+)", re.MULTILINE)
# A holder with 17,000 connections closes them all on SIGTERM before it prints its summary.
HOLDER_GRACE_S = 30.0


def write_users(path: Path, prefix: str, count: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(tcp.users_lines(prefix, count, DOMAIN)) + "\n")
    return path


def registered(log: Path) -> tuple[int, int] | None:
    """(ok, failed) of a holder's `sipload registered` line, None before it printed one."""
    try:
        found = REGISTERED.search(log.read_text(errors="replace"))
    except OSError:
        return None
    return (int(found.group(1)), int(found.group(2))) if found else None


def step_of(part: str, system: str, transport: str, held: int, rate: int, seconds: float,
            summary: sipload.Summary, criteria: search.Criteria) -> tcp.RateStep:
    """A measuring sipload's summary as a step, judged as every step of the bench is."""
    attempts = max(1, round(rate * seconds))
    judged = search.judge(rate, attempts, summary.counts(), summary.number("offered_rate") or 0.0,
                          summary.number("p50_ms"), summary.number("p99_ms"), criteria, "sipload")
    return tcp.RateStep(part, system, transport, held, rate, judged.offered_rate, attempts, summary.count("completed"),
                        summary.count("failed"), summary.count("timeouts"), judged.p50_ms, judged.p99_ms,
                        summary.count("connections_opened"), judged.passed, judged.reason)


class Measuring:
    """Runs measuring steps, each one sipload against the system with users of its own."""

    def __init__(self, processes: Processes, folder: Path, client: tcp.Client, criteria: search.Criteria,
                 prefix: str) -> None:
        self.processes = processes
        self.prefix = prefix   # of the users' names, one per Measuring on a system
        self.folder = folder
        self.client = client
        self.criteria = criteria
        self._steps = 0

    def run(self, part: str, system: str, transport: str, held: int, rate: int, seconds: float,
            progress: Progress) -> tcp.RateStep:
        self._steps += 1
        folder = self.folder / f"step-{self._steps:03d}-{transport}-{rate}"
        log = folder / "sipload.log"
        users = write_users(folder / "users.csv", f"{self.prefix}s{self._steps}x",
                            tcp.measuring_users(rate))
        command = tcp.measuring_command(self.client, str(users), transport, rate, seconds)
        process = self.processes.start(f"sipload {transport}", command, log, cwd=folder)
        started = time.monotonic()
        deadline = seconds + self.client.timeout_ms / 1000 + 30
        while process.poll() is None and time.monotonic() - started < deadline:
            progress(rate, sipload.progress_of(log), time.monotonic() - started)
            time.sleep(0.5)
        code = self.processes.wait(process, timeout_s=1.0)
        summary = sipload.summary_of(log)
        if summary is None:
            raise BenchError(f"sipload ended without its summary (exit {code}); its output ({log}):\n"
                             f"{log.read_text(errors='replace')[-1500:] if log.exists() else ''}")
        return step_of(part, system, transport, held, rate, seconds, summary, self.criteria)


@dataclass
class RunningHolder:
    holder: tcp.Holder
    process: subprocess.Popen
    log: Path


class Holders:
    """The idle part's background sipload processes, added level by level and ended together."""

    def __init__(self, processes: Processes, folder: Path, client: tcp.Client, users: Path) -> None:
        self.processes = processes
        self.folder = folder
        self.client = client
        self.users = users
        self.running: list[RunningHolder] = []

    def add(self, holders: list[tcp.Holder], total_rate: int = tcp.HOLD_RATE) -> None:
        """Starts `holders` at once, sharing `total_rate`, and returns when each said it registered
        its users; BenchError when one ends or says nothing in time."""
        if not holders:
            return
        rate = max(1, total_rate // len(holders))
        started = []
        for holder in holders:
            log = self.folder / f"holder-{holder.index}.log"
            command = tcp.holder_command(self.client, str(self.users), holder, rate)
            process = self.processes.start(f"sipload holder {holder.index}", command, log, cwd=self.folder)
            started.append(RunningHolder(holder, process, log))
        self.running += started
        longest = max(h.count for h in holders) / rate
        deadline = time.monotonic() + longest + self.client.timeout_ms / 1000 + 60
        for running in started:
            while registered(running.log) is None:
                if running.process.poll() is not None or time.monotonic() > deadline:
                    raise BenchError(f"sipload holder {running.holder.index} did not register its "
                                     f"{running.holder.count} phones (log {running.log}):\n"
                                     f"{running.log.read_text(errors='replace')[-1500:] if running.log.exists() else ''}")
                time.sleep(0.5)

    def held(self) -> tuple[int, int]:
        """(registered, failed) over every running holder."""
        counts = [registered(r.log) or (0, 0) for r in self.running]
        return sum(ok for ok, _ in counts), sum(failed for _, failed in counts)

    def rss_kib(self) -> int:
        return sum(memory.rss_kib(r.process.pid) for r in self.running)

    def stop(self) -> None:
        """SIGTERM to each holder by its PID (its summary follows), SIGKILL if it lingers."""
        for running in self.running:
            self.processes.stop(running.process, grace_s=HOLDER_GRACE_S)
        self.running = []

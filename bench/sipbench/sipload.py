"""One step of the auth experiment's load: bench/sipload (not SIPp) in open loop, so that each user
answers the Digest challenge with their own password (SIPp 3.6 takes one username and password
per run).

A deployment of the auth experiment has a pool of users (`write_pool`: `user,domain,password`
lines, random passwords), which deploy/p2psip's `up --users` and Kamailio's user table both read.
Every step of every mode goes round that pool (bench/sipload/README.md): plain REGISTERs, first
registrations (401, then 200) and refreshes (one round trip on the nonce of the phone's last
registration). The phones' Call-IDs, CSeqs and nonces carry from step to step in a state file
of the deployment, so a refresh search continues from the first-registration search before it;
phones without state register once first, at `PRIME_RATE`, unmeasured.

A step's counters map onto SIPp's (stats.Counts) so that search.judge decides it as it decides
SIPp's steps: created = registrations started, successful = completed, a time-out counts as a
retransmission time-out (the step fails), other final answers as unexpected.

Not thread-safe: one step at a time, from the bench's main thread.
"""
from __future__ import annotations

import secrets
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from . import stats
from .procs import BenchError, Processes
from .search import Criteria, Step, judge
from .sipp import DOMAIN, Progress, Target, Timing

REPO = Path(__file__).resolve().parents[2]
MODULE = "bench/sipload"
JAR = REPO / MODULE / "target" / "sipload.jar"
# Refreshes need a registration first: phones without one get it at this rate, before the step's
# own load and outside its counts (a refresh search normally follows the first-registration search
# on the same deployment, which leaves every phone registered).
PRIME_RATE = 1000
# A short-lived client (one JVM per step): C1 compiles within its first second and takes far less
# CPU doing so than the full tiered compiler (measured: 0.9 s of CPU against 2.0 s for 15,000
# registrations at 5,000/s), CPU the server on the same cores would lose; one collector thread.
JVM_OPTIONS = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xms256m", "-Xmx512m"]
USER_PREFIX = "auth"


def ensure_built() -> Path:
    """The client's jar, built with Maven when missing (as deploy/p2psip builds what it needs)."""
    if not JAR.is_file():
        print(f"bench: building {MODULE} (mvn -q -pl {MODULE} -am install -DskipTests)", file=sys.stderr, flush=True)
        done = subprocess.run(["mvn", "-q", "-pl", MODULE, "-am", "install", "-DskipTests"], cwd=REPO)
        if done.returncode != 0 or not JAR.is_file():
            raise BenchError(f"could not build {MODULE} (mvn exit {done.returncode}); the auth experiment "
                             "needs its client, which needs JDK 17 and Maven")
    return JAR


@dataclass(frozen=True)
class Pool:
    """The users of one deployment: their file, how many, and where their phones' state is kept."""
    users: Path
    count: int
    state: Path


def write_pool(folder: Path, count: int, domain: str = DOMAIN) -> Pool:
    """`count` users auth0000000@domain, ... with random passwords, in folder/users.csv (mode 0600:
    passwords); the state file beside it starts empty."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "users.csv"
    lines = [f"{USER_PREFIX}{i:07d},{domain},{secrets.token_hex(8)}" for i in range(count)]
    path.write_text("\n".join(lines) + "\n")
    path.chmod(0o600)
    state = folder / "state.tsv"
    state.unlink(missing_ok=True)
    return Pool(path, count, state)


@dataclass(frozen=True)
class Load:
    """What a step's sipload does: its mode on a pool, answering challenges of `algorithm`."""
    mode: str   # plain, first or refresh
    pool: Pool
    algorithm: str = "SHA-256"

    @property
    def name(self) -> str:
        return f"sipload {self.mode}"


@dataclass(frozen=True)
class Summary:
    """sipload's summary line, as numbers (bench/sipload/README.md names each field)."""
    fields: dict

    @classmethod
    def parse(cls, line: str) -> "Summary":
        words = line.split()
        if not words or words[0] != "sipload":
            raise ValueError(f"not a sipload summary: {line!r}")
        return cls(dict(word.split("=", 1) for word in words[1:] if "=" in word))

    def number(self, name: str) -> float | None:
        value = self.fields.get(name, "")
        return float(value) if value not in ("", None) else None

    def count(self, name: str) -> int:
        return int(self.number(name) or 0)

    def counts(self, elapsed_s: float = 0.0) -> stats.Counts:
        """The step's counters in SIPp's terms, for search.judge."""
        return stats.Counts(created=self.count("started"), successful=self.count("completed"),
                            failed=self.count("failed"), max_udp_retrans=self.count("timeouts"),
                            timeout_on_recv=0, unexpected=self.count("unexpected"),
                            retransmissions=self.count("retransmissions"), elapsed_s=elapsed_s)


def summary_of(log: Path) -> Summary | None:
    """The last summary line of a sipload log, None when it wrote none (it did not finish)."""
    for line in reversed(_lines(log)):
        if line.startswith("sipload mode="):
            return Summary.parse(line)
    return None


def progress_of(log: Path) -> stats.Counts:
    """The counters of the last progress line, for the bench's live line (zeros before the first)."""
    for line in reversed(_lines(log)):
        if line.startswith("sipload progress "):
            fields = Summary.parse("sipload " + line[len("sipload progress "):])
            return stats.Counts(created=fields.count("started"), successful=fields.count("completed"),
                                failed=fields.count("failed"), retransmissions=fields.count("retransmissions"))
    return stats.Counts()


def _lines(log: Path) -> list[str]:
    try:
        return log.read_text(errors="replace").splitlines()
    except OSError:
        return []


def command(jar: Path, load: Load, target: Target, rate: int, seconds: float, timing: Timing, t1_ms: int) -> list[str]:
    """The step's command line: the rate for `seconds`, the time-out the SIPp steps use as their
    receive time-out (a request unanswered that long fails, as SIPp's -recv_timeout fails a call)."""
    return ["java", *JVM_OPTIONS, "-jar", str(jar), "--target", f"{target.host}:{target.port}",
            "--bind", f"{target.local}:0", "--users", str(load.pool.users), "--mode", load.mode,
            "--rate", str(rate), "--duration", f"{seconds:g}", "--algorithm", load.algorithm,
            "--t1-ms", str(t1_ms), "--timeout-ms", str(timing.recv_timeout_ms),
            "--state", str(load.pool.state), "--prime-rate", str(PRIME_RATE)]


class SiploadSteps:
    """Runs one step (one sipload against the first target) and judges it, as sipp.StepRunner does."""

    def __init__(self, processes: Processes, folder: Path, timing: Timing, criteria: Criteria = Criteria(),
                 t1_ms: int = 500) -> None:
        self.processes = processes
        self.folder = folder
        self.timing = timing
        self.criteria = criteria
        self.t1_ms = t1_ms
        self._steps = 0

    def run(self, load: Load, targets: list[Target], rate: int,
            progress: Progress = lambda rate, counts, elapsed: None, seconds: float | None = None) -> Step:
        step_s = seconds or self.timing.step_s
        self._steps += 1
        folder = self.folder / f"step-{self._steps:03d}-{rate}"
        folder.mkdir(parents=True, exist_ok=True)
        log = folder / "sipload.log"
        attempts = max(1, round(rate * step_s))
        process = self.processes.start(load.name, command(ensure_built(), load, targets[0], rate, step_s,
                                                          self.timing, self.t1_ms), log, cwd=folder)
        started = time.monotonic()
        # two transactions per first registration, each up to the time-out; priming before the load
        deadline = step_s + 2 * self.timing.recv_timeout_ms / 1000 + load.pool.count / PRIME_RATE + 30
        while process.poll() is None and time.monotonic() - started < deadline:
            progress(rate, progress_of(log), time.monotonic() - started)
            time.sleep(0.5)
        code = self.processes.wait(process, timeout_s=1.0)
        summary = summary_of(log)
        if summary is None:
            raise BenchError(f"sipload ended without its summary (exit {code}); its output ({log}):\n"
                             f"{log.read_text(errors='replace')[-1500:] if log.exists() else ''}")
        counts = summary.counts(time.monotonic() - started)
        progress(rate, counts, time.monotonic() - started)
        return judge(rate, attempts, counts, summary.number("offered_rate") or 0.0, summary.number("p50_ms"),
                     summary.number("p99_ms"), self.criteria, "sipload")

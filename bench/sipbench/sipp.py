"""One step of load: SIPp instances in open loop, one per target node, at a fixed total rate.

The scenarios are the project's own (sipp-scenarios/register and sipp-scenarios/call); this
module only chooses the options: the rate (-r/-rp), how many calls (-m), a call limit far above
what the rate needs (-l) so that SIPp never throttles itself into a closed loop, statistics
every second (-trace_stat -fd 1), every response time (-trace_rtt -rtt_freq 1), a receive
timeout, and UDP on one socket (-t u1). Requests are spread over several nodes by running one
SIPp per node at an equal share of the rate, each with its own slice of AORs.

Not thread-safe: one step at a time, from the bench's main thread.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import stats
from .procs import BenchError, Processes, port_taken, require_ports_free, wait_until
from .search import Criteria, Step, judge

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "sipp-scenarios"
DOMAIN = "p2psip.test"
CALLEE = "callee"
HOLD_MS = 100  # as sipp-scenarios/call/run: ACK and BYE, forwarded on different threads, stay in order


def _scenario_helpers():
    """sipp-scenarios' own helpers: how SIPp is invoked (ports, trace files) and the AOR file format."""
    for folder in (SCENARIOS, SCENARIOS / "register"):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    import registering
    import sipprun
    return sipprun, registering


@dataclass(frozen=True)
class Target:
    """Where SIPp sends (host:port), and the address it binds to get there (`local`): loopback, or
    the gateway of the nodes' network namespaces."""
    host: str
    port: int
    local: str = "127.0.0.1"


@dataclass(frozen=True)
class Timing:
    """How long a step offers load, and how long its calls may take to finish."""

    step_s: float = 10.0
    recv_timeout_ms: int = 8000


def users_file(path: Path, start: int, count: int) -> Path:
    """AORs start..start+count-1, written by sipp-scenarios' own generator."""
    _, registering = _scenario_helpers()
    return registering.write_users(path, count, DOMAIN, start=start)


class Workload:
    """What a SIPp instance of a step runs: the scenario and its per-instance options."""

    name = "workload"
    unit = "/s"

    def scenario(self) -> Path:
        raise NotImplementedError

    def options(self, folder: Path, instance: int, count: int) -> list[str]:
        raise NotImplementedError


class Registration(Workload):
    """REGISTER of distinct AORs: every step and every instance gets AORs never used before."""

    name = "registration"
    unit = "REGISTER/s"

    def __init__(self) -> None:
        self._next_user = 0

    def scenario(self) -> Path:
        return SCENARIOS / "register" / "register.xml"

    def options(self, folder: Path, instance: int, count: int) -> list[str]:
        csv = users_file(folder / f"users-{instance}.csv", self._next_user, count)
        self._next_user += count
        _, registering = _scenario_helpers()
        return ["-inf", str(csv), "-key", "expires", "3600", *registering.NO_BYE_ON_ABORT]


class Call(Workload):
    """INVITE/ACK/BYE from a caller to one callee registered beforehand (the paper's setup)."""

    name = "call"
    unit = "calls/s"

    def scenario(self) -> Path:
        return SCENARIOS / "call" / "uac.xml"

    def options(self, folder: Path, instance: int, count: int) -> list[str]:
        # A 180 that a multi-threaded proxy forwards after the 200 must not fail the call: SIPp then
        # keeps the call going instead of aborting it. A wrong final answer still fails it, on the
        # receive timeout, since the 200 it waits for never comes.
        return ["-s", CALLEE, "-key", "domain", DOMAIN, "-key", "caller", f"caller{instance}",
                "-d", str(HOLD_MS), "-default_behaviors", "all,-abortunexp"]


def base_command(target: Target, scenario: Path, timing: Timing, run_s: float, port: int = 0) -> list[str]:
    """sipp-scenarios' SIPp command line (free local and media ports, -nostdin, -timeout), plus
    UDP on one socket, the receive timeout and the bound on retransmissions."""
    sipprun, _ = _scenario_helpers()
    return sipprun.command(str(scenario.relative_to(SCENARIOS)), f"{target.host}:{target.port}",
                           ["-t", "u1", "-recv_timeout", str(timing.recv_timeout_ms), "-max_retrans", "5"],
                           target.local, port, run_s)


def stats_options(name: str, folder: Path) -> list[str]:
    sipprun, _ = _scenario_helpers()
    return sipprun.stats_args(name, folder)


Progress = Callable[[int, stats.Counts, float], None]


class StepRunner:
    """Runs one step (all instances in parallel) and judges it."""

    def __init__(self, processes: Processes, folder: Path, timing: Timing,
                 criteria: Criteria = Criteria()) -> None:
        self.processes = processes
        self.folder = folder
        self.timing = timing
        self.criteria = criteria
        self._steps = 0

    def run(self, workload: Workload, targets: list[Target], rate: int,
            progress: Progress = lambda rate, counts, elapsed: None, seconds: float | None = None) -> Step:
        """One step at `rate` for `seconds` (the timing's step length by default)."""
        step_s = seconds or self.timing.step_s
        self._steps += 1
        folder = self.folder / f"step-{self._steps:03d}-{rate}"
        folder.mkdir(parents=True, exist_ok=True)
        shares = _split(rate, len(targets))
        total = 0
        running = []
        for i, (target, share) in enumerate(zip(targets, shares)):
            if share <= 0:
                continue
            count = max(1, round(share * step_s))
            total += count
            run_s = step_s + self.timing.recv_timeout_ms / 1000 + 20
            command = base_command(target, workload.scenario(), self.timing, run_s) + [
                "-r", str(share), "-rp", "1000", "-m", str(count), "-l", str(max(1000, share * 40)),
            ] + stats_options(f"stat-{i}", folder) + workload.options(folder, i, count)
            process = self.processes.start(f"sipp {workload.name} #{i}", command,
                                           folder / f"sipp-{i}.log", cwd=folder)
            running.append((i, count, process))
        started = time.monotonic()
        deadline = step_s + self.timing.recv_timeout_ms / 1000 + 30
        while any(p.poll() is None for _, _, p in running):
            elapsed = time.monotonic() - started
            if elapsed > deadline:
                break
            progress(rate, self._counts(folder, running), elapsed)
            time.sleep(0.5)
        for i, _, process in running:
            code = self.processes.wait(process, timeout_s=1.0)
            self._check_started(folder, i, code)
        counts = self._counts(folder, running)
        progress(rate, counts, time.monotonic() - started)
        offered = self._offered(folder, running, step_s)
        times = [t for path in folder.glob("*_rtt.csv") for t in stats.read_response_times(path)]
        return judge(rate, total, counts, offered, stats.percentile(times, 50),
                     stats.percentile(times, 99), self.criteria)

    @staticmethod
    def _check_started(folder: Path, instance: int, code: int | None) -> None:
        """SIPp exits 1 when calls failed (a measurement); other codes with no call created mean it
        could not run at all (a bad scenario or option), which no rate would change."""
        if code in (0, 1, None):
            return
        if stats.final_counts(folder / f"stat-{instance}.stat.csv").created > 0:
            return
        log = folder / f"sipp-{instance}.log"
        tail = log.read_text(errors="replace")[-1500:] if log.exists() else ""
        raise BenchError(f"SIPp could not run (exit {code}); its output ({log}):\n{tail}")

    @staticmethod
    def _counts(folder: Path, running) -> stats.Counts:
        total = stats.Counts()
        for i, _, _ in running:
            total = total + stats.final_counts(folder / f"stat-{i}.stat.csv")
        return total

    def _offered(self, folder: Path, running, step_s: float) -> float:
        """The rate SIPp really offered: each instance's calls over the time it took to create them.

        Creation times are known to the dump period (1 s), hence the second taken off.
        """
        offered = 0.0
        for i, count, _ in running:
            path = folder / f"stat-{i}.stat.csv"
            seconds = stats.creation_seconds(path, count)
            if seconds is None:
                offered += stats.final_counts(path).created / step_s
            else:
                offered += count / max(step_s, seconds - 1.0)
        return offered


def _split(rate: int, parts: int) -> list[int]:
    base, extra = divmod(rate, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


class Callee:
    """The one callee of the call experiments: a SIPp UAS whose AOR is registered first.

    The registration uses sipp-scenarios/register from the UAS's own port, so the binding's
    Contact is where the UAS then listens.
    """

    def __init__(self, processes: Processes, folder: Path, port: int, address: str = "127.0.0.1") -> None:
        self.processes = processes
        self.folder = folder
        self.port = port
        self.address = address   # where the UAS listens: loopback, or the nodes' gateway
        self.process = None

    def start(self, registrars: list[Target], timing: Timing) -> None:
        """Registers the callee with every registrar (each node, so that backends which share
        nothing between nodes can still route the calls), then starts the UAS."""
        require_ports_free(self.address, [self.port], "the callee (SIPp UAS)")
        self.folder.mkdir(parents=True, exist_ok=True)
        _, registering = _scenario_helpers()
        csv = registering.write_user(self.folder / "callee.csv", CALLEE, DOMAIN)
        for registrar in registrars:
            command = base_command(registrar, SCENARIOS / "register" / "register.xml", timing, 30, self.port) + [
                "-m", "1", "-inf", str(csv), "-key", "expires", "7200"]
            log = self.folder / f"callee-register-{registrar.port}.log"
            process = self.processes.start("sipp callee registration", command, log, cwd=self.folder)
            code = self.processes.wait(process, timeout_s=timing.recv_timeout_ms / 1000 + 10)
            if code != 0:
                raise BenchError(f"the callee could not register with {registrar.host}:{registrar.port} "
                                 f"(SIPp exit {code}; see {log})")
        proxy = registrars[0] if registrars else Target(self.address, self.port, self.address)
        command = base_command(proxy, SCENARIOS / "call" / "uas.xml", timing, 24 * 3600, self.port) \
            + stats_options("uas", self.folder)
        self.process = self.processes.start("sipp callee (UAS)", command, self.folder / "uas.log",
                                            cwd=self.folder)
        wait_until(lambda: self.process.poll() is not None or port_taken(self.address, self.port), 5.0)
        if self.process.poll() is not None:
            raise BenchError(f"the callee SIPp stopped at once (see {self.folder / 'uas.log'})")

    def stop(self) -> None:
        if self.process is not None:
            self.processes.stop(self.process)
            self.process = None

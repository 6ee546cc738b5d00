"""One step of load: SIPp instances in open loop, one per target node, at a fixed total rate.

The scenarios are the project's own (sipp-scenarios/register and sipp-scenarios/call); this
module only chooses the options: the rate (-r/-rp), how many calls (-m), a call limit far above
what the rate needs (-l) so that SIPp never throttles itself into a closed loop, statistics
every second (-trace_stat -fd 1), every response time (-trace_rtt -rtt_freq 1), a receive
timeout, and UDP on one socket (-t u1). Requests are spread over several nodes by running one
SIPp per node at an equal share of the rate, each with its own slice of AORs; a share above what one
SIPp process offers (`Workload.per_process`) is split again over up to `MAX_PROCESSES` processes per
node, each its own port and AORs, their counters summed. While a step runs, the CPU of its SIPp
processes (and of the callee) is read from /proc: a failed step where one of them was busy
(`GENERATOR_BUSY`) names it and counts as generator short, since the load generator may have bounded it. REGISTERs go round a
pool of AORs per deployment with one fixed Contact (scenarios/register-pool.xml), so that no table
grows with the length of a search; the overload steps run the bench's own variant of it
(scenarios/register-503.xml), which takes a 503 as a final answer; the avalanche runs
sipp-scenarios/avalanche's scenario.

Not thread-safe: one step at a time, from the bench's main thread.
"""
from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

# sipp-scenarios' own helpers (how SIPp is started, AOR files); bench/run puts sipp-scenarios/ on the path
from sipphelp import registering, sipprun

from . import profile, stats
from .procs import BenchError, Processes, port_taken, require_ports_free, wait_until
from .search import Criteria, Step, judge

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = sipprun.SCENARIOS
REGISTER = SCENARIOS / "register" / "register.xml"
# REGISTER with 503 as a final answer, timed apart from 200 (response timer 2 against 1)
REGISTER_503 = REPO / "bench" / "scenarios" / "register-503.xml"
RTD_200, RTD_503 = 1, 2
# REGISTER with one fixed Contact in every run, so that an AOR registered before is updated (refreshes)
REGISTER_POOL = REPO / "bench" / "scenarios" / "register-pool.xml"
# the pool's Contact: TEST-NET-1 (RFC 5737), never reached; nothing calls these AORs
POOL_CONTACT = "192.0.2.1:5060"
# AORs a deployment's registrations go round (bench/run --register-pool). A 2 s search step never
# repeats one below 50,000 REGISTER/s, above any rate a system reached here (a reference's 2 s steps
# passed 18,000 to 32,000); in a 120 s confirmation an AOR comes round every 100,000 / rate seconds, 5 s at
# a reference's 20,000/s and 20 s or more at a node's 5,000/s, each REGISTER long after the last of the
# same AOR was answered. The first pass registers them (the first 2 s steps of a search: 1,000 to 16,000/s
# send 62,000), every later one refreshes; no table holds more than 100,000 bindings, a twentieth of the
# two million a search of distinct AORs had left in Kamailio when it failed every confirmation.
REGISTRATION_POOL = 100_000
# The AORs of first registrations (the register-refresh experiment's, the capacity experiment's) and of the
# avalanche's phones: never round, outside every pool, so that each REGISTER creates a binding.
FIRST_PREFIX = "first"
AVALANCHE_PREFIX = "avalanche"
AVALANCHE = SCENARIOS / "avalanche" / "avalanche.xml"
DOMAIN = "p2psip.test"
CALLEE = "callee"
HOLD_MS = 100  # as sipp-scenarios/call/run: ACK and BYE, forwarded on different threads, stay in order
# SIPp processes per target at most: each takes CPU from the two cores the server runs on.
MAX_PROCESSES = 3
# A SIPp process that used this share of a core over a failed step may be what bounded it.
GENERATOR_BUSY = 0.9


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


class Workload:
    """What a SIPp instance of a step runs: the scenario and its per-instance options."""

    name = "workload"
    unit = "/s"
    # the rate one SIPp process is asked at most; above it a target's share is split over more processes
    per_process = 10**9

    def scenario(self) -> Path:
        raise NotImplementedError

    def options(self, folder: Path, instance: int, count: int) -> list[str]:
        raise NotImplementedError


class Pool:
    """The AORs of one kind sent to one deployment (PREFIXnnnnnnn@p2psip.test), by number from where the
    last step ended: round and round `size` of them, so that the first pass registers them and every
    later pass refreshes their bindings; size 0: never round, every AOR new (a first registration)."""

    def __init__(self, prefix: str = "user", size: int = 0) -> None:
        self.prefix = prefix
        self.size = size
        self.sent = 0

    def take(self, count: int) -> list[int]:
        """The numbers of the next `count` AORs, as SIPp reads its SEQUENTIAL injection file round and
        round: at most `size` of them, from where the last step ended."""
        start, self.sent = self.sent, self.sent + count
        if not self.size:
            return list(range(start, start + count))
        return [(start + k) % self.size for k in range(min(count, self.size))]

    def write(self, path: Path, count: int) -> Path:
        """The injection file of the next `count` AORs."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("SEQUENTIAL\n" + "".join(f"{self.prefix}{n:07d};{DOMAIN};\n" for n in self.take(count)))
        return path


class Registration(Workload):
    """REGISTERs of a deployment's `pool` (shared by everything sent to it), each naming the same Contact
    (POOL_CONTACT): the first REGISTER of an AOR creates its binding, every later one updates it. SIPp
    makes a new Call-ID per REGISTER, as a phone whose stack restarted does; the registrar updates the
    binding all the same (RFC 3261 section 10.3, step 7)."""

    unit = "REGISTER/s"
    # one SIPp process offered at most 26,000 to 38,000 REGISTER/s here, short of 2x and 3x of the
    # references' 16,000-21,000: 2 x 16,000 and 3 x 16,000 are offered by two and three
    per_process = 16_000

    def __init__(self, pool: Pool, scenario: Path = REGISTER_POOL, name: str = "registration") -> None:
        self.pool = pool
        self._scenario = scenario
        self.name = name

    def scenario(self) -> Path:
        return self._scenario

    def options(self, folder: Path, instance: int, count: int) -> list[str]:
        csv = self.pool.write(folder / f"users-{instance}.csv", count)
        return ["-inf", str(csv), "-key", "expires", "3600", "-key", "contact", POOL_CONTACT,
                *registering.NO_BYE_ON_ABORT]


class Call(Workload):
    """INVITE/ACK/BYE from a caller to one callee registered beforehand (the paper's setup)."""

    name = "call"
    unit = "calls/s"
    # a caller runs a dialog of five messages per call; Kamailio passed 3,750 calls/s in 2 s steps with one
    # caller and completed 29% of them in 120 s: above 2,000/s two callers share the rate
    per_process = 2_000

    def scenario(self) -> Path:
        return SCENARIOS / "call" / "uac.xml"

    def options(self, folder: Path, instance: int, count: int) -> list[str]:
        # A 180 that a multi-threaded proxy forwards after the 200 must not fail the call: SIPp then
        # keeps the call going instead of aborting it. A wrong final answer still fails it, on the
        # receive timeout, since the 200 it waits for never comes.
        # uac.xml calls the user of each line of its injection file: here always the one callee
        return [*sipprun.callee_args([CALLEE], folder), "-key", "domain", DOMAIN, "-key", "callee_domain", DOMAIN,
                "-key", "caller", f"caller{instance}",
                "-d", str(HOLD_MS), "-default_behaviors", "all,-abortunexp"]


def base_command(target: Target, scenario: Path, timing: Timing, run_s: float, port: int = 0) -> list[str]:
    """sipp-scenarios' SIPp command line (free local and media ports, -nostdin, -timeout), plus
    UDP on one socket, the receive timeout and the bound on retransmissions."""
    return sipprun.command(_scenario_name(scenario), f"{target.host}:{target.port}",
                           ["-t", "u1", "-recv_timeout", str(timing.recv_timeout_ms), "-max_retrans", "5"],
                           target.local, port, run_s)


def _scenario_name(scenario: Path) -> str:
    """sipprun's name of a scenario: relative to sipp-scenarios/, or the path of one of the bench's own."""
    return str(scenario.relative_to(SCENARIOS) if scenario.is_relative_to(SCENARIOS) else scenario)


def stats_options(name: str, folder: Path) -> list[str]:
    return sipprun.stats_args(name, folder)


Progress = Callable[[int, stats.Counts, float], None]


@dataclass(frozen=True)
class Offered:
    """What one step's SIPp instances did, before any verdict: where their files are, the attempts
    the step was meant to make, their summed counters and the rate they really offered."""
    folder: Path
    attempts: int
    counts: stats.Counts
    offered_rate: float
    busy: tuple[tuple[str, float], ...] = ()   # (SIPp process, share of a core it used) of the step

    def busiest(self) -> list[tuple[str, float]]:
        """The processes at GENERATOR_BUSY of a core or more, busiest first."""
        return sorted(((name, share) for name, share in self.busy if share >= GENERATOR_BUSY),
                      key=lambda item: -item[1])

    def response_times(self, rtd: int | None = None) -> list[float]:
        return [t for path in self.folder.glob("*_rtt.csv") for t in stats.read_response_times(path, rtd)]


class StepRunner:
    """Runs one step (all instances in parallel) and judges it."""

    def __init__(self, processes: Processes, folder: Path, timing: Timing,
                 criteria: Criteria = Criteria(), watched: Callable[[], list[tuple[str, int]]] = lambda: []) -> None:
        self.processes = processes
        self.folder = folder
        self.timing = timing
        self.criteria = criteria
        self.watched = watched   # other load-generating processes whose CPU a step reads: (name, PID), the callee
        self._steps = 0

    def run(self, workload: Workload, targets: list[Target], rate: int,
            progress: Progress = lambda rate, counts, elapsed: None, seconds: float | None = None) -> Step:
        """One step at `rate` for `seconds` (the timing's step length by default), judged."""
        done = self.offer(workload, targets, rate, progress, seconds)
        times = done.response_times()
        return generator_bound(judge(rate, done.attempts, done.counts, done.offered_rate, stats.percentile(times, 50),
                                     stats.percentile(times, 99), self.criteria), done)

    def offer(self, workload: Workload, targets: list[Target], rate: int,
              progress: Progress = lambda rate, counts, elapsed: None, seconds: float | None = None) -> Offered:
        """One step at `rate` for `seconds` (the timing's step length by default), run to its end."""
        step_s = seconds or self.timing.step_s
        self._steps += 1
        folder = self.folder / f"step-{self._steps:03d}-{rate}"
        folder.mkdir(parents=True, exist_ok=True)
        total = 0
        running = []
        for i, (target, share) in enumerate(_instances(targets, rate, workload.per_process)):
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
        meter = CpuShares([(f"SIPp {workload.name} #{i}", p.pid) for i, _, p in running] + self.watched())
        while any(p.poll() is None for _, _, p in running):
            elapsed = time.monotonic() - started
            if elapsed > deadline:
                break
            progress(rate, self._counts(folder, running), elapsed)
            time.sleep(0.5)
            meter.read()
        for i, _, process in running:
            code = self.processes.wait(process, timeout_s=1.0)
            check_ran(code, folder / f"stat-{i}.stat.csv", folder / f"sipp-{i}.log")
        counts = self._counts(folder, running)
        progress(rate, counts, time.monotonic() - started)
        return Offered(folder, total, counts, self._offered(folder, running, step_s), meter.shares())

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


def check_ran(code: int | None, stat: Path, log: Path) -> None:
    """SIPp exits 1 when calls failed (a measurement); other codes with no call created mean it
    could not run at all (a bad scenario or option), which no rate would change."""
    if code in (0, 1, None) or stats.final_counts(stat).created > 0:
        return
    tail = log.read_text(errors="replace")[-1500:] if log.exists() else ""
    raise BenchError(f"SIPp could not run (exit {code}); its output ({log}):\n{tail}")


def _split(rate: int, parts: int) -> list[int]:
    base, extra = divmod(rate, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def _instances(targets: list[Target], rate: int, per_process: int) -> list[tuple[Target, int]]:
    """(target, rate) of each SIPp process of a step: an equal share per target, split again over as many
    processes as a share above `per_process` needs (MAX_PROCESSES at most)."""
    found = []
    for target, share in zip(targets, _split(rate, len(targets))):
        parts = min(MAX_PROCESSES, max(1, -(-share // per_process)))
        found += [(target, part) for part in _split(share, parts)]
    return found


class CpuShares:
    """The share of a core each of a step's processes used, from /proc/PID/stat read through the step: the
    last reading over the time since the first (a process gone by then keeps its last reading)."""

    def __init__(self, processes: list[tuple[str, int]]) -> None:
        self.processes = processes
        self.first: dict[str, tuple[float, float]] = {}
        self.last: dict[str, tuple[float, float]] = {}
        self.read()

    def read(self) -> None:
        now = time.monotonic()
        for name, pid in self.processes:
            try:
                seconds = profile.cpu_seconds(pid)
            except (OSError, ValueError, IndexError):
                continue
            self.first.setdefault(name, (now, seconds))
            self.last[name] = (now, seconds)

    def shares(self) -> tuple[tuple[str, float], ...]:
        return tuple((name, (self.last[name][1] - began[1]) / (self.last[name][0] - began[0]))
                     for name, began in self.first.items() if self.last[name][0] - began[0] >= 1.0)


def generator_bound(step: Step, done: Offered) -> Step:
    """The step with the CPU its SIPp processes used (kept in steps.csv); a failed step during which a SIPp
    process was busy (GENERATOR_BUSY of a core or more) names it, and counts as generator short: the load
    generator, not the server, may have bounded it (Kamailio's calls passed 3,750/s in 2 s steps and
    completed 29% in 120 s, with one caller and one callee process)."""
    step = replace(step, generator_cpu=done.busy)
    busiest = done.busiest()
    if step.passed or not busiest:
        return step
    names = ", ".join(f"{name} at {share:.0%} of a core" for name, share in busiest)
    return replace(step, reason=f"{step.reason}; {names}: the generator's side saturated", generator_short=True)


@dataclass(frozen=True)
class AvalancheRun:
    """One avalanche: how many phones, how many ended registered, the 503s they met on the way, and
    how long SIPp ran (until the last phone was registered, when all were)."""
    users: int
    registered: int
    refusals: int
    seconds: float
    exit_code: int | None


def avalanche(processes: Processes, folder: Path, target: Target, users: int, window_s: float, aors: Pool,
              progress: Progress = lambda rate, counts, elapsed: None, timeout_s: float = 300) -> AvalancheRun:
    """sipp-scenarios/avalanche/run's SIPp run (the same scenario and options: every phone started
    within `window_s`, no cap on phones waiting, each obeying Retry-After), started here because the
    bench must bind SIPp to the deployment's gateway address (network namespaces), which the run
    script cannot; -trace_counts adds the count of 503s received. Timed as the run script times it:
    from SIPp's start to its end. Its phones are `aors` (a pool that never goes round: each phone new),
    their Contact each SIPp's own, as the scenario has it."""
    folder.mkdir(parents=True, exist_ok=True)
    csv = aors.write(folder / "users.csv", users)
    rate, options = registering.avalanche_args(csv, users, window_s, folder)
    command = sipprun.command(registering.AVALANCHE, f"{target.host}:{target.port}", [*options, "-trace_counts"],
                              target.local, 0, timeout_s)
    stat = folder / "avalanche.stat.csv"
    began = time.monotonic()
    process = processes.start("sipp avalanche", command, folder / "sipp.log", cwd=folder)
    code = None
    while time.monotonic() - began < timeout_s + 30:   # SIPp's own -timeout ends it first
        try:
            code = process.wait(timeout=0.5)
            break
        except subprocess.TimeoutExpired:
            progress(rate, stats.final_counts(stat), time.monotonic() - began)
    took = time.monotonic() - began
    processes.wait(process, timeout_s=0)   # stops it if it outlived the deadline
    check_ran(code, stat, folder / "sipp.log")
    counts = stats.final_counts(stat)
    progress(rate, counts, took)
    refusals = sum(stats.received(path, "503") for path in folder.glob("*_counts.csv"))
    return AvalancheRun(users, counts.successful, refusals, took, code)


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
        self._proxy: Target | None = None
        self._timing: Timing | None = None
        self._starts = 0

    def start(self, registrars: list[Target], timing: Timing) -> None:
        """Registers the callee with every registrar (each node, so that backends which share
        nothing between nodes can still route the calls), then starts the UAS."""
        require_ports_free(self.address, [self.port], "the callee (SIPp UAS)")
        self._timing = timing
        self.register(registrars)
        self._proxy = registrars[0] if registrars else Target(self.address, self.port, self.address)
        self._start_uas()

    def register(self, registrars: list[Target]) -> None:
        """Registers the callee's AOR, its Contact the UAS's port, with each registrar (again after a
        registrar started afresh). SIPp registers from that port, so a running UAS is stopped for it
        and a fresh one started after, as by `restart`."""
        running = self.process is not None
        if running:
            self.stop()
            wait_until(lambda: not port_taken(self.address, self.port), 5.0)
        self.folder.mkdir(parents=True, exist_ok=True)
        csv = registering.write_user(self.folder / "callee.csv", CALLEE, DOMAIN)
        timing = self._timing
        for registrar in registrars:
            command = base_command(registrar, SCENARIOS / "register" / "register.xml", timing, 30, self.port) + [
                "-m", "1", "-inf", str(csv), "-key", "expires", "7200"]
            log = self.folder / f"callee-register-{registrar.port}.log"
            process = self.processes.start("sipp callee registration", command, log, cwd=self.folder)
            code = self.processes.wait(process, timeout_s=timing.recv_timeout_ms / 1000 + 10)
            if code != 0:
                raise BenchError(f"the callee could not register with {registrar.host}:{registrar.port} "
                                 f"(SIPp exit {code}; see {log})")
        if running:
            self._start_uas()

    def restart(self) -> None:
        """A fresh UAS after a failed step: one that met an overload keeps its dead calls and their
        retransmissions, and a step after it measured that backlog (Kamailio, confirmed at 3,375
        calls/s in a run that never overloaded it, completed 25% at 1,721/s after a failed step at
        3,625/s). Its binding stays: it listens on the same port."""
        if self.process is not None:
            self.processes.stop(self.process)
            wait_until(lambda: not port_taken(self.address, self.port), 5.0)
            self._start_uas()

    def _start_uas(self) -> None:
        self._starts += 1
        stats = self.folder / (f"uas-{self._starts}" if self._starts > 1 else ".")
        stats.mkdir(parents=True, exist_ok=True)
        command = base_command(self._proxy, SCENARIOS / "call" / "uas.xml", self._timing, 24 * 3600, self.port) \
            + stats_options("uas", stats)
        self.process = self.processes.start("sipp callee (UAS)", command, stats / "uas.log", cwd=self.folder)
        wait_until(lambda: self.process.poll() is not None or port_taken(self.address, self.port), 5.0)
        if self.process.poll() is not None:
            raise BenchError(f"the callee SIPp stopped at once (see {stats / 'uas.log'})")

    def stop(self) -> None:
        if self.process is not None:
            self.processes.stop(self.process)
            self.process = None

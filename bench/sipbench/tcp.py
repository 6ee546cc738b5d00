"""The tcp experiment as data: its deployments, the rates it offers, bench/sipload's command lines
and the records of what it measured (after Ono and Schulzrinne, "One Server Per City: Using TCP for
Very Large SIP Servers").

Two parts, each against our nodes behind the front and against Kamailio:
- the **rate part**: REGISTER/s and response times over UDP, TCP with a connection per phone kept
  for the step (persistent) and TCP with a connection per REGISTER (per-transaction), each climbing
  the same ladder of offered rates until its first failed step;
- the **idle part**: 0, 10,000, 50,000 and 100,000 idle registered TCP connections held by
  background sipload processes ("holders"), and with each held the measuring sipload's REGISTER/s
  and p99 over TCP persistent, and the resident memory of every server process.

A sipload process holds at most about 19,000 connections (20,000 open files), so N connections are
several holders, each with users of its own (--offset/--limit) and source addresses of its own in
127.0.0.0/8: the experiment runs on loopback, whatever --network says, since those addresses do not
reach a network namespace.

Pure data and functions; immutable, safe to share.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .experiments import KAMAILIO

# The measuring sipload's three ways of sending REGISTERs (the rate part's rows).
UDP, PERSISTENT, PER_TRANSACTION = "udp", "tcp-persistent", "tcp-per-transaction"
TRANSPORTS = (UDP, PERSISTENT, PER_TRANSACTION)
# The idle part measures over TCP persistent: every REGISTER then crosses the front's epoll set of
# held connections, as a phone's would, where UDP would only meet the front's datagram path.
IDLE_TRANSPORT = PERSISTENT
RATE_PART, IDLE_PART = "rate", "idle"

# Connections per holder process: below sipload's 19,800 (20,000 files less the JVM's own), with room
# for the measuring process's connections in the same file limit of the server's process.
PER_HOLDER = 17000
# Source addresses per holder (or measuring process): 40 x ~28,000 ephemeral ports, enough for a
# holder's 17,000 and for per-transaction steps, whose closed ports wait 60 s in TIME_WAIT.
SOURCES_PER_PROCESS = 40
# The measuring process's addresses, apart from every holder's 127.0.(k+1).x.
MEASURING_NET = 200
# The measuring process's phones: about one REGISTER per phone per second, so that a persistent step
# reuses each connection; at most what one process may hold.
MIN_MEASURING_USERS, MAX_MEASURING_USERS = 100, PER_HOLDER
# Held phones register at this total rate, spread over the level's new holders, and long enough that
# no binding expires while held (Kamailio's max_expires is 7200).
HOLD_RATE = 1000
HOLD_EXPIRES_S = 7200
USER_PREFIX = "tcp"

QUICK_IDLE = (0, 2000, 5000)
FULL_IDLE = (0, 10000, 50000, 100000)
QUICK_RATES = (500, 1000, 2000, 4000, 8000, 16000, 24000, 32000)
FULL_RATES = (250, 500, 1000, 1500, 2000, 2500, 3000, 4000, 5000, 6000, 8000, 10000, 12500, 15000, 20000,
              25000, 30000)
# The targets: TCP persistent over UDP in the rate part; at the most connections held, REGISTER/s and
# p99 against the same with none held.
PERSISTENT_OVER_UDP = 0.7
HELD_RATE_SHARE = 0.9
HELD_P99_FACTOR = 1.5


def front_processes_for(idle: tuple[int, ...]) -> int:
    """Front processes the idle part needs: one per PER_HOLDER connections held (six for 100,000)."""
    return max(1, math.ceil(max(idle, default=0) / PER_HOLDER))


@dataclass(frozen=True)
class Deployment:
    """What one deployment of the experiment runs: the system, its front processes (ours only), the parts."""
    system: str              # a backend (two nodes behind the front) or kamailio
    front_processes: int     # 0 for Kamailio
    parts: tuple[str, ...]   # RATE_PART and/or IDLE_PART

    @property
    def label(self) -> str:
        if self.system == KAMAILIO:
            return "Kamailio"
        processes = f", {self.front_processes} front processes" if self.front_processes > 1 else ""
        return f"{self.system} 2 nodes behind the front (rr{processes})"


def plan(backend: str, idle_front_processes: int) -> list[Deployment]:
    """Our deployments then Kamailio's: the rate part on one front process; the idle part on as many
    as the connections need, on the same deployment when that is one. Kamailio is one server for both."""
    if idle_front_processes <= 1:
        ours = [Deployment(backend, 1, (RATE_PART, IDLE_PART))]
    else:
        ours = [Deployment(backend, 1, (RATE_PART,)), Deployment(backend, idle_front_processes, (IDLE_PART,))]
    return ours + [Deployment(KAMAILIO, 0, (RATE_PART, IDLE_PART))]


@dataclass(frozen=True)
class Holder:
    """One background sipload of the idle part: its users (offset, count) and source addresses."""
    index: int
    offset: int
    count: int

    @property
    def sources(self) -> str:
        return address_range(self.index + 1)


def address_range(third: int) -> str:
    return f"127.0.{third}.1-127.0.{third}.{SOURCES_PER_PROCESS}"


def holders_for(levels: tuple[int, ...]) -> list[list[Holder]]:
    """The holders each level adds to those already running: level N holds users 0..N-1, its new ones
    (from the previous level's count on) split evenly over as few processes as hold them."""
    added, held, index = [], 0, 0
    for level in levels:
        new = max(0, level - held)
        processes = math.ceil(new / PER_HOLDER)
        these = []
        for k in range(processes):
            start = held + new * k // processes
            end = held + new * (k + 1) // processes
            these.append(Holder(index, start, end - start))
            index += 1
        added.append(these)
        held = max(held, level)
    return added


def measuring_users(rate: int) -> int:
    """Phones of a measuring step at `rate`: one REGISTER each per second or so."""
    return max(MIN_MEASURING_USERS, min(MAX_MEASURING_USERS, rate))


@dataclass(frozen=True)
class Client:
    """How a sipload reaches the system: its jar, the address, the SIP timers."""
    jar: str
    target: str          # HOST:PORT
    t1_ms: int = 500
    timeout_ms: int = 4000


# A short-lived measuring JVM (as the auth experiment's); a holder keeps up to 17,000 connections
# and their phones for the whole part, so it gets a larger heap.
MEASURING_JVM = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xms256m", "-Xmx512m"]
HOLDER_JVM = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xms64m", "-Xmx1g"]


def _transport_options(transport: str) -> list[str]:
    if transport == UDP:
        return ["--transport", "udp", "--bind", "127.0.0.1:0"]
    connection = "persistent" if transport == PERSISTENT else "per-transaction"
    return ["--transport", "tcp", "--connection", connection, "--sources", address_range(MEASURING_NET)]


def measuring_command(client: Client, users: str, transport: str, rate: int, seconds: float) -> list[str]:
    """A measuring step: plain REGISTERs at `rate` for `seconds` over `transport`, going round the
    step's own users (AORs no step used before, so that no binding gathers the Contacts of earlier
    steps' connections)."""
    return ["java", *MEASURING_JVM, "-jar", client.jar, "--target", client.target, "--users", users,
            "--mode", "plain", "--rate", str(rate), "--duration", f"{seconds:g}", "--t1-ms", str(client.t1_ms),
            "--timeout-ms", str(client.timeout_ms), "--quiet", *_transport_options(transport)]


def holder_command(client: Client, users: str, holder: Holder, rate: int) -> list[str]:
    """A holder: registers its users of the holders' file over a connection each, then holds them until
    SIGTERM (--hold 0)."""
    return ["java", *HOLDER_JVM, "-jar", client.jar, "--target", client.target, "--users", users,
            "--mode", "plain", "--transport", "tcp", "--connection", "persistent", "--sources", holder.sources,
            "--offset", str(holder.offset), "--limit", str(holder.count), "--rate", str(rate),
            "--expires", str(HOLD_EXPIRES_S), "--hold", "0", "--quiet"]


def users_lines(prefix: str, count: int, domain: str) -> list[str]:
    """`user,domain,password` lines (sipload's users file) of users PREFIX0000000, ...; plain REGISTERs
    are not challenged, so the password is a placeholder."""
    return [f"{prefix}{i:07d},{domain},-" for i in range(count)]


@dataclass(frozen=True)
class RateStep:
    """One measuring step: what was offered, what came of it, and the verdict of search.judge."""
    part: str
    system: str
    transport: str
    held: int                # connections held by the holders meanwhile (0 in the rate part)
    rate: int
    offered_rate: float
    attempts: int
    completed: int
    failed: int
    timeouts: int
    p50_ms: float | None
    p99_ms: float | None
    connections_opened: int
    passed: bool
    reason: str


@dataclass(frozen=True)
class Memory:
    """Resident memory of one server process, in KiB: VmRSS, and its proportional share (Pss), which
    counts a page shared by several processes (Kamailio's shared memory) once over all of them."""
    process: str
    pid: int
    rss_kib: int
    pss_kib: int


@dataclass(frozen=True)
class IdleLevel:
    """One level of the idle part: the connections held, the measuring process's figures, the memory."""
    system: str
    asked: int               # connections the holders were to hold
    held: int                # registrations the holders completed (each keeps its connection)
    failed: int              # registrations that failed (the server refused or dropped the connection)
    rate: int                # highest passing rate of the measuring process, 0 when none passed
    p50_ms: float | None
    p99_ms: float | None     # at that rate
    p99_at_base_ms: float | None   # at the rate the level with none held sustained
    memory: tuple[Memory, ...]
    holders_rss_kib: int     # the clients' own memory, for information

    def total(self, prefix: str = "", pss: bool = False) -> int:
        """Memory of the processes whose name starts with `prefix` (all by default)."""
        return sum(m.pss_kib if pss else m.rss_kib for m in self.memory if m.process.startswith(prefix))


def best(steps: list[RateStep]) -> RateStep | None:
    passing = [s for s in steps if s.passed]
    return max(passing, key=lambda s: s.rate) if passing else None


def from_rate(rates: tuple[int, ...], rate: int, below: int) -> tuple[int, ...]:
    """The ladder from `below` rungs under `rate` on (the whole ladder when `rate` is not on it)."""
    if rate not in rates:
        return rates
    return rates[max(0, rates.index(rate) - below):]

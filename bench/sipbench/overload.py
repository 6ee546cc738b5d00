"""The overload experiment: REGISTERs offered open loop at multiples of a deployment's own clean
rate (the highest rate its registration search passed), and the registration avalanche.

A step offers `multiple` x the clean rate for a fixed time, its AORs going on round the deployment's
pool as its search's did (sipp.Pool); a 503 is a final answer there (bench/scenarios/register-503.xml),
so a step counts what was answered 200 within `GOOD_WITHIN_MS` (the goodput; SIPp's -trace_rtt gives
every REGISTER's time to its 200), the 200s later than that, what was refused with 503, and what was
neither (timeouts, other statuses, calls SIPp never sent). A step SIPp could not offer measured the load generator: it is "generator short"
and never counts as a server result. Its targets, report section and figure are overloadreport.py's.

Pure functions and small immutable records, and the CSV files; safe from one thread at a time
(the files are appended to).
"""
from __future__ import annotations

import csv
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from . import search, stats
from .experiments import CEILING, KAMAILIO, front_policy

# Multiples of the clean rate offered by default (bench/run --overload-multiples): the targets' two
MULTIPLES = (2.0, 3.0)
STEPS_CSV = "overload.csv"
AVALANCHE_CSV = "avalanche.csv"
# A 200 counts as goodput only within T1: later, its client would have retransmitted the REGISTER, and
# the answer served a request the client had already given up waiting for once
GOOD_WITHIN_MS = 500.0


def step_rates(clean_rate: int, multiples: tuple[float, ...] = MULTIPLES) -> list[tuple[float, int]]:
    """(multiple, rate per second) of every step offered to a deployment whose clean rate is `clean_rate`."""
    return [(multiple, max(1, round(multiple * clean_rate))) for multiple in multiples]


def deployment_label(system: str, nodes: int, routing: str) -> str:
    if system == KAMAILIO:
        return "Kamailio"
    if system == CEILING:
        return "container ceiling"
    policy = front_policy(routing)
    where = f"behind the front ({policy})" if policy else "directly"
    return f"{system} {nodes} node{'s' if nodes > 1 else ''} {where}"


@dataclass(frozen=True)
class OverloadStep:
    """One step of the overload experiment: what was offered and what came of it."""

    system: str
    nodes: int
    routing: str
    clean_rate: int
    multiple: float
    rate: int               # asked of SIPp, per second
    offered_rate: float     # what SIPp really offered, per second
    seconds: float
    attempts: int
    ok: int                 # answered 200
    refused: int            # answered 503
    timeouts: int           # no final answer in time (receive or retransmission timeouts)
    unexpected: int         # answered with another status
    retransmissions: int
    p50_ms: float | None    # of every final answer timed (200 and 503)
    p99_ms: float | None
    p50_200_ms: float | None  # of the 200s only
    p99_200_ms: float | None
    generator_short: bool
    late: int = 0           # of the 200s, those later than GOOD_WITHIN_MS

    @property
    def deployment(self) -> str:
        return deployment_label(self.system, self.nodes, self.routing)

    @property
    def goodput(self) -> float:
        """200s within GOOD_WITHIN_MS per second over the step."""
        return (self.ok - self.late) / self.seconds

    @property
    def late_per_s(self) -> float:
        return self.late / self.seconds

    @property
    def refused_per_s(self) -> float:
        return self.refused / self.seconds

    @property
    def other(self) -> int:
        """Attempts answered neither 200 nor 503: timeouts, other statuses, REGISTERs never sent."""
        return max(0, self.attempts - self.ok - self.refused)

    @property
    def other_per_s(self) -> float:
        return self.other / self.seconds


def summarize(system: str, nodes: int, routing: str, clean_rate: int, multiple: float, rate: int, seconds: float,
              attempts: int, counts: stats.Counts, offered_rate: float, times_200: list[float],
              times_503: list[float], criteria: search.Criteria = search.Criteria()) -> OverloadStep:
    """A step from SIPp's counters and its response times of 200s and of 503s: one time per answered
    call, so their numbers are the 200s and 503s (both end the call as SIPp's SuccessfulCall), and the
    200s' times say which came later than GOOD_WITHIN_MS."""
    every = times_200 + times_503
    return OverloadStep(system, nodes, routing, clean_rate, multiple, rate, offered_rate, seconds, attempts,
                        len(times_200), len(times_503), counts.timeout_on_recv + counts.max_udp_retrans,
                        counts.unexpected, counts.retransmissions,
                        stats.percentile(every, 50), stats.percentile(every, 99),
                        stats.percentile(times_200, 50), stats.percentile(times_200, 99),
                        search.generator_short(rate, offered_rate, criteria),
                        sum(1 for t in times_200 if t > GOOD_WITHIN_MS))


STEP_FIELDS = [f.name for f in fields(OverloadStep)] + ["goodput", "late_per_s", "refused_per_s", "other",
                                                        "other_per_s"]


def step_row(step: OverloadStep) -> dict:
    row = {k: _cell(v) for k, v in asdict(step).items()}
    row.update(goodput=f"{step.goodput:.1f}", late_per_s=f"{step.late_per_s:.1f}",
               refused_per_s=f"{step.refused_per_s:.1f}", other=step.other,
               other_per_s=f"{step.other_per_s:.1f}")
    return row


def read_steps(path: Path) -> list[OverloadStep]:
    """The steps of an overload.csv, in the order measured; none when there is no file."""
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return [_record(OverloadStep, row) for row in csv.DictReader(f)]


@dataclass(frozen=True)
class Avalanche:
    """One avalanche against a deployment: `users` phones within `window_s`, each obeying Retry-After."""

    system: str
    nodes: int
    routing: str
    users: int
    window_s: float
    registered: int
    refusals: int       # 503s the phones received on the way
    seconds: float      # SIPp's run: until the last phone was registered, when all were
    exit_code: int | None

    @property
    def deployment(self) -> str:
        return deployment_label(self.system, self.nodes, self.routing)

    @property
    def all_registered(self) -> bool:
        return self.registered >= self.users


AVALANCHE_FIELDS = [f.name for f in fields(Avalanche)]


def avalanche_row(avalanche: Avalanche) -> dict:
    return {k: _cell(v) for k, v in asdict(avalanche).items()}


def read_avalanches(path: Path) -> list[Avalanche]:
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return [_record(Avalanche, row) for row in csv.DictReader(f)]


def append(path: Path, fieldnames: list[str], row: dict) -> None:
    """Appends one row, the header first in a new file: an interrupted run keeps what it measured."""
    new = not path.exists()
    with open(path, "a", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=fieldnames)
        if new:
            writer.writeheader()
        writer.writerow(row)


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".")
    return str(value)


def _record(kind, row: dict):
    """A record from its CSV row: numbers, flags and empty cells (None) by the field's type."""
    values = {}
    for f in fields(kind):
        text = row.get(f.name, "")
        kind_name = f.type if isinstance(f.type, str) else f.type.__name__
        if text in ("", None):
            values[f.name] = None if "None" in kind_name else (False if kind_name == "bool" else 0)
        elif kind_name == "bool":
            values[f.name] = text not in ("0", "False", "false")
        elif kind_name.startswith("int"):
            values[f.name] = int(float(text))
        elif kind_name.startswith("float"):
            values[f.name] = float(text)
        else:
            values[f.name] = text
    return kind(**values)

"""Finding the highest sustainable rate: stepped, then bisected, open-loop rates.

A step offers a fixed rate for a fixed time. It passes when at least `min_success` (99.9%) of
the attempts it was meant to make completed with the expected final response, no call ended
on a retransmission timeout, and SIPp really offered the rate (otherwise the load generator,
not the server, was measured). The search multiplies the rate by `growth` (2) from `start`
until a step fails (or `max_rate`), then bisects between the highest pass and the lowest
failure until they are within `precision` of each other or `max_steps` ran. The result is the
highest passing step. With `confirm_failures` a failed step is measured once more (within
`max_steps`), and its rate passes if the repeat does. A search whose lowest failure above its
result is a step SIPp could not offer measured the load generator there, not the server: it is
"generator-limited", and the server's limit lies higher. The references' searches may grow to
`REFERENCE_REACH` times `max_rate` (`for_reference`), so that a ratio to them is a real one.

Pure logic: the measurement is a callable, so the search is tested on recorded steps.
Not thread-safe (one search per thread); the objects it returns are immutable.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Callable

from .stats import Counts


@dataclass(frozen=True)
class Criteria:
    min_success: float = 0.999
    max_retrans_timeouts: int = 0
    min_offered_share: float = 0.95
    # SIPp retransmits a REGISTER or BYE at 500 ms and again at 1.5 s: a p99 beyond 1.5 s means more
    # than 1% of the requests needed two retransmissions, a server that queues instead of keeping
    # up (its late answers still reach SIPp, so the loss rules alone would pass it); None: no bound
    max_p99_ms: float | None = 1500.0


# A rate counts as sustained only when held this long: past Timer J (64 x T1, 32 s), so that the
# finished transactions of the step's start have left the heap and it is in its steady state.
SUSTAINED_S = 120.0


def generator_short(rate: int, offered_rate: float, criteria: Criteria = Criteria()) -> bool:
    """Whether SIPp fell short of offering `rate`: then the load generator was measured, not the server."""
    return offered_rate < criteria.min_offered_share * rate


@dataclass(frozen=True)
class Step:
    """One measured step: the offered rate and what came of it."""

    rate: int
    attempts: int
    counts: Counts
    offered_rate: float
    p50_ms: float | None
    p99_ms: float | None
    passed: bool
    reason: str
    generator_short: bool = False


def judge(rate: int, attempts: int, counts: Counts, offered_rate: float,
          p50_ms: float | None, p99_ms: float | None, criteria: Criteria = Criteria(), generator: str = "SIPp") -> Step:
    """Turns a step's counters into a verdict, with the reason when it fails; `generator` names the
    load generator in it (SIPp, or sipload for the auth experiment)."""
    reasons = []
    if attempts <= 0:
        reasons.append("no attempts")
    else:
        share = counts.successful / attempts
        if share < criteria.min_success:
            reasons.append(f"{share:.2%} completed ({counts.successful}/{attempts})")
    if counts.max_udp_retrans > criteria.max_retrans_timeouts:
        reasons.append(f"{counts.max_udp_retrans} retransmission timeouts")
    short = generator_short(rate, offered_rate, criteria)
    if short:
        reasons.append(f"{generator} offered only {offered_rate:.0f}/s")
    if criteria.max_p99_ms is not None and p99_ms is not None and p99_ms > criteria.max_p99_ms:
        reasons.append(f"p99 {p99_ms:g} ms above {criteria.max_p99_ms:g} ms")
    return Step(rate, attempts, counts, offered_rate, p50_ms, p99_ms, not reasons,
                "; ".join(reasons) if reasons else "ok", short)


@dataclass(frozen=True)
class Plan:
    start: int = 200
    max_rate: int = 20000
    precision: float = 0.10
    max_steps: int = 10
    growth: float = 2.0  # factor between rates until the first failure
    # Measure a failed step once more before the search settles below it; the rate counts as
    # passed if the repeat passes. Near a system's limit a single 5 s step failed at 99.4% completed
    # now and passed the next run, and one peer's figure swung from 11,500 to 16,000 REGISTER/s.
    confirm_failures: bool = False


# How far above --max-rate a reference's search may grow: Kamailio passed the bench's 20,000/s
# maximum, which left every ratio to it a ratio to a floor.
REFERENCE_REACH = 4


def for_reference(plan: Plan) -> Plan:
    """A reference's plan: its cap `REFERENCE_REACH` times higher, with the steps it takes to grow there
    added to the budget, so that a reference passing at --max-rate keeps growing until it fails or
    SIPp can no longer offer the rate."""
    more = math.ceil(math.log(REFERENCE_REACH) / math.log(plan.growth)) if plan.growth > 1 else 0
    return replace(plan, max_rate=plan.max_rate * REFERENCE_REACH, max_steps=plan.max_steps + more)


@dataclass
class Outcome:
    """All steps of one search and the best passing one (None when even the first failed)."""

    steps: list[Step] = field(default_factory=list)

    @property
    def best(self) -> Step | None:
        passing = [s for s in self.steps if s.passed]
        return max(passing, key=lambda s: s.rate) if passing else None

    def best_within(self, p99_ms: float) -> Step | None:
        """The highest passing step whose p99 stayed within `p99_ms`: the capacity at a latency an
        operator accepts (a client retransmits at 500 ms; Kamailio's p99 at its limit is a few ms),
        beside the search's own bound. None when no passing step had so low a p99."""
        within = [s for s in self.steps if s.passed and s.p99_ms is not None and s.p99_ms <= p99_ms]
        return max(within, key=lambda s: s.rate) if within else None

    @property
    def overload(self) -> Step | None:
        """The highest failed step above the best passing one: the deepest overload the search
        offered (None when no step failed above it)."""
        best = self.best
        above = [s for s in self.steps if not s.passed and (best is None or s.rate > best.rate)]
        return max(above, key=lambda s: s.rate) if above else None

    @property
    def generator_limit(self) -> Step | None:
        """The step that bounds the result when SIPp could not offer it: the lowest failed step above
        the best passing one, if it fell short of its rate. None when the server bounds the result."""
        best = self.best
        above = [s for s in self.steps if not s.passed and (best is None or s.rate > best.rate)]
        lowest = min(above, key=lambda s: s.rate) if above else None
        return lowest if lowest is not None and lowest.generator_short else None


# The p99 of the second capacity every search reports (Outcome.best_within).
PROMPT_P99_MS = 100.0


def goodput(step: Step) -> int:
    """What a step completed per second: the share of its attempts that succeeded, times its rate."""
    return round(step.counts.successful * step.rate / step.attempts) if step.attempts > 0 else 0


def next_rate(plan: Plan, steps: list[Step]) -> int | None:
    """The rate of the next step given the steps so far, or None when the search is over."""
    if len(steps) >= plan.max_steps:
        return None
    if not steps:
        return plan.start
    passing = [s.rate for s in steps if s.passed]
    failing = [s.rate for s in steps if not s.passed]
    low = max(passing) if passing else 0
    high = min((r for r in failing if r > low), default=None)
    if high is None:
        if low >= plan.max_rate:
            return None
        return min(max(low + 1, round(low * plan.growth)), plan.max_rate)
    if low == 0:
        # Even the first rate failed: look below it, down to a floor of one call per second.
        if high <= 1:
            return None
        return max(1, high // 2)
    if (high - low) <= plan.precision * low:
        return None
    middle = (low + high) // 2
    return middle if low < middle < high else None


def run(plan: Plan, measure: Callable[[int], Step],
        between: Callable[[Step], None] = lambda step: None) -> Outcome:
    """Runs the search; `between` is called after each step (cool-down, logging)."""
    outcome = Outcome()
    while (rate := next_rate(plan, outcome.steps)) is not None:
        step = measure(rate)
        outcome.steps.append(step)
        between(step)
        if not step.passed and plan.confirm_failures and len(outcome.steps) < plan.max_steps:
            again = measure(rate)   # a repeat that passes makes the rate a pass (Outcome.best)
            outcome.steps.append(again)
            between(again)
    return outcome

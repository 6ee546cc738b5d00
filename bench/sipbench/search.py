"""Finding the highest sustainable rate: stepped, then bisected, open-loop rates.

A step offers a fixed rate for a fixed time. It is clean (passes) when every attempt it was meant
to make completed with the expected final response, no call ended on a retransmission timeout,
SIPp really offered the rate (otherwise the load generator, not the server, was measured) and the
p99 of the response times stayed under the workload's bound (`REGISTER_P99_MS`, `CALL_P99_MS`).
The search multiplies the rate by `growth` from `start` until a step fails (or `max_rate`), then
bisects between the highest pass and the lowest failure until they are within `precision` of each
other (or `max_steps` ran). With `confirmations`, the rate found is then measured once more in one
step of `confirm_s` (120 s, a sustained rate). A confirmation that fails steps down (`after_refusal`:
10%, 20% when its p99 reached T1, or to 5% below the share of its requests it completed when that is
lower; doubled after each further refusal, so that the first step down large enough to pass comes
within a few), and once one holds, the confirmations bisect between the highest that held and the lowest
that failed, to `precision`; `confirmations` steps at most, fewer when `more` (the run's budget) says
no. The result is the highest passing step, and with confirmations only a confirmed one: an
unconfirmed search has no result. With `confirm_failures` a failed step is measured once more (within
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


# A client retransmits a REGISTER at T1 (500 ms) without an answer: a registrar whose p99 nears it
# makes its clients retransmit, doubling its own load at the worst moment. 100 ms keeps the slowest
# percent a fifth of the way there, where Kamailio's p99 at its limit is a few ms.
REGISTER_P99_MS = 100.0
# A call's time runs from the INVITE to its 200: two legs through the proxy (caller to proxy to callee
# and back) and the callee's answer, twice a REGISTER's path, so twice its bound. A 100 Trying stops the
# INVITE's retransmissions, so T1 does not bound it as it bounds a REGISTER; 200 ms keeps the added
# post-dial delay well below what a caller notices.
CALL_P99_MS = 200.0


@dataclass(frozen=True)
class Criteria:
    # every attempt: a clean rate loses nothing (calls never created count as failures)
    min_success: float = 1.0
    max_retrans_timeouts: int = 0
    min_offered_share: float = 0.95
    # a server that queues instead of keeping up answers everything late, and the loss rules alone
    # would pass it (one Chord node "passed" 14,000 REGISTER/s with a p99 of 7.5 s); None: no bound
    max_p99_ms: float | None = REGISTER_P99_MS


def criteria_for(workload: str, register_p99_ms: float | None = REGISTER_P99_MS,
                 call_p99_ms: float | None = CALL_P99_MS) -> Criteria:
    """A workload's criteria: calls have their own p99 bound, every registration REGISTER's."""
    return Criteria(max_p99_ms=call_p99_ms if workload == "call" else register_p99_ms)


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
    confirmation: bool = False   # a step of `Plan.confirm_s` that confirms (or refuses) the rate found
    # (load-generating process, share of a core it used over the step): which side was busy (sipp.CpuShares)
    generator_cpu: tuple[tuple[str, float], ...] = ()


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
    # in one run and passed in the next, and one peer's figure swung from 11,500 to 16,000 REGISTER/s.
    confirm_failures: bool = False
    # Measure the search's first failed step once more: the search bisects below its first failure
    # and never returns above it, and a JVM whose compiler was still at work failed there once and
    # then not again (the ceiling app's calls confirmed 484/s after its first steps at 1,000 and 500
    # failed, 880/s in a run where they passed). Within `max_steps`, as confirm_failures.
    retry_first_failure: bool = False
    # Confirmation steps of `confirm_s` after the search, at most: at its rate found, lower after each that
    # fails until one holds, then bisecting (next_confirmation); 0: none, the search's best step is its
    # result (quick mode)
    confirmations: int = 0
    confirm_s: float = SUSTAINED_S


# After a failed confirmation the next one offers this much less, doubled after each further refusal: a
# system's p99 crosses its bound 10-15% below the rate it carries for 2 s (one Chord node failed 14,000,
# 12,406 and 11,785 REGISTER/s, p99 452, 104 and 112 ms), and 5% steps never reached what it sustains.
CONFIRM_STEP_DOWN = 0.10
# ... or this much less when its p99 reached T1 (search.after_refusal).
RETRANSMITTED_P99_MS = 500.0
RETRANSMITTED_STEP_DOWN = 0.20
# Below the share a failed confirmation completed, this much lower again.
SHARE_MARGIN = 0.05


def steps_needed(plan: Plan) -> int:
    """Steps a search needs to find a limit anywhere from `start` to `max_rate` within `precision`: the
    growth to `max_rate`, one failure, then the bisections from a factor `growth` down to `precision`;
    a failing first step needs as many halvings as a limit at the other end would need growths."""
    grow = math.ceil(math.log(max(plan.max_rate, plan.start + 1) / plan.start) / math.log(plan.growth))
    bisect = math.ceil(math.log((plan.growth - 1) / plan.precision, 2)) if plan.growth - 1 > plan.precision else 0
    return grow + 1 + bisect


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
    def confirming(self) -> bool:
        """Whether the search confirmed its rate: then only a confirmed rate is a result."""
        return any(s.confirmation for s in self.steps)

    @property
    def best(self) -> Step | None:
        passing = [s for s in self.steps if s.passed and (s.confirmation or not self.confirming)]
        return max(passing, key=lambda s: s.rate) if passing else None

    @property
    def found(self) -> Step | None:
        """The highest passing step of the search proper, before any confirmation."""
        passing = [s for s in self.steps if s.passed and not s.confirmation]
        return max(passing, key=lambda s: s.rate) if passing else None

    @property
    def refused(self) -> list[Step]:
        """The confirmation steps that failed, in the order measured."""
        return [s for s in self.steps if s.confirmation and not s.passed]

    def best_within(self, p99_ms: float) -> Step | None:
        """The highest passing step whose p99 stayed within `p99_ms`: the capacity at a latency an
        operator accepts (a client retransmits at 500 ms; Kamailio's p99 at its limit is a few ms),
        beside the search's own bound. None when no passing step had so low a p99."""
        within = [s for s in self.steps if s.passed and (s.confirmation or not self.confirming)
                  and s.p99_ms is not None and s.p99_ms <= p99_ms]
        return max(within, key=lambda s: s.rate) if within else None

    @property
    def overload(self) -> Step | None:
        """The highest failed step above the best passing one: the deepest overload the search
        offered (None when no step failed above it)."""
        best = self.best
        above = [s for s in self.steps if not s.passed and not s.confirmation and (best is None or s.rate > best.rate)]
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
    passing = [s.rate for s in steps if s.passed and not s.confirmation]
    failing = [s.rate for s in steps if not s.passed and not s.confirmation]
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


def after_refusal(failed: Step, refusals: int = 1) -> int:
    """The rate the next confirmation offers after `failed`, the `refusals`-th failed confirmation in a row
    with none held yet: 10% lower, doubled after each further refusal (10, 20, 40%, half at most), so that a
    system whose p99 crosses its bound well below its short-step limit is reached within a few steps; 20%
    to begin with when its p99 reached T1, 500 ms: more than one request in a hundred was lost and
    retransmitted, far past a limit (the ceiling app completed 99% of 968 calls/s in 120 s with a p99 of
    3.5 s). Lower still where the failed step completed less, at the share it completed (5% below that),
    never below half its rate (a step that completed next to nothing tells that the system stalled, not
    what it sustains): a JVM whose collector falls behind only after half a minute (the ceiling app passed
    1,625 calls/s in 2 s steps and completed 59% in 120 s) is then confirmed near what it sustains."""
    late = failed.p99_ms is not None and failed.p99_ms >= RETRANSMITTED_P99_MS
    down = min(0.5, (RETRANSMITTED_STEP_DOWN if late else CONFIRM_STEP_DOWN) * 2 ** (max(1, refusals) - 1))
    stepped = math.floor(failed.rate * (1 - down))
    if failed.attempts <= 0:
        return stepped
    share = max(0.5, min(1.0, failed.counts.successful / failed.attempts))
    return min(stepped, math.floor(failed.rate * share * (1 - SHARE_MARGIN)))


def next_confirmation(plan: Plan, confirmations: list[Step]) -> int | None:
    """The rate of the next confirmation given those so far (None: done): the found rate first; with
    none held, below the last refusal (after_refusal); with one held and one failed above it, halfway
    between the highest held and the lowest failed, until they are within `precision`."""
    held = [s.rate for s in confirmations if s.passed]
    if not held:
        refusals = len(confirmations)
        return max(1, after_refusal(confirmations[-1], refusals)) if confirmations[-1].rate > 1 else None
    low = max(held)
    high = min((s.rate for s in confirmations if not s.passed and s.rate > low), default=None)
    if high is None or high - low <= plan.precision * low:
        return None
    middle = (low + high) // 2
    return middle if low < middle < high else None


def confirm(plan: Plan, found: int, measure: Callable[..., Step], between: Callable[[Step], None],
            more: Callable[[list[Step]], bool]) -> list[Step]:
    """The confirmations of a rate found (next_confirmation), `plan.confirmations` at most; `more(steps)`
    is asked before each after the first whether the run can afford it."""
    steps: list[Step] = []
    rate: int | None = found
    while rate is not None and len(steps) < plan.confirmations:
        if steps and not more(steps):
            break
        step = replace(measure(rate, plan.confirm_s), confirmation=True)
        steps.append(step)
        between(step)
        rate = next_confirmation(plan, steps)
    return steps


def run(plan: Plan, measure: Callable[..., Step],
        between: Callable[[Step], None] = lambda step: None,
        more: Callable[[list[Step]], bool] = lambda confirmations: True) -> Outcome:
    """Runs the search, then its confirmations; `measure(rate)` measures a step of the search,
    `measure(rate, seconds)` a confirmation of `plan.confirm_s`; `between` is called after each step
    (cool-down, logging); `more(confirmations)` before each confirmation after the first (a budget)."""
    outcome = Outcome()
    while (rate := next_rate(plan, outcome.steps)) is not None:
        step = measure(rate)
        outcome.steps.append(step)
        between(step)
        first_failure = not any(not s.passed for s in outcome.steps[:-1])
        if (not step.passed and (plan.confirm_failures or (plan.retry_first_failure and first_failure))
                and len(outcome.steps) < plan.max_steps):
            again = measure(rate)   # a repeat that passes makes the rate a pass (Outcome.best)
            outcome.steps.append(again)
            between(again)
    found = outcome.found
    if found is not None and plan.confirmations > 0:
        outcome.steps += confirm(plan, found.rate, measure, between, more)
    return outcome

"""The headline's hour (bench/run --profile headline, `--budget-minutes`): what each row of the plan is
estimated to cost, which rows a target that must be judged needs (required) and which only give a figure
of their own (optional), the order they run in, and, as the run goes, whether an optional row still fits
and whether a search can afford one more confirmation.

A row's estimate: its search's steps at most (each its length, 3 s for its last answers and half a
cool-down: about every other step fails), one confirmation (its length, 3 s and half a cool-down), its
warm-up and the rest after the search, its overload steps, and the start-up of its deployment when it is
its first required row (or its first row, when none is required: `STARTUP_S`). A required row always runs; an optional one runs when the time spent,
its estimate and the estimates of the required rows still to come fit in the budget, and otherwise is
recorded with the note `OVER_HOUR`. One more confirmation runs when the time spent, its cost, what is
left of its own row (its overload steps) and the required rows still to come fit.

Not thread-safe: one budget per run, used from the runner's thread.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from . import targets
from .experiments import FIRST, REFERENCES, Measurement, deployments
from .runner import TRANSACTIONS_END_S, Settings, plan_for

# A deployment's start-up (deploy/p2psip up until its nodes answer, warmed up): about a minute on a quiet
# machine, longer on a loaded one.
STARTUP_S = 75.0
# The note of a row the budget left out; a verdict that needs it reads "not judged: over the hour".
OVER_HOUR = targets.OVER_HOUR


def required(m: Measurement, overloaded: frozenset[Measurement], planned: list[Measurement]) -> bool:
    """Whether a target that must be judged needs the row: the references' (every ratio is to them), the
    overloaded deployments' clean rates, first registrations and the registrations they are judged
    against, and both figures of each registration target with a threshold (targets.TARGETS) whose
    figures the plan measures both. The other rows give a figure of one system, informative."""
    if m.system in REFERENCES or m in overloaded or m.workload == FIRST:
        return True
    if m.workload != "registration":
        return False
    return any(_is(m, figure) for target in targets.TARGETS if target.minimum is not None
               and all(any(_is(p, f) for p in planned) for f in (target.measured, target.against))
               for figure in (target.measured, target.against))


def _is(m: Measurement, figure: targets.Figure) -> bool:
    return (m.workload == "registration" and m.system == figure.system and m.nodes == figure.nodes
            and m.routing == figure.routing)


def order(measurements: list[Measurement], overloaded: frozenset[Measurement]) -> list[Measurement]:
    """The plan with the deployments that hold a required row first (in their order), then those that hold
    only optional ones, so that what must be judged is measured before the hour runs short."""
    groups = deployments(measurements)
    needed = [g for g in groups if any(required(m, overloaded, measurements) for m in g[2])]
    rest = [g for g in groups if g not in needed]
    return [m for _, _, group in needed + rest for m in group]


@dataclass(frozen=True)
class Row:
    measurement: Measurement
    search_s: float     # warm-up, search, one confirmation, the rest after it, its deployment's start-up
    overload_s: float   # its overload steps (0 when none follow it)
    required: bool

    @property
    def seconds(self) -> float:
        return self.search_s + self.overload_s


def overload_seconds(settings: Settings) -> float:
    """One deployment's overload steps: each a cool-down first, its length and a receive time-out."""
    return len(settings.overload_multiples) * (settings.overload_step_s + settings.timing.recv_timeout_ms / 1000
                                               + settings.cooldown_s)


def confirmation_seconds(settings: Settings, failed: bool = False) -> float:
    """One confirmation: its length, its last answers and half a cool-down; a failed one also its rest."""
    plan = settings.plan
    return plan.confirm_s + 3 + settings.cooldown_s / 2 + (TRANSACTIONS_END_S if failed else 0)


def search_seconds(m: Measurement, settings: Settings, confirmations: int) -> float:
    """A row's search at most, with `confirmations` confirmations of which all but the last fail."""
    plan = settings.plan
    step = settings.timing.step_s + 3 + settings.cooldown_s / 2
    return (plan_for(plan, m.system).max_steps * step
            + confirmations * confirmation_seconds(settings) + max(0, confirmations - 1) * TRANSACTIONS_END_S
            + settings.warmup_for(m.nodes, m.system, m.workload) + settings.cooldown_s)


def rows(measurements: list[Measurement], overloaded: frozenset[Measurement], settings: Settings,
         confirmations: int = 1) -> list[Row]:
    """Each row's estimate, in plan order, its deployment's start-up on its first row."""
    found = []
    for _, _, group in deployments(measurements):
        needed = [required(m, overloaded, measurements) for m in group]
        # the start-up goes with the row that surely starts the deployment: its first required one
        starter = needed.index(True) if any(needed) else 0
        for index, m in enumerate(group):
            found.append(Row(m, search_seconds(m, settings, confirmations) + (STARTUP_S if index == starter else 0.0),
                             overload_seconds(settings) if m in overloaded else 0.0, needed[index]))
    return found


class Budget:
    """The run's time against its budget (None: no budget, every row runs and every confirmation too)."""

    def __init__(self, seconds: float | None, planned: list[Row], settings: Settings,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.rows = {row.measurement: row for row in planned}
        self.settings = settings
        self.clock = clock
        self.began: float | None = None
        self.done: set[Measurement] = set()

    def start(self) -> None:
        self.began = self.clock()

    def elapsed(self) -> float:
        return 0.0 if self.began is None else self.clock() - self.began

    def _required_left(self, but: Measurement) -> float:
        return sum(row.seconds for m, row in self.rows.items() if row.required and m not in self.done and m != but)

    def fits(self, m: Measurement) -> bool:
        """Whether the row runs: a required one always; an optional one when it and the required rows
        still to come fit in what is left."""
        row = self.rows.get(m)
        if self.seconds is None or row is None or row.required:
            return True
        return self.elapsed() + row.seconds + self._required_left(m) <= self.seconds

    def why_not(self, m: Measurement) -> str:
        """The note of a row left out: OVER_HOUR and the arithmetic."""
        row = self.rows[m]
        return (f"{OVER_HOUR}: {self.elapsed() / 60:.0f} minutes spent, its estimate {row.seconds:.0f} s and the "
                f"required rows' {self._required_left(m):.0f} s would pass {self.seconds / 60:g} minutes")

    def affordable(self, m: Measurement) -> bool:
        """Whether the search of `m` may run one more confirmation (which may fail and rest), with the rest of
        its row (its overload steps) and the required rows still to come."""
        if self.seconds is None:
            return True
        row = self.rows.get(m)
        rest = row.overload_s if row else 0.0
        return (self.elapsed() + confirmation_seconds(self.settings, failed=True) + rest + self._required_left(m)
                <= self.seconds)

    def finished(self, m: Measurement) -> None:
        self.done.add(m)

    def plan_lines(self) -> list[str]:
        """The plan as printed at the start: each row, required or optional, its estimate, the running total."""
        total = 0.0
        lines = []
        for m, row in self.rows.items():
            total += row.seconds
            lines.append(f"  {m.label}: {'required' if row.required else 'optional'}, about {row.seconds:.0f} s"
                         + (f" (its overload steps {row.overload_s:.0f} s)" if row.overload_s else "")
                         + f", {total / 60:.0f} minutes in all")
        if self.seconds is not None:
            lines.append(f"  budget {self.seconds / 60:g} minutes: optional rows run while they and the required "
                         "rows left fit in it")
        return lines

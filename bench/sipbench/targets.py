"""The registration targets the report judges, each a ratio of two REGISTER/s figures of the same
run (two nodes keep one's rate, the disk costs little, a data grid costs little, the front costs
little), their verdicts, and what makes a verdict only indicative: a search too coarse to decide a
10-20% margin, steps too short to be sustained. The overload, auth and tcp experiments judge their
own targets in their own sections.

Immutable data and pure functions; safe to share.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import modes, search
from .experiments import ALL, CEILING, EXPERIMENTS, FRONT, METRICS, REFERENCES, SCRAPED, front_policy
from .summary import ratio, reference


@dataclass(frozen=True)
class Figure:
    """One registration measurement a target reads: a row of the summary (references: their mean)."""
    system: str
    nodes: int
    routing: str  # "spread", "one" or "front-POLICY", as in the summary
    label: str


@dataclass(frozen=True)
class Target:
    measured: Figure
    against: Figure
    asks: str  # what the target stands for, in a few words; "" for a ratio reported for information only
    minimum: float | None  # the ratio to reach; None: informative, no target
    says_if_ran_to_the_end: bool = False


def _one_node(system: str, label: str | None = None) -> Figure:
    return Figure(system, 1, "one", label or f"{system} 1 node")


def _spread(system: str, nodes: int, label: str = "") -> Figure:
    return Figure(system, nodes, "spread", f"{system} {nodes} nodes (spread{label})")


TARGETS = (
    Target(_spread("chord", 2, ", single server"), _one_node("chord"), "two nodes keep one's rate", 0.80),
    Target(_spread("chord", 4), _one_node("chord"), "", None, says_if_ran_to_the_end=True),
    Target(_spread("chord", 8), _one_node("chord"), "", None, says_if_ran_to_the_end=True),
    Target(_one_node("bamboo", "bamboo on disk, 1 node"), _one_node("bamboo-tmpfs", "bamboo on tmpfs, 1 node"),
           "the disk costs little", 0.70),
    Target(_spread("bamboo", 2), _one_node("bamboo"), "two nodes keep one's rate", 0.80),
    Target(_spread("bryan", 2), _one_node("bryan"), "two nodes keep one's rate", 0.80),
    Target(_one_node("hazelcast"), _one_node("memory", "memory backend 1 node"), "a data grid costs little", 0.90),
    Target(_spread("hazelcast", 2), _one_node("hazelcast"), "two nodes keep one's rate", 0.80),
    Target(_one_node("memory"), _one_node(CEILING, "container ceiling"), "", None),
)
FRONT_TARGET = 0.90  # through the front to one node, against the same node directly
# Notes of searches that produced no figure of their own (runner.py writes the first; a deployment
# that could not start is named so where it is recorded).
# The note of a figure the run's budget left out (bench/sipbench/budget.py).
OVER_HOUR = "over the hour"
# The note's start of a figure whose search found a rate no confirmation held (runner.search_note).
NOT_CONFIRMED = "not confirmed"
NOT_TO_THE_END = ("no step passed", "deployment failed")
# A search this fine or finer can decide the targets' 10-20% margins; full mode's default.
DECISIVE_PRECISION = 0.05


def front_targets(rows: list[dict]) -> list[Target]:
    """The front's cost: one target per backend and policy measured through the front with one node. When
    there is none, one for chord whose front figure no row matches, so that it says what to run."""
    measured = sorted({(row["system"], row["routing"]) for row in rows
                       if row["workload"] == "registration" and row["nodes"] == 1 and front_policy(row["routing"])})
    if not measured:
        measured = [("chord", FRONT)]  # "front" alone is no routing of the summary: never found
    return [Target(Figure(system, 1, routing, f"{system} 1 node through the front"
                          + (f" ({front_policy(routing)})" if front_policy(routing) else "")),
                   _one_node(system, f"{system} 1 node directly"), "the front costs little", FRONT_TARGET)
            for system, routing in measured]


METRICS_TARGET = 0.97  # one node with /metrics scraped every second, against the same node unscraped


def metrics_targets(rows: list[dict]) -> list[Target]:
    """The cost of being watched: one target per backend whose node was measured scraped; when there
    is none, one for chord, whose scraped figure no row matches, so that it says what to run."""
    measured = sorted({row["system"] for row in rows if row["workload"] == "registration" and row["routing"] == SCRAPED})
    return [Target(Figure(system, 1, SCRAPED, f"{system} 1 node, /metrics scraped every second"),
                   _one_node(system, f"{system} 1 node unscraped"), "scraping /metrics costs little", METRICS_TARGET)
            for system in measured or ["chord"]]


def figure_row(rows: list[dict], figure: Figure) -> dict | None:
    """The summary row of a figure; a reference's rate is the mean of its measurements, as elsewhere."""
    found = [row for row in rows if row["workload"] == "registration" and row["system"] == figure.system
             and row["nodes"] == figure.nodes and row["routing"] == figure.routing]
    if not found:
        return None
    if figure.system in REFERENCES:
        return {**found[0], "rate": reference(rows, "registration", figure.system) or 0}
    return found[0]


def ran_to_the_end(row: dict) -> bool:
    note = (row.get("note") or "").lower()
    return row["rate"] > 0 and not any(marker in note for marker in NOT_TO_THE_END)


def unconfirmed(row: dict) -> bool:
    """A figure with no rate because no confirmation held it or the run's budget left it out."""
    note = row.get("note") or ""
    return row["rate"] == 0 and note.startswith((NOT_CONFIRMED, OVER_HOUR))


def caveat_reasons(meta: dict[str, str]) -> list[str]:
    """Why a verdict of this run is only indicative: a search too coarse to decide a 10-20% margin,
    steps too short to be sustained rates; empty when neither."""
    reasons = []
    precision = modes.search_precision(meta)
    whose = "quick mode's" if meta.get("mode") == "quick" else "this run's"
    if precision is None:
        reasons.append("this run's search precision is not recorded")
    elif precision > DECISIVE_PRECISION:
        reasons.append(f"{whose} search precision is {precision:g}")
    seconds = modes.step_seconds(meta)
    if seconds is not None and not modes.sustained(meta):
        reasons.append(f"{whose} search steps of {seconds:g} s are shorter than {search.SUSTAINED_S:g} s: not sustained")
    return reasons


def caveat(meta: dict[str, str]) -> str:
    """What a verdict of this run is worth: nothing to add when its search could decide it."""
    reasons = caveat_reasons(meta)
    return f", indicative ({'; '.join(reasons)})" if reasons else ""


def experiment_of(figure: Figure) -> str:
    """The experiment that measures a figure (with one node, `register` measures "one" as well)."""
    if figure.routing.startswith(FRONT):
        return "register-front"
    if figure.routing == SCRAPED:
        return METRICS
    return "register" if figure.routing == "spread" or figure.nodes == 1 else "register-one"


def hint(target: Target, meta: dict[str, str]) -> str:
    """The bench/run options that measure both figures of a target in one run (the references come
    with every experiment)."""
    ours = [f for f in (target.measured, target.against) if f.system not in REFERENCES]
    names = {experiment_of(f) for f in ours}
    command = (f"bench/run --experiments {','.join(sorted(names, key=ALL.index))}"
               f" --backends {','.join(dict.fromkeys(f.system for f in ours))}"
               f" --nodes {','.join(str(n) for n in sorted({f.nodes for f in ours}))}")
    needs_front = "register-front" in names and meta.get("front", "").startswith("not available")
    return f"`{command}`" + (", with a deploy/p2psip whose `up` has --front" if needs_front else "")


def verdict(target: Target, measured: dict, against: dict, meta: dict[str, str]) -> str:
    if target.minimum is None:
        words = "informative"
        if target.says_if_ran_to_the_end:
            words += "; its search " + ("ran to the end" if ran_to_the_end(measured) else "did not run to the end")
    elif against["rate"] == 0 or unconfirmed(measured):
        # a figure its search found but no 120 s step held, or one the budget left out, says nothing
        # of the system's limit: judging its ratio would read "not met" from a rate never measured
        why = [f"{f.label}: {row.get('note') or 'passed no step'}"
               for f, row in ((target.measured, measured), (target.against, against))
               if row["rate"] == 0 and (f is target.against or unconfirmed(row))]
        return "not judged: " + "; ".join(why)
    else:
        words = ("met" if measured["rate"] >= target.minimum * against["rate"] else "not met") + caveat(meta)
    notes = [f"{f.label}: {row['note']}" for f, row in ((target.measured, measured), (target.against, against))
             if row.get("note")]
    return words + (f" ({'; '.join(notes)})" if notes else "")


def target_line(rows: list[dict], target: Target, meta: dict[str, str]) -> str:
    compared = f"{target.measured.label} / {target.against.label}"
    goal = f">= {target.minimum:.2f}" if target.minimum is not None else "none"
    measured, against = figure_row(rows, target.measured), figure_row(rows, target.against)
    if measured is None or against is None:
        return (f"| {compared} | {target.asks or '-'} | not measured in this run "
                f"(needs: {hint(target, meta)}) | - | {goal} | - |")
    return (f"| {compared} | {target.asks or '-'} | {measured['rate']:,} / {against['rate']:,} "
            f"| {ratio(measured['rate'], against['rate'])} | {goal} | {verdict(target, measured, against, meta)} |")


def targets_section(rows: list[dict], meta: dict[str, str]) -> list[str]:
    precision = modes.search_precision(meta)
    lines = ["## Targets", "",
             "Each target compares two REGISTER/s figures of this run, measured minutes apart on the same "
             "machine. On a shared 2-core machine absolute rates move from run to run, so only ratios within "
             "one run count. Each figure is the highest rate its search passed: the true limit lies above it "
             "by up to the search's precision "
             + (f"(this run: {precision:g})" if precision is not None else "(not recorded for this run)")
             + ", so a ratio moves by as much either way, and a verdict on a 10-20% margin is only indicative "
             f"when the precision is coarser than {DECISIVE_PRECISION:g}. Informative rows have no target.", "",
             "| compared | asks | REGISTER/s | ratio | target | verdict |", "|---|---|---|---|---|---|"]
    lines += [target_line(rows, target, meta) for target in TARGETS + tuple(front_targets(rows)) + tuple(metrics_targets(rows))]
    return lines + [""]


# The capacity experiment's targets (capacityreport.py): a deployment holding its users keeps answering
# refreshes and calls promptly through a node's crash and restart, loses no record and adds no binding,
# holds a binding (its replicas included) in at most half what Kamailio holds a contact in, and refreshes
# at least 0.8 as fast as it takes first registrations.
CAPACITY_P99_MS = 200.0
CAPACITY_LOST = 0
CAPACITY_DUPLICATES = 0
CAPACITY_MEMORY_SHARE = 0.5
# The heap's growth over the load is judged only when at least this share of the heap held before it:
# below, the nodes' own live objects (their warm-up's records expiring, caches) move it as much.
CAPACITY_MEMORY_SIGNAL = 0.10
CAPACITY_REFRESH_OVER_FIRST = 0.8


@dataclass(frozen=True)
class Judged:
    """One capacity target of one deployment: what it asks, the figure, the bound, and whether it holds
    (None: it cannot be judged, `why` says why)."""
    asks: str
    measured: str
    bound: str
    holds: bool | None
    why: str = ""


def _number(row: dict, key: str) -> float | None:
    value = (row or {}).get(key, "")
    try:
        return float(value) if value not in ("", None) else None
    except ValueError:
        return None


def capacity_targets(row: dict, kamailio: dict | None) -> list[Judged]:
    """The capacity targets of one backend's row of capacity.csv, Kamailio's row beside it."""
    judged = []
    for key, what in (("refresh_p99_ms", "refreshes' p99 through the steady state"),
                      ("call_p99_ms", "calls' p99 (INVITE to 200) through the steady state")):
        value = _number(row, key)
        judged.append(Judged(what, "-" if value is None else f"{value:.0f} ms", f"< {CAPACITY_P99_MS:.0f} ms",
                             None if value is None else value < CAPACITY_P99_MS,
                             "" if value is not None else "not measured"))
    for key, bound, what in (("lost", CAPACITY_LOST, "records lost (users with no binding after)"),
                             ("duplicates", CAPACITY_DUPLICATES, "users with more than one binding after")):
        value = _number(row, key)
        unanswered = _number(row, "unanswered") or 0
        holds = None if value is None else (value <= bound and (key != "lost" or unanswered == 0))
        why = "not measured" if value is None else (f"{unanswered:.0f} users' queries never answered 200"
                                                     if key == "lost" and unanswered else "")
        judged.append(Judged(what, "-" if value is None else f"{value:.0f}", f"= {bound}", holds, why))
    ours, theirs = _number(row, "heap_per_binding_b"), _number(kamailio, "heap_per_binding_b")
    before, after = _number(row, "heap_before_kib"), _number(row, "heap_after_kib")
    grew = before is not None and after is not None and after - before >= CAPACITY_MEMORY_SIGNAL * before
    measured = ours is not None and ours > 0 and bool(theirs) and theirs > 0 and grew
    why = ("" if measured else "not measured (ours or Kamailio's)" if ours is None or theirs is None
           else f"the heap grew {((after or 0) - (before or 0)) / 1024:,.1f} MiB over the load, less than "
                f"{CAPACITY_MEMORY_SIGNAL:.0%} of the {(before or 0) / 1024:,.1f} MiB the nodes held before it: within "
                "the noise of their own live objects (too few users)")
    judged.append(Judged("memory per binding (heap, replicas included) / Kamailio's per contact (shared memory)",
                         "-" if ours is None or not theirs else f"{ours:,.0f} B / {theirs:,.0f} B = {ours / theirs:.2f}",
                         f"<= {CAPACITY_MEMORY_SHARE:.2f}", ours <= CAPACITY_MEMORY_SHARE * theirs if measured else None,
                         why))
    refresh, first = _number(row, "refresh_rate"), _number(row, "first_rate")
    judged.append(Judged("refresh rate / first-registration rate, same deployment",
                         "-" if refresh is None or not first else f"{refresh:,.0f} / {first:,.0f} = {refresh / first:.2f}",
                         f">= {CAPACITY_REFRESH_OVER_FIRST:.2f}",
                         None if refresh is None or not first else refresh >= CAPACITY_REFRESH_OVER_FIRST * first,
                         "" if refresh is not None and first else "not measured (or its search passed no step)"))
    return judged

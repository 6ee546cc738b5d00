"""The headline profile's summary (bench/run --profile headline): one line per target of a finished run,
`headline: TARGET | FIGURE | VERDICT | RUN FOLDER`, printed at its end and kept as headline.txt.

Its targets: each system's REGISTER/s and calls/s at one node (figures: informative once confirmed);
the registration targets of targets.py whose two figures the run measured (two and four Chord nodes
against one, a data grid against the memory backend, ...); refreshes against first registrations on
the same node (>= 0.8, as the capacity experiment's): the registrations round the deployment's pool of
AORs, refreshes after its first pass (sipp.REGISTRATION_POOL), against REGISTERs of AORs never used
before; and the overload verdict of each deployment
overloaded (overloadreport.py). A verdict reads "met", "not met", "informative" or "not judged: <why>" ("not
judged: over the hour" for a row the run's budget left out, budget.py); the report's table also says what
each target's searches or overload steps took;
none is given from a run whose settings fall short of the documented ones (modes.differences).

Pure functions of a run's summary rows, overload steps and run.tsv; safe to share.
"""
from __future__ import annotations

from pathlib import Path

from . import modes, overloadreport, targets
from .experiments import CEILING, FIRST, KAMAILIO, REFERENCES, WORKLOADS
from .overload import OverloadStep
from .budget import OVER_HOUR
from .summary import UNITS, reference

# Refreshes update a binding where a first registration creates one: they should cost no more.
REFRESH_OVER_FIRST = targets.CAPACITY_REFRESH_OVER_FIRST


def _row(rows: list[dict], workload: str, system: str, nodes: int, routing: str) -> dict | None:
    return next((r for r in rows if r["workload"] == workload and r["system"] == system and r["nodes"] == nodes
                 and r["routing"] == routing and str(r.get("round", "1")) == "1"), None)


def _unjudged(row: dict | None, label: str) -> str:
    """Why a figure cannot be judged, "" when it can."""
    if row is None:
        return f"{label} not measured"
    if (row.get("note") or "").startswith(OVER_HOUR):
        return OVER_HOUR   # the budget left it out (budget.Budget.why_not, in summary.csv)
    if row["rate"] <= 0:
        return f"{label}: {row.get('note') or 'no step passed'}"
    return ""


def _minutes(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds / 60:.1f} min"


def _cost(row: dict) -> str:
    """What a row's search cost (summary.csv's seconds: warm-up, search, confirmations); "-" when a run did
    not record it."""
    text = row.get("seconds") or ""
    return _minutes(float(text)) if text else "-"


def figure_lines(rows: list[dict], differ: list[str]) -> list[tuple[str, str, str, str]]:
    """(target, figure, verdict, time) of each system's rate at one node, references first."""
    systems = list(dict.fromkeys([*REFERENCES, *(r["system"] for r in rows if r["system"] not in REFERENCES)]))
    found = []
    for system in systems:
        for workload in (*WORKLOADS, FIRST):
            row = _row(rows, workload, system, 1, "one")
            if row is None:
                continue
            unit = UNITS[workload]
            what = "first registrations" if workload == FIRST else unit
            target = f"{system} 1 node, {what}"
            figure = f"{row['rate']:,} {unit}"
            if system not in REFERENCES and row["rate"] > 0 and workload != FIRST:
                ratios = [f"{row['rate'] / ref:.2f} of {name}" for name, ref in
                          (("the ceiling", reference(rows, workload, CEILING)),
                           ("Kamailio", reference(rows, workload, KAMAILIO))) if ref]
                figure += f" ({', '.join(ratios)})" if ratios else ""
            why = _unjudged(row, target) or ("settings differ (" + "; ".join(differ) + ")" if differ else "")
            found.append((target, figure, f"not judged: {why}" if why else "informative", _cost(row)))
    return found


def ratio_lines(rows: list[dict], differ: list[str]) -> list[tuple[str, str, str, str]]:
    """(target, figure, verdict, time) of each registration target of targets.py whose figures were both
    measured, and of refreshes against first registrations; their time is their figures' own lines'."""
    found = []
    for target in targets.TARGETS:
        measured, against = targets.figure_row(rows, target.measured), targets.figure_row(rows, target.against)
        if measured is None or against is None:
            continue
        name = f"{target.measured.label} / {target.against.label}" + (
            f" >= {target.minimum:.2f}" if target.minimum is not None else "")
        figure = f"{measured['rate']:,} / {against['rate']:,}" + (
            f" = {measured['rate'] / against['rate']:.2f}" if against["rate"] else "")
        found.append((name, figure, _verdict(measured, against, target.minimum, differ,
                                             target.measured.label, target.against.label), "-"))
    for system in sorted({r["system"] for r in rows if r["workload"] == FIRST and r["system"] not in REFERENCES}):
        refresh, first = _row(rows, "registration", system, 1, "one"), _row(rows, FIRST, system, 1, "one")
        if refresh is None or first is None:
            continue
        name = f"{system} 1 node refreshes (REGISTER/s round the pool) / first registrations >= {REFRESH_OVER_FIRST:.2f}"
        figure = f"{refresh['rate']:,} / {first['rate']:,}" + (
            f" = {refresh['rate'] / first['rate']:.2f}" if first["rate"] else "")
        found.append((name, figure, _verdict(refresh, first, REFRESH_OVER_FIRST, differ, "refreshes",
                                             "first registrations"), "-"))
    return found


def _verdict(measured: dict, against: dict, minimum: float | None, differ: list[str], measured_label: str,
             against_label: str) -> str:
    why = list(dict.fromkeys(w for w in (_unjudged(measured, measured_label), _unjudged(against, against_label)) if w))
    if differ:
        why.append("settings differ (" + "; ".join(differ) + ")")
    if why:
        return "not judged: " + "; ".join(why)
    if minimum is None:
        return "informative"
    return "met" if measured["rate"] >= minimum * against["rate"] else "not met"


def overload_lines(steps: list[OverloadStep], meta: dict[str, str], planned: list[str]) -> list[tuple[str, str, str, str]]:
    """(target, figure, verdict, time) of each deployment the overload experiment was to measure; its time is
    its steps' length."""
    groups = overloadreport.by_deployment(steps)
    differ = modes.differences(meta)
    goal = " and ".join(f"{minimum:g} at {m:g}x" for m, minimum in overloadreport.TARGETS)
    found = []
    for name in list(dict.fromkeys([*planned, *groups])):
        group = groups.get(name)
        target = f"{name} overload goodput / clean rate >= {goal}"
        if not group:
            found.append((target, "-", "not judged: no clean rate (no rate of its search passed or was confirmed)", "-"))
            continue
        figure = ", ".join(f"{overloadreport.target_cell(group, m, minimum)} at {m:g}x"
                           for m, minimum in overloadreport.TARGETS) + f" of {group[0].clean_rate:,}/s"
        found.append((target, figure, overloadreport.verdict(group, differ), _minutes(sum(s.seconds for s in group))))
    return found


def verdicts(rows: list[dict], steps: list[OverloadStep], meta: dict[str, str]) -> list[tuple[str, str, str, str]]:
    """(target, figure, verdict, time) of every target of the run."""
    differ = modes.differences(meta, modes.SEARCH_SETTINGS)
    planned = [name for name in meta.get("overload", "").split("; ") if name]
    return figure_lines(rows, differ) + ratio_lines(rows, differ) + overload_lines(steps, meta, planned)


def lines(rows: list[dict], steps: list[OverloadStep], meta: dict[str, str], out: Path) -> list[str]:
    """`headline: TARGET | FIGURE | VERDICT | RUN FOLDER`, one per target."""
    return [f"headline: {target} | {figure} | {verdict} | {out}" for target, figure, verdict, _ in
            verdicts(rows, steps, meta)]


def table(rows: list[dict], steps: list[OverloadStep], meta: dict[str, str]) -> list[str]:
    """The same targets as a Markdown table, with what each cost: the head of a headline run's report, and of
    bench/README.md for the example run."""
    return ["| target | figure | time | verdict |", "|---|---|---|---|"] + [
        f"| {target} | {figure} | {time} | {verdict} |" for target, figure, verdict, time in verdicts(rows, steps, meta)]

"""report.md and one PNG per figure, from a run's summary.csv (so a report can be rebuilt later).

Each of our figures is given as a ratio to both references measured in the same run: the
container's ceiling (a trivial servlet in the same container) and Kamailio. Ratios compare
across machines and days; absolute rates on a shared machine do not.

This module puts the report together: how to read it, the references and the results (tables.py),
the targets (targets.py), the sections of the overload, auth, tcp, capacity, state and scale experiments
(their own modules), the paper's numbers and the machine; the figures (plots.py and those same modules).

Pure functions of their inputs apart from writing files; safe to call from one thread at a time.
"""
from __future__ import annotations

from pathlib import Path

from . import (authreport, capacityreport, faultreport, headline, modes, network, overload, overloadreport, paper, plots,
               scalereport, search, statereport, tables, targets, tcpreport)
from .experiments import EXPERIMENTS


def latency_rule(meta: dict[str, str]) -> str:
    """The run's p99 bounds in words; runs from before the bound existed had none, runs from before
    calls had their own shared REGISTER's."""
    bound = meta.get("max_p99_ms", "none")
    if bound == "none":
        return (" (no latency bound: a p99 of seconds and many retransmissions at the best rate mean the "
                "server was queueing at its limit)")
    calls = meta.get("max_call_p99_ms", "")
    if calls and calls != bound:
        return (f" and the p99 response time stayed under {bound} ms for REGISTER, {calls} ms for calls "
                "(a server that queues fails)")
    return f" and the p99 response time stayed under {bound} ms (a server that queues fails)"


def success_rule(meta: dict[str, str]) -> str:
    """Which share of the attempts a passing step completed: every one since runs record it, 99.9% before."""
    share = float(meta.get("min_success") or 0.999)
    return "every attempt" if share >= 1 else f"at least {share:.1%} of the attempts"


def confirmation_note(meta: dict[str, str]) -> str:
    """The report's sentence on whether each rate was confirmed in a sustained step."""
    confirmations = int(meta.get("confirmations") or 0)
    if confirmations <= 0:
        return "No rate was confirmed in a sustained step: each is the best of the search's own steps."
    return (f"Each rate was then confirmed in one step of {meta.get('confirm_s', '')} s (5% lower after a failed "
            f"confirmation, {confirmations} at most); a rate no confirmation held is no result.")


def indicative_note(meta: dict[str, str]) -> list[str]:
    """Why this run's figures are only indicative, when they are: a quick run, or settings short of the
    documented ones (an older run recorded none)."""
    differ = modes.differences(meta, modes.SEARCH_SETTINGS)
    if not differ and meta.get("mode") != "quick":
        return []
    mode = meta.get("mode", "")
    if not meta.get("precision"):
        text = (f"**Indicative figures.** This is an older {mode} run, from before the bench recorded its settings "
                "and confirmed its rates: its searches were coarser and did not confirm their rates in sustained "
                "steps, so its figures and ratios are indicative, not the limits the bench decides today.")
    else:
        unconfirmed = int(meta.get("confirmations") or 0) <= 0
        text = (f"**Indicative figures.** This is a {mode} run"
                + (": its searches did not confirm their rates in sustained steps" if unconfirmed else "")
                + ", so its figures and ratios are indicative, not decided limits.")
    if differ:
        text += " Settings short of the documented ones: " + "; ".join(differ) + "."
    return [text, ""]


def sustained_note(meta: dict[str, str]) -> str:
    """The report's sentence on how long each step held its rate."""
    seconds = modes.step_seconds(meta)
    if seconds is None:
        return "This run's step length is not recorded."
    confirmed = modes.confirmed_s(meta)
    if seconds < search.SUSTAINED_S and modes.sustained(meta):
        return (f"This run's search steps last {seconds:g} s; each rate was then held {confirmed:g} s in its "
                "confirmation: the limits are sustained rates.")
    if seconds < search.SUSTAINED_S:
        return (f"This run's steps last {seconds:g} s, shorter than the {search.SUSTAINED_S:g} s a rate must be held "
                "to count as sustained (past Timer J, with the heap in its steady state): its limits are not "
                "sustained rates.")
    return f"Each step held its rate {seconds:g} s: the limits are sustained rates."


def write_report(out: Path, rows: list[dict], machine: dict[str, str], meta: dict[str, str]) -> Path:
    steps = overload.read_steps(out / overload.STEPS_CSV)
    avalanches = overload.read_avalanches(out / overload.AVALANCHE_CSV)
    planned = [name for name in meta.get("overload", "").split("; ") if name]
    caveats = targets.caveat_reasons(meta)
    lines = (heading(meta) + headline_section(rows, steps, meta) + references(rows) + targets.targets_section(rows, meta)
             + judged_in_their_sections(rows, bool(steps or meta.get("overload"))) + results(rows, meta)
             + overloadreport.section(steps, avalanches, modes.differences(meta), planned)
             + authreport.section(rows, caveats, meta.get("auth_algorithm", ""))
             + tcpreport.section(out, caveats) + capacityreport.section(out, meta)
             + statereport.section(out, rows, meta, caveats) + scalereport.section(rows, meta, machine)
             + faultreport.section(out, meta) + closing(machine))
    authreport.write_csv(out, rows)
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path


def heading(meta: dict[str, str]) -> list[str]:
    """The run (date, commit, mode, network, how to run it again) and how to read its figures."""
    return [f"# P2PSIP benchmark, {meta.get('date', '')}, commit {meta.get('commit', '')}", "",
            f"Mode: {meta.get('mode', '')}. Network: {meta.get('network', '')}. "
            f"Front policies: {meta.get('front', 'not recorded')}.", "",
            "Re-run with:", "", f"    {meta.get('command', '')}", ""] + indicative_note(meta) + [
            "## How to read it",
            f"Each rate is the highest offered rate at which {success_rule(meta)} completed with the "
            "expected final response, no call ended on a retransmission timeout"
            + latency_rule(meta) + " (bench/README.md). " + sustained_note(meta) + " "
            + confirmation_note(meta) + " "
            "The machine may be shared: compare the ratios to the references measured in this same run, "
            "not the absolute rates. The column \"the paper's\" gives the original evaluation's figure for the "
            "same backend, nodes and configuration (NGMAST 2007, dual 3.06 GHz Xeon servers, SIPp on its own "
            "machine; \"-\": not measured there): other hardware, to read for how a figure holds or falls as "
            "nodes are added, not as a rate to beat.", ""]


def headline_section(rows: list[dict], steps: list, meta: dict[str, str]) -> list[str]:
    """A headline run's targets and verdicts, first (headline.txt has the same as lines for scripts)."""
    if meta.get("mode") != "headline":
        return []
    return ["## Headline targets", ""] + headline.table(rows, steps, meta) + [""]


def references(rows: list[dict]) -> list[str]:
    """The references' table, and what limits or moved a reference's figure."""
    lines = ["## References (same run, same machine)", ""] + tables.references_table(rows) + [""]
    limited = tables.generator_limited(rows)
    if limited:
        lines += limited + [""]
    moved = tables.drift(rows)
    if moved:
        lines += ["Ratios use the mean of each reference's measurements."] + moved + [""]
    return lines


def judged_in_their_sections(rows: list[dict], overload_measured: bool) -> list[str]:
    """Where the targets of the overload, auth and scale experiments are judged, when the run has them."""
    lines = []
    if overload_measured:
        lines += ["The overload targets (goodput at 2x and 3x each deployment's clean rate) are judged per "
                  "deployment in the section Overload.", ""]
    if authreport.systems(rows):
        lines += ["The authentication targets (first registrations and refreshes against the same deployment's "
                  "plain registrations) are judged in the section Authentication.", ""]
    if scalereport.systems(rows):
        lines += ["The scale targets (N small hosts against one, efficiency >= 0.8) are judged in the section "
                  "Scale.", ""]
    return lines


def results(rows: list[dict], meta: dict[str, str]) -> list[str]:
    """One table per experiment of registration and calls, then Table 2."""
    lines = ["## Results", ""]
    for name in EXPERIMENTS:
        lines += tables.experiment_table(rows, name)
    recorded = meta.get("network", "")
    return lines + tables.table2(rows, network.is_loopback(recorded) if recorded else None)


def closing(machine: dict[str, str]) -> list[str]:
    """The paper's numbers, the machine, and the run's files."""
    return ["## The paper's numbers (NGMAST 2007, other hardware)", "",
            "One node, registration: " + ", ".join(f"{k} {v:,}/s" for k, v in paper.ONE_NODE_REGISTRATION.items())
            + ". Calls: Bamboo 300-350 calls/s distributed, 700+ calls/s load-balanced (abstract).", "",
            "## Machine", ""] + [f"- {k}: {v}" for k, v in machine.items()] + [
            "", "## Files", "", "- `summary.csv`: one row per measurement (the best passing step).",
            "- `steps.csv`: every step of every rate search, passed or not, with the reason.",
            "- `*.png`: one plot per figure.",
            "- `overload.csv`, `avalanche.csv`: every overload step and every avalanche, when measured.",
            "- `auth.csv`: the auth experiment's rates and ratios per deployment, when measured.",
            "- `tcp-rate.csv`, `tcp-idle.csv`, `tcp-steps.csv`: the tcp experiment's results, when measured.",
            "- `capacity.csv`, `capacity-nodes.csv`: the capacity experiment's deployments and their processes' "
            "memory, when measured.",
            "- `state-samples.csv`: the front's share of calls kept statefully through the state experiment's "
            "dynamic searches, when measured.",
            "- `faults.csv`, `fault-kinds.csv`: the faults experiment's runs and each kind of fault in them, when "
            "measured.", ""]


def write_plots(out: Path, rows: list[dict]) -> list[Path]:
    """The figures of the registration and call experiments, then those of the others measured."""
    plotted = overloadreport.write_plot(out, overload.read_steps(out / overload.STEPS_CSV))
    costs = authreport.write_plot(out, rows)
    connections = tcpreport.write_plot(out)
    split = statereport.write_plot(out, rows)
    scaling = scalereport.write_plot(out, rows)
    return plots.write(out, rows) + [path for path in (plotted, costs, connections, split, scaling) if path]

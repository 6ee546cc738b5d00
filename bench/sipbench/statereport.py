"""The `state` experiment's part of the report: what keeping call state at the front is worth, after
SERvartuka (paper.py). Each backend's two nodes behind one front policy, the front in each mode of
`deploy/p2psip up --front-state`: stateless (the nodes keep every call's transactions), stateful (the
front does; a node answers a 302 with the contacts) and dynamic (the front moves the share it keeps by
its own and the nodes' load); each a call search of the bench's usual kind (summary.csv's rows with
routing state-MODE-POLICY). Through the dynamic search the front's /metrics is sampled once a second
(`p2psip_front_state_fraction`, with the rate offered then): state-samples.csv and the figure.

The targets: pinned (`bench/run --state-cpus`, the front and the nodes on cores of their own) dynamic
>= 1.15 x the better static mode, the paper's gain; unpinned (everything shares every core) dynamic >=
1.15 x stateless and never below 0.95 x the better static mode.

Pure functions of their inputs, apart from reading and writing the run's files; safe from one thread
at a time.
"""
from __future__ import annotations

import csv
from pathlib import Path

from . import paper, plots, scraper
from .experiments import STATE_MODES, front_of, state_mode

STATELESS, STATEFUL, DYNAMIC = STATE_MODES
SAMPLES_CSV = "state-samples.csv"
SAMPLE_FIELDS = ["system", "nodes", "routing", "t_s", "offered_rate", "fraction", "stateful_calls"]
PLOT = "state.png"
GAIN = 1.15         # dynamic over the better static mode (pinned), or over stateless (unpinned)
NEVER_BELOW = 0.95  # unpinned: dynamic over the better static mode


def state_sample(metrics: str, offered_rate: int) -> dict:
    """What one scrape of the front's /metrics during the dynamic search says, with the rate offered then."""
    fraction = scraper.state_fraction_in(metrics)
    calls = scraper.stateful_calls_in(metrics)
    return {"offered_rate": offered_rate, "fraction": "" if fraction is None else f"{fraction:.4f}",
            "stateful_calls": "" if calls is None else calls}


def append_samples(out: Path, system: str, nodes: int, routing: str, samples: list[dict]) -> None:
    """One search's samples added to state-samples.csv."""
    path = out / SAMPLES_CSV
    new = not path.exists()
    with open(path, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=SAMPLE_FIELDS)
        if new:
            writer.writeheader()
        for sample in samples:
            writer.writerow({"system": system, "nodes": nodes, "routing": routing, **sample})


def read_samples(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def fraction_series(samples: list[dict]) -> dict[str, dict[str, list[float]]]:
    """The figure's data: per backend, the seconds, the front's fraction and the rate offered at each
    sample that had a fraction (a scrape that failed or a front that did not say has none)."""
    out: dict[str, dict[str, list[float]]] = {}
    for sample in samples:
        if sample.get("fraction") in (None, ""):
            continue
        series = out.setdefault(sample["system"], {"t_s": [], "fraction": [], "offered_rate": []})
        series["t_s"].append(float(sample["t_s"]))
        series["fraction"].append(float(sample["fraction"]))
        series["offered_rate"].append(float(sample["offered_rate"] or 0))
    return out


def rate(rows: list[dict], system: str, mode: str) -> int | None:
    """A backend's calls/s with the front in `mode`: its search's best rate; None when it has none
    or it passed no step."""
    rates = [int(row["rate"]) for row in rows
             if row["system"] == system and row["workload"] == "call" and state_mode(row["routing"]) == mode]
    rates = [r for r in rates if r > 0]
    return max(rates) if rates else None


def systems(rows: list[dict]) -> list[str]:
    """The backends the run measured in any state mode, in the order first seen."""
    return list(dict.fromkeys(row["system"] for row in rows if state_mode(row["routing"])))


def policy(rows: list[dict], system: str) -> str:
    return next((front_of(row["routing"]) for row in rows if row["system"] == system and state_mode(row["routing"])),
                "")


def ratio(value: int | None, against: int | None) -> float | None:
    return value / against if value is not None and against else None


def figures(rows: list[dict], system: str) -> dict:
    """One backend's rates per mode, the better static mode and the two ratios of dynamic."""
    rates = {mode: rate(rows, system, mode) for mode in STATE_MODES}
    statics = [r for r in (rates[STATELESS], rates[STATEFUL]) if r is not None]
    best_static = max(statics) if len(statics) == 2 else None   # both measured, or it is not "the better"
    return {**rates, "best_static": best_static, "over_best_static": ratio(rates[DYNAMIC], best_static),
            "over_stateless": ratio(rates[DYNAMIC], rates[STATELESS])}


def targets(pinned: bool) -> list[tuple[str, str, float]]:
    """(what is compared, the ratio's key in `figures`, its bound) for a pinned or an unpinned run."""
    if pinned:
        return [("dynamic >= 1.15 x the better static mode", "over_best_static", GAIN)]
    return [("dynamic >= 1.15 x stateless", "over_stateless", GAIN),
            ("dynamic >= 0.95 x the better static mode", "over_best_static", NEVER_BELOW)]


def verdict(value: float | None, bound: float, caveats: list[str]) -> str:
    if value is None:
        return "not judged: a search it needs passed no step or did not run"
    words = "met" if value >= bound else "not met"
    return words + (f", indicative ({'; '.join(caveats)})" if caveats else "")


def section(out: Path, rows: list[dict], meta: dict[str, str], caveats: list[str]) -> list[str]:
    """The report's section; empty when the run had no state search."""
    measured = systems(rows)
    if not measured:
        return []
    pinning = meta.get("state_cpus", "")
    pinned = bool(pinning)
    where = (f"pinned: `deploy/p2psip up --cpus {pinning}` (SIPp and the bench unpinned)" if pinned
             else "unpinned: the front, the nodes and SIPp share every core")
    lines = ["## State split (experiment state)", "",
             "Calls per second of two nodes behind the front, the front **stateless** (the nodes keep every "
             "call's transactions), **stateful** (the front keeps them; a node answers a 302 with the contacts) "
             "and **dynamic** (the front moves the share of new calls it keeps by its own and the nodes' load), "
             f"each a call search of its own deployment (`deploy/p2psip up --front-state MODE`). This run: {where}. "
             f"{_paper_line()}", "",
             "| backend | policy | stateless | stateful | dynamic | better static | dynamic / better static "
             "| dynamic / stateless |", "|---|---|---|---|---|---|---|---|"]
    for system in measured:
        f = figures(rows, system)
        lines.append(f"| {system} 2 nodes | {policy(rows, system)} | {_rate(f[STATELESS])} | {_rate(f[STATEFUL])} "
                     f"| {_rate(f[DYNAMIC])} | {_rate(f['best_static'])} | {_ratio(f['over_best_static'])} "
                     f"| {_ratio(f['over_stateless'])} |")
    lines += ["", "### Targets (" + ("pinned" if pinned else "unpinned") + ")", "",
              "| backend | target | ratio | verdict |", "|---|---|---|---|"]
    for system in measured:
        f = figures(rows, system)
        for words, key, bound in targets(pinned):
            lines.append(f"| {system} 2 nodes | {words} | {_ratio(f[key])} | {verdict(f[key], bound, caveats)} |")
    lines += ["", "The other run's targets (" + ("unpinned" if pinned else "pinned, `bench/run --state-cpus "
              "front=0,nodes=1`") + ") need that run: the two are measured apart.", "",
              "### Every search", "", "| backend | mode | calls/s | p99 <= 100 ms | p50 ms | p99 ms | note |",
              "|---|---|---|---|---|---|---|"]
    for system in measured:
        for row in sorted((r for r in rows if r["system"] == system and state_mode(r["routing"])),
                          key=lambda r: STATE_MODES.index(state_mode(r["routing"]))):
            lines.append(f"| {system} 2 nodes | {state_mode(row['routing'])} | {int(row['rate']):,} "
                         f"| {_plain(row.get('rate_p99_100ms'))} | {_plain(row.get('p50_ms'))} "
                         f"| {_plain(row.get('p99_ms'))} | {row.get('note', '')} |")
    lines += ["", "### The front's share through the dynamic search", ""] + samples_lines(read_samples(out / SAMPLES_CSV))
    return lines + ["", f"![state split]({PLOT})", "",
                    f"`{SAMPLES_CSV}`: every sample of the dynamic searches (seconds since the search's start, the "
                    "rate offered then, 0 between steps; the front's fraction and its stateful calls so far).", ""]


def samples_lines(samples: list[dict]) -> list[str]:
    data = fraction_series(samples)
    if not data:
        return ["No sample with a fraction: the front's /metrics had no `p2psip_front_state_fraction` "
                "(a front without state modes) or was not reached."]
    lines = ["| backend | samples | fraction min | mean | last | under load: mean |", "|---|---|---|---|---|---|"]
    for system, series in data.items():
        fractions = series["fraction"]
        loaded = [f for f, r in zip(fractions, series["offered_rate"]) if r > 0]
        lines.append(f"| {system} | {len(fractions)} | {min(fractions):.2f} | {sum(fractions) / len(fractions):.2f} "
                     f"| {fractions[-1]:.2f} | {(sum(loaded) / len(loaded)) if loaded else float('nan'):.2f} |")
    return lines


def _paper_line() -> str:
    one, series = paper.SERVARTUKA_ONE_SERVER, paper.SERVARTUKA_TWO_IN_SERIES
    return (f"The paper's ({paper.SERVARTUKA_TITLE}, OpenSER, other hardware): one server {one['stateful']:,} "
            f"calls/s stateful, {one['stateless']:,} stateless; two servers in series {series['static']:,} static, "
            f"{series['dynamic']:,} dynamic (+{paper.SERVARTUKA_DYNAMIC_GAIN:.0%}), the optimum keeping state for "
            f"about {paper.SERVARTUKA_OPTIMUM_SHARE:.0%} of the calls at each server.")


def _rate(value: int | None) -> str:
    return "not measured" if value is None else f"{value:,}"


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _plain(value) -> str:
    return "-" if value in (None, "") else f"{float(value):,.0f}"


def write_plot(out: Path, rows: list[dict]) -> Path | None:
    """Left: the front's fraction through each backend's dynamic search, the offered rate beside it on
    its own axis; right: the shape of the paper's Figure 4, labelled as such."""
    data = fraction_series(read_samples(out / SAMPLES_CSV))
    if not systems(rows) and not data:
        return None
    plt = plots.pyplot()
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    offered = left.twinx()
    for index, (system, series) in enumerate(data.items()):
        left.plot(series["t_s"], series["fraction"], color=f"C{index}", label=f"{system}: fraction kept at the front")
        offered.plot(series["t_s"], series["offered_rate"], color=f"C{index}", linestyle=":", alpha=0.6, drawstyle="steps-post",
                     label=f"{system}: offered calls/s")
    if not data:
        left.text(0.5, 0.5, "no sample with a fraction", ha="center", va="center", transform=left.transAxes)
    left.set_ylim(0, 1.05)
    left.set_xlabel("seconds since the dynamic search started")
    left.set_ylabel("share of new calls kept statefully")
    offered.set_ylabel("offered calls/s (0 between steps)")
    offered.set_ylim(bottom=0)
    handles = left.get_legend_handles_labels()
    more = offered.get_legend_handles_labels()
    left.legend(handles[0] + more[0], handles[1] + more[1], fontsize=7, loc="upper right")
    left.grid(alpha=0.3)
    left.set_title("ours: the front in dynamic mode, before two nodes", fontsize=9)
    for index, (server, points) in enumerate(paper.servartuka_fig4_shape().items()):
        right.plot([t for t, _ in points], [f for _, f in points], color=f"C{index + 5}", label=server)
    right.axhline(paper.SERVARTUKA_OPTIMUM_SHARE, linestyle=":", color="gray", label="about half each")
    right.set_ylim(0, 1.05)
    right.set_xlabel("time (normalised)")
    right.set_ylabel("share of calls handled statefully")
    right.set_title("from the paper: Fig. 4's shape, two servers in series\n"
                    "(schematic of its end state, not its data)", fontsize=9)
    right.legend(fontsize=7)
    right.grid(alpha=0.3)
    return plots.save(figure, out / PLOT)

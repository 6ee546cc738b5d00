"""report.md and one PNG per figure, from a run's summary.csv (so a report can be rebuilt later).

Each of our figures is given as a ratio to both references measured in the same run: the
container's ceiling (a trivial servlet in the same container) and Kamailio. Ratios compare
across machines and days; absolute rates on a shared machine do not.

Pure functions of their inputs apart from writing files; safe to call from one thread at a time.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from . import auth, modes, network, overload, paper, search, tcpreport
from .experiments import CEILING, EXPERIMENTS, FRONT, KAMAILIO, REFERENCES, front_policy, routing_for

UNITS = {"registration": "REGISTER/s", "call": "calls/s",
         # bench/sipload's figures (the auth experiment): a first registration is two REGISTERs
         **{workload: "registrations/s" for workload in auth.AUTH_WORKLOADS}}


def read_summary(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        row["nodes"] = int(row["nodes"])
        row["rate"] = int(row["rate"])
    return rows


def reference(rows: list[dict], workload: str, system: str) -> int | None:
    """A reference's rate: the mean of its measurements in the run (at its start and, in full
    mode, again at its end), None when it never passed a step."""
    rates = [row["rate"] for row in rows
             if row["workload"] == workload and row["system"] == system and row["rate"] > 0]
    return round(sum(rates) / len(rates)) if rates else None


def drift(rows: list[dict]) -> list[str]:
    """Lines warning of references that moved more than 20% between the start and the end of the run."""
    lines = []
    for system in REFERENCES:
        for workload in UNITS:
            rates = [row["rate"] for row in rows if row["system"] == system and row["workload"] == workload]
            if len(rates) >= 2 and min(rates) > 0 and max(rates) > 1.2 * min(rates):
                lines.append(f"- {system} {workload} moved from {rates[0]:,} to {rates[-1]:,} "
                             f"{UNITS[workload]} during the run: the machine's load changed; read ratios with care.")
            elif len(rates) >= 2 and min(rates) == 0 < max(rates):
                lines.append(f"- {system} {workload} passed no step in one of its measurements.")
    return lines


def _ms(value: str | None) -> str:
    """A response time of the summary in whole ms (SIPp's resolution; percentiles between two
    samples come out as 320.001), "-" when there is none."""
    return f"{float(value):.0f}" if value not in (None, "") else "-"


def ratio(value: int, ref: int | None) -> str:
    return f"{value / ref:.2f}" if ref else "n/a"


def series(rows: list[dict], workload: str, routing: str) -> dict[str, list[tuple[int, dict]]]:
    """Our backends' results of one experiment: line -> [(nodes, row)] sorted by nodes. A line is
    a backend, or for the front's experiments "backend (policy)"."""
    out: dict[str, list[tuple[int, dict]]] = {}
    for row in rows:
        if row["system"] in REFERENCES or row["workload"] != workload:
            continue
        policy = front_policy(row["routing"])
        if routing == FRONT:
            if policy:
                out.setdefault(f"{row['system']} ({policy})", []).append((row["nodes"], row))
            continue
        if row["routing"] != routing_for(row["nodes"], routing):
            continue
        out.setdefault(row["system"], []).append((row["nodes"], row))
    return {k: sorted(v, key=lambda item: item[0]) for k, v in sorted(out.items())}


def experiment_table(rows: list[dict], name: str) -> list[str]:
    e = EXPERIMENTS[name]
    data = series(rows, e.workload, e.routing)
    if not data:
        return []
    ceiling, kamailio = reference(rows, e.workload, CEILING), reference(rows, e.workload, KAMAILIO)
    unit = UNITS[e.workload]
    lines = [f"### {e.title} ({e.paper} of the paper)", "",
             f"References: container ceiling {_fmt(ceiling)} {unit}, Kamailio {_fmt(kamailio)} {unit}.", "",
             f"| backend | nodes | {unit} | p99 <= 100 ms | the paper's | p50 ms | p99 ms | retransmissions | mean hops "
             "| largest range | past the limit | / ceiling | / Kamailio | note |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for backend, points in data.items():
        for nodes, row in points:
            theirs = paper.beside(name, row["system"], nodes) or "-"
            lines.append(f"| {backend} | {nodes} | {row['rate']:,} | {prompt_rate(row)} | {theirs} "
                         f"| {_ms(row['p50_ms'])} | {_ms(row['p99_ms'])} "
                         f"| {row.get('retransmissions') or '-'} | {row.get('hops') or '-'} | {row.get('largest_range') or '-'} "
                         f"| {past_the_limit(row)} "
                         f"| {ratio(row['rate'], ceiling)} | {ratio(row['rate'], kamailio)} | {row.get('note', '')} |")
    lines += ["", f"![{e.paper}]({name}.png)", ""]
    return lines


def prompt_rate(row: dict) -> str:
    """The highest passing rate whose p99 stayed within 100 ms; '-' for runs from before it was measured."""
    value = row.get("rate_p99_100ms")
    return "-" if value in (None, "") else f"{int(value):,}"


def past_the_limit(row: dict) -> str:
    """The deepest overload of a search: what it completed per second at the highest rate it
    failed, and that as a share of its own limit (near 1: it sheds the excess and keeps serving;
    far below: it collapses). '-' when no step failed above the limit."""
    offered, completed = row.get("overload_rate"), row.get("overload_goodput")
    if not offered or completed in (None, ""):
        return "-"
    limit = int(row["rate"])
    share = f" ({int(completed) / limit:.2f})" if limit > 0 else ""
    return f"{int(completed):,} of {int(offered):,}{share}"


def references_table(rows: list[dict]) -> list[str]:
    lines = ["| reference | workload | measured | rate | p99 <= 100 ms | p50 ms | p99 ms | retransmissions | note |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        if row["system"] in REFERENCES:
            when = "at the end" if str(row.get("round", "1")) == "2" else "at the start"
            lines.append(f"| {row['system']} | {row['workload']} | {when} | {row['rate']:,} {UNITS[row['workload']]} "
                         f"| {prompt_rate(row)} "
                         f"| {_ms(row['p50_ms'])} | {_ms(row['p99_ms'])} | {row.get('retransmissions') or '-'} "
                         f"| {row.get('note', '')} |")
    return lines


def table2(rows: list[dict], loopback: bool | None) -> list[str]:
    """Two nodes, three configurations, ours beside the paper's. loopback: True when the nodes
    shared 127.0.0.1, False when each had a network namespace, None when the run did not record it."""
    ours = {}
    for backend, points in series(rows, "registration", "spread").items():
        for nodes, row in points:
            if nodes == 2:
                ours.setdefault(backend, {})["single server"] = row["rate"]
    for backend, points in series(rows, "registration", "one").items():
        for nodes, row in points:
            if nodes == 2:
                ours.setdefault(backend, {})["distributed"] = row["rate"]
    for line, points in series(rows, "registration", FRONT).items():
        backend, policy = line.split(" (")[0], line.split(" (")[1].rstrip(")")
        for nodes, row in points:
            best = ours.setdefault(backend, {}).get("load-balanced")
            if nodes == 2 and (best is None or row["rate"] > best):
                ours[backend]["load-balanced"] = row["rate"]
                ours[backend]["load-balanced policy"] = policy
    if not ours:
        return []
    ceiling = reference(rows, "registration", CEILING)
    kamailio = reference(rows, "registration", KAMAILIO)
    lines = ["### Table 2: two nodes, REGISTER/s, ours beside the paper's", "",
             "| configuration | " + " | ".join(f"ours: {b} (/ceiling, /Kamailio)" for b in ours)
             + " | " + " | ".join(f"paper: {c}" for c in paper.COLUMNS.values() if c != "Bryan-draft") + " |",
             "|---|" + "---|" * (len(ours) + 3)]
    for configuration, paper_values in paper.TABLE2.items():
        cells = []
        for backend in ours:
            value = ours[backend].get(configuration)
            policy = ours[backend].get(f"{configuration} policy")
            cells.append("not measured" if value is None else
                         f"{value:,} ({ratio(value, ceiling)}, {ratio(value, kamailio)})"
                         + (f", front {policy}" if policy else ""))
        paper_cells = [f"{paper_values.get(c, '-'):,}" if isinstance(paper_values.get(c), int) else "-"
                       for c in paper.COLUMNS.values() if c != "Bryan-draft"]
        lines.append(f"| {configuration} | " + " | ".join(cells + paper_cells) + " |")
    lines += ["", "Single server: two nodes, requests spread over both. Distributed: every request to one node, "
              "the other only holds data. Load-balanced: two nodes behind the front, its best policy "
              "(not measured when deploy/p2psip could not start a front)."]
    if loopback:
        lines += ["All nodes of this run share one machine and talk over loopback, so \"single server\" and "
                  "\"distributed\" differ only by where requests enter, not by a network between the servers."]
    elif loopback is False:
        lines += ["Each node of this run had a network namespace and address of its own: requests and overlay "
                  "traffic crossed veth interfaces and a bridge, as between servers, but all nodes still shared "
                  "one machine's cores and no wire added latency or a bandwidth limit."]
    return lines + [""]


# The issues' performance targets: each a ratio of two REGISTER/s figures of the same run.

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
    if seconds is not None and seconds < search.SUSTAINED_S:
        reasons.append(f"{whose} search steps of {seconds:g} s are shorter than {search.SUSTAINED_S:g} s: not sustained")
    return reasons


def caveat(meta: dict[str, str]) -> str:
    """What a verdict of this run is worth: nothing to add when its search could decide it."""
    reasons = caveat_reasons(meta)
    return f", indicative ({'; '.join(reasons)})" if reasons else ""


def sustained_note(meta: dict[str, str]) -> str:
    """The report's sentence on how long each step held its rate."""
    seconds = modes.step_seconds(meta)
    if seconds is None:
        return "This run's step length is not recorded."
    if seconds < search.SUSTAINED_S:
        return (f"This run's steps last {seconds:g} s, shorter than the {search.SUSTAINED_S:g} s a rate must be held "
                "to count as sustained (past Timer J, with the heap in its steady state): its limits are not "
                "sustained rates.")
    return f"Each step held its rate {seconds:g} s: the limits are sustained rates."


def generator_limited(rows: list[dict]) -> list[str]:
    """Lines naming the references whose figure the load generator bounded, not the reference itself."""
    lines = []
    for row in rows:
        if row["system"] in REFERENCES and (row.get("note") or "").startswith("generator-limited"):
            name = "Kamailio" if row["system"] == KAMAILIO else "The container's ceiling"
            generator = "bench/sipload" if row["workload"] in auth.AUTH_WORKLOADS else "SIPp"
            lines.append(f"- {name}'s {row['workload']} figure, {row['rate']:,} {UNITS[row['workload']]}, is "
                         f"generator-limited: {generator}, sharing the machine, could not offer more, so the reference's "
                         f"limit is higher and every ratio to it overstates ours ({row['note']}).")
    return lines


def experiment_of(figure: Figure) -> str:
    """The experiment that measures a figure (with one node, `register` measures "one" as well)."""
    if figure.routing.startswith(FRONT):
        return "register-front"
    return "register" if figure.routing == "spread" or figure.nodes == 1 else "register-one"


def hint(target: Target, meta: dict[str, str]) -> str:
    """The bench/run options that measure both figures of a target in one run (the references come
    with every experiment)."""
    ours = [f for f in (target.measured, target.against) if f.system not in REFERENCES]
    names = {experiment_of(f) for f in ours}
    command = (f"bench/run --experiments {','.join(sorted(names, key=list(EXPERIMENTS).index))}"
               f" --backends {','.join(dict.fromkeys(f.system for f in ours))}"
               f" --nodes {','.join(str(n) for n in sorted({f.nodes for f in ours}))}")
    needs_front = "register-front" in names and meta.get("front", "").startswith("not available")
    return f"`{command}`" + (", with a deploy/p2psip whose `up` has --front" if needs_front else "")


def verdict(target: Target, measured: dict, against: dict, meta: dict[str, str]) -> str:
    if target.minimum is None:
        words = "informative"
        if target.says_if_ran_to_the_end:
            words += "; its search " + ("ran to the end" if ran_to_the_end(measured) else "did not run to the end")
    elif against["rate"] == 0:
        return f"cannot be judged: {target.against.label} passed no step"
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
    lines += [target_line(rows, target, meta) for target in TARGETS + tuple(front_targets(rows))]
    return lines + [""]


def latency_rule(meta: dict[str, str]) -> str:
    """The run's p99 bound in words; runs from before the bound existed had none."""
    bound = meta.get("max_p99_ms", "none")
    if bound == "none":
        return (" (no latency bound: a p99 of seconds and many retransmissions at the best rate mean the "
                "server was queueing at its limit)")
    return f" and the p99 response time stayed under {bound} ms (a server that queues fails)"


def write_report(out: Path, rows: list[dict], machine: dict[str, str], meta: dict[str, str]) -> Path:
    lines = [f"# P2PSIP benchmark, {meta.get('date', '')}, commit {meta.get('commit', '')}", "",
             f"Mode: {meta.get('mode', '')}. Network: {meta.get('network', '')}. "
             f"Front policies: {meta.get('front', 'not recorded')}.", "",
             "Re-run with:", "", f"    {meta.get('command', '')}", "",
             "## How to read it",
             "Each rate is the highest offered rate at which at least 99.9% of the attempts completed with the "
             "expected final response, no call ended on a retransmission timeout"
             + latency_rule(meta) + " (bench/README.md). " + sustained_note(meta) + " "
             "The machine may be shared: compare the ratios to the references measured in this same run, "
             "not the absolute rates. The column \"the paper's\" gives the original evaluation's figure for the "
             "same backend, nodes and configuration (NGMAST 2007, dual 3.06 GHz Xeon servers, SIPp on its own "
             "machine; \"-\": not measured there): other hardware, to read for how a figure holds or falls as "
             "nodes are added, not as a rate to beat.", "",
             "## References (same run, same machine)", ""]
    lines += references_table(rows) + [""]
    limited = generator_limited(rows)
    if limited:
        lines += limited + [""]
    moved = drift(rows)
    if moved:
        lines += ["Ratios use the mean of each reference's measurements."] + moved + [""]
    lines += targets_section(rows, meta)
    steps = overload.read_steps(out / overload.STEPS_CSV)
    avalanches = overload.read_avalanches(out / overload.AVALANCHE_CSV)
    if steps or meta.get("overload"):
        lines += ["The overload targets (goodput at 2x and 3x each deployment's clean rate) are judged per "
                  "deployment in the section Overload.", ""]
    if auth.systems(rows):
        lines += ["The authentication targets (first registrations and refreshes against the same deployment's "
                  "plain registrations) are judged in the section Authentication.", ""]
    lines += ["## Results", ""]
    for name in EXPERIMENTS:
        lines += experiment_table(rows, name)
    recorded = meta.get("network", "")
    lines += table2(rows, network.is_loopback(recorded) if recorded else None)
    planned = [name for name in meta.get("overload", "").split("; ") if name]
    lines += overload.section(steps, avalanches, caveat_reasons(meta), planned)
    lines += auth.section(rows, caveat_reasons(meta), meta.get("auth_algorithm", ""))
    auth.write_csv(out, rows)
    lines += tcpreport.section(out, caveat_reasons(meta))
    lines += ["## The paper's numbers (NGMAST 2007, other hardware)", "",
              "One node, registration: " + ", ".join(f"{k} {v:,}/s" for k, v in paper.ONE_NODE_REGISTRATION.items())
              + ". Calls: Bamboo 300-350 calls/s distributed, 700+ calls/s load-balanced (abstract).", "",
              "## Machine", ""] + [f"- {k}: {v}" for k, v in machine.items()]
    lines += ["", "## Files", "", "- `summary.csv`: one row per measurement (the best passing step).",
              "- `steps.csv`: every step of every rate search, passed or not, with the reason.",
              "- `*.png`: one plot per figure.",
              "- `overload.csv`, `avalanche.csv`: every overload step and every avalanche, when measured.",
              "- `auth.csv`: the auth experiment's rates and ratios per deployment, when measured.",
              "- `tcp-rate.csv`, `tcp-idle.csv`, `tcp-steps.csv`: the tcp experiment's results, when measured.", ""]
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path


def write_plots(out: Path, rows: list[dict]) -> list[Path]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for name, e in EXPERIMENTS.items():
        data = series(rows, e.workload, e.routing)
        if not data:
            continue
        unit = UNITS[e.workload]
        refs = {"container ceiling": reference(rows, e.workload, CEILING),
                "Kamailio": reference(rows, e.workload, KAMAILIO)}
        figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
        for index, (backend, points) in enumerate(data.items()):
            color = f"C{index}"  # one colour per backend on both panels
            nodes = [n for n, _ in points]
            left.plot(nodes, [r["rate"] for _, r in points], marker="o", color=color, label=backend)
            for (ref_name, ref), style, marker in zip(refs.items(), ("-", "--"), ("o", "s")):
                if ref:
                    right.plot(nodes, [r["rate"] / ref for _, r in points], marker=marker, linestyle=style,
                               color=color, label=f"{backend} / {ref_name}")
        for (ref_name, ref), color in zip(refs.items(), ("black", "dimgray")):
            if ref:
                left.axhline(ref, linestyle=":", color=color, label=f"{ref_name} ({ref:,} {unit})")
        all_nodes = sorted({n for points in data.values() for n, _ in points})
        for axis in (left, right):
            axis.set_xlabel("nodes")
            axis.set_xticks(all_nodes)
            axis.grid(alpha=0.3)
            axis.legend(fontsize=8, loc="best", framealpha=0.8)
        left.set_ylabel(f"highest sustained rate ({unit})")
        highest = max([r["rate"] for points in data.values() for _, r in points] + [v or 0 for v in refs.values()])
        left.set_ylim(0, max(1, highest) * 1.3)  # room for the legend above the lines
        left.set_title(e.title, fontsize=9)
        right.set_ylabel("ratio to reference (1 = as fast)")
        right.set_ylim(bottom=0)
        right.set_title("ratio to the references of the same run", fontsize=9)
        figure.tight_layout()
        path = out / f"{name}.png"
        figure.savefig(path, dpi=110)
        plt.close(figure)
        written.append(path)
    plotted = overload.write_plot(out, overload.read_steps(out / overload.STEPS_CSV))
    costs = auth.write_plot(out, rows)
    connections = tcpreport.write_plot(out)
    return written + [path for path in (plotted, costs, connections) if path]


def _fmt(value: int | None) -> str:
    return f"{value:,}" if value else "n/a"

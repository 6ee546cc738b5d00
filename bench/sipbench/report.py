"""report.md and one PNG per figure, from a run's summary.csv (so a report can be rebuilt later).

Each of our figures is given as a ratio to both references measured in the same run: the
container's ceiling (a trivial servlet in the same container) and Kamailio. Ratios compare
across machines and days; absolute rates on a shared machine do not.

Pure functions of their inputs apart from writing files; safe to call from one thread at a time.
"""
from __future__ import annotations

import csv
from pathlib import Path

from . import paper
from .experiments import CEILING, EXPERIMENTS, FRONT, KAMAILIO, REFERENCES, front_policy, routing_for

UNITS = {"registration": "REGISTER/s", "call": "calls/s"}


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
             f"| backend | nodes | {unit} | p50 ms | p99 ms | retransmissions | mean hops | / ceiling | / Kamailio | note |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for backend, points in data.items():
        for nodes, row in points:
            lines.append(f"| {backend} | {nodes} | {row['rate']:,} | {row['p50_ms'] or '-'} | {row['p99_ms'] or '-'} "
                         f"| {row.get('retransmissions') or '-'} | {row.get('hops') or '-'} "
                         f"| {ratio(row['rate'], ceiling)} | {ratio(row['rate'], kamailio)} | {row.get('note', '')} |")
    lines += ["", f"![{e.paper}]({name}.png)", ""]
    return lines


def references_table(rows: list[dict]) -> list[str]:
    lines = ["| reference | workload | measured | rate | p50 ms | p99 ms | retransmissions | note |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        if row["system"] in REFERENCES:
            when = "at the end" if str(row.get("round", "1")) == "2" else "at the start"
            lines.append(f"| {row['system']} | {row['workload']} | {when} | {row['rate']:,} {UNITS[row['workload']]} "
                         f"| {row['p50_ms'] or '-'} | {row['p99_ms'] or '-'} | {row.get('retransmissions') or '-'} "
                         f"| {row.get('note', '')} |")
    return lines


def table2(rows: list[dict], loopback: bool) -> list[str]:
    """Two nodes, three configurations, ours beside the paper's."""
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
    return lines + [""]


def write_report(out: Path, rows: list[dict], machine: dict[str, str], meta: dict[str, str]) -> Path:
    lines = [f"# P2PSIP benchmark, {meta.get('date', '')}, commit {meta.get('commit', '')}", "",
             f"Mode: {meta.get('mode', '')}. Network: {meta.get('network', '')}. "
             f"Front policies: {meta.get('front', 'not recorded')}.", "",
             "Re-run with:", "", f"    {meta.get('command', '')}", "",
             "## How to read it",
             "Each rate is the highest offered rate at which at least 99.9% of the attempts completed with the "
             "expected final response and no call ended on a retransmission timeout (bench/README.md). "
             "The machine may be shared: compare the ratios to the references measured in this same run, "
             "not the absolute rates. The rule bounds losses, not latency: a p99 of seconds and many "
             "retransmissions at the best rate mean the server was queueing at its limit "
             "(`--max-p99-ms` adds a latency bound).", "",
             "## References (same run, same machine)", ""]
    lines += references_table(rows) + [""]
    moved = drift(rows)
    if moved:
        lines += ["Ratios use the mean of each reference's measurements."] + moved + [""]
    lines += ["## Results", ""]
    for name in EXPERIMENTS:
        lines += experiment_table(rows, name)
    lines += table2(rows, meta.get("network", "").startswith("loopback"))
    lines += ["## The paper's numbers (NGMAST 2007, other hardware)", "",
              "One node, registration: " + ", ".join(f"{k} {v:,}/s" for k, v in paper.ONE_NODE_REGISTRATION.items())
              + ". Calls: Bamboo 300-350 calls/s distributed, 700+ calls/s load-balanced (abstract).", "",
              "## Machine", ""] + [f"- {k}: {v}" for k, v in machine.items()]
    lines += ["", "## Files", "", "- `summary.csv`: one row per measurement (the best passing step).",
              "- `steps.csv`: every step of every rate search, passed or not, with the reason.",
              "- `*.png`: one plot per figure.", ""]
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
    return written


def _fmt(value: int | None) -> str:
    return f"{value:,}" if value else "n/a"

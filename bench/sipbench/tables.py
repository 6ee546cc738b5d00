"""The report's tables of the registration and call experiments: the references, one table per
experiment (our backends beside the paper's figures and the references), Table 2, and the lines
that warn about a reference (moved during the run, bounded by its load generator).

Pure functions of summary.csv's rows; safe to share.
"""
from __future__ import annotations

from . import paper
from .experiments import AUTH_WORKLOADS, CEILING, EXPERIMENTS, FRONT, KAMAILIO, REFERENCES
from .summary import UNITS, ratio, reference, series


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


def prompt_rate(row: dict) -> str:
    """The highest passing rate whose p99 stayed within 100 ms; '-' for runs from before it was measured."""
    value = row.get("rate_p99_100ms")
    return "-" if value in (None, "") else f"{int(value):,}"


def _ms(value: str | None) -> str:
    """A response time of the summary in whole ms (SIPp's resolution; percentiles between two
    samples come out as 320.001), "-" when there is none."""
    return f"{float(value):.0f}" if value not in (None, "") else "-"


def generator_limited(rows: list[dict]) -> list[str]:
    """Lines naming the references whose figure the load generator bounded, not the reference itself."""
    lines = []
    for row in rows:
        if row["system"] in REFERENCES and (row.get("note") or "").startswith("generator-limited"):
            name = "Kamailio" if row["system"] == KAMAILIO else "The container's ceiling"
            generator = "bench/sipload" if row["workload"] in AUTH_WORKLOADS else "SIPp"
            lines.append(f"- {name}'s {row['workload']} figure, {row['rate']:,} {UNITS[row['workload']]}, is "
                         f"generator-limited: {generator}, sharing the machine, could not offer more, so the reference's "
                         f"limit is higher and every ratio to it overstates ours ({row['note']}).")
    return lines


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


def _fmt(value: int | None) -> str:
    return f"{value:,}" if value else "n/a"

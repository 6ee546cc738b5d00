"""The `scale` experiment's part of the report: whether a registrar on a DHT grows with its nodes. Each
node is a small host of its own, a network namespace and a cgroup quota of Q cores (`deploy/p2psip up
--netns --cpu-quota Q`), so that on one machine N nodes have N times one node's CPU, as N hosts would;
SIPp and the bench stay outside the quotas. Per backend and node count: REGISTER/s R(N) from the usual
rate search, spread over the nodes (summary.csv's rows with routing `scale`), the efficiency
R(N) / (N x R(1)) (1: N hosts carry N times one's rate) and the CPU ms per REGISTER summed over every
node's JVM in the step the search kept (cpuuse.py). The target, per N of 2, 4 and 8: efficiency >= 0.8.

Pure functions of their inputs, apart from writing the figure; safe from one thread at a time.
"""
from __future__ import annotations

from pathlib import Path

from . import plots, targets
from .experiments import SCALE, SCALE_QUOTA

EFFICIENCY = 0.8
JUDGED_NODES = (2, 4, 8)
PLOT = "scale.png"
CORES = "cores (nproc)"   # the machine's description (machine.py): its cores


def systems(rows: list[dict]) -> list[str]:
    """The backends the run measured as small hosts, in the order first seen."""
    return list(dict.fromkeys(row["system"] for row in rows if row["routing"] == SCALE))


def by_nodes(rows: list[dict], system: str) -> dict[int, dict]:
    """A backend's scale searches by node count (round 1: the experiment measures each once)."""
    return {row["nodes"]: row for row in rows if row["system"] == system and row["routing"] == SCALE
            and row["workload"] == "registration" and str(row.get("round", "1")) == "1"}


def efficiency(measured: dict | None, one: dict | None) -> float | None:
    """R(N) / (N x R(1)); None when either search is missing or has no rate."""
    if measured is None or one is None or one["rate"] <= 0 or measured["rate"] <= 0:
        return None
    return measured["rate"] / (measured["nodes"] * one["rate"])


def quota_of(meta: dict[str, str]) -> float:
    """The run's cores per node (run.tsv's scale_quota; the experiment's default when not recorded)."""
    return float(meta.get("scale_quota") or SCALE_QUOTA)


def generator_limited(row: dict) -> bool:
    return (row.get("note") or "").startswith("generator-limited")


def verdict(rows: list[dict], system: str, nodes: int, meta: dict[str, str], cores: int | None) -> str:
    """met / not met (with the run's caveats) / not judged: why, for efficiency >= EFFICIENCY at `nodes`."""
    found = by_nodes(rows, system)
    one, measured = found.get(1), found.get(nodes)
    quota = quota_of(meta)
    if measured is None or one is None:
        missing = " and ".join(f"{n} node{'s' if n > 1 else ''}" for n in (1, nodes) if found.get(n) is None)
        return f"not judged: {missing} not measured (`bench/run --experiments scale --scale-nodes 1,{nodes}`)"
    if one["rate"] <= 0 or measured["rate"] <= 0:
        which = "1 node's" if one["rate"] <= 0 else f"{nodes} nodes'"
        return f"not judged: {which} search has no rate ({(one if one['rate'] <= 0 else measured).get('note', '')})"
    if cores is not None and nodes * quota > cores:
        return (f"not judged: {nodes} x {quota:g} = {nodes * quota:g} cores of quota exceed the machine's {cores}: "
                "the nodes share the machine, not their quotas")
    value = efficiency(measured, one)
    if value < EFFICIENCY and generator_limited(measured):
        return f"not judged: {nodes} nodes' rate is SIPp's limit, not theirs ({measured['note']})"
    if value < EFFICIENCY and generator_limited(one):
        return f"not judged: 1 node's rate is SIPp's limit, not its own ({one['note']})"
    return ("met" if value >= EFFICIENCY else "not met") + targets.caveat(meta)


def section(rows: list[dict], meta: dict[str, str], machine: dict[str, str]) -> list[str]:
    """The report's section; empty when the run had no scale search."""
    measured = systems(rows)
    if not measured:
        return []
    quota = quota_of(meta)
    cores = _int(machine.get(CORES))
    lines = ["## Scale (experiment scale)", "",
             f"Each node a small host of its own: a network namespace and a cgroup quota of {quota:g} cores "
             f"(`deploy/p2psip up --netns --cpu-quota {quota:g}`), so that N nodes have N times one node's CPU "
             "however many cores the machine has; SIPp and the bench run outside the quotas. REGISTER/s is the "
             "rate search's, offered spread over the nodes (one SIPp per node, each an equal share). Efficiency "
             "is R(N) / (N x R(1)): 1 when N hosts carry N times one host's rate. CPU ms per REGISTER: the CPU "
             "seconds (utime+stime) of every node's JVM in the step the search kept (its confirmation; its best "
             "step when the run confirms nothing), over the REGISTERs answered 200 in it.", "",
             "| backend | nodes | cores of quota | REGISTER/s | efficiency | CPU ms per REGISTER | p50 ms | p99 ms "
             "| note |", "|---|---|---|---|---|---|---|---|---|"]
    for system in measured:
        found = by_nodes(rows, system)
        for nodes, row in sorted(found.items()):
            lines.append(f"| {system} | {nodes} | {nodes * quota:g} | {row['rate']:,} "
                         f"| {_ratio(efficiency(row, found.get(1)))} | {_plain(row.get('cpu_ms_per_request'), 3)} "
                         f"| {_plain(row.get('p50_ms'))} | {_plain(row.get('p99_ms'))} | {row.get('note', '')} |")
    lines += ["", "### Targets", "", "| backend | nodes | target | efficiency | verdict |", "|---|---|---|---|---|"]
    for system in measured:
        found = by_nodes(rows, system)
        for nodes in JUDGED_NODES:
            lines.append(f"| {system} | {nodes} | efficiency >= {EFFICIENCY:.1f} "
                         f"| {_ratio(efficiency(found.get(nodes), found.get(1)))} "
                         f"| {verdict(rows, system, nodes, meta, cores)} |")
    return lines + ["", f"![scale]({PLOT})", ""]


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text else None
    except ValueError:
        return None


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _plain(value, digits: int = 0) -> str:
    return "-" if value in (None, "") else f"{float(value):,.{digits}f}"


def write_plot(out: Path, rows: list[dict]) -> Path | None:
    """Left: efficiency against the node count, one line per backend, the ideal and the target marked;
    right: CPU ms per REGISTER against the node count."""
    measured = systems(rows)
    if not measured:
        return None
    plt = plots.pyplot()
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    counts = set()
    for index, system in enumerate(measured):
        found = by_nodes(rows, system)
        points = [(n, efficiency(row, found.get(1))) for n, row in sorted(found.items())]
        points = [(n, value) for n, value in points if value is not None]
        counts |= set(found)
        left.plot([n for n, _ in points], [v for _, v in points], marker="o", color=f"C{index}", label=system)
        cpu = [(n, float(row["cpu_ms_per_request"])) for n, row in sorted(found.items())
               if row.get("cpu_ms_per_request") not in (None, "")]
        right.plot([n for n, _ in cpu], [v for _, v in cpu], marker="o", color=f"C{index}", label=system)
    left.axhline(1.0, linestyle=":", color="black", label="ideal: N hosts, N times one's rate")
    left.axhline(EFFICIENCY, linestyle="--", color="dimgray", label=f"target {EFFICIENCY:.1f}")
    left.set_ylim(0, 1.3)
    left.set_ylabel("efficiency R(N) / (N x R(1))")
    left.set_title("REGISTER/s of N small hosts against N times one", fontsize=9)
    right.set_ylim(bottom=0)
    right.set_ylabel("CPU ms per REGISTER, every node's JVM")
    right.set_title("what a REGISTER costs the nodes together", fontsize=9)
    for axis in (left, right):
        axis.set_xlabel("nodes (each a host with its CPU quota)")
        axis.set_xticks(sorted(counts))
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8, loc="best", framealpha=0.8)
    return plots.save(figure, out / PLOT)

"""The figures of the registration and call experiments, one PNG each: every backend's highest rate
against its nodes, with both references, and its ratio to each reference. Also pyplot() and save(), for
every module that draws a figure.

Writes files; safe from one thread at a time.
"""
from __future__ import annotations

from pathlib import Path

from .experiments import CEILING, EXPERIMENTS, KAMAILIO
from .summary import UNITS, reference, series


def pyplot():
    """matplotlib's pyplot, drawing into files only (Agg: no display). Imported when a figure is
    drawn, not with the bench: the rest of the report needs no matplotlib."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save(figure, path: Path) -> Path:
    """Every figure's PNG, laid out and written alike, its memory given back."""
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    pyplot().close(figure)
    return path


def write(out: Path, rows: list[dict]) -> list[Path]:
    """One figure per experiment the run measured."""
    written = (experiment_figure(out, rows, name) for name in EXPERIMENTS)
    return [path for path in written if path]


def experiment_figure(out: Path, rows: list[dict], name: str) -> Path | None:
    """<name>.png, when the run measured the experiment."""
    plt = pyplot()
    e = EXPERIMENTS[name]
    data = series(rows, e.workload, e.routing)
    if not data:
        return None
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
    return save(figure, out / f"{name}.png")

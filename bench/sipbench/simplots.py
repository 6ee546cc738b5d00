"""Plots of bench/simulate's per-minute CSV files: lookups correct, hops, latency and maintenance
bytes per node over the simulated minutes, one figure per CSV, next to it."""
import csv
import sys
from pathlib import Path


def plot_folder(folder: str) -> None:
    for table in sorted(Path(folder).glob("simulate-*.csv")):
        plot_file(table)


def plot_file(table: Path) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with table.open() as f:
        rows = list(csv.DictReader(f))
    minutes = [int(r["minute"]) for r in rows]
    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    series = [
        (axes[0][0], "correct_pct", "lookups correct (%)"),
        (axes[0][1], "maintenance_bytes_per_node_s", "maintenance bytes/s per node"),
        (axes[1][0], "hops_median", "hops (median; p99 dashed)"),
        (axes[1][1], "latency_median_ms", "get latency ms (median; p99 dashed)"),
    ]
    for ax, column, title in series:
        ax.plot(minutes, [float(r[column]) for r in rows], marker="o")
        ax.set_title(title)
        ax.set_xlabel("simulated minute")
    axes[1][0].plot(minutes, [float(r["hops_p99"]) for r in rows], linestyle="--")
    axes[1][1].plot(minutes, [float(r["latency_p99_ms"]) for r in rows], linestyle="--")
    fig.suptitle(table.stem)
    fig.tight_layout()
    image = table.with_suffix(".png")
    fig.savefig(image)
    plt.close(fig)
    print(f"simulate: plotted {image}", file=sys.stderr)
    return image

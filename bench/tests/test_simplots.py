"""The simulator's plots: one figure per per-minute CSV, beside it."""
import csv
from pathlib import Path

import pytest

from sipbench.simplots import plot_folder

COLUMNS = ("minute,joins,crashes,gets,correct,stale,failed,late,puts,puts_failed,correct_pct,hops_median,"
           "hops_p99,latency_median_ms,latency_p99_ms,maintenance_bytes_per_node_s,lost").split(",")


def test_each_csv_gets_its_plot(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    table = tmp_path / "simulate-chord-100-s10-seed1.csv"
    with table.open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(COLUMNS)
        out.writerow([1, 5, 5, 300, 299, 0, 1, 2, 100, 0, 99.667, 3, 5, 380.0, 840.0, 512, 0])
        out.writerow([2, 6, 6, 310, 310, 0, 0, 0, 101, 0, 100.0, 3, 6, 370.0, 800.0, 498, 0])
    plot_folder(str(tmp_path))
    image = table.with_suffix(".png")
    assert image.is_file() and image.stat().st_size > 10_000

"""summary.csv, one row per rate search (its best passing step), and what every part of the report
reads from its rows: the units of a workload, a reference's rate, our backends' figures of one
experiment, a ratio as printed.

Pure functions; safe to share.
"""
from __future__ import annotations

import csv
from pathlib import Path

from .experiments import AUTH_WORKLOADS, CAPACITY_WORKLOADS, FIRST, FRONT, REFERENCES, front_policy, routing_for

UNITS = {"registration": "REGISTER/s", "call": "calls/s",
         # bench/sipload's figures (the auth experiment): a first registration is two REGISTERs
         **{workload: "registrations/s" for workload in AUTH_WORKLOADS},
         # the capacity experiment's searches on its loaded deployment: refreshes, first registrations
         **{workload: "REGISTER/s" for workload in CAPACITY_WORKLOADS}, FIRST: "REGISTER/s"}


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

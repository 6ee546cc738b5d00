"""The auth experiment's part of the report: what Digest authentication costs a deployment.

Each deployment (one node of each backend, and Kamailio) has three rate searches, all with
bench/sipload so that the three compare fairly: plain registrations on the deployment without
authentication, first registrations (401, then 200) and refreshes (one round trip on the nonce
of the phone's last registration) on the same deployment with it. The targets compare a
deployment with itself: first registrations at least 0.5 of its plain rate (a first registration
is two transactions), refreshes at least 0.8 (one transaction, plus a digest). Kamailio's ratios
are given for information, and each of our rates over Kamailio's in the same mode.

Pure functions of summary.csv's rows, apart from writing auth.csv and auth.png; safe from one
thread at a time.
"""
from __future__ import annotations

import csv
from pathlib import Path

from . import plots
from .experiments import AUTH_WORKLOADS, KAMAILIO

PLAIN, FIRST, REFRESH = AUTH_WORKLOADS
# (the measured mode, the minimum of its rate over the same deployment's plain rate)
TARGETS = ((FIRST, 0.5), (REFRESH, 0.8))
CSV_FILE = "auth.csv"
PLOT = "auth.png"
CSV_FIELDS = ["system", "plain", "first", "refresh", "first_over_plain", "refresh_over_plain",
              "plain_over_kamailio", "first_over_kamailio", "refresh_over_kamailio"]
MODE_WORDS = {PLAIN: "plain", FIRST: "first", REFRESH: "refresh"}


def rate(rows: list[dict], workload: str, system: str) -> int | None:
    """A deployment's rate in one mode: the mean of its searches in the run (Kamailio's may be measured
    again at the end), None when it has none or none passed a step."""
    rates = [int(row["rate"]) for row in rows if row["workload"] == workload and row["system"] == system]
    rates = [r for r in rates if r > 0]
    return round(sum(rates) / len(rates)) if rates else None


def systems(rows: list[dict]) -> list[str]:
    """The deployments the run measured in any auth mode: the backends in the order first seen, Kamailio last."""
    found = list(dict.fromkeys(row["system"] for row in rows if row["workload"] in AUTH_WORKLOADS))
    return [s for s in found if s != KAMAILIO] + ([KAMAILIO] if KAMAILIO in found else [])


def label(system: str) -> str:
    return "Kamailio" if system == KAMAILIO else f"{system} 1 node"


def _ratio(value: int | None, against: int | None) -> float | None:
    return value / against if value is not None and against else None


def _fmt_ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _fmt_rate(value: int | None) -> str:
    return "not measured" if value is None else f"{value:,}"


def verdict(measured: int | None, plain: int | None, minimum: float, caveats: list[str], informative: bool) -> str:
    """met / not met (with the run's caveats), informative for Kamailio, or "not judged" and why."""
    if measured is None or plain is None:
        return "not judged: " + ("its plain search" if plain is None else "this search") + " passed no step or did not run"
    if informative:
        return "informative"
    words = "met" if measured >= minimum * plain else "not met"
    return words + (f", indicative ({'; '.join(caveats)})" if caveats else "")


def csv_rows(rows: list[dict]) -> list[dict]:
    out = []
    kamailio = {w: rate(rows, w, KAMAILIO) for w in AUTH_WORKLOADS}
    for system in systems(rows):
        r = {w: rate(rows, w, system) for w in AUTH_WORKLOADS}
        row = {"system": system, "plain": r[PLAIN] or "", "first": r[FIRST] or "", "refresh": r[REFRESH] or ""}
        for w in (FIRST, REFRESH):
            row[f"{MODE_WORDS[w]}_over_plain"] = _csv_ratio(_ratio(r[w], r[PLAIN]))
        for w in AUTH_WORKLOADS:
            row[f"{MODE_WORDS[w]}_over_kamailio"] = "" if system == KAMAILIO else _csv_ratio(_ratio(r[w], kamailio[w]))
        out.append(row)
    return out


def _csv_ratio(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def write_csv(out: Path, rows: list[dict]) -> Path | None:
    table = csv_rows(rows)
    if not table:
        return None
    path = out / CSV_FILE
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        writer.writeheader()
        writer.writerows(table)
    return path


def section(rows: list[dict], caveats: list[str], algorithm: str = "") -> list[str]:
    """The report's section: the targets, then every search's figures; empty when the run had no auth search."""
    measured = systems(rows)
    if not measured:
        return []
    lines = ["## Authentication (experiment auth)", "",
             "Registrations per second on one node, each mode searched to the deployment's own limit with "
             "bench/sipload (each user answers with their own password" + (f"; Digest {algorithm}" if algorithm else "")
             + ", qop=auth): **plain** REGISTER, 200 on the deployment without authentication; **first** "
             "REGISTER, 401, REGISTER with credentials, 200; **refresh** REGISTER with credentials on the nonce "
             "of the phone's last registration (same Call-ID, CSeq + 1, nc + 1), 200 in one round trip. Both "
             "with authentication on (`deploy/p2psip up --users`; Kamailio with auth and an in-memory table of "
             "the same users' HA1s). A first registration is two transactions, so its figure counts "
             "registrations, not REGISTERs; its latency runs from the first REGISTER to the 200. Every mode goes "
             "round the same users, so each REGISTER updates a binding rather than creating one.", "",
             "### Targets", "",
             "| deployment | compared | registrations/s | ratio | target | verdict |", "|---|---|---|---|---|---|"]
    for system in measured:
        plain = rate(rows, PLAIN, system)
        for workload, minimum in TARGETS:
            value = rate(rows, workload, system)
            informative = system == KAMAILIO
            lines.append(f"| {label(system)} | {MODE_WORDS[workload]} / plain | {_fmt_rate(value)} / {_fmt_rate(plain)} "
                         f"| {_fmt_ratio(_ratio(value, plain))} | {'none' if informative else f'>= {minimum:.2f}'} "
                         f"| {verdict(value, plain, minimum, caveats, informative)} |")
    lines += ["", "### Every search", "",
              "| deployment | mode | registrations/s | p99 <= 100 ms | p50 ms | p99 ms | retransmissions "
              "| / its plain | / Kamailio's | note |", "|---|---|---|---|---|---|---|---|---|---|"]
    kamailio = {w: rate(rows, w, KAMAILIO) for w in AUTH_WORKLOADS}
    for system in measured:
        plain = rate(rows, PLAIN, system)
        for workload in AUTH_WORKLOADS:
            for row in (r for r in rows if r["workload"] == workload and r["system"] == system):
                value = int(row["rate"])
                against = "-" if system == KAMAILIO else _fmt_ratio(_ratio(value, kamailio[workload]))
                when = " (again at the end)" if str(row.get("round", "1")) == "2" else ""
                lines.append(f"| {label(system)}{when} | {MODE_WORDS[workload]} | {value:,} | {_prompt(row)} "
                             f"| {_ms(row.get('p50_ms'))} | {_ms(row.get('p99_ms'))} | {row.get('retransmissions') or '-'} "
                             f"| {'-' if workload == PLAIN else _fmt_ratio(_ratio(value, plain))} | {against} "
                             f"| {row.get('note', '')} |")
    return lines + ["", f"![authentication]({PLOT})", "", f"`{CSV_FILE}`: the same figures and ratios, one row per "
                    "deployment.", ""]


def _prompt(row: dict) -> str:
    value = row.get("rate_p99_100ms")
    return "-" if value in (None, "") else f"{int(value):,}"


def _ms(value) -> str:
    return f"{float(value):.0f}" if value not in (None, "") else "-"


def write_plot(out: Path, rows: list[dict]) -> Path | None:
    """Bars: each deployment's three rates (left) and the first and refresh rates over its plain
    rate with the targets (right)."""
    measured = systems(rows)
    if not measured:
        return None
    plt = plots.pyplot()

    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    width = 0.25
    for index, workload in enumerate(AUTH_WORKLOADS):
        xs = [i + (index - 1) * width for i in range(len(measured))]
        left.bar(xs, [rate(rows, workload, s) or 0 for s in measured], width, label=MODE_WORDS[workload],
                 color=f"C{index}")
    for index, (workload, minimum) in enumerate(TARGETS, start=1):
        xs = [i + (index - 1.5) * width for i in range(len(measured))]
        right.bar(xs, [_ratio(rate(rows, workload, s), rate(rows, PLAIN, s)) or 0 for s in measured], width,
                  label=f"{MODE_WORDS[workload]} / plain", color=f"C{index}")
        right.axhline(minimum, linestyle=":", color=f"C{index}", label=f"target {MODE_WORDS[workload]} {minimum:g}")
    for axis in (left, right):
        axis.set_xticks(range(len(measured)))
        axis.set_xticklabels([label(s) for s in measured])
        axis.grid(alpha=0.3, axis="y")
        axis.legend(fontsize=8)
    left.set_ylabel("highest passing rate (registrations/s)")
    left.set_title("plain, first and refresh registrations", fontsize=9)
    right.set_ylabel("ratio to the same deployment's plain rate")
    right.set_ylim(bottom=0)
    right.set_title("what authentication costs", fontsize=9)
    return plots.save(figure, out / PLOT)

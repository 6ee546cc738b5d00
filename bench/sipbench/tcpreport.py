"""The tcp experiment's files and report: tcp-steps.csv (every step), tcp-rate.csv (each system's
and transport's highest passing rate), tcp-idle.csv (each level of connections held), the report's
section with its targets, and the figure tcp.png.

The targets: in the rate part TCP persistent at least 0.7 of UDP's REGISTER/s (per-transaction is
informative); in the idle part, with the most connections held, REGISTER/s at least 0.9 and p99 at
most 1.5 times what they are with none held (p99 compared at the same offered rate: the rate
sustained with none held). Kamailio's figures are given beside ours, for information. Memory per
idle connection: the front's RSS (all its processes) at N held less at none, over N; Kamailio's
likewise over all its processes, by RSS (as asked of every process) and by Pss (its shared memory
counted once).

Pure functions of the CSV files' rows, apart from writing the files and the figure; safe from one
thread at a time (the files are appended to).
"""
from __future__ import annotations

import csv
from dataclasses import asdict
from pathlib import Path

from . import plots, tcp
from .experiments import KAMAILIO
from .overload import append  # one row at a time, the header first: an interrupted run keeps its rows

STEPS_CSV, RATE_CSV, IDLE_CSV, NOTES = "tcp-steps.csv", "tcp-rate.csv", "tcp-idle.csv", "tcp-notes.txt"
PLOT = "tcp.png"
STEP_FIELDS = [f for f in tcp.RateStep.__dataclass_fields__]
RATE_FIELDS = ["system", "transport", "rate", "p50_ms", "p99_ms", "steps", "note"]
IDLE_FIELDS = ["system", "asked", "held", "failed", "rate", "p50_ms", "p99_ms", "p99_at_base_ms", "front_rss_kib",
               "nodes_rss_kib", "server_rss_kib", "server_pss_kib", "holders_rss_kib", "processes"]


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def append_note(out: Path, note: str) -> None:
    with open(out / NOTES, "a") as notes:
        notes.write(note + "\n")


def step_row(step: tcp.RateStep) -> dict:
    row = asdict(step)
    row.update(offered_rate=f"{step.offered_rate:.1f}", p50_ms=_number(step.p50_ms), p99_ms=_number(step.p99_ms),
               passed=int(step.passed))
    return row


def rate_note(measured: list[tcp.RateStep], rates: tuple[int, ...]) -> str:
    """Why the highest passing rate is where it is, when the server's limit is not what bounds it."""
    failed = [s for s in measured if not s.passed]
    if not any(s.passed for s in measured):
        return "no step passed"
    if not failed:
        return (f"every rate passed up to the ladder's top, {rates[-1]:,}/s: the limit is higher"
                if measured[-1].rate == rates[-1] else "")
    if "offered only" in failed[-1].reason:
        return f"generator-limited: sipload could not offer {failed[-1].rate:,}/s, so the limit is higher"
    return f"failed at {failed[-1].rate:,}/s: {failed[-1].reason}"


def rate_row(system: str, transport: str, measured: list[tcp.RateStep], rates: tuple[int, ...]) -> dict:
    top = tcp.best(measured)
    return {"system": system, "transport": transport, "rate": top.rate if top else 0,
            "p50_ms": _number(top.p50_ms if top else None), "p99_ms": _number(top.p99_ms if top else None),
            "steps": len(measured), "note": rate_note(measured, rates)}


def idle_row(level: tcp.IdleLevel) -> dict:
    return {"system": level.system, "asked": level.asked, "held": level.held, "failed": level.failed,
            "rate": level.rate, "p50_ms": _number(level.p50_ms), "p99_ms": _number(level.p99_ms),
            "p99_at_base_ms": _number(level.p99_at_base_ms), "front_rss_kib": level.total("front-"),
            "nodes_rss_kib": level.total("node-"), "server_rss_kib": level.total(),
            "server_pss_kib": level.total(pss=True), "holders_rss_kib": level.holders_rss_kib,
            "processes": ";".join(f"{m.process}={m.rss_kib}" for m in level.memory)}


def read(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _float(value) -> float | None:
    return float(value) if value not in (None, "") else None


def _label(system: str) -> str:
    return "Kamailio" if system == KAMAILIO else f"{system} (2 nodes, front)"


def _systems(rows: list[dict]) -> list[str]:
    found = list(dict.fromkeys(row["system"] for row in rows))
    return [s for s in found if s != KAMAILIO] + ([KAMAILIO] if KAMAILIO in found else [])


def rate_of(rates: list[dict], system: str, transport: str) -> int | None:
    row = next((r for r in rates if r["system"] == system and r["transport"] == transport), None)
    return int(row["rate"]) if row and int(row["rate"]) > 0 else None


def levels(idle: list[dict], system: str) -> list[dict]:
    return sorted((r for r in idle if r["system"] == system), key=lambda r: int(r["asked"]))


def per_connection_kib(idle: list[dict], system: str, field: str) -> float | None:
    """(memory at the most held less at none) over the connections held there, in KiB."""
    rows = levels(idle, system)
    if len(rows) < 2 or int(rows[0]["held"]) != 0 or int(rows[-1]["held"]) <= 0:
        return None
    return (int(rows[-1][field]) - int(rows[0][field])) / int(rows[-1]["held"])


def _ratio(value: float | None, against: float | None) -> float | None:
    return value / against if value is not None and against else None


def _fmt(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _verdict(ok: bool | None, informative: bool, caveats: list[str]) -> str:
    if ok is None:
        return "not judged: not measured, or no step passed"
    if informative:
        return "informative"
    return ("met" if ok else "not met") + (f", indicative ({'; '.join(caveats)})" if caveats else "")


def target_lines(rates: list[dict], idle: list[dict], caveats: list[str]) -> list[str]:
    lines = ["| deployment | compared | figures | ratio | target | verdict |", "|---|---|---|---|---|---|"]
    for system in _systems(rates + idle):
        informative = system == KAMAILIO
        udp = rate_of(rates, system, tcp.UDP)
        for transport, minimum in ((tcp.PERSISTENT, tcp.PERSISTENT_OVER_UDP), (tcp.PER_TRANSACTION, None)):
            value = rate_of(rates, system, transport)
            ratio = _ratio(value, udp)
            ok = None if ratio is None else ratio >= (minimum or 0)
            lines.append(f"| {_label(system)} | REGISTER/s {transport} / udp | {value or 0:,} / {udp or 0:,} "
                         f"| {_fmt(ratio)} | {'>= %.2f' % minimum if minimum else 'none'} "
                         f"| {_verdict(ok, informative or minimum is None, caveats)} |")
        rows = levels(idle, system)
        if len(rows) >= 2:
            none, most = rows[0], rows[-1]
            ratio = _ratio(int(most["rate"]) or None, int(none["rate"]) or None)
            ok = None if ratio is None else ratio >= tcp.HELD_RATE_SHARE
            lines.append(f"| {_label(system)} | REGISTER/s with {int(most['held']):,} held / none | "
                         f"{int(most['rate']):,} / {int(none['rate']):,} | {_fmt(ratio)} | >= {tcp.HELD_RATE_SHARE:.2f} "
                         f"| {_verdict(ok, informative, caveats)} |")
            p99 = _ratio(_float(most["p99_at_base_ms"]), _float(none["p99_at_base_ms"]))
            ok = None if p99 is None else p99 <= tcp.HELD_P99_FACTOR
            lines.append(f"| {_label(system)} | p99 at {int(none['rate']):,}/s with {int(most['held']):,} held / none "
                         f"| {most['p99_at_base_ms'] or '-'} / {none['p99_at_base_ms'] or '-'} ms | {_fmt(p99)} "
                         f"| <= {tcp.HELD_P99_FACTOR:.1f} | {_verdict(ok, informative, caveats)} |")
    return lines


def memory_lines(idle: list[dict]) -> list[str]:
    lines = []
    for system in _systems(idle):
        if system == KAMAILIO:
            rss = per_connection_kib(idle, system, "server_rss_kib")
            pss = per_connection_kib(idle, system, "server_pss_kib")
            lines.append(f"- Kamailio: {_fmt(rss, 1)} KiB per idle connection by its processes' RSS summed, "
                         f"{_fmt(pss, 1)} KiB by their Pss (shared memory counted once); with the binding of "
                         "each phone, which Kamailio keeps in the same memory.")
        else:
            front = per_connection_kib(idle, system, "front_rss_kib")
            nodes = per_connection_kib(idle, system, "nodes_rss_kib")
            lines.append(f"- {_label(system)}: the front {_fmt(front, 1)} KiB per idle connection (RSS of all its "
                         f"processes); the nodes, which keep each phone's binding and Path, {_fmt(nodes, 1)} KiB.")
    return lines


def section(out: Path, caveats: list[str]) -> list[str]:
    """The report's TCP section; empty when the run did not measure the experiment."""
    rates, idle = read(out / RATE_CSV), read(out / IDLE_CSV)
    if not rates and not idle:
        return []
    lines = ["## TCP (experiment tcp)", "",
             "After Ono and Schulzrinne, \"One Server Per City\". Rate part: plain REGISTERs from bench/sipload "
             "over UDP, over TCP with a connection per phone (persistent) and with a connection per REGISTER "
             "(per-transaction), each offered the same ladder of rates from the lowest until its first failed step; "
             "REGISTER/s is the highest passing rate. Idle part: background sipload processes hold N idle "
             "registered TCP connections; with each N held, a measuring sipload over TCP persistent climbs the "
             "same ladder and every server process's resident memory is read. Everything on loopback; our "
             "deployment is two nodes behind src/front (policy rr), its TCP clients' connections held by the "
             "front.", ""]
    notes = (out / NOTES).read_text().splitlines() if (out / NOTES).exists() else []
    lines += [f"- {note}" for note in notes] + ([""] if notes else [])
    lines += ["### Targets", ""] + target_lines(rates, idle, caveats) + [""]
    lines += ["Memory per idle connection (at the most held less at none, over the connections held):", ""]
    lines += memory_lines(idle) + [""]
    lines += ["### Rate part", "", "| deployment | transport | REGISTER/s | / UDP | p50 ms | p99 ms | steps | note |",
              "|---|---|---|---|---|---|---|---|"]
    for system in _systems(rates):
        udp = rate_of(rates, system, tcp.UDP)
        for row in (r for r in rates if r["system"] == system):
            lines.append(f"| {_label(system)} | {row['transport']} | {int(row['rate']):,} "
                         f"| {_fmt(_ratio(int(row['rate']) or None, udp))} | {row['p50_ms'] or '-'} "
                         f"| {row['p99_ms'] or '-'} | {row['steps']} | {row['note']} |")
    lines += ["", "### Idle part", "",
              "| deployment | held (asked) | failed | REGISTER/s | p50 ms | p99 ms | p99 ms at none's rate "
              "| front RSS MiB | nodes RSS MiB | server RSS MiB | server Pss MiB | clients RSS MiB |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for system in _systems(idle):
        for row in levels(idle, system):
            mib = [f"{int(row[f]) / 1024:,.0f}" for f in ("front_rss_kib", "nodes_rss_kib", "server_rss_kib",
                                                          "server_pss_kib", "holders_rss_kib")]
            if system == KAMAILIO:
                mib[0] = mib[1] = "-"
            lines.append(f"| {_label(system)} | {int(row['held']):,} ({int(row['asked']):,}) | {int(row['failed']):,} "
                         f"| {int(row['rate']):,} | {row['p50_ms'] or '-'} | {row['p99_ms'] or '-'} "
                         f"| {row['p99_at_base_ms'] or '-'} | " + " | ".join(mib) + " |")
    lines += ["", "Each process's RSS (KiB) at each level is in `tcp-idle.csv` (`processes`).", "",
              f"![tcp]({PLOT})", "",
              f"`{RATE_CSV}`, `{IDLE_CSV}`: the same figures; `{STEPS_CSV}`: every step of both parts.", ""]
    return lines


def _processes(row: dict) -> dict[str, int]:
    pairs = (item.split("=", 1) for item in row.get("processes", "").split(";") if "=" in item)
    return {name: int(kib) for name, kib in pairs}


def write_plot(out: Path) -> Path | None:
    """Left: the memory of each process (ours) and Kamailio's summed against connections held; right:
    the measuring process's REGISTER/s against connections held."""
    idle = read(out / IDLE_CSV)
    if not idle:
        return None
    plt = plots.pyplot()

    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for index, system in enumerate(_systems(idle)):
        rows = levels(idle, system)
        held = [int(r["held"]) for r in rows]
        if system == KAMAILIO:
            left.plot(held, [int(r["server_rss_kib"]) / 1024 for r in rows], marker="s", color="black",
                      label="Kamailio, RSS summed")
            left.plot(held, [int(r["server_pss_kib"]) / 1024 for r in rows], marker="s", linestyle="--",
                      color="dimgray", label="Kamailio, Pss summed")
        else:
            names = list(dict.fromkeys(n for r in rows for n in _processes(r)))
            for number, name in enumerate(names):
                left.plot(held, [_processes(r).get(name, 0) / 1024 for r in rows], marker="o",
                          color=f"C{number % 10}", label=f"{system} {name}")
        right.plot(held, [int(r["rate"]) for r in rows], marker="o", color="black" if system == KAMAILIO else "C0",
                   label=_label(system))
    left.set_ylabel("resident memory (MiB)")
    left.set_title("memory of each server process", fontsize=9)
    right.set_ylabel("REGISTER/s (highest passing rate, TCP persistent)")
    right.set_ylim(bottom=0)
    right.set_title("registration rate with the connections held", fontsize=9)
    for axis in (left, right):
        axis.set_xlabel("idle TCP connections held")
        axis.grid(alpha=0.3)
        axis.legend(fontsize=7)
    return plots.save(figure, out / PLOT)

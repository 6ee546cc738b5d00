"""The `faults` experiment's part of the report: per backend, what its fault runs did and the targets
(lost 0, stale 0, no failed request during a planned change) with their verdicts; per kind of
fault, the requests sent while it held, those that failed, and the time to recover; every run with
its seed.

Read from faults.csv and fault-kinds.csv (faultruns.py) and the run's settings, so `--report-only`
rebuilds it. Pure functions of those rows, apart from reading the files; safe to share.
"""
from __future__ import annotations

from pathlib import Path

from . import faultruns

MET, NOT_MET = "met", "not met"


def _int(row: dict, key: str) -> int | None:
    value = row.get(key, "")
    return int(value) if value not in ("", None) else None


def _sum(rows: list[dict], key: str) -> int:
    return sum(_int(r, key) or 0 for r in rows)


def judged(rows: list[dict]) -> list[dict]:
    """The runs that printed their summary: the others checked nothing."""
    return [r for r in rows if _int(r, "operations") is not None]


def shortfall(meta: dict[str, str]) -> str:
    """Why this run's verdicts are indicative (fewer or shorter runs than the documented ones), or ""."""
    runs, minutes = int(meta.get("fault_runs") or 0), float(meta.get("fault_minutes") or 0)
    if runs >= faultruns.FULL_RUNS and minutes >= faultruns.FULL_MINUTES:
        return ""
    return (f"indicative: {runs} run(s) of {minutes:g} min, the documented figure is "
            f"{faultruns.FULL_RUNS} of {faultruns.FULL_MINUTES:g}")


def verdict(count: int, checked: bool, why_not: str, caveat: str) -> str:
    """A target of 0: met, not met, or not judged with why; a met short of the documented runs says so."""
    if not checked:
        return "not judged: " + why_not
    if count:
        return NOT_MET
    return MET + (f" ({caveat})" if caveat else "")


def targets(rows: list[dict], meta: dict[str, str]) -> dict[str, str]:
    """The verdicts of one backend's runs: lost, stale, failed during planned changes."""
    done = judged(rows)
    caveat = shortfall(meta)
    planned = [r for r in done if _int(r, "planned_requests") is not None]
    not_done = [r for r in planned if r.get("planned_not_done")]
    return {"lost": verdict(_sum(done, "lost"), bool(done), "no run printed its summary", caveat),
            "stale": verdict(_sum(done, "stale"), bool(done), "no run printed its summary", caveat),
            "planned": verdict(_sum(planned, "planned_failed") + len(not_done), bool(planned),
                               "no run made a planned change", caveat)}


def backend_table(runs: list[dict], meta: dict[str, str]) -> list[str]:
    lines = ["| backend | runs (summary printed) | operations | acknowledged | lost (target 0) | stale (target 0) "
             "| failed requests during planned changes (target 0) |", "|---|---|---|---|---|---|---|"]
    for backend in dict.fromkeys(r["backend"] for r in runs):
        mine = [r for r in runs if r["backend"] == backend]
        done = judged(mine)
        verdicts = targets(mine, meta)
        if not done:   # nothing was counted: no figure, only why
            lines.append(f"| {backend} | {len(mine)} (0) | - | - | {verdicts['lost']} | {verdicts['stale']} | "
                         f"{verdicts['planned']} |")
            continue
        planned = f"{_sum(done, 'planned_failed')} of {_sum(done, 'planned_requests')}"
        lines.append(f"| {backend} | {len(mine)} ({len(done)}) | {_sum(done, 'operations'):,} | "
                     f"{_sum(done, 'acknowledged'):,} | {_sum(done, 'lost')}: {verdicts['lost']} | "
                     f"{_sum(done, 'stale')}: {verdicts['stale']} | {planned}: {verdicts['planned']} |")
    return lines


def kinds_table(kinds: list[dict]) -> list[str]:
    """Per backend and kind: how often, the requests sent while it held or ran, those failed, recovery."""
    lines = ["| backend | kind | times | requests sent during it | failed | worst time to recover | mean |",
             "|---|---|---|---|---|---|---|"]
    order = {kind: i for i, kind in enumerate(faultruns.FAULT_KINDS + faultruns.PLANNED)}
    keys = sorted({(k["backend"], k["kind"]) for k in kinds}, key=lambda bk: (bk[0], order.get(bk[1], 99)))
    for backend, kind in keys:
        mine = [k for k in kinds if k["backend"] == backend and k["kind"] == kind]
        recovered = [float(k["recovered_s"]) for k in mine if k.get("recovered_s") not in ("", None)]
        worst = f"{max(recovered):.1f} s" if recovered else "-"
        mean = f"{sum(recovered) / len(recovered):.1f} s" if recovered else "-"
        lines.append(f"| {backend} | {kind} | {_sum(mine, 'faults')} | {_sum(mine, 'requests'):,} | "
                     f"{_sum(mine, 'failed'):,} | {worst} | {mean} |")
    return lines


def runs_table(runs: list[dict]) -> list[str]:
    lines = ["| backend | run | seed | minutes | kinds | namespaces | exit code | operations | lost | stale | folder |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        lines.append(f"| {r['backend']} | {r['run']} | {r['seed']} | {r['minutes']} | {r['kinds']} | "
                     f"{'yes' if r['netns'] == 'True' else 'no'} | {r['exit_code'] or 'none (stopped)'} | "
                     f"{r['operations'] or '-'} | {r['lost'] or '-'} | {r['stale'] or '-'} | `{r['folder'] or '-'}` |")
    return lines


def section(out: Path, meta: dict[str, str]) -> list[str]:
    runs = faultruns.read_rows(out / faultruns.FAULTS_CSV)
    if not runs:
        return []
    kinds = faultruns.read_rows(out / faultruns.KINDS_CSV)
    lines = ["## Faults", "",
             f"`deploy/p2psip faults` on {faultruns.NODES} nodes of each backend, {meta.get('fault_runs', '')} run(s) "
             f"of {meta.get('fault_minutes', '')} min each, every fault kind this machine can inject "
             "(deploy/README.md, \"Fault runs\"). Lost: an acknowledged binding a later read missed; stale: a "
             "read listing a binding removed or expired; a failed request during a planned change: one that got "
             "no 200 though its client honoured Retry-After. A run that printed no summary checked nothing.", ""]
    lines += backend_table(runs, meta) + [""]
    missing = [part for part in meta.get("fault_left_out", "").split("; ") if part]
    if missing:
        lines += ["Not injected here: " + "; ".join(missing) + ".", ""]
    lines += ["Requests sent while each fault held (each planned change ran), those that got no 200, and the "
              "time to recover: from the fault's heal to the end of the last failed request sent before the "
              "next fault (0: nothing failed after the heal).", ""]
    lines += (kinds_table(kinds) if kinds else ["No run reached its faults."])
    lines += ["", "Every run, with its seed (`deploy/p2psip faults --seed`) and its folder of history, fault log "
              "and report; a run without one printed no summary, and what it printed is in "
              "`work/faults-BACKEND-RUN.log`:", ""]
    return lines + runs_table(runs) + [""]

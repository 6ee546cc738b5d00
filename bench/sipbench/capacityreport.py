"""The capacity experiment's part of the report: how many users a deployment keeps registered, what
it answers while it holds them, and what a binding costs it against what a contact costs Kamailio.

Read from capacity.csv (a row per deployment: each backend's nodes, and Kamailio) and
capacity-nodes.csv (each process's records, heap after a full collection and resident memory before
the load and after the query), so `--report-only` rebuilds it. The targets are targets.py's.

Pure functions of those rows and the run's settings, apart from reading the files; safe to share.
"""
from __future__ import annotations

from pathlib import Path

from . import capacity, targets
from .capacity import KAMAILIO


def _f(row: dict, key: str) -> float | None:
    value = row.get(key, "")
    try:
        return float(value) if value not in ("", None) else None
    except ValueError:
        return None


def _int(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def _mib(kib: float | None) -> str:
    return "-" if kib is None else f"{kib / 1024:,.1f} MiB"


def _share(ok: float | None, sent: float | None) -> str:
    if ok is None or not sent:
        return "-"
    return f"{ok / sent:.2%} ({ok:,.0f}/{sent:,.0f})"


def verdict(judged: targets.Judged, caveat: str) -> str:
    if judged.holds is None:
        return "not judged: " + (judged.why or "not measured")
    return ("met" if judged.holds else "not met") + caveat + (f" ({judged.why})" if judged.why else "")


def settings_line(meta: dict[str, str]) -> str:
    words = []
    for key, text in (("capacity_users", "users"), ("capacity_nodes", "nodes"), ("capacity_expiry", "s expiry"),
                      ("capacity_seconds", "s of steady state"), ("capacity_call_rate", "calls/s")):
        if meta.get(key):
            words.append(f"{meta[key]} {text}")
    return ", ".join(words)


def caveat_reasons(meta: dict[str, str], users: int) -> list[str]:
    """Why this run's capacity verdicts are indicative: fewer users than full mode's, a shorter steady
    state, the searches' own caveats; empty when none."""
    reasons = []
    if users < capacity.FULL_USERS:
        reasons.append(f"{users:,} users, where full mode holds {capacity.FULL_USERS:,}")
    seconds = float(meta.get("capacity_seconds") or 0)
    if seconds and seconds < capacity.FULL_SECONDS:
        reasons.append(f"a steady state of {seconds:g} s, full mode's {capacity.FULL_SECONDS:g} s")
    return reasons + targets.caveat_reasons(meta)


def backend_table(row: dict) -> list[str]:
    users = _f(row, "users") or 0
    refresh, first = _f(row, "refresh_rate"), _f(row, "first_rate")
    lines = ["| figure | value |", "|---|---|",
             f"| users (N) | {_int(users)} |",
             f"| load: time, rate | {(_f(row, 'load_s') or 0):,.1f} s, {_int(_f(row, 'load_rate'))} REGISTER/s "
             f"({row.get('load_rounds', '-')} pass(es); {row.get('not_loaded', '-')} never registered) |",
             f"| steady state: refreshes answered 200 | {_share(_f(row, 'refresh_ok'), _f(row, 'refresh_sent'))} |",
             f"| steady state: refresh p50 / p99 | {_ms(_f(row, 'refresh_p50_ms'))} / {_ms(_f(row, 'refresh_p99_ms'))} ms |",
             f"| steady state: calls completed | {_share(_f(row, 'calls_ok'), _f(row, 'calls_sent'))} |",
             f"| steady state: call p50 / p99 (INVITE to 200) | {_ms(_f(row, 'call_p50_ms'))} / "
             f"{_ms(_f(row, 'call_p99_ms'))} ms |",
             f"| node killed midway | {row.get('killed') or '-'} |",
             f"| after: users queried, unanswered | {_int(_f(row, 'queried'))}, {_int(_f(row, 'unanswered'))} |",
             f"| after: users without a binding at the first query | {_int(_f(row, 'absent'))} |",
             f"| after: records lost (still without one when asked again) | {_int(_f(row, 'lost'))} |",
             f"| after: users with more than one binding | {_int(_f(row, 'duplicates'))} |",
             f"| records held, all nodes (replicas included): before the load, after | "
             f"{_int(_f(row, 'records_before'))}, {_int(_f(row, 'records_after'))} |",
             f"| heap after a full collection, all nodes: before, after | {_mib(_f(row, 'heap_before_kib'))}, "
             f"{_mib(_f(row, 'heap_after_kib'))} |",
             f"| RSS, all nodes: before, after | {_mib(_f(row, 'rss_before_kib'))}, {_mib(_f(row, 'rss_after_kib'))} |",
             f"| memory per binding, heap: growth / N, whole / N | {_int(_f(row, 'heap_per_binding_b'))} B, "
             f"{_int(_f(row, 'heap_per_binding_abs_b'))} B |",
             f"| memory per binding, RSS: growth / N, whole / N | {_int(_f(row, 'rss_per_binding_b'))} B, "
             f"{_int(_f(row, 'rss_per_binding_abs_b'))} B |",
             f"| refresh rate / first-registration rate | {_int(refresh)} / {_int(first)} REGISTER/s"
             + (f" = {refresh / first:.2f}" if refresh is not None and first else "") + " |"]
    if row.get("note"):
        lines.append(f"| note | {row['note']} |")
    return lines


def nodes_table(rows: list[dict], system: str) -> list[str]:
    """Each process before the load and after the query: records, heap after a full collection, RSS."""
    before = {r["name"]: r for r in rows if r["system"] == system and r["moment"] == "before"}
    after = {r["name"]: r for r in rows if r["system"] == system and r["moment"] == "after"}
    if not after:
        return []
    lines = ["| node | records before | records after | heap before | heap after | RSS before | RSS after |",
             "|---|---|---|---|---|---|---|"]
    for name, row in after.items():
        was = before.get(name, {})
        lines.append(f"| {name} | {_int(_f(was, 'records'))} | {_int(_f(row, 'records'))} "
                     f"| {_mib(_f(was, 'heap_kib'))} | {_mib(_f(row, 'heap_kib'))} "
                     f"| {_mib(_f(was, 'rss_kib'))} | {_mib(_f(row, 'rss_kib'))} |")
    return lines + [""]


def kamailio_table(row: dict) -> list[str]:
    return ["| figure | value |", "|---|---|",
            f"| contacts (N) | {_int(_f(row, 'users'))} |",
            f"| load: time, rate | {(_f(row, 'load_s') or 0):,.1f} s, {_int(_f(row, 'load_rate'))} REGISTER/s "
            f"({row.get('load_rounds', '-')} pass(es); {row.get('not_loaded', '-')} never registered) |",
            f"| shared memory in use (core.shmmem real_used): before, after | {_mib(_f(row, 'shm_before_kib'))}, "
            f"{_mib(_f(row, 'shm_after_kib'))} |",
            f"| Pss of all its processes: before, after | {_mib(_f(row, 'rss_before_kib'))}, "
            f"{_mib(_f(row, 'rss_after_kib'))} |",
            f"| memory per contact, shared memory: growth / N, whole / N | {_int(_f(row, 'heap_per_binding_b'))} B, "
            f"{_int(_f(row, 'heap_per_binding_abs_b'))} B |",
            f"| memory per contact, Pss growth / N; RSS (summed over processes) / N | "
            f"{_int(_f(row, 'rss_per_binding_b'))} B; {_int(_f(row, 'rss_per_binding_abs_b'))} B |",
            *([f"| note | {row['note']} |"] if row.get("note") else [])]


def section(out: Path, meta: dict[str, str]) -> list[str]:
    """The report's Capacity section; empty when the run did not measure the experiment."""
    rows = capacity.read(out / capacity.CSV_FILE)
    if not rows:
        return []
    node_rows = capacity.read(out / capacity.NODES_CSV)
    kamailio = next((r for r in rows if r["system"] == KAMAILIO), None)
    ours = [r for r in rows if r["system"] != KAMAILIO]
    users = int(float(rows[0].get("users") or 0))
    reasons = caveat_reasons(meta, users)
    said = ", indicative" if reasons else ""
    lines = ["## Capacity (experiment capacity)", "",
             "How many users a deployment keeps registered. N users, each with a Call-ID of its own, are loaded "
             "through SIP with SIPp as fast as the deployment takes them cleanly (chunks at a rate that grows "
             "after a clean chunk and halves after failures or time-outs; the users that failed are sent again), "
             "each Contact naming the user at the bench's SIPp UAS (a wave waits for its slowest SIPp run, so the "
             "load's rate is a floor). Then a steady state: every user refreshes "
             "once per expiry (N / expiry REGISTER/s, its own Call-ID, a higher CSeq) while calls arrive between "
             "random registered users (caller, node, the UAS the callee's Contact names), over the nodes that stay "
             "up, and midway one node (never node 0) is killed and restarted. After it every user is queried "
             "(a REGISTER without Contact), and those whose answer listed no binding are asked once more once no "
             "node sheds: still none is a record lost; more than one binding is a refresh that added instead of "
             "updating. Memory is read on every node before the load and after the query: records "
             "held (the backend's gauge on /metrics, replicas included), heap after a full collection (jcmd) and "
             "RSS; per binding is the growth summed over the nodes over N (the whole over N beside it). "
             "Kamailio loads the same population (usrloc in memory); its per contact is the growth of its shared "
             "memory in use (core.shmmem) over N, with the Pss of its processes beside it. Last, on the same "
             "deployment, refreshes of the loaded users and first registrations of fresh AORs are each searched "
             "to their limit (their rows are in summary.csv and steps.csv as `capacity-refresh` and "
             "`capacity-first`)." + (f" This run: {settings_line(meta)}." if settings_line(meta) else ""), "",
             "### Targets", "",
             "| deployment | target | measured | bound | verdict |", "|---|---|---|---|---|"]
    for row in ours:
        for judged in targets.capacity_targets(row, kamailio):
            lines.append(f"| {row['system']} {row['nodes']} node(s) | {judged.asks} | {judged.measured} | {judged.bound} "
                         f"| {verdict(judged, said)} |")
    if not ours:
        lines.append("| - | no backend was measured | - | - | - |")
    lines.append("")
    if reasons:
        lines += ["Indicative: " + "; ".join(reasons) + ".", ""]
    for row in ours:
        lines += [f"### {row['system']}, {row['nodes']} node(s)", ""] + backend_table(row) + [""]
        lines += nodes_table(node_rows, row["system"])
    if kamailio:
        lines += ["### Kamailio", ""] + kamailio_table(kamailio) + [""]
    else:
        lines += ["Kamailio was not measured in this run: memory per binding cannot be compared.", ""]
    return lines + [f"`{capacity.CSV_FILE}`: one row per deployment; `{capacity.NODES_CSV}`: every process's "
                    "records, heap and memory before the load and after the query.", ""]

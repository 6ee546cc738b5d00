"""A node's share of the key space and the records it holds, as `status` prints them. Only the
nodes know them: the servlet logs its counters, the backend's metrics among them (`dht.` + the
backend's name), as `counters {name=value, ...}` to its console every `p2psip.metrics.interval`
when they changed (`up` sets 10 s). Chord and Bryan report `*.range.ppm` (the share in
millionths, summed over the node's places) and `*.range.permille`, and `*.records`; a backend
without a ring of its own (memory, Hazelcast, Bamboo) reports no share. Chord and Bryan also
report `*.members`, the nodes their view of the ring holds (the view they send operations by in
one hop), so that `status` shows whether every node sees every other."""
from __future__ import annotations

import json
import re
import urllib.request
from dataclasses import dataclass
from pathlib import Path

COUNTERS = re.compile(r"counters \{([^}]*)\}")


@dataclass(frozen=True)
class Share:
    share: float | None    # of the key space, 0..1; None when the node has not logged one (or knows none yet)
    records: int | None    # held, owned and replica copies together
    members: int | None = None   # nodes in its view of the ring (one hop); None for a backend without one

    def describe(self) -> str:
        share = f"{self.share:.3f}" if self.share is not None else "-"
        records = str(self.records) if self.records is not None else "-"
        members = f" members {self.members}" if self.members is not None else ""
        return f"share {share} records {records}{members}"


def last_counters(text: str) -> dict[str, int]:
    """The last `counters {...}` of a node's console, as numbers by name; empty when there is none."""
    found = COUNTERS.findall(text)
    if not found:
        return {}
    counters = {}
    for pair in found[-1].split(","):
        name, _, value = pair.strip().partition("=")
        if value.strip().lstrip("-").isdigit():
            counters[name.strip()] = int(value)
    return counters


def of_counters(counters: dict[str, int]) -> Share:
    """The share (from `*.range.ppm`, else `*.range.permille`; a negative value is unknown) and
    the records (`*.records`) among a node's counters."""
    def first(suffix: str) -> int | None:
        return next((v for k, v in sorted(counters.items()) if k.endswith(suffix)), None)

    ppm, permille = first(".range.ppm"), first(".range.permille")
    share = (ppm / 1_000_000 if ppm is not None and ppm >= 0
             else permille / 1000 if ppm is None and permille is not None and permille >= 0 else None)
    return Share(share, first(".records"), first(".members"))


def of_node(folder: Path) -> Share:
    """What a node folder's console (logs/console.log) last said; unknown when it is missing."""
    log = Path(folder) / "logs" / "console.log"
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return Share(None, None)
    return of_counters(last_counters(text))


def of_status(status: str, deadline_s: float = 2.0) -> Share:
    """What a running node says at its status address (/self.json): how `status` reads a node on
    another machine, whose console is there; unknown when it does not answer."""
    try:
        with urllib.request.urlopen(f"http://{status}/self.json", timeout=deadline_s) as response:
            said = json.loads(response.read())
    except (OSError, ValueError):
        return Share(None, None)
    share, records = said.get("share"), said.get("records")
    return Share(float(share) if isinstance(share, (int, float)) else None,
                 int(records) if isinstance(records, int) else None)

"""The requests of a fault run sent while each fault held, which of them failed, and how long after
its heal requests still failed: the line `during faults: kill 2 requests 130 failed 4 recovered
6.1 s, pause 1 requests 80 failed 0 recovered 0.0 s`, one entry per kind of fault (not the
planned changes, which planned.py counts).

A request is planned.py's (an operation and its retries). It counts for a fault when first sent
between the fault's start and its heal. `recovered` is the longest, over the faults of a kind, of
the time from a fault's heal to the end of the last failed request first sent between the fault's
start and the next fault's start (its answer, or its sending when unanswered): 0 when nothing
failed after the heal."""
from __future__ import annotations

from dataclasses import dataclass, field

from . import planned
from .history import OK, Operation


@dataclass
class Kind:
    faults: int = 0
    requests: int = 0
    failed: int = 0
    recovered_s: float = 0.0


@dataclass
class Recovery:
    kinds: dict[str, Kind] = field(default_factory=dict)

    def line(self) -> str:
        if not self.kinds:
            return ""
        return "during faults: " + ", ".join(
            f"{kind} {k.faults} requests {k.requests} failed {k.failed} recovered {k.recovered_s:.1f} s"
            for kind, k in self.kinds.items())


def tally(operations: list[Operation], events: list[dict], fault_kinds: tuple[str, ...]) -> Recovery:
    """Per kind of `fault_kinds`, from the fault log's events and the history's operations."""
    held = planned.windows(events, fault_kinds)
    starts = sorted(e["time"] for e in events if e["event"] == "start")
    requests = planned.requests(operations)
    result = Recovery()
    for window in held:
        kind = result.kinds.setdefault(window.kind, Kind())
        kind.faults += 1
        following = min((t for t in starts if t > window.start), default=float("inf"))
        for first, last in requests:
            failed = last.outcome != OK
            if window.start <= first.invoked <= window.end:
                kind.requests += 1
                kind.failed += failed
            if failed and window.start <= first.invoked < following:
                ended = last.completed if last.completed is not None else last.invoked
                kind.recovered_s = max(kind.recovered_s, ended - window.end)
    return result

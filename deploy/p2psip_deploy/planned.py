"""The requests of a fault run made during its planned changes (add, remove, rolling), which of
them failed, and which changes were not done. A request is what a client that honours 503 with Retry-After sees: an operation
and the new transactions that retried it (`retry_of`), failed when the last of them got no 200.
It counts for a change when it was first sent between the change's start and its end."""
from __future__ import annotations

from dataclasses import dataclass, field

from .history import OK, Operation


@dataclass
class Window:
    kind: str
    start: float
    end: float
    done: bool = True   # False: the change failed, or never ended


@dataclass
class Tally:
    """Per kind of planned change: the requests sent during it, and the failed ones (their last
    operation's id, for the report)."""
    requests: dict[str, int] = field(default_factory=dict)
    failed: dict[str, list[int]] = field(default_factory=dict)
    unfinished: list[str] = field(default_factory=list)   # the kinds of the changes that were not done

    @property
    def failed_count(self) -> int:
        return sum(len(ids) for ids in self.failed.values())

    def line(self) -> str:
        """`planned: add requests 120 failed 0, remove requests 80 failed 0`, or "" with no change;
        a change that was not done is marked `(not done)`."""
        if not self.requests:
            return ""
        return "planned: " + ", ".join(f"{kind} requests {count} failed {len(self.failed.get(kind, []))}"
                                       + (" (not done)" if kind in self.unfinished else "")
                                       for kind, count in self.requests.items())


def windows(events: list[dict], planned_kinds: tuple[str, ...]) -> list[Window]:
    """Each planned change's start to its end ("done" or "failed"), from the fault log's events;
    one never ended lasts to the last event."""
    found, open_ = [], {}
    last = max((e["time"] for e in events), default=0.0)
    for event in events:
        if event["kind"] not in planned_kinds:
            continue
        key = (event["kind"], event["at"])
        if event["event"] == "start":
            open_[key] = event["time"]
        elif key in open_:
            found.append(Window(event["kind"], open_.pop(key), event["time"], event["event"] == "done"))
    found += [Window(kind, start, last, False) for (kind, _), start in open_.items()]
    return sorted(found, key=lambda w: w.start)


def requests(operations: list[Operation]) -> list[tuple[Operation, Operation]]:
    """Each request as (its first transaction, its last): an operation and the retries its 503s asked for."""
    retried = {op.retry_of for op in operations if op.retry_of is not None}
    by_id = {op.id: op for op in operations}
    found = []
    for last in (op for op in operations if op.id not in retried):
        first = last
        while first.retry_of is not None and first.retry_of in by_id:
            first = by_id[first.retry_of]
        found.append((first, last))
    return found


def tally(operations: list[Operation], during: list[Window]) -> Tally:
    """The requests first sent during each window, and those whose last transaction failed."""
    result = Tally({w.kind: 0 for w in during}, unfinished=[w.kind for w in during if not w.done])
    for first, last in requests(operations):
        for window in during:
            if window.start <= first.invoked <= window.end:
                result.requests[window.kind] += 1
                if last.outcome != OK:
                    result.failed.setdefault(window.kind, []).append(last.id)
    return result

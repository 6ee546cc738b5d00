"""The history of a fault run and its check against the registrar's model.

The model: per (AOR, contact) a register whose value is present (with an expiry) or absent. An
add of contact c with expires e makes c present until it expires or is replaced; a removal of c
(`expires=0`) or of all (`Contact: *`) makes it absent. Every 200 to a REGISTER lists every
current contact of the AOR (RFC 3261 section 10.3 step 8), so every acknowledged operation, a
query (no Contact) or a write, is also a read of the whole AOR at one instant between its
invocation and its completion.

An operation that got no final answer, or an answer that may follow a write (a 503 after the DHT
was late: the write may still land), is indeterminate: as Jepsen treats such operations it may
take effect at any time after its invocation, or never. A definite refusal (4xx, 500 Out of
Order, 503 from the intake or admission before any DHT work) never takes effect.

The checker is sound rather than complete: it reports a violation only when no order of the
operations that real time allows explains the read. Three kinds:
- lost-write: an acknowledged add w of c completed before a read r was invoked, r did not list
  c, and no removal of c nor an add of c that may have expired by then can be placed after w and
  before r (w itself not possibly expired).
- stale: r listed c, but every add of c that could have written it was followed, before r was
  invoked, by an acknowledged removal of c or an acknowledged add of c that had surely expired by
  r, or had surely expired itself. The removal that came back is its usual form.
- never-written: r listed a contact that no add named that may have taken effect by then
  (invoked before r completed, and not refused).
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Iterable

ADD, REMOVE, REMOVE_ALL, QUERY = "add", "remove", "remove-all", "query"
KINDS = (ADD, REMOVE, REMOVE_ALL, QUERY)
LOST, STALE, NEVER_WRITTEN = "lost-write", "stale", "never-written"

OK, FAILED, UNKNOWN = "ok", "failed", "unknown"
# 503s answered before any DHT work (src/README.md, "Responses of the node's own"): the request
# was refused, nothing was written. Every other 503 may follow a write that still lands.
REFUSED_BEFORE_WRITING = {"Not Ready", "Overloaded", "Stopping", "Source Over Limit"}
OUT_OF_ORDER = "Out of Order Request"
# The node's clock decides a binding's expiry and this machine's clock the times of the history;
# they are one clock here, and the 200 states expires in whole seconds.
EXPIRY_SLACK_S = 1.0


@dataclass
class Operation:
    """One REGISTER transaction as the client saw it. `completed` None: no final answer (unknown
    outcome). `listed`: the contacts the 200 listed, each with its expires; None without a 200."""
    id: int
    client: str
    node: str
    aor: str
    kind: str
    invoked: float
    contact: str | None = None
    expires: int | None = None
    completed: float | None = None
    status: int | None = None
    reason: str = ""
    listed: dict[str, int] | None = None
    retry_of: int | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"operation {self.id}: kind {self.kind!r} is none of {', '.join(KINDS)}")
        if self.kind in (ADD, REMOVE) and not self.contact:
            raise ValueError(f"operation {self.id}: {self.kind} names no contact")
        if self.kind == ADD and (self.expires is None or self.expires <= 0):
            raise ValueError(f"operation {self.id}: add wants expires > 0, got {self.expires}")
        if (self.status is None) != (self.completed is None):
            raise ValueError(f"operation {self.id}: an answer needs its completion time, and only an answer has one")
        if self.completed is not None and self.completed < self.invoked:
            raise ValueError(f"operation {self.id}: completed before it was invoked")

    @cached_property
    def outcome(self) -> str:
        """Asked once the operation is complete (the checker asks it millions of times)."""
        return outcome(self.status, self.reason)

    @cached_property
    def end(self) -> float:
        """When it surely took effect if it did at all: its completion, never for an unknown one."""
        return self.completed if self.outcome == OK else float("inf")

    def writes(self, contact: str) -> bool:
        """Whether this operation, if applied, writes `contact`'s register."""
        return (self.kind in (ADD, REMOVE) and self.contact == contact) or self.kind == REMOVE_ALL

    def may_apply(self) -> bool:
        return self.outcome != FAILED

    def to_json(self) -> str:
        return json.dumps({k: v for k, v in asdict(self).items() if v is not None and v != ""}, sort_keys=True)


def outcome(status: int | None, reason: str) -> str:
    """OK (2xx), FAILED (refused: surely not applied) or UNKNOWN (no answer, or maybe applied)."""
    if status is None:
        return UNKNOWN
    if 200 <= status < 300:
        return OK
    if 400 <= status < 500 and status != 408:
        return FAILED
    if status == 500 and reason == OUT_OF_ORDER:
        return FAILED
    if status == 503 and reason in REFUSED_BEFORE_WRITING:
        return FAILED
    return UNKNOWN


@dataclass
class Violation:
    kind: str
    aor: str
    contact: str
    read: Operation
    witnesses: list[Operation] = field(default_factory=list)

    def describe(self) -> str:
        lines = [f"{self.kind}: {self.aor} contact {self.contact}, read by operation {self.read.id}"]
        lines += [f"  read    {self.read.to_json()}"]
        lines += [f"  witness {w.to_json()}" for w in self.witnesses]
        return "\n".join(lines)


@dataclass
class Verdict:
    operations: int
    acknowledged: int
    failed: int
    unknown: int
    violations: list[Violation]
    failures: Counter            # (kind, "status reason" or "no answer") -> count

    def count(self, *kinds: str) -> int:
        return sum(1 for v in self.violations if v.kind in kinds)

    @property
    def lost(self) -> int:
        return self.count(LOST)

    @property
    def stale(self) -> int:
        return self.count(STALE, NEVER_WRITTEN)

    def report(self) -> str:
        lines = [f"operations {self.operations}, acknowledged {self.acknowledged}, refused {self.failed}, "
                 f"unknown outcome {self.unknown}",
                 f"lost writes {self.lost}, stale reads {self.count(STALE)}, never written {self.count(NEVER_WRITTEN)}"]
        if self.failures:
            lines.append("not acknowledged, by kind and answer:")
            lines += [f"  {kind:10} {answer:32} {n}" for (kind, answer), n in sorted(self.failures.items())]
        for violation in self.violations:
            lines.append(violation.describe())
        return "\n".join(lines) + "\n"


def check(operations: Iterable[Operation]) -> Verdict:
    ops = list(operations)
    by_aor: dict[str, list[Operation]] = defaultdict(list)
    for op in ops:
        by_aor[op.aor].append(op)
    violations = []
    for aor, history in sorted(by_aor.items()):
        violations += check_aor(aor, history)
    failures = Counter((op.kind, answer_of(op)) for op in ops if op.outcome != OK)
    return Verdict(operations=len(ops), acknowledged=sum(op.outcome == OK for op in ops),
                   failed=sum(op.outcome == FAILED for op in ops), unknown=sum(op.outcome == UNKNOWN for op in ops),
                   violations=violations, failures=failures)


def answer_of(op: Operation) -> str:
    return "no answer" if op.status is None else f"{op.status} {op.reason}".strip()


def check_aor(aor: str, history: list[Operation]) -> list[Violation]:
    reads = sorted((op for op in history if op.outcome == OK and op.listed is not None), key=lambda op: op.invoked)
    contacts = {op.contact for op in history if op.kind == ADD} | {c for r in reads for c in r.listed}
    violations = []
    for contact in sorted(contacts):
        writes = [op for op in history if op.writes(contact) and op.may_apply()]
        adds = [op for op in writes if op.kind == ADD]
        for read in reads:
            if contact in read.listed:
                violations += shown(aor, contact, read, adds, writes)
            else:
                violations += missing(aor, contact, read, adds, writes)
    return violations


def missing(aor: str, contact: str, read: Operation, adds: list[Operation], writes: list[Operation]) -> list[Violation]:
    """The read did not list `contact`: a lost write when some acknowledged add of it must be the
    last write before the read and cannot have expired."""
    if read.kind == ADD and read.contact == contact:
        return [Violation(LOST, aor, contact, read, [read])]   # its own 200 must list what it wrote
    eligible = [w for w in adds if w.outcome == OK and w.completed < read.invoked and not may_expire_before(w, read)]
    if not eligible:
        return []
    # An add w is cleared when some write x that leaves the contact absent at the read may take
    # effect after it (x.end > w.invoked); none of those is an eligible add itself. So the add
    # invoked last is the one to try: whatever clears after it clears after every earlier one.
    w = max(eligible, key=lambda op: op.invoked)
    clearing = [x.end for x in writes if x.invoked < read.completed and (x.kind != ADD or may_expire_before(x, read))]
    if max(clearing, default=float("-inf")) > w.invoked:
        return []
    return [Violation(LOST, aor, contact, read, [w])]


def shown(aor: str, contact: str, read: Operation, adds: list[Operation], writes: list[Operation]) -> list[Violation]:
    """The read listed `contact`: stale when no add of it can be the last write before the read
    with its binding still live, never-written when no add of it may have taken effect by then."""
    if read.kind in (REMOVE, REMOVE_ALL) and read.writes(contact):
        return [Violation(STALE, aor, contact, read, [read])]   # its own 200 lists what it removed
    tried = [x for x in adds if x.invoked < read.completed]
    if not tried:
        return [Violation(NEVER_WRITTEN, aor, contact, read, [])]
    # An add x may be the last write before the read unless a write that surely leaves the
    # contact absent (an acknowledged removal, or an acknowledged add surely expired by then)
    # surely came between them: invoked after x surely took effect, completed before the read.
    clearing = [y.invoked for y in writes if y.outcome == OK and y.completed < read.invoked
                and (y.kind != ADD or surely_expired_before(y, read))]
    last_clear = max(clearing, default=float("-inf"))
    if any(x.end >= last_clear and not surely_expired_before(x, read) for x in tried):
        return []
    return [Violation(STALE, aor, contact, read, last_known_writes(read, writes))]


def may_expire_before(w: Operation, read: Operation) -> bool:
    """w's binding may have expired before the read's instant: applied at the earliest at its
    invocation, read at the latest at the read's completion."""
    return w.invoked + w.expires <= read.completed + EXPIRY_SLACK_S


def surely_expired_before(w: Operation, read: Operation) -> bool:
    """w's binding surely expired before the read's instant: applied at the latest at its
    completion (never, for an unknown outcome), read at the earliest at the read's invocation."""
    return w.end + w.expires + EXPIRY_SLACK_S < read.invoked


def last_known_writes(read: Operation, writes: list[Operation]) -> list[Operation]:
    """The acknowledged writes of the contact before the read, the last three: what made it absent."""
    before = sorted((w for w in writes if w.outcome == OK and w.completed < read.invoked), key=lambda w: w.completed)
    return before[-3:]


def read_history(path: Path) -> list[Operation]:
    """The operations of a history file, one JSON object a line; ValueError naming the line."""
    ops = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            ops.append(Operation(**json.loads(line)))
        except (TypeError, ValueError) as e:
            raise ValueError(f"{path}:{number}: not an operation: {e}") from e
    return ops

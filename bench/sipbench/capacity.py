"""The capacity experiment's pure parts: its settings, the population of users and their Call-IDs,
the SIPp injection lines, the pace of the load, what SIPp's logs say, the memory arithmetic and the
records the run writes (capacity.csv, capacity-nodes.csv).

The users (`cap00000000@p2psip.test`, ...) keep one Call-ID each for the whole run and send every
REGISTER with a higher CSeq than their last, as phones do (RFC 3261 section 10.2.4). SIPp matches
an answer to its call by the Call-ID it generated, so a Call-ID cannot come from the injection file:
SIPp makes it from `-cid_str`, where `%u` is the call's number in the run. The population is
therefore cut into buckets: user k of bucket b always has Call-ID `k-b<b>.<token>@p2psip.bench`, which
a SIPp run over bucket b (`-cid_str %u-b<b>.<token>@p2psip.bench`) gives it when the bucket's users
are its lines in order. A run sends a prefix of its bucket; lines it must not send (a resend of the
users that failed, among those that did not) are marked skip, and the scenario ends those calls
without a message. The injection file carries each user's Call-ID too, and the scenario checks it
against SIPp's, so a user never registers under a Call-ID that is not its own.

Immutable data and pure functions, but `Population`, which keeps each user's CSeq and whether it is
registered (from the main thread only).
"""
from __future__ import annotations

import csv
import math
import re
import secrets
from array import array
from dataclasses import asdict, dataclass, fields
from pathlib import Path

DOMAIN = "p2psip.test"
USER_PREFIX = "cap"
CALL_ID_HOST = "p2psip.bench"
# Users per bucket: a fortieth of the population, so that a load of a few chunks still gets feedback,
# within bounds: at least 1,000 (a SIPp run's start and end cost a tenth of a second or more, as much as
# a few hundred REGISTERs at the rates measured here), at most 100,000 (the lines a run reads up front).
BUCKETS = 40
MIN_BUCKET, MAX_BUCKET = 1000, 100_000
# The default expiry of every registration, and what the steady state refreshes: one per user and expiry.
EXPIRY_S = 3600
CALL_RATE = 200
NODES = 4
QUICK_USERS, FULL_USERS = 20_000, 10_000_000
QUICK_SECONDS, FULL_SECONDS = 60.0, 600.0
# The pace of the load and the query: the first chunk at START_RATE/s, a clean chunk (all answered 200
# in time) raises the rate by GROWTH up to MAX_RATE, an unclean one cuts it by BACKOFF down to MIN_RATE
# and rests; users whose REGISTER failed are sent again, at most MAX_ROUNDS times in all.
START_RATE, MIN_RATE, MAX_RATE = 1000, 50, 20_000
GROWTH, BACKOFF = 1.5, 0.5
CLEAN_SHARE = 0.999
MAX_ROUNDS = 8
# Heap of a node: deploy/p2psip's default, or 1 KiB per user of the node's share on top of the
# container's 512 MiB, whichever is larger, in steps of 256 MiB (until `up --users-expected N`).
# Kamailio's shared memory for N contacts: room for its own tables, then 2 KiB a contact (usrloc
# keeps about 1 KiB), in steps of 64 MiB; its usrloc hash table has about 8 contacts a slot.
SHM_BASE_MIB, SHM_PER_CONTACT_B, SHM_STEP_MIB = 256, 2048, 64
KAMAILIO = "kamailio"


def bucket_size(users: int) -> int:
    return max(1, min(users, max(MIN_BUCKET, min(MAX_BUCKET, users // BUCKETS))))


def kamailio_shm_mib(users: int) -> int:
    """Kamailio's `-m` for `users` contacts."""
    mib = SHM_BASE_MIB + users * SHM_PER_CONTACT_B / 2**20
    return math.ceil(mib / SHM_STEP_MIB) * SHM_STEP_MIB


def usrloc_hash_bits(users: int) -> int:
    """usrloc's hash_size (a power of two of slots): about 8 contacts a slot, 2^10 to 2^16."""
    return max(10, min(16, math.ceil(math.log2(max(1, users) / 8))))


@dataclass(frozen=True)
class Settings:
    users: int
    nodes: int = NODES
    expiry_s: int = EXPIRY_S
    steady_s: float = QUICK_SECONDS
    call_rate: int = CALL_RATE
    kamailio: bool = True     # load the same population on Kamailio too

    def refreshes(self) -> int:
        """Users the steady state refreshes: one per user and expiry, N / expiry a second."""
        return min(self.users, round(self.users * self.steady_s / self.expiry_s))

    def victim(self) -> int | None:
        """The node killed and restarted midway: the last, never node 0; None with one node."""
        return self.nodes - 1 if self.nodes > 1 else None


class Population:
    """N users in buckets, each with its Call-ID, its last CSeq and whether a REGISTER of it was answered 200."""

    def __init__(self, users: int, token: str | None = None, size: int | None = None) -> None:
        self.users = users
        self.token = token or secrets.token_hex(4)
        self.size = size or bucket_size(users)
        self.cseq = array("L", [0]) * users
        self.registered = bytearray(users)

    @property
    def buckets(self) -> int:
        return math.ceil(self.users / self.size)

    def user(self, index: int) -> str:
        return f"{USER_PREFIX}{index:08d}"

    def index(self, user: str) -> int:
        return int(user[len(USER_PREFIX):])

    def bucket_range(self, bucket: int) -> range:
        return range(bucket * self.size, min(self.users, (bucket + 1) * self.size))

    def cid_str(self, bucket: int) -> str:
        """SIPp's -cid_str for a run over `bucket`: %u, the call's number, is the user's place in it."""
        return f"%u-b{bucket}.{self.token}@{CALL_ID_HOST}"

    def call_id(self, index: int) -> str:
        bucket, place = divmod(index, self.size)
        return self.cid_str(bucket).replace("%u", str(place + 1))

    def injection(self, bucket: int, send: set[int] | range) -> tuple[str, int]:
        """A run's injection file over `bucket`: its users in order up to the last one sent, those in
        `send` with their next CSeq (taken now), the others marked skip; and how many it sends."""
        users = self.bucket_range(bucket)
        last = max((i for i in users if i in send), default=None)
        if last is None:
            return "SEQUENTIAL\n", 0
        lines, sent = ["SEQUENTIAL"], 0
        for i in range(users.start, last + 1):
            skip = i not in send
            if not skip:
                self.cseq[i] += 1
                sent += 1
            lines.append(f"{self.user(i)};{self.call_id(i)};{self.cseq[i]};{int(skip)};")
        return "\n".join(lines) + "\n", sent

    def unregistered(self) -> list[int]:
        return [i for i in range(self.users) if not self.registered[i]]

    def mark(self, users) -> None:
        """Takes users answered 200 (any iterable of names, a dict's keys)."""
        for user in users:
            self.registered[self.index(user)] = 1

    def write(self, path: Path) -> Path:
        """The population as a file: user, Call-ID, last CSeq, registered (1/0), one line each."""
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w") as out:
            out.write("user;call_id;cseq;registered\n")
            for i in range(self.users):
                out.write(f"{self.user(i)};{self.call_id(i)};{self.cseq[i]};{self.registered[i]}\n")
        return path


def runs_of(population: Population, send: list[int] | range) -> list[tuple[int, set[int] | range]]:
    """The runs that send the users `send` (indices): one per bucket holding any, in bucket order. A range
    (a first pass over everyone) gives ranges, without a set of millions of users."""
    if isinstance(send, range) and send.step == 1:
        first, last = send.start // population.size, (send.stop - 1) // population.size
        return [(b, range(max(send.start, r.start), min(send.stop, r.stop)))
                for b in range(first, last + 1) for r in [population.bucket_range(b)]] if len(send) else []
    by_bucket: dict[int, set[int]] = {}
    for i in send:
        by_bucket.setdefault(i // population.size, set()).add(i)
    return sorted(by_bucket.items())


def prefixes(population: Population, start_bucket: int, count: int) -> tuple[list[tuple[int, range]], int]:
    """`count` users as whole buckets from `start_bucket` on (round the population), the last one a
    prefix: [(bucket, users)], and the bucket to start from next time."""
    runs, bucket, left = [], start_bucket % max(1, population.buckets), count
    while left > 0 and population.users:
        users = population.bucket_range(bucket)
        taken = range(users.start, users.start + min(left, len(users)))
        runs.append((bucket, taken))
        left -= len(taken)
        bucket = (bucket + 1) % population.buckets
    return runs, bucket


@dataclass
class Pace:
    """The rate of the next chunk of a load: up by `growth` after a clean chunk, down by `backoff` after
    one with failures or time-outs, within [minimum, maximum]."""
    rate: float = START_RATE
    minimum: float = MIN_RATE
    maximum: float = MAX_RATE
    growth: float = GROWTH
    backoff: float = BACKOFF

    def after(self, sent: int, ok: int, timeouts: int) -> bool:
        """Takes a chunk's outcome; returns whether it was clean."""
        clean = sent > 0 and ok >= CLEAN_SHARE * sent and timeouts == 0
        factor = self.growth if clean else self.backoff
        self.rate = max(self.minimum, min(self.maximum, self.rate * factor))
        return clean


_OK = re.compile(r"^ok (\S+)\s*$", re.M)
_BINDINGS = re.compile(r"^bindings (\S+) ?(.*)$", re.M)
_URI = re.compile(r"<?sips?:", re.I)


def ok_users(log: str) -> set[str]:
    """The users a capacity REGISTER run got 200 for (its `ok USER` log lines)."""
    return set(_OK.findall(log))


def bindings(log: str) -> dict[str, int]:
    """Per user queried and answered 200, how many bindings the answer listed (its Contact URIs)."""
    return {user: len(_URI.findall(contacts)) for user, contacts in _BINDINGS.findall(log)}


@dataclass(frozen=True)
class Queried:
    """What the query after the steady state found: users asked, answered, with no binding, with more than one."""
    users: int
    answered: int
    lost: int
    duplicates: int

    @property
    def unanswered(self) -> int:
        return self.users - self.answered


class Tally:
    """The query's answers as they come, by user index: answered or not, how many bindings each listed."""

    def __init__(self, users: int) -> None:
        self.users = users
        self.listed = array("l", [-1]) * users   # -1: not answered yet

    def add(self, counts: dict[int, int]) -> None:
        for index, n in counts.items():
            self.listed[index] = n

    def empty(self) -> list[int]:
        """The users whose answer listed no binding."""
        return [i for i, n in enumerate(self.listed) if n == 0]

    def queried(self) -> Queried:
        answered = lost = duplicates = 0
        for n in self.listed:
            answered += n >= 0
            lost += n == 0
            duplicates += n > 1
        return Queried(self.users, answered, lost, duplicates)


def callees(registered: bytearray, count: int, chooser) -> list[int]:
    """`count` users drawn at random (repeats allowed) among those registered; none when none is."""
    if not any(registered):
        return []
    found = []
    while len(found) < count:
        index = chooser.randrange(len(registered))
        if registered[index]:
            found.append(index)
    return found


# The fastest a run goes through its lines: a resend's run skips the users already registered, and a
# skipped line costs SIPp no message, so the lines go faster than the users sent, up to this.
SKIP_RATE = 20_000


def run_rate(per_second: float, lines: int, sent: int) -> float:
    """The rate of a run of `lines` lines of which `sent` are sent, so that those go at `per_second`."""
    if sent <= 0 or lines <= sent:
        return per_second
    return max(per_second, min(SKIP_RATE, per_second * lines / sent))


@dataclass(frozen=True)
class NodeMemory:
    """One server process at one moment: records it held (None when it does not say), its heap used
    right after a full collection and its resident memory, in KiB (None when not read)."""
    name: str
    pid: int
    records: int | None
    heap_kib: int | None
    rss_kib: int | None
    pss_kib: int | None = None


def total(values: list[int | None]) -> int | None:
    return None if not values or any(v is None for v in values) else sum(values)


def per_item(after: int | None, before: int | None, items: int) -> float | None:
    """Bytes per binding (or contact) of a growth in KiB: (after - before) x 1024 / items."""
    if after is None or before is None or items <= 0:
        return None
    return (after - before) * 1024 / items


def per_item_absolute(after: int | None, items: int) -> float | None:
    return None if after is None or items <= 0 else after * 1024 / items


@dataclass(frozen=True)
class Result:
    """One deployment of the capacity experiment (a backend's nodes, or Kamailio): capacity.csv's row.
    Times in seconds, latencies in ms, memory in KiB, per binding in bytes; "" where not measured."""
    system: str
    nodes: int
    users: int
    load_s: float
    load_rate: float
    load_rounds: int
    not_loaded: int
    refresh_sent: int | str = ""
    refresh_ok: int | str = ""
    refresh_p50_ms: float | str = ""
    refresh_p99_ms: float | str = ""
    calls_sent: int | str = ""
    calls_ok: int | str = ""
    call_p50_ms: float | str = ""
    call_p99_ms: float | str = ""
    killed: str = ""          # "node N, restarted in S s", or why none
    queried: int | str = ""
    unanswered: int | str = ""
    absent: int | str = ""    # users whose first query listed no binding; `lost`: still none when asked again
    lost: int | str = ""
    duplicates: int | str = ""
    records_before: int | str = ""
    records_after: int | str = ""
    heap_before_kib: int | str = ""
    heap_after_kib: int | str = ""
    rss_before_kib: int | str = ""
    rss_after_kib: int | str = ""
    shm_before_kib: int | str = ""   # Kamailio: used_size of core.shmmem
    shm_after_kib: int | str = ""
    heap_per_binding_b: float | str = ""       # growth of the heap over the load / users
    rss_per_binding_b: float | str = ""
    heap_per_binding_abs_b: float | str = ""   # the whole heap after / users
    rss_per_binding_abs_b: float | str = ""
    refresh_rate: int | str = ""
    first_rate: int | str = ""
    note: str = ""


FIELDS = [f.name for f in fields(Result)]
NODE_FIELDS = ["system", "moment", "name", "pid", "records", "heap_kib", "rss_kib", "pss_kib"]
CSV_FILE = "capacity.csv"
NODES_CSV = "capacity-nodes.csv"


def row_of(result: Result) -> dict:
    return {k: (f"{v:.1f}" if isinstance(v, float) else v) for k, v in asdict(result).items()}


def node_rows(system: str, moment: str, memory: list[NodeMemory]) -> list[dict]:
    return [{"system": system, "moment": moment, "name": m.name, "pid": m.pid,
             **{k: "" if getattr(m, k) is None else getattr(m, k) for k in ("records", "heap_kib", "rss_kib", "pss_kib")}}
            for m in memory]


def read(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))

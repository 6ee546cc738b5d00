"""The load of a fault run: AORs, each with a few possible contacts and a few clients, and a
seeded random mix of add (a new contact or a refresh), remove, remove-all and query, sent round
robin to every node at a bounded rate. Every operation goes into the history (history.py) as it
completes, one JSON line each.

A client is one user agent of one AOR, with a Call-ID of its own and a CSeq that grows with every
transaction, and one operation in flight at a time, as a Jepsen process. A 503 with Retry-After
is recorded as it came, and the same change is sent again as a new transaction (a new operation,
`retry_of` the one before) once Retry-After has passed, as a phone does, for as long as its first
try was sent less than `retry_for` seconds ago."""
from __future__ import annotations

import asyncio
import random
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from . import sipclient
from .history import ADD, QUERY, REMOVE, REMOVE_ALL, Operation


@dataclass
class Mix:
    """What share of operations is of each kind, and the expires an add asks for. The short
    expiries let bindings run out within a run of minutes (the nodes' shortest is 60 s)."""
    add: float = 0.45
    remove: float = 0.2
    remove_all: float = 0.05
    query: float = 0.3
    expires: tuple = (60, 120, 3600)

    def pick(self, rng: random.Random) -> str:
        return rng.choices((ADD, REMOVE, REMOVE_ALL, QUERY), (self.add, self.remove, self.remove_all, self.query))[0]


@dataclass
class Node:
    name: str
    address: str
    port: int

    @property
    def target(self) -> tuple[str, int]:
        return self.address, self.port


@dataclass
class Agent:
    """One client of one AOR."""
    name: str
    user: str
    contacts: list[str]
    call_id: str = field(default_factory=lambda: secrets.token_hex(12))
    tag: str = field(default_factory=lambda: secrets.token_hex(4))
    cseq: int = 0
    busy: bool = False

    @property
    def aor(self) -> str:
        return f"sip:{self.user}@{sipclient.DOMAIN}"


class Targets:
    """The nodes the load sends new operations to, round robin, and the operations in flight at
    each. A planned change takes a node out (and waits until nothing is in flight there) before it
    stops, and puts a node in once it is ready; that runs on another thread, hence the lock."""

    def __init__(self, nodes: list[Node]):
        self.nodes = list(nodes)
        self.turn = 0
        self.in_flight: dict[str, int] = {}
        self.changed = threading.Condition()

    def next(self) -> Node:
        """The next node in turn, counted in flight there until `finished`."""
        with self.changed:
            node = self.nodes[self.turn % len(self.nodes)]
            self.turn += 1
            self.in_flight[node.name] = self.in_flight.get(node.name, 0) + 1
            return node

    def finished(self, node: Node) -> None:
        with self.changed:
            self.in_flight[node.name] -= 1
            self.changed.notify_all()

    def all(self) -> list[Node]:
        with self.changed:
            return list(self.nodes)

    def drain(self, name: str, timeout: float = 60.0) -> bool:
        """Takes node `name` out; returns once no operation is in flight there (True), or at the
        timeout (False). Blocks: call it from another thread than the load's."""
        with self.changed:
            self.nodes = [n for n in self.nodes if n.name != name]
            return self.changed.wait_for(lambda: not self.in_flight.get(name), timeout)

    def admit(self, node: Node) -> None:
        with self.changed:
            self.nodes = [n for n in self.nodes if n.name != node.name] + [node]


class Recorder:
    """Numbers operations and writes each to the history file once it completes."""

    def __init__(self, out: TextIO):
        self.out = out
        self.next_id = 0
        self.operations: list[Operation] = []

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def record(self, op: Operation) -> None:
        self.operations.append(op)
        self.out.write(op.to_json() + "\n")
        self.out.flush()


# How long a client sends a change again after each 503, honouring its Retry-After (the nodes ask
# 5-10 s): a node added warms up on the same cores, and three retries did not outlast the 30 s of
# 503 Overloaded that caused on two shared cores.
RETRY_FOR_S = 120.0


class Workload:
    def __init__(self, client: sipclient.Client, nodes: list[Node], recorder: Recorder, *, aors: int = 50,
                 contacts: int = 3, clients: int = 2, seed: int = 1, mix: Mix | None = None,
                 retry_for: float = RETRY_FOR_S, prefix: str = "faults"):
        if not nodes:
            raise ValueError("the workload needs at least one node")
        if aors < 1 or contacts < 1 or clients < 1:
            raise ValueError("aors, contacts and clients must each be at least 1")
        self.client, self.targets, self.recorder = client, Targets(nodes), recorder
        self.rng = random.Random(seed)
        self.mix = mix or Mix()
        self.retry_for = retry_for
        self.users = [f"{prefix}-{a}" for a in range(aors)]
        self.agents = [Agent(f"{user}/c{k}", user, [f"sip:{user}@192.0.2.{1 + c}:5060" for c in range(contacts)])
                       for user in self.users for k in range(clients)]
        self.tasks: set[asyncio.Task] = set()

    async def run(self, seconds: float, rate: float) -> None:
        """Starts operations at `rate` a second for `seconds` (a chosen client still busy skips its
        turn), then waits until every one has its answer or timed out."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        turns = 0
        while loop.time() - start < seconds:
            agent = self.rng.choice(self.agents)
            kind = self.mix.pick(self.rng)
            contact = self.rng.choice(agent.contacts)
            expires = self.rng.choice(self.mix.expires)
            if not agent.busy:
                agent.busy = True   # now, not when the task first runs: the next turn may pick it again
                node = self.targets.next()
                self.start(self.on(node, self.operate(agent, node, kind, contact, expires)))
            turns += 1
            await asyncio.sleep(max(0.0, start + turns / rate - loop.time()))
        await self.drain()

    async def on(self, node: Node, coroutine) -> None:
        """Runs an operation that Targets.next counted in flight at `node`, then counts it out."""
        try:
            await coroutine
        finally:
            self.targets.finished(node)

    def start(self, coroutine) -> None:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def drain(self) -> None:
        while self.tasks:
            await asyncio.gather(*list(self.tasks))

    async def operate(self, agent: Agent, node: Node, kind: str, contact: str, expires: int) -> None:
        """One change of one client, sent again after each 503 as a new transaction; the client is
        free again afterwards."""
        agent.busy = True
        try:
            first = time.monotonic()
            retry_of = None
            while True:
                op, retry_after = await self.transact(agent, node, kind, contact, expires, retry_of)
                if op.status != 503 or time.monotonic() + retry_after - first >= self.retry_for:
                    return
                await asyncio.sleep(retry_after)
                retry_of = op.id
        finally:
            agent.busy = False

    async def transact(self, agent: Agent, node: Node, kind: str, contact: str | None, expires: int | None,
                       retry_of: int | None = None) -> tuple[Operation, float]:
        """One REGISTER transaction, recorded; with the seconds a 503's Retry-After asks to wait
        (1 when it names none)."""
        agent.cseq += 1
        writes_contact = kind in (ADD, REMOVE)
        branch = sipclient.new_branch()
        request = sipclient.register_request(
            user=agent.user, call_id=agent.call_id, cseq=agent.cseq, tag=agent.tag, branch=branch,
            local=self.client.local, contact=contact if writes_contact else None,
            expires=expires if kind == ADD else 0, wildcard=kind == REMOVE_ALL)
        op = Operation(id=self.recorder.new_id(), client=agent.name, node=node.name, aor=agent.aor, kind=kind,
                       invoked=time.time(), contact=contact if writes_contact else None,
                       expires=expires if kind == ADD else None, retry_of=retry_of)
        response = await self.client.transact(request, branch, node.target)
        retry_after = 0.0
        if response is not None:
            op.completed, op.status, op.reason = time.time(), response.status, response.reason
            op.listed = response.contacts() if 200 <= response.status < 300 else None
            retry_after = response.retry_after() or 1.0
        self.recorder.record(op)
        return op, retry_after

    async def read_back(self, rate: float) -> None:
        """Queries every AOR through every node, at `rate` a second, each (node, AOR) a reader of
        its own."""
        loop = asyncio.get_running_loop()
        start, sent = loop.time(), 0
        for user in self.users:
            for node in self.targets.all():
                reader = Agent(f"reader/{node.name}", user, [])
                self.start(self.transact(reader, node, QUERY, None, None))
                sent += 1
                await asyncio.sleep(max(0.0, start + sent / rate - loop.time()))
        await self.drain()


def open_history(path: Path) -> TextIO:
    path.parent.mkdir(parents=True, exist_ok=True)
    return open(path, "a", encoding="utf-8")

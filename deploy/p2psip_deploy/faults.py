"""The faults of a fault run, on a seeded schedule, one at a time, each healed before the next:
- kill: KILL a node (`deploy/p2psip kill`), leave it down, then `restart` it (which returns
  once it answers again, warmed up);
- pause: SIGSTOP a node for longer than the DHT deadline (2 s), then SIGCONT: a node that is
  alive to the kernel and silent to everyone, whose queued requests run late;
- starve: move a node into a cgroup of the cgroup v1 cpu controller (a child of its own group,
  so it never gains CPU) with a quota of a few percent of a core, then back;
- partition: with `up --netns`, take the bridge's end of a node's veth down, then up again:
  the node hears neither the other nodes nor the clients;
- slow: with `up --netns`, a token bucket (tc's tbf) on both ends of a node's veth, so that
  everything to and from the node queues, is late, and past the queue's bound is dropped. This
  kernel has no netem, and tbf is the queueing discipline it has: the delay and loss follow the
  traffic rather than being set.
The planned changes (changes.py), each once in a run, at its turn between the faults: add (one
more node), remove (a node drained, stopped gracefully, gone), rolling (every node restarted in
turn); each logged at its start and once done.
Every start and heal is logged with its time (time.time(), the history's clock) as a JSON line."""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, TextIO

from . import cgroups, changes, front, netns, nodes, processes
from .cgroups import CPU_CGROUP
from .changes import index_of

KILL, PAUSE, STARVE, PARTITION, SLOW = "kill", "pause", "starve", "partition", "slow"
ADD, REMOVE, ROLLING = "add", "remove", "rolling"
KINDS = (KILL, PAUSE, STARVE, PARTITION, SLOW, ADD, REMOVE, ROLLING)
PLANNED = (ADD, REMOVE, ROLLING)
NEEDS_NETNS = (PARTITION, SLOW)
# How long each fault holds before it is healed, seconds (drawn uniformly); a planned change is
# done when its command returns.
HOLD_S = {KILL: (5, 20), PAUSE: (5, 15), STARVE: (30, 30), PARTITION: (10, 60), SLOW: (10, 60),
          ADD: (0, 0), REMOVE: (0, 0), ROLLING: (0, 0)}
# What healing, or a planned change, takes beyond the hold, seconds, so that the schedule leaves
# room for it: a started node warms up first (about 30 s for a Chord node joining three others
# here); a rolling restart takes that for every node.
HEAL_S = {KILL: 45, PAUSE: 2, STARVE: 2, PARTITION: 5, SLOW: 2, ADD: 45, REMOVE: 15, ROLLING: 45}
GAP_S = (5, 15)                # quiet between a fault's heal and the next fault
FIRST_AT_S = 10                # the load runs alone this long first
RESTART_S = 300.0              # how long a restarted node may take to answer again (it warms up first)
STARVE_PERCENT = 5             # the starved node's share of one core
# The slow link: 64 kbit/s each way, a queue of at most 500 ms (what waits longer is dropped).
SLOW_LINK = ["tbf", "rate", "64kbit", "burst", "4kb", "latency", "500ms"]


class FaultError(Exception):
    pass


FAILURES = (FaultError, cgroups.CgroupError, nodes.DeployError, front.FrontError, OSError, subprocess.SubprocessError)


@dataclass
class Fault:
    at: float        # seconds after the run's start
    kind: str
    node: int
    hold: float      # seconds the fault holds before it is healed


def parse_kinds(text: str) -> list[str]:
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise FaultError(f"--faults takes a comma-separated list of {', '.join(KINDS)}; got {text!r}")
    return kinds


def schedule(kinds: list[str], node_count: int, seconds: float, seed: int) -> list[Fault]:
    """Faults one after another from FIRST_AT_S on, each with room to hold and heal before `seconds`.
    Each planned change of `kinds` comes once, in a seeded order, after a fault each (one after
    another when `kinds` has no fault)."""
    rng = random.Random(seed)
    planned = [k for k in kinds if k in PLANNED]
    rng.shuffle(planned)
    unplanned = [k for k in kinds if k not in PLANNED]
    faults, at = [], float(FIRST_AT_S)
    while True:
        turn_of_planned = planned and (not unplanned or len(faults) % 2 == 1)
        kind = planned.pop(0) if turn_of_planned else rng.choice(unplanned) if unplanned else None
        if kind is None:
            return faults
        hold = round(rng.uniform(*HOLD_S[kind]), 1)
        if at + hold + took(kind, node_count) > seconds:
            return faults
        faults.append(Fault(round(at, 1), kind, rng.randrange(node_count), hold))
        at += hold + took(kind, node_count) + rng.uniform(*GAP_S)
        node_count += 1 if kind == ADD else -1 if kind == REMOVE else 0


def took(kind: str, node_count: int) -> float:
    """The room a fault's heal, or a planned change, takes in the schedule, seconds."""
    return HEAL_S[kind] * (node_count if kind == ROLLING else 1)


def check(run_dir: Path, kinds: list[str], cgroup_root: Path = CPU_CGROUP) -> None:
    """FaultError saying why one of `kinds` cannot strike the deployment in run_dir, before anything starts."""
    records = [p for p in processes.load(run_dir) if p.role == "node"]
    if not records:
        raise FaultError(f"no nodes recorded in {run_dir}")
    if any(p.login for p in records):
        raise FaultError("faults act on this machine's processes: not on nodes on ssh hosts")
    network = netns.load(run_dir)
    reason = unsupported(kinds, network is not None and not network.hosts, cgroup_root)
    if not reason and ADD in kinds:
        try:
            reason = changes.add_refusal(nodes.recorded_options(run_dir))
        except nodes.DeployError as e:
            reason = str(e)
    if reason:
        raise FaultError(reason)


def unsupported(kinds: list[str], in_namespaces: bool, cgroup_root: Path = CPU_CGROUP) -> str:
    """Why one of `kinds` cannot run here on nodes in namespaces of their own or not, or ""."""
    needing = [k for k in kinds if k in NEEDS_NETNS]
    if needing and not in_namespaces:
        verb = "needs" if len(needing) == 1 else "need"
        return f"{' and '.join(needing)} {verb} the nodes in network namespaces of their own (`up --netns`): " \
               "each acts on a node's veth"
    if ADD in kinds and in_namespaces:
        return changes.add_refusal(nodes.UpOptions(netns=True))
    return starve_unavailable(cgroup_root) if STARVE in kinds else ""


def starve_unavailable(cgroup_root: Path = CPU_CGROUP) -> str:
    """Why starve cannot run here, or "" when it can."""
    reason = cgroups.unavailable(cgroup_root)
    return f"starve moves a node into a group of the cgroup v1 cpu controller: {reason}" if reason else ""


class Injector:
    """Applies and heals faults on the nodes of one deployment's run folder."""

    def __init__(self, run_dir: Path, log: TextIO, restart_timeout: float = RESTART_S,
                 starve_percent: int = STARVE_PERCENT, cgroup_root: Path = CPU_CGROUP,
                 routes: changes.Routes | None = None):
        self.run_dir, self.log = run_dir, log
        self.routes = routes or changes.Routes(run_dir)
        self.restart_timeout = restart_timeout
        self.starve_percent, self.cgroup_root = starve_percent, cgroup_root
        self.active: list[tuple[Fault, Callable[[], None]]] = []
        self.events: list[dict] = []   # what the log holds

    def note(self, event: str, fault: Fault, detail: str = "") -> None:
        entry = {"time": time.time(), "event": event, **asdict(fault)}
        if detail:
            entry["detail"] = detail
        self.events.append(entry)
        self.log.write(json.dumps(entry) + "\n")
        self.log.flush()

    def run(self, faults: list[Fault], start: float, stop: threading.Event) -> None:
        """Applies each fault at its time after `start` (time.time()), or once the one before
        healed; heals it after its hold. `stop` ends the schedule early, healing what holds."""
        try:
            for fault in faults:
                if stop.wait(max(0.0, start + fault.at - time.time())):
                    return
                self.apply(fault)
                stop.wait(fault.hold)
                self.heal_all()
        finally:
            self.heal_all()

    def apply(self, fault: Fault) -> None:
        if fault.kind in PLANNED:
            self.change(fault)
            return
        try:
            heal = {KILL: self.kill, PAUSE: self.pause, STARVE: self.starve, PARTITION: self.partition,
                    SLOW: self.slow}[fault.kind](self.pick(fault.node))
        except FAILURES as e:
            self.note("failed", fault, str(e))
            return
        self.active.append((fault, heal))
        self.note("start", fault)

    def heal_all(self) -> None:
        while self.active:
            fault, heal = self.active.pop()
            try:
                heal()
                self.note("healed", fault)
            except FAILURES as e:
                self.note("heal-failed", fault, str(e))

    def change(self, fault: Fault) -> None:
        """A planned change, done before this returns: logged at its start and once done."""
        self.note("start", fault)
        try:
            if fault.kind == ADD:
                done = changes.add(self.run_dir, self.restart_timeout, self.routes).folder
            elif fault.kind == REMOVE:
                index = self.pick(fault.node)
                graceful = changes.remove(self.run_dir, index, changes.STOP_S, self.routes)
                done = f"node-{index}" + ("" if graceful else ": KILLed, it did not stop in time")
            else:
                killed = changes.rolling_restart(self.run_dir, self.restart_timeout, changes.STOP_S, self.routes)
                done = f"KILLed, not stopped in time: {killed}" if killed else "every node"
        except FAILURES as e:
            self.note("failed", fault, str(e))
            return
        self.note("done", fault, str(done))

    def pick(self, position: int) -> int:
        """The number of the node at `position` (modulo their count) among those running now: the
        schedule's draw, whatever nodes planned changes added or removed."""
        running = sorted(index_of(p) for p in changes.live_nodes(self.run_dir))
        if not running:
            raise FaultError("no node is running")
        return running[position % len(running)]

    def node(self, index: int) -> processes.Process:
        found = [p for p in processes.load(self.run_dir) if p.role == "node" and index_of(p) == index]
        if not found or not processes.alive(found[0]):
            raise FaultError(f"node {index} is not running")
        return found[0]

    def kill(self, index: int) -> Callable[[], None]:
        self.node(index)
        nodes.kill_node(self.run_dir, index)
        return lambda: nodes.restart_node(self.run_dir, index, self.restart_timeout)

    def pause(self, index: int) -> Callable[[], None]:
        pid = self.node(index).pid
        os.kill(pid, signal.SIGSTOP)
        return lambda: os.kill(pid, signal.SIGCONT)

    def starve(self, index: int) -> Callable[[], None]:
        pid = self.node(index).pid
        home = self.cgroup_root / cgroups.group_of(pid).lstrip("/")
        group = home / f"p2psip-starve-{pid}"
        cgroups.make(group, self.starve_percent / 100)
        cgroups.move(group, pid)

        def heal():
            cgroups.move(home, pid)
            cgroups.remove_group(group)
        return heal

    def partition(self, index: int) -> Callable[[], None]:
        self.node(index)
        network = netns.load(self.run_dir)
        link = ["ip", "-n", network.bridge_namespace, "link", "set", f"v{index}"]
        subprocess.run([*link, "down"], check=True, capture_output=True, timeout=10)
        return lambda: subprocess.run([*link, "up"], check=True, capture_output=True, timeout=10)

    def slow(self, index: int) -> Callable[[], None]:
        self.node(index)
        network = netns.load(self.run_dir)
        ends = [(network.bridge_namespace, f"v{index}"), (network.node_namespace(index), "eth0")]
        for namespace, device in ends:
            tc(namespace, "add", device, *SLOW_LINK)

        def heal():
            for namespace, device in ends:
                tc(namespace, "del", device)
        return heal


def tc(namespace: str, action: str, device: str, *qdisc: str) -> None:
    subprocess.run(netns.exec_in(namespace, ["tc", "qdisc", action, "dev", device, "root", *qdisc]),
                   check=True, capture_output=True, timeout=10)


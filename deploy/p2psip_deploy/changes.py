"""`add`, `remove N` and `rolling-restart`: planned changes of a running deployment, made so that a
client honouring 503 with Retry-After sees no request fail. A node stops taking new requests
before it stops (the front drops it; the fault run's load does too, through `Routes`), stops
gracefully (TERM: the container stops the servlet, whose DHT hands its records over and tells its
neighbours before the JVM ends), and a started node gets requests only once it is ready."""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Callable

from . import build, cgroups, front, layout, nodefolder, nodes, processes

STOP_S = 60.0   # how long a graceful stop may take (the DHT's hand-over included) before KILL
FRONT_S = 60.0  # how long a front may take to log that it read its rewritten nodes file


class Routes:
    """Who sends a deployment's nodes requests, and must stop before a node stops and may start
    once it is ready: the front of `up --front` (through its nodes file), and a caller's own
    (`drain`, `admit`: the fault run's load)."""

    def __init__(self, run_dir: Path, drain: Callable[[processes.Process], None] | None = None,
                 admit: Callable[[processes.Process], None] | None = None, timeout: float = FRONT_S):
        self.run_dir, self.timeout = run_dir, timeout
        self.own_drain, self.own_admit = drain, admit

    def drain(self, node: processes.Process) -> None:
        """Returns once nobody sends `node` new requests."""
        front.set_nodes(self.run_dir, [p for p in live_nodes(self.run_dir) if p.folder != node.folder], self.timeout)
        if self.own_drain:
            self.own_drain(node)

    def admit(self, node: processes.Process) -> None:
        """`node` (ready) takes requests again, or for the first time."""
        front.set_nodes(self.run_dir, live_nodes(self.run_dir), self.timeout)
        if self.own_admit:
            self.own_admit(node)


def live_nodes(run_dir: Path) -> list[processes.Process]:
    return [p for p in processes.load(run_dir) if p.role == "node" and processes.alive(p)]


def index_of(node: processes.Process) -> int:
    """A node's number, from its folder node-<index>."""
    return int(Path(node.folder).name.rsplit("-", 1)[-1])


def add(run_dir: Path, timeout: float, routes: Routes | None = None) -> processes.Process:
    """Starts one more node with the options `up` recorded, joined to the running ones, and returns
    once it is ready and the front sends it requests. Its number follows the highest recorded."""
    options = nodes.recorded_options(run_dir)
    refusal = add_refusal(options)
    if refusal:
        raise nodes.DeployError(refusal)
    running = live_nodes(run_dir)
    if not running:
        raise nodes.DeployError(f"no node of {run_dir} runs: nothing to join")
    index = 1 + max(index_of(p) for p in processes.load(run_dir) if p.role == "node")
    grown = replace(options, nodes=index + 1)
    spec = joining_spec(grown, running, index)
    taken = [port for port in (spec.sip_port, spec.overlay_port, spec.http_port)
             if not processes.port_free(spec.address, port)]
    if taken:
        raise nodes.DeployError(f"node {index}'s ports are in use: {', '.join(map(str, taken))}")
    build.ensure(layout.APPS[options.app])
    group = nodes.node_group(grown, index)
    if group:
        cgroups.save(run_dir, cgroups.recorded(run_dir) + [group])   # recorded before it is made, for `down`
        cgroups.make(group, nodes.quota_of(grown, index))
    nodes.write_folders([spec], spec.app)
    started = nodes.start(spec, grown)
    try:
        nodes.wait_answering([started], timeout, options.address)
        (routes or Routes(run_dir)).admit(started)
    except BaseException:   # late, dead, refused by the front, Ctrl-C: the deployment as it was
        processes.stop([started], 20)
        processes.save(run_dir, [p for p in processes.load(run_dir) if p.folder != started.folder])
        raise
    return started


def add_refusal(options: nodes.UpOptions) -> str:
    """Why `add` cannot grow a deployment of these options, or ""."""
    if options.netns or options.hosts:
        return "add grows deployments on --address alone: not with --netns or --hosts"
    if options.tls:
        return "add grows deployments without --tls: a new node would need a key of the deployment's CA"
    if options.app != "p2psip" or options.front_is_kamailio:
        return "add grows deployments of the p2psip app, with src/front's front or none"
    return ""


def joining_spec(options: nodes.UpOptions, running: list[processes.Process], index: int) -> nodefolder.NodeSpec:
    """Node `index`'s folder as `up` of options.nodes nodes would write it, with the overlay's secret
    and joining the nodes running: they are its bootstrap and the members it looks for."""
    secret = overlay_property(running[0], "p2psip.overlay.secret")
    spec = nodes.node_specs(options, layout.APPS[options.app], secret=secret)[index]
    overlays = [f"{p.address}:{p.overlay_port}" for p in running]
    spec.properties["p2psip.overlay.bootstrap"] = overlays[0]
    spec.properties["p2psip.overlay.members"] = ",".join([*overlays, spec.properties["p2psip.overlay.address"]])
    return spec


def overlay_property(node: processes.Process, key: str) -> str:
    """A value of a node's node.properties."""
    for line in (Path(node.folder) / "node.properties").read_text().splitlines():
        if line.startswith(key + "="):
            return line.split("=", 1)[1].strip()
    raise nodes.DeployError(f"{node.folder}/node.properties has no {key}")


def remove(run_dir: Path, index: int, stop_s: float = STOP_S, routes: Routes | None = None) -> bool:
    """Node `index` stops taking requests, stops gracefully (its records handed over), and leaves the
    deployment's records. True when it ended by itself within stop_s; False when it had to be KILLed
    (its peers then repair as after a crash)."""
    records = processes.load(run_dir)
    node = nodes.recorded_node(records, run_dir, index)
    others = [p for p in live_nodes(run_dir) if p.folder != node.folder]
    if not others:
        raise nodes.DeployError(f"node {index} is the last node running: `down` stops a deployment")
    (routes or Routes(run_dir)).drain(node)
    graceful = stop(node, stop_s)
    processes.save(run_dir, [p for p in processes.load(run_dir) if p.folder != node.folder])
    return graceful


def stop(node: processes.Process, stop_s: float) -> bool:
    """TERM, then KILL past stop_s; waits until its ports are free. True when TERM was enough."""
    graceful = processes.stop_gracefully(node, stop_s)
    if processes.alive(node):
        raise nodes.DeployError(f"node at {node.sip_address} (pid {node.pid}) could not be stopped")
    nodes.wait_ports_freed(node)
    if not graceful:
        print(f"{Path(node.folder).name}: did not end within {stop_s:g} s of TERM and was KILLed; "
              "its peers repair as after a crash", file=sys.stderr, flush=True)
    return graceful


def rolling_restart(run_dir: Path, timeout: float, stop_s: float = STOP_S, routes: Routes | None = None,
                    upgrade: bool = False) -> list[int]:
    """Every node in turn: drained, stopped gracefully, started again on its folder (the container
    as it is on disk now; with `upgrade`, the application built now in place of its copy), waited
    for until ready and put back; then the next. Returns the numbers of the nodes that had to be
    KILLed."""
    routes = routes or Routes(run_dir)
    app = layout.APPS[nodes.recorded_options(run_dir).app] if upgrade else None
    if app:
        build.ensure(app)
    killed = []
    for node in sorted(live_nodes(run_dir), key=index_of):
        routes.drain(node)
        if not stop(node, stop_s):
            killed.append(index_of(node))
        if app:
            nodefolder.install_app(Path(node.folder), app, node.backend)
        started = nodes.launch_again(run_dir, node)
        nodes.wait_answering([started], timeout, nodes.client_address(run_dir, node.address, node.login))
        routes.admit(started)
        print(f"{Path(node.folder).name}: restarted and ready, pid {started.pid}", file=sys.stderr, flush=True)
    return killed

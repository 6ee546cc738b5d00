"""Which network a run uses, and the sentence the report gives it.

`netns`: every deployment the bench starts through deploy/p2psip (nodes at every count, the front,
the container's ceiling) runs with `up --netns`, each node in a network namespace of its own with
its own address behind a bridge; SIPp and the callee stay in the root namespace and bind the
deployment's gateway address. Kamailio stays on loopback. `loopback`: everything on 127.0.0.1.
The default is netns where the machine allows it (root, and `ip netns add` works), else loopback.

Pure but for `netns_unavailable_reason`, which tries to create (and deletes) one namespace.
"""
from __future__ import annotations

import os
import shutil
import subprocess

LOOPBACK = "loopback"
NETNS = "netns"
MODES = (LOOPBACK, NETNS)


def netns_unavailable_reason() -> str:
    """Why this machine cannot give each node a namespace, or "" when it can."""
    if os.geteuid() != 0:
        return "not root (ip netns add needs root)"
    if not shutil.which("ip"):
        return "the ip tool is missing (Debian package iproute2)"
    probe = f"p2psip-bench-probe-{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"`ip netns add` fails: {made.stderr.strip() or made.returncode}"
    subprocess.run(["ip", "netns", "delete", probe], capture_output=True)
    return ""


def choose(requested: str | None, unavailable: str) -> tuple[str, str]:
    """(mode, why): the requested mode, or netns when the machine allows it; ValueError when netns
    is asked for and `unavailable` says why it cannot be had."""
    if requested == NETNS and unavailable:
        raise ValueError(f"--network netns: network namespaces are not available here: {unavailable}")
    if requested:
        return requested, f"--network {requested}"
    if unavailable:
        return LOOPBACK, f"network namespaces are not available here: {unavailable}"
    return NETNS, "the default where network namespaces are available"


def describe(mode: str, why: str, deployments: dict[str, dict]) -> str:
    """The report's "Network:" text. `deployments` maps a deployment's label to what deploy/p2psip
    recorded of its network (subnet, gateway, node addresses); empty in loopback mode."""
    if mode == LOOPBACK:
        return (f"loopback (every node, reference and SIPp on 127.0.0.1 of one machine; no network "
                f"namespaces: {why})")
    by_subnet: dict[tuple[str, str], list[str]] = {}
    for label, d in deployments.items():
        nodes = d["nodes"]
        where = f"node {nodes[0]}" if len(nodes) == 1 else f"nodes {nodes[0]}-{nodes[-1]}" if nodes else "no node"
        by_subnet.setdefault((d["subnet"], d["gateway"]), []).append(
            f"{label} ({where}" + (f", front {d['front']}" if d.get("front") else "") + ")")
    parts = [f"{subnet}, SIPp at {gateway}: {', '.join(labels)}" for (subnet, gateway), labels in by_subnet.items()]
    return ("network namespaces (each node, the front and the container's ceiling in a namespace of its own "
            "with its own address, veth pairs to a bridge in a namespace of its own; SIPp and the callee in the "
            "root namespace at the gateway; Kamailio on loopback 127.0.0.1; all on one machine's cores; "
            f"{why}). Addresses: " + ("; ".join(parts) if parts else "no deployment started"))


def is_loopback(network_text: str) -> bool:
    """Whether a report's recorded network text says loopback (older runs say only that)."""
    return network_text.startswith(LOOPBACK)

"""The network of `up --netns`: every node (and the front) in a network namespace of its own, with
its own address, so that SIP and overlay traffic between them crosses real interfaces.

    root namespace      p2p-ID (gateway, .1) ---veth--- uplink ┐
    p2psip-ID-br                                      br0 (bridge): v0, v1, ..., vfront, uplink
    p2psip-ID-0         eth0 (.10) ---veth--- v0 ┘
    p2psip-ID-1         eth0 (.11) ---veth--- v1 ┘
    p2psip-ID-front     eth0 (.2)  ---veth--- vfront ┘

ID is six hex digits of a hash of the deployment's run folder, so deployments in different run
folders never share a name. The bridge lives in a namespace of its own: node-to-node traffic then
never meets the host's firewall or bridge-netfilter settings, and nothing of the host's is changed
but the one veth end `p2p-ID` that gets the gateway address (and with it the subnet's route).
The subnet is a /24 of 10.128.0.0/9 that overlaps no address or route the host has, chosen from
the ID onwards.

The pure part (naming, the subnet, the commands) is `Network`; `create` and `remove` run the
commands. What was created is recorded in <run dir>/netns.json *before* it is created, so that
`down` removes it even after a failed or interrupted `up`.
"""
import hashlib
import ipaddress
import json
import os
import shutil
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path

STATE_FILE = "netns.json"
PREFIX = "p2psip-"
POOL = ipaddress.ip_network("10.128.0.0/9")   # the /24s a deployment may take
GATEWAY_HOST = 1        # the root namespace's end: SIPp, the callee, status probes
FRONT_HOST = 2
FIRST_NODE_HOST = 10    # node i: .10 + i
MAX_NODES = 254 - FIRST_NODE_HOST + 1


class NetnsError(Exception):
    pass


def identity(run_dir: Path) -> str:
    """Six hex digits naming a deployment's network, from its (resolved) run folder."""
    return hashlib.sha1(str(Path(run_dir).resolve()).encode()).hexdigest()[:6]


@dataclass
class Network:
    identity: str
    subnet: str                 # e.g. "10.200.17.0/24"
    nodes: int
    front: bool = False
    namespaces: list = field(default_factory=list)   # filled by plan(): every namespace it creates
    hosts: list = field(default_factory=list)   # `up --hosts`: each host's address; node i on host i mod len

    # names (interface names stay within the kernel's 15 characters)
    @property
    def bridge_namespace(self) -> str:
        return f"{PREFIX}{self.identity}-br"

    @property
    def host_link(self) -> str:
        return f"p2p-{self.identity}"

    def node_namespace(self, index: int) -> str:
        if self.hosts:
            return self.host_namespace(index % len(self.hosts))
        return f"{PREFIX}{self.identity}-{index}"

    def host_namespace(self, host: int) -> str:
        return f"{PREFIX}{self.identity}-h{host}"

    @property
    def front_namespace(self) -> str:
        """With hosts, the front runs on the first host, beside node 0."""
        return self.host_namespace(0) if self.hosts else f"{PREFIX}{self.identity}-front"

    # addresses
    def _host(self, number: int) -> str:
        return str(ipaddress.ip_network(self.subnet)[number])

    @property
    def prefix_length(self) -> int:
        return ipaddress.ip_network(self.subnet).prefixlen

    @property
    def gateway(self) -> str:
        """The root namespace's address on the bridge: where SIPp and the callee bind."""
        return self._host(GATEWAY_HOST)

    def node_address(self, index: int) -> str:
        if self.hosts:
            return self.hosts[index % len(self.hosts)]
        return self._host(FIRST_NODE_HOST + index)

    @property
    def front_address(self) -> str:
        return self.hosts[0] if self.hosts else self._host(FRONT_HOST)

    def members(self) -> list[tuple[str, str, str]]:
        """(namespace, address, bridge-side veth name) of every node, then the front; with hosts,
        of every host (the nodes and the front share them)."""
        if self.hosts:
            return [(self.host_namespace(k), address, f"vh{k}") for k, address in enumerate(self.hosts)]
        out = [(self.node_namespace(i), self.node_address(i), f"v{i}") for i in range(self.nodes)]
        if self.front:
            out.append((self.front_namespace, self.front_address, "vfront"))
        return out

    def describe(self) -> str:
        if self.hosts:
            return (f"subnet {self.subnet}, root namespace (SIPp) {self.gateway} on {self.host_link}, "
                    f"hosts {', '.join(self.hosts)} ({self.nodes} nodes, node i on host i mod {len(self.hosts)})")
        text = (f"subnet {self.subnet}, root namespace (SIPp) {self.gateway} on {self.host_link}, "
                f"nodes {self.node_address(0)}" + (f"-{self.node_address(self.nodes - 1)}" if self.nodes > 1 else ""))
        return text + (f", front {self.front_address}" if self.front else "")

    # commands
    def create_commands(self) -> list[list[str]]:
        br = self.bridge_namespace
        gateway = f"{self.gateway}/{self.prefix_length}"
        commands = [["ip", "netns", "add", br],
                    ["ip", "-n", br, "link", "set", "lo", "up"],
                    ["ip", "-n", br, "link", "add", "br0", "type", "bridge"],
                    ["ip", "-n", br, "link", "set", "br0", "up"],
                    ["ip", "link", "add", self.host_link, "type", "veth", "peer", "name", "uplink", "netns", br],
                    ["ip", "-n", br, "link", "set", "uplink", "master", "br0"],
                    ["ip", "-n", br, "link", "set", "uplink", "up"],
                    ["ip", "addr", "add", gateway, "dev", self.host_link],
                    ["ip", "link", "set", self.host_link, "up"]]
        for namespace, address, veth in self.members():
            commands += [["ip", "netns", "add", namespace],
                         ["ip", "-n", namespace, "link", "set", "lo", "up"],
                         ["ip", "-n", br, "link", "add", veth, "type", "veth", "peer", "name", "eth0",
                          "netns", namespace],
                         ["ip", "-n", br, "link", "set", veth, "master", "br0"],
                         ["ip", "-n", br, "link", "set", veth, "up"],
                         ["ip", "-n", namespace, "addr", "add", f"{address}/{self.prefix_length}", "dev", "eth0"],
                         ["ip", "-n", namespace, "link", "set", "eth0", "up"]]
        return commands

    def all_namespaces(self) -> list[str]:
        return [self.bridge_namespace] + [namespace for namespace, _, _ in self.members()]

    def remove_commands(self) -> list[list[str]]:
        """Deleting a namespace deletes the veth ends in it, and with them their peers; the host's
        end is deleted explicitly (the kernel tears namespaces down asynchronously)."""
        return ([["ip", "netns", "delete", ns] for ns in reversed(self.all_namespaces())]
                + [["ip", "link", "delete", self.host_link]])


def exec_in(namespace: str, command: list[str]) -> list[str]:
    """command run inside namespace: `ip netns exec` execs it in place, so the PID is the command's."""
    return ["ip", "netns", "exec", namespace, *command] if namespace else list(command)


def taken_networks(addresses: str, routes: str) -> list[ipaddress.IPv4Network]:
    """The IPv4 networks the host already uses, from `ip -4 -o addr show` and
    `ip -4 route show table all`."""
    found = []
    for line in addresses.splitlines():
        parts = line.split()
        if "inet" in parts:
            found.append(ipaddress.ip_interface(parts[parts.index("inet") + 1]).network)
    for line in routes.splitlines():
        parts = line.split()
        if not parts:
            continue
        destination = parts[1] if parts[0] in ("local", "broadcast", "unicast", "multicast", "anycast",
                                               "blackhole", "unreachable", "prohibit", "throw", "nat") else parts[0]
        if destination == "default":
            continue
        try:
            found.append(ipaddress.ip_network(destination, strict=False))
        except ValueError:
            continue
    return found


def choose_subnet(ident: str, taken: list[ipaddress.IPv4Network]) -> ipaddress.IPv4Network:
    """The first /24 of POOL, starting from the one the identity hashes to, that overlaps nothing taken."""
    subnets = 1 << (24 - POOL.prefixlen)
    first = int(ident, 16) % subnets
    for step in range(subnets):
        candidate = ipaddress.ip_network((int(POOL.network_address) + ((first + step) % subnets) * 256, 24))
        if not any(candidate.overlaps(t) for t in taken):
            return candidate
    raise NetnsError(f"no free /24 left in {POOL}")


def hosts_subnet(hosts: list[str], taken: list[ipaddress.IPv4Network]) -> ipaddress.IPv4Network:
    """The /24 the hosts' addresses share, its first address left for the root namespace; NetnsError
    when they do not share one, one of them is not a host address of it, or the host uses it."""
    subnet = ipaddress.ip_network(f"{hosts[0]}/24", strict=False)
    gateway = subnet[GATEWAY_HOST]
    for address in hosts:
        ip = ipaddress.ip_address(address)
        if ip not in subnet or ip in (subnet.network_address, subnet.broadcast_address, gateway):
            raise NetnsError(f"host {address}: the hosts' addresses must lie in one /24 ({subnet}), "
                             f"other than {gateway}, which the root namespace takes")
    if len(set(hosts)) != len(hosts):
        raise NetnsError("a host is listed twice")
    clash = [t for t in taken if subnet.overlaps(t)]
    if clash:
        raise NetnsError(f"the hosts' subnet {subnet} overlaps {clash[0]}, which this machine already uses")
    return subnet


def host_networks() -> list[ipaddress.IPv4Network]:
    addresses = _ip(["ip", "-4", "-o", "addr", "show"])
    routes = _ip(["ip", "-4", "route", "show", "table", "all"])
    return taken_networks(addresses, routes)


def _ip(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise NetnsError(f"{' '.join(command)} failed: {done.stderr.strip()}")
    return done.stdout


def unavailable_reason() -> str:
    """Why namespaces cannot be used here, or "" when they can (root and the `ip` tool)."""
    if os.geteuid() != 0:
        return "network namespaces need root (ip netns add)"
    if not shutil.which("ip"):
        return "the ip tool (Debian package iproute2) is missing"
    return ""


def existing_namespaces() -> set[str]:
    done = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    return {line.split()[0] for line in done.stdout.splitlines() if line.strip()}


def link_exists(name: str) -> bool:
    return subprocess.run(["ip", "link", "show", name], capture_output=True).returncode == 0


def plan(run_dir: Path, nodes: int, front: bool, hosts: list[str] = ()) -> Network:
    """The namespaces of a deployment: one a node (and the front), or with `hosts` one a host."""
    if nodes > MAX_NODES:
        raise NetnsError(f"--netns takes at most {MAX_NODES} nodes (one /24)")
    ident = identity(run_dir)
    taken = host_networks()
    subnet = hosts_subnet(hosts, taken) if hosts else choose_subnet(ident, taken)
    network = Network(ident, str(subnet), nodes, front, hosts=list(hosts))
    clash = [ns for ns in network.all_namespaces() if ns in existing_namespaces()]
    if clash or link_exists(network.host_link):
        raise NetnsError(f"{', '.join(clash) or network.host_link} already exist(s) and {run_dir} does not "
                         "record them; another deployment with this run folder's name hash? remove them "
                         "with `ip netns delete` / `ip link delete`, or use another --run-dir")
    network.namespaces = network.all_namespaces()
    return network


def create(run_dir: Path, network: Network) -> None:
    """Records the network, then creates it; NetnsError (with ip's message) when a command fails.
    The caller removes what was created (`remove`) on failure."""
    save(run_dir, network)
    for command in network.create_commands():
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise NetnsError(f"`{' '.join(command)}` failed: {done.stderr.strip()}")


def remove(run_dir: Path) -> list[str]:
    """Removes the recorded network of run_dir (what exists of it); returns what could not be
    removed (empty when all is gone, and the record is deleted)."""
    network = load(run_dir)
    if network is None:
        return []
    namespaces = existing_namespaces()
    for command in network.remove_commands():
        name = command[-1]
        if (command[1] == "netns" and name in namespaces) or (command[1] == "link" and link_exists(name)):
            subprocess.run(command, capture_output=True)
    left = [ns for ns in network.all_namespaces() if ns in existing_namespaces()]
    left += [network.host_link] if link_exists(network.host_link) else []
    if not left:
        (run_dir / STATE_FILE).unlink(missing_ok=True)
    return left


def save(run_dir: Path, network: Network) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    data = asdict(network)
    data["gateway"] = network.gateway   # for readers that do not compute it (bench/)
    (run_dir / STATE_FILE).write_text(json.dumps(data, indent=2) + "\n")


def load(run_dir: Path) -> Network | None:
    path = run_dir / STATE_FILE
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
    data.pop("gateway", None)
    return Network(**data)

"""`up`, `down` and `status`: starting, stopping and listing a deployment's container JVMs."""
import json
import secrets
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from . import (backends, build, cgroups, cpus, front, hosts, kamailio_front, layout, limits, netns, nodefolder,
               processes, ready, remote, share, sipp, tls, users)

BOOTSTRAP = "org.apache.catalina.startup.Bootstrap"
COMMAND_FILE = "command.json"   # in a node folder: the JVM command `up` started, for `restart`
OPTIONS_FILE = "up.json"        # in the run folder: the options of `up`, for `add`
ROUTER_SPI = ("-Djavax.servlet.sip.ar.spi.SipApplicationRouterProvider="
              "org.mobicents.servlet.sip.router.DefaultApplicationRouterProvider")


@dataclass
class UpOptions:
    """Every option of `up`; defaults here are the ones deploy/README.md documents."""
    dht: str = layout.DEFAULT_DHT
    nodes: int = 1
    base_port: int = 5070
    address: str = "127.0.0.1"
    app: str = "p2psip"
    t1_ms: int = 500
    sip_trace: bool = False
    sip_threads: int = 8
    heap: str = ""                  # empty: heap_for(register_rate), 1g without a rate
    register_rate: int = 0          # REGISTER/s a node is meant to carry; sizes the heap
    users_expected: int = 0         # users the deployment keeps registered; sizes the heap for their records
    young: str = ""                 # empty: half the heap
    overlay_offset: int = 1000
    tls: bool = False               # SIP over TLS on every node (and the front), keys made per deployment
    tls_offset: int = 2000          # a process's TLS port = its SIP port + this (nodes and the front)
    http_offset: int = 3000         # a process's HTTP port (status page, /metrics) = its SIP port + this
    overlay_tls: bool = False       # node-to-node overlay traffic over mutual TLS too (needs tls)
    settings: dict = field(default_factory=dict)
    run_dir: Path = layout.DEFAULT_RUN_DIR
    timeout: float = 300.0   # a node warms up for up to p2psip.warmup.timeout (3 min) before it answers
    jvm_args: list = field(default_factory=list)
    jit: str = "auto"               # JIT_MODES: the nodes' just-in-time compilers; auto: jit_of(options)
    front: str = layout.NO_FRONT    # or a policy of layout.ALL_FRONTS
    front_port: int = 5060
    front_processes: int = 1        # src/front processes sharing front_port by SO_REUSEPORT
    front_state: str = ""           # src/front's --state (layout.FRONT_STATES); "": the front's own default
    cpus: dict = field(default_factory=dict)   # `--cpus`: role (cpus.ROLES) -> taskset -c list; empty: unpinned
    cpu_quota: float | None = None  # `--cpu-quota`: cores of each node's cgroup (of each netns host's); None: none
    netns: bool = False             # every node (and the front) in a network namespace of its own
    hosts: list = field(default_factory=list)   # `--hosts`: hosts.Host each; node i on host i mod len
    ssh_config: str = ""            # `--ssh-config`: the ssh configuration file that reaches ssh hosts

    @property
    def netns_hosts(self) -> list[str]:
        """The addresses of the hosts that are namespaces of this machine."""
        return [h.address for h in self.hosts if h.reach == "netns"]

    @property
    def ssh_hosts(self) -> list:
        """The hosts that are machines of their own, reached over ssh."""
        return [h for h in self.hosts if h.reach == "ssh"]

    def ssh_host(self, index: int):
        """Where node `index` runs over ssh (hosts.Host), or None when on this machine."""
        hosts = self.ssh_hosts
        return hosts[index % len(hosts)] if hosts else None

    @property
    def wants_front(self) -> bool:
        return self.front != layout.NO_FRONT

    @property
    def front_is_kamailio(self) -> bool:
        return self.front in layout.KAMAILIO_FRONT_ALGORITHMS


JIT_MODES = ("auto", "tiered", "c1")


def jit_of(options: UpOptions) -> str:
    """The compilers the nodes run with: `tiered` (C1, then C2 for the hottest code) or `c1` (the
    first tier alone). `auto` takes c1 when this machine's nodes outnumber the CPUs they may run on:
    C2 then compiles the same code in every JVM at once (about a minute of a core each, measured
    with four Chord nodes on two cores), its peak is out of reach anyway on the shared cores, and
    C1 warms a node in seconds. Nodes on ssh hosts, whose CPUs this machine does not know, take
    tiered."""
    if options.jit != "auto":
        return options.jit
    if options.ssh_hosts:
        return "tiered"
    pinned = options.cpus.get(cpus.NODES, "")
    available = cpus.count(pinned) if pinned else len(cpus.available())
    return "c1" if options.nodes > available else "tiered"


class DeployError(Exception):
    pass


def up(options: UpOptions) -> list[processes.Process]:
    """Starts options.nodes containers and returns once each answers OPTIONS, then the front if
    options ask for one; on failure stops whatever it started and raises DeployError (or
    front.FrontError)."""
    _check(options)
    app = layout.APPS[options.app]
    build.ensure(app)
    if options.front_is_kamailio:
        kamailio_front.ensure_installed()
    elif options.wants_front:
        build.ensure_front()
    if not options.netns and not options.hosts:  # a fresh namespace, another machine: not ours to check
        fronts = [options.front_port] if options.wants_front else []
        if options.wants_front and not options.front_is_kamailio:
            fronts += [front.http_port(options.front_port, options.http_offset, k) for k in range(options.front_processes)]
        ports = sorted(node_ports(options)) + fronts
        busy = [(options.address, p) for p in ports if not processes.port_free(options.address, p)]
        if busy:
            raise DeployError("ports in use: " + ", ".join(f"{a}:{p}" for a, p in busy))
    processes.save(options.run_dir, [])
    save_options(options)
    note = nodefolder.receive_buffer_note()
    if note:
        print(note, file=sys.stderr, flush=True)
    if options.wants_front and not options.front_is_kamailio:
        open_files = limits.raise_open_files()
        backlog = limits.raise_backlog()
        if backlog:
            print(backlog, file=sys.stderr, flush=True)
        if open_files < 20_000:
            print(f"note: a front may open {open_files} files: it holds fewer TCP clients than that "
                  "(`ulimit -Hn` is the most `up` can give it)", file=sys.stderr, flush=True)
    try:
        network = _network(options)
        make_groups(options)
        stores = tls_stores(options, network)
        specs = node_specs(options, app, network, stores)
        write_folders(specs, app)
        copy_to_hosts(options, specs)
        local = host_address(options, network)
        first = start(specs[0], options)
        if warms_up_together(options):
            wait_serving(first, options.timeout)
            rest = [start(spec, options) for spec in specs[1:]]
            wait_answering([first, *rest], options.timeout, local)
        else:
            wait_answering([first], options.timeout, local)
            rest = [start(spec, options) for spec in specs[1:]]
            wait_answering(rest, options.timeout, local)
        if options.wants_front:
            where = front_address(options, network)
            namespace = network.front_namespace if network else ""
            if options.front_is_kamailio:
                kamailio_front.start(options.run_dir, where, options.front_port, options.front, [first, *rest],
                                     options.timeout, namespace, stores, options.tls_offset,
                                     cpu_list=options.cpus.get(cpus.FRONT, ""))
            else:
                members = status_addresses(options, network)
                for index in range(options.front_processes):
                    front.start(options.run_dir, where, options.front_port, options.front, [first, *rest],
                                options.timeout, namespace, stores, options.tls_offset, index=index,
                                shared=options.front_processes > 1,
                                http_port=front.http_port(options.front_port, options.http_offset, index),
                                status_members=members, login=front_login(options), ssh_config=options.ssh_config,
                                state=options.front_state, cpu_list=options.cpus.get(cpus.FRONT, ""),
                                settings=front_settings(options.settings))
    except netns.NetnsError as e:
        stop_all(options.run_dir)
        raise DeployError(f"--netns: {e}") from e
    except BaseException:  # a failed start, a late node, Ctrl-C: leave nothing running
        stop_all(options.run_dir)
        raise
    return processes.load(options.run_dir)


def save_options(options: UpOptions) -> None:
    """The options of `up`, kept in the run folder so that `add` starts a node as `up` would have."""
    kept = {**asdict(options), "run_dir": str(options.run_dir), "hosts": [asdict(h) for h in options.hosts]}
    options.run_dir.mkdir(parents=True, exist_ok=True)
    (options.run_dir / OPTIONS_FILE).write_text(json.dumps(kept, indent=1) + "\n")


def recorded_options(run_dir: Path) -> UpOptions:
    """The options `up` kept in run_dir; DeployError when it kept none."""
    path = run_dir / OPTIONS_FILE
    if not path.is_file():
        raise DeployError(f"no options of `up` recorded in {run_dir} ({OPTIONS_FILE}): start it with `up` first")
    kept = json.loads(path.read_text())
    return UpOptions(**{**kept, "run_dir": Path(kept["run_dir"]), "hosts": [hosts.Host(**h) for h in kept["hosts"]]})


FRONT_PREFIX = "p2psip.front."


def front_settings(settings: dict) -> dict:
    """The entries of `up --set` that are the front's options (`p2psip.front.*`): its settings
    file gets them, the nodes' node.properties do not."""
    return {key: value for key, value in settings.items() if key.startswith(FRONT_PREFIX)}


def write_folders(specs: list[nodefolder.NodeSpec], app: layout.App) -> None:
    try:
        for spec in specs:
            nodefolder.write(spec)
    except ValueError as e:
        raise DeployError(f"cannot deploy {app.exploded}: {e}") from e


def _network(options: UpOptions) -> netns.Network | None:
    """With --netns (or --hosts), the deployment's namespaces, created (and recorded first, for `down`)."""
    if not options.netns and not options.netns_hosts:
        return None
    reason = netns.unavailable_reason()
    if reason:
        raise netns.NetnsError(reason)
    network = netns.plan(options.run_dir, options.nodes, options.wants_front, options.netns_hosts)
    netns.create(options.run_dir, network)
    print(f"network: {network.describe()}", file=sys.stderr, flush=True)
    return network


def tls_stores(options: UpOptions, network: "netns.Network | None") -> "tls.Stores | None":
    """With --tls, a new CA and a key store for each node (and the front) on its address."""
    if not options.tls:
        return None
    names = {f"node-{i}": node_address(options, network, i) for i in range(options.nodes)}
    if options.wants_front:
        names["front"] = front_address(options, network)
    try:
        return tls.make(options.run_dir, names)
    except tls.TlsError as e:
        raise DeployError(f"--tls: {e}") from e


def host_address(options: UpOptions, network: "netns.Network | None") -> str:
    """Where the nodes reach this machine (SIPp, a callee): the gateway with --netns, the address
    this machine reaches the first ssh host from, else --address. `{host}` in --set values and
    --jvm-arg is replaced by it."""
    if network:
        return network.gateway
    return remote.source_address(options.ssh_hosts[0].address) if options.ssh_hosts else options.address


def expand(text: str, host: str) -> str:
    return text.replace(HOST_PLACEHOLDER, host)


HOST_PLACEHOLDER = "{host}"


def _check(options: UpOptions) -> None:
    check_quotas(options)
    try:
        backends.servlet_of(options.dht)
    except backends.BackendsError as e:
        raise DeployError(str(e)) from e
    if options.app not in layout.APPS:
        raise DeployError(f"unknown --app {options.app}; one of {', '.join(layout.APPS)}")
    if options.wants_front and options.front not in layout.ALL_FRONTS:
        raise DeployError(f"unknown --front {options.front}; {layout.NO_FRONT} or one of "
                          + ", ".join(layout.ALL_FRONTS))
    if options.front_processes < 1 or (options.front_processes > 1 and options.front_is_kamailio):
        raise DeployError("--front-processes is 1 or more, and more than 1 only for src/front's policies")
    if options.wants_front and options.front_port in node_ports(options):
        raise DeployError(f"--front-port {options.front_port} is a node's SIP or overlay port")
    if options.nodes < 1:
        raise DeployError("--nodes must be at least 1")
    if options.front_state and (not options.wants_front or options.front_is_kamailio):
        raise DeployError(f"--front-state {options.front_state} is a mode of src/front: give --front with one of "
                          + ", ".join(layout.FRONT_POLICIES))
    if options.front_state and options.front_state not in layout.FRONT_STATES:
        raise DeployError(f"unknown --front-state {options.front_state}; one of {', '.join(layout.FRONT_STATES)}")
    _check_cpus(options)
    if options.hosts and (options.netns or options.address != UpOptions.address):
        raise DeployError("--hosts places every node on a host's address: without --netns or --address")
    if options.ssh_hosts and options.front_is_kamailio:
        raise DeployError("Kamailio's front runs on this machine only; with ssh hosts use src/front's policies")
    if options.netns and options.address != UpOptions.address:
        raise DeployError("--address and --netns exclude each other: with --netns every node gets its "
                          "namespace's address")
    running = [p for p in processes.load(options.run_dir) if processes.alive(p)]
    if running:
        raise DeployError(f"{len(running)} processes of an earlier `up` still run in {options.run_dir}; "
                          "run `deploy/p2psip down` first")
    left = netns.remove(options.run_dir)  # the network of an earlier `up` that was never taken down
    if left:
        raise DeployError(f"could not remove the earlier deployment's network: {', '.join(left)}")
    left = cgroups.remove(options.run_dir)   # and its groups
    if left:
        raise DeployError(f"could not remove the earlier deployment's groups: {', '.join(left)}")


def _check_cpus(options: UpOptions) -> None:
    """--cpus (parsed and its CPUs checked by cli): a front to pin, this machine's processes, taskset."""
    if not options.cpus:
        return
    if cpus.FRONT in options.cpus and not options.wants_front:
        raise DeployError(f"--cpus {cpus.text(options.cpus)} pins a front, but no --front is started")
    if options.ssh_hosts:
        raise DeployError("--cpus pins processes of this machine: not with ssh hosts")
    try:
        cpus.require_taskset()
    except cpus.CpusError as e:
        raise DeployError(str(e)) from e


def check_quotas(options: UpOptions) -> None:
    """--cpu-quota and the hosts' cpus=: quotas the kernel takes, for nodes of this machine, and a cpu
    controller this process may write; CgroupError (`up` exits 2) otherwise."""
    quotas = [("--cpu-quota", options.cpu_quota)] if options.cpu_quota is not None else []
    quotas += [(f"host {h.address} cpus=", h.cpus) for h in options.hosts if h.cpus is not None]
    if not quotas:
        return
    if options.ssh_hosts:
        raise cgroups.CgroupError("a CPU quota is a group of this machine's cgroups: not with ssh hosts")
    for where, cores in quotas:
        cgroups.check_quota(cores, where)
    reason = cgroups.unavailable()
    if reason:
        raise cgroups.CgroupError(f"a CPU quota needs the cgroup v1 cpu controller: {reason}")


def quota_of(options: UpOptions, index: int) -> float:
    """The cores of node `index`'s group: its netns host's cpus=, else --cpu-quota; 0: no group."""
    host = options.hosts[index % len(options.hosts)] if options.netns_hosts else None
    own = host.cpus if host else None
    return own if own is not None else (options.cpu_quota or 0.0)


def group_name(options: UpOptions, index: int) -> str:
    """Node `index`'s group: its own, or with netns hosts its host's, which its nodes share."""
    return f"host-{index % len(options.hosts)}" if options.netns_hosts else f"node-{index}"


def node_group(options: UpOptions, index: int) -> Path | None:
    """The folder of node `index`'s group under the cpu controller; None without a quota."""
    if quota_of(options, index) <= 0:
        return None
    return cgroups.deployment_group(options.run_dir) / group_name(options, index)


def make_groups(options: UpOptions) -> None:
    """The groups of the nodes' quotas, recorded for `down` before they are made."""
    quotas = {group_name(options, i): quota_of(options, i) for i in range(options.nodes) if quota_of(options, i) > 0}
    if quotas:
        groups = cgroups.create(options.run_dir, quotas)
        print("cgroups: " + ", ".join(f"{path} ({quotas[name]:g} cores)" for name, path in groups.items()),
              file=sys.stderr, flush=True)


def node_ports(options: UpOptions) -> set[int]:
    """Every node's SIP and overlay port, and its TLS port with --tls."""
    sip = range(options.base_port, options.base_port + options.nodes)
    offsets = (0, options.overlay_offset, options.http_offset, *((options.tls_offset,) if options.tls else ()))
    ports = {port + offset for port in sip for offset in offsets}
    if options.tls and options.wants_front:
        ports.add(options.front_port + options.tls_offset)
    return ports


def node_address(options: UpOptions, network: "netns.Network | None", index: int) -> str:
    """Node `index`'s address: its namespace's, its ssh host's, or --address."""
    if network:
        return network.node_address(index)
    host = options.ssh_host(index)
    return host.address if host else options.address


def front_address(options: UpOptions, network: "netns.Network | None") -> str:
    """The front's address: beside node 0 on hosts, in its namespace with --netns, or --address."""
    if network:
        return network.front_address
    return node_address(options, None, 0) if options.ssh_hosts else options.address


def node_login(options: UpOptions, index: int) -> str:
    """Where node `index` runs over ssh (USER@HOST); "" on this machine."""
    host = options.ssh_host(index)
    return host.login if host else ""


def front_login(options: UpOptions) -> str:
    """Where the front runs over ssh: beside node 0."""
    return node_login(options, 0)


def copy_to_hosts(options: UpOptions, specs: list[nodefolder.NodeSpec]) -> None:
    """What each ssh host runs, to the same paths there: the container, its nodes' folders, the
    deployment's keys and users, and on the front's host the front's jar. Before any node starts:
    a node's running jars are never written over."""
    shared = [layout.CONTAINER_HOME] + [p for p in (options.run_dir / "tls", users.users_file(options.run_dir))
                                        if p.exists()]
    for host in options.ssh_hosts:
        paths = shared + [s.folder for s in specs if s.login == host.login]
        if options.wants_front and host.login == front_login(options):
            paths.append(layout.FRONT_JAR)
        print(f"copying to {host.login}: {len(paths)} folders and files", file=sys.stderr, flush=True)
        try:
            remote.copy(host.login, options.ssh_config, paths)
        except remote.RemoteError as e:
            raise DeployError(str(e)) from e


def status_addresses(options: UpOptions, network: "netns.Network | None") -> list[str]:
    """The HTTP address (status page, /metrics) of every node, then of every src/front process."""
    nodes = [f"{node_address(options, network, i)}:{options.base_port + options.http_offset + i}"
             for i in range(options.nodes)]
    if not options.wants_front or options.front_is_kamailio:
        return nodes
    where = front_address(options, network)
    return nodes + [f"{where}:{front.http_port(options.front_port, options.http_offset, k)}"
                    for k in range(options.front_processes)]


def node_specs(options: UpOptions, app: layout.App, network: "netns.Network | None" = None,
               stores: "tls.Stores | None" = None, secret: str = "") -> list[nodefolder.NodeSpec]:
    """Every node's folder, addresses and properties: on --address, or with a network each on its
    namespace's address, or on its ssh host's. `secret`: the overlay's (a new one when empty)."""
    address = [node_address(options, network, i) for i in range(options.nodes)]
    host = host_address(options, network)
    overlay = [f"{address[i]}:{options.base_port + options.overlay_offset + i}" for i in range(options.nodes)]
    status = status_addresses(options, network)
    secret = secret or secrets.token_hex(16)
    specs = []
    for i in range(options.nodes):
        folder = (options.run_dir / f"node-{i}").resolve()
        properties = {
            "p2psip.dht": options.dht,
            "p2psip.sip.address": f"{address[i]}:{options.base_port + i}",
            "p2psip.overlay.address": overlay[i],
            "p2psip.overlay.bootstrap": "" if i == 0 else overlay[0],
            "p2psip.overlay.members": ",".join(overlay),
            "p2psip.overlay.secret": secret,
            "p2psip.data.dir": str(folder / "data"),
            "p2psip.status.members": ",".join(status),
            **(tls_properties(stores, f"node-{i}", options.overlay_tls) if stores else {}),
            **METRICS_PROPERTIES,
            **(FRONT_NODE_PROPERTIES if options.wants_front and not options.front_is_kamailio else {}),
            **sizing_properties(options),
            **{key: expand(value, host) for key, value in options.settings.items() if not key.startswith(FRONT_PREFIX)},
        }
        specs.append(nodefolder.NodeSpec(i, folder, address[i], options.base_port + i,
                                         options.base_port + options.overlay_offset + i, options.dht, app,
                                         options.t1_ms, properties, options.sip_trace, options.sip_threads,
                                         network.node_namespace(i) if network else "", host,
                                         options.base_port + options.tls_offset + i if stores else 0,
                                         options.base_port + options.http_offset + i,
                                         node_login(options, i)))
    return specs


# Behind src/front, a client on TCP or TLS is registered with the front's Path naming its flow
# (src/front/README.md, "Flows"), whether or not the client says Supported: path: without the Path
# stored, no call could reach a client that listens nowhere.
FRONT_NODE_PROPERTIES = {"p2psip.registrar.path-requires-supported": "false"}

# Every node logs its counters, and its DHT's metrics, every 10 s when they changed (the node's
# default is a minute): `status` reads each node's share of the key space and its records there.
METRICS_PROPERTIES = {"p2psip.metrics.interval": "10s"}


def tls_properties(stores: tls.Stores, name: str, overlay_tls: bool) -> dict:
    """The node options naming its key store (SIP over TLS reads the same, through the stack's
    properties) and, with overlay TLS, turning it on."""
    return {"p2psip.tls.key-store": str(stores.key_store(name)), "p2psip.tls.trust-store": str(stores.trust_store),
            "p2psip.tls.store-password": stores.password,
            **({"p2psip.overlay.tls": "true"} if overlay_tls else {})}


def jvm_command(spec: nodefolder.NodeSpec, options: UpOptions) -> list[str]:
    """The node's JVM, inside its namespace with --netns, on the CPUs of `--cpus nodes=...` if given,
    in its group with a CPU quota (kept in command.json, so that `restart` pins it and puts it in its
    group again)."""
    command = netns.exec_in(spec.netns, cpus.pinned(options.cpus.get(cpus.NODES, ""), _java_command(spec, options)))
    group = node_group(options, spec.index)
    # the group first: `ip netns exec` mounts a /sys of the namespace's own, without /sys/fs/cgroup
    return cgroups.entered(group, command) if group else command


def _java_command(spec: nodefolder.NodeSpec, options: UpOptions) -> list[str]:
    return ["java", *memory_flags(options),
            f"-Xlog:gc:file={spec.folder / 'logs' / 'gc.log'}:time,uptime",
            ROUTER_SPI,
            f"-Dcatalina.home={layout.CONTAINER_HOME}", f"-Dcatalina.base={spec.folder}",
            f"-Djava.io.tmpdir={spec.folder / 'temp'}",
            f"-Dlog4j.configuration={(spec.folder / 'conf' / 'log4j.properties').as_uri()}",
            f"-Dp2psip.config={spec.folder / 'node.properties'}",
            *(backends.named(spec.dht).jvm_arguments if spec.app.name == "p2psip" else ()),
            *(["-XX:TieredStopAtLevel=1"] if jit_of(options) == "c1" else []),
            *(expand(arg, spec.host_address) for arg in options.jvm_args),
            "-cp", f"{layout.CONTAINER_LIB}/*", BOOTSTRAP, "start"]


DEFAULT_HEAP_MB = 1024
BASE_HEAP_MB = 512                  # the container, the application and a modest store, idle
TRANSACTION_KB = 0.6                # what a request taken keeps: its final answer's bytes (measured 592 B)...
TIMER_J_T1 = 64                     # ...kept until Timer J, 64 x T1 over UDP
KEPT_S = 34                         # how long the intake's heap guard counts a request kept (src/intake, HeapGuard)
GUARD_SHARE = 0.8                   # the share of the old generation the heap guard lets fill
BASE_LIVE_MB = 64                   # the container, the application and the overlay, live (33 MB with 80,000 records)
OLD_GENERATION_HEADROOM = 3         # G1 collects calmly with its old generation a third live
COPIES = 3                          # a record's owner and its 2 replicas (p2psip.<dht>.replicas)
RECORD_BYTES = {                    # one record held on a node's heap, by backend (deploy/README.md, "Sizing")
    "chord": 350, "bryan": 350,     # packed: a phone's binding with outbound and a Path (295 B) and its slot
    "memory": 1100, "hazelcast": 1100,   # objects: the set, its binding, their strings (500 B for SIPp's) and map
    "bamboo": 100,                  # on disk in JE; its cache keeps about this per record to read in one seek
}
RECORDS_HEADROOM = 1.5              # the old generation holds the records with room to collect calmly


def heap_for(options: UpOptions) -> str:
    """--heap as given; else room for --register-rate REGISTER/s: every one leaves its server transaction
    in the heap until Timer J, and G1 needs its old generation (half the heap) well above what
    lives there, or it collects back to back (1 GiB at 8,000/s for two minutes: 145 full
    collections). deploy/README.md, "The JVM of a node", has the figures."""
    if options.heap:
        return options.heap
    return f"{_round_up(_working_mb(options) + RECORDS_HEADROOM * records_mb(options))}m"


def _working_mb(options: UpOptions) -> int:
    """The heap a node needs apart from the records it holds: the container and the transactions of
    --register-rate."""
    if options.register_rate <= 0:
        return DEFAULT_HEAP_MB
    transactions_mb = options.register_rate * TIMER_J_T1 * options.t1_ms / 1000 * TRANSACTION_KB / 1024
    needed = BASE_HEAP_MB + 2 * OLD_GENERATION_HEADROOM * transactions_mb  # x2: the old generation is half
    return max(DEFAULT_HEAP_MB, _round_up(needed))


def register_rate_held(options: UpOptions) -> int:
    """REGISTER/s a node's heap holds before the intake's heap guard refuses (src/intake, HeapGuard):
    80% of the old generation (the heap less the young), less what the node holds anyway and its
    share of --users-expected, over what each request keeps for its 34 s."""
    old_mb = (_kilobytes(heap_for(options)) - _kilobytes(young_for(options))) / 1024
    room_mb = GUARD_SHARE * old_mb - BASE_LIVE_MB - records_mb(options)
    return max(0, int(room_mb * 1024 / TRANSACTION_KB / KEPT_S))


def records_mb(options: UpOptions) -> float:
    """What the records of --users-expected take on one node's heap: each user's record on COPIES
    nodes, spread evenly over the deployment's nodes."""
    per_node = options.users_expected * min(COPIES, options.nodes) / max(options.nodes, 1)
    return per_node * RECORD_BYTES.get(options.dht, max(RECORD_BYTES.values())) / (1 << 20)


def sizing_properties(options: UpOptions) -> dict:
    """With --users-expected on bamboo, the JE cache the records need (records_mb); the heap_for
    the node already counts it."""
    if options.dht != "bamboo" or options.users_expected <= 0:
        return {}
    return {"p2psip.bamboo.je.cache.bytes": str(max(64 << 20, int(records_mb(options) * (1 << 20))))}


def young_for(options: UpOptions) -> str:
    """--young as given; else half the heap, or with --users-expected half of what is not the
    records' (they live long: a young generation sized on them would only slow each collection)."""
    if options.young:
        return options.young
    if options.users_expected > 0 and not options.heap:
        return f"{_working_mb(options) // 2}m"
    return _half(heap_for(options))


def _round_up(mb: float) -> int:
    return -(-int(mb) // 256) * 256


def memory_flags(options: UpOptions) -> list[str]:
    """Heap and collector of a node. A node out of heap exits (code 3, the reason in its console
    log) rather than limp on: an OutOfMemoryError ends only the thread it hits, and when that was
    the container's UDP reader the node stayed up but never answered again (seen in OverloadIT
    with 512 MB); a dead node is what `status`, the front and the overlay's replicas handle. The
    collection the intake's heap guard asks for when it has refused on a stale reading (src/intake,
    HeapGuard) is a full one: G1's concurrent cycle (ExplicitGCInvokesConcurrent) frees the old
    generation's garbage only in the mixed collections of later young ones, which a refusing node
    does not allocate enough for, and a ceiling node so refused every call for 15 s after a
    failed step while its heap was half empty."""
    heap = heap_for(options)
    young = young_for(options)
    return ["-XX:+UseG1GC", f"-Xms{heap}", f"-Xmx{heap}", f"-Xmn{young}", "-XX:+ExitOnOutOfMemoryError",
            "-XX:-G1UseAdaptiveIHOP",
            f"-XX:InitiatingHeapOccupancyPercent={marking_percent(heap, young)}"]


def marking_percent(heap: str, young: str) -> int:
    """G1 starts marking the old generation at this share of the whole heap: half of the old
    generation (the heap less the fixed young one). The intake refuses new requests once 80% of
    the old generation holds live data or data not yet collected (src/intake, HeapGuard); G1's own
    threshold (45% of the heap, adapted) lies above that when the young generation is half the
    heap, so the dead transactions of a flood stayed in the old generation and the node refused
    for want of a marking cycle that never began."""
    heap_kb, young_kb = _kilobytes(heap), _kilobytes(young)
    return max(5, round(50 * (heap_kb - young_kb) / heap_kb))


def _half(size: str) -> str:
    return f"{max(_kilobytes(size) // 2, 1024)}k"


def _kilobytes(size: str) -> int:
    """A JVM size (512m, 1g, 524288k, or bytes) in KiB."""
    units = {"k": 1, "m": 1024, "g": 1024 * 1024}
    suffix = size[-1].lower()
    return int(size[:-1]) * units[suffix] if suffix in units else int(size) // 1024


def start(spec: nodefolder.NodeSpec, options: UpOptions) -> processes.Process:
    command = jvm_command(spec, options)
    (spec.folder / COMMAND_FILE).write_text(json.dumps(command, indent=1) + "\n")
    pid, ticks = processes.launch(command, spec.folder / "logs" / "console.log", spec.folder, spec.login,
                                  options.ssh_config)
    process = processes.Process("node", spec.dht if spec.app.name == "p2psip" else "ceiling", spec.address,
                                spec.sip_port, pid, ticks, str(spec.folder), spec.overlay_port, spec.netns,
                                spec.tls_port, spec.http_port, spec.login, options.ssh_config,
                                options.cpus.get(cpus.NODES, ""), quota_of(options, spec.index),
                                str(node_group(options, spec.index) or ""))
    processes.record(options.run_dir, process)
    where = f", namespace {spec.netns}" if spec.netns else (f", on {spec.login}" if spec.login else "")
    where += f", CPUs {process.cpus}" if process.cpus else ""
    where += f", {process.cpu_quota:g} cores (cgroup {process.cgroup})" if process.cgroup else ""
    secure = f", TLS {spec.address}:{spec.tls_port}" if spec.tls_port else ""
    print(f"node {spec.index}: pid {pid}, SIP {spec.sip_address} (udp+tcp){secure}{where}, "
          f"status http://{spec.address}:{spec.http_port}/, folder {spec.folder}, "
          f"heap {heap_for(options)} (holds about {register_rate_held(options):,} REGISTER/s)",
          file=sys.stderr, flush=True)
    return process


def warms_up_together(options: UpOptions) -> bool:
    """Whether nodes 1.. start as soon as node 0 serves its overlay, to join and warm up while it
    does, rather than once node 0 answers (warmed up): the warm-ups overlap, and each shrinks its
    own compile work by pacing its requests. Node 0's status page answering means its servlet's
    init returned, which waits until its backend serves; a backend that joins only after init
    (Bryan's, the registry says `joins-after-init`) and the ceiling app, which has no status page,
    start in turn, each once the one before answers."""
    return options.app == "p2psip" and options.nodes > 1 and not backends.has(options.dht, "joins-after-init")


def wait_serving(process: processes.Process, timeout: float) -> None:
    """Polls the node's status page until it answers at all (ready or not): its overlay serves.
    DeployError past the deadline or as soon as it has died."""
    deadline = time.monotonic() + timeout
    while not ready.answers(f"{process.address}:{process.http_port}"):
        if not processes.alive(process):
            raise DeployError(f"node at {process.sip_address} (pid {process.pid}) died while starting; "
                              f"see {process.folder}/logs/console.log")
        if time.monotonic() >= deadline:
            raise DeployError(f"no status page within the deadline from {process.sip_address}; "
                              f"see {process.folder}/logs/console.log")
        time.sleep(0.2)


def wait_answering(started: list[processes.Process], timeout: float, local: str = "127.0.0.1") -> None:
    """Polls every process with an OPTIONS probe (SIPp on `local`) until all answer; DeployError
    past the deadline or as soon as one of them has died."""
    deadline = time.monotonic() + timeout
    waiting = list(started)
    while waiting:
        for process in list(waiting):
            if not processes.alive(process):
                raise DeployError(f"node at {process.sip_address} (pid {process.pid}) died while starting; "
                                  f"see {process.folder}/logs/console.log")
            if answers_options(process, local):
                waiting.remove(process)
        if waiting and time.monotonic() >= deadline:
            raise DeployError("no answer within the deadline from " + ", ".join(p.sip_address for p in waiting)
                              + f"; see their logs/console.log")
        if waiting:
            time.sleep(0.2)  # poll interval: a refused probe returns at once


def answers_options(process: processes.Process, local: str) -> bool:
    """Whether the node answers an OPTIONS probe 200. A node with a status page is first asked, from
    this process, whether it is ready (its intake open, when it stops answering 503 Not Ready): a
    probe is a Python and a SIPp process (0.11 s of CPU each, measured against a node answering 503),
    and probing four warming nodes every 0.2 s so took about a quarter of two cores from the warm-ups
    it waited for. The ceiling app has no status page."""
    if process.http_port and process.backend != "ceiling" \
            and not ready.is_ready(f"{process.address}:{process.http_port}"):
        return False
    return sipp.options_probe(process.address, process.port, local)


def stop_all(run_dir: Path, grace_seconds: float = 20) -> bool:
    """Stops every recorded process, then waits until their SIP and overlay ports are free, and
    removes the namespaces, veths and bridge of `up --netns` (their ports go with them) and the
    groups of its CPU quotas. True when everything stopped, every port is free and the network and
    the groups are gone."""
    recorded = processes.load(run_dir)
    stuck = processes.stop(recorded, grace_seconds)
    for process in stuck:
        print(f"could not stop pid {process.pid} ({process.sip_address})", file=sys.stderr)
    ports = [(p.address, port) for p in recorded if not p.netns and not p.login for port in (p.port, p.overlay_port, p.tls_port, p.http_port)
             if port]
    busy = processes.wait_ports_free(ports, 15)
    for address, port in busy:
        print(f"port {address}:{port} still in use after down", file=sys.stderr)
    left = []
    if not stuck:
        processes.save(run_dir, [])
        left = netns.remove(run_dir)   # kept while a process still runs in it, for the next `down`
        left += cgroups.remove(run_dir)
        for name in left:
            print(f"could not remove {name}", file=sys.stderr)
    return not stuck and not busy and not left


def kill_node(run_dir: Path, index: int) -> None:
    """KILLs node `index` of the deployment (folder node-<index>) without warning: a crash."""
    node = recorded_node(processes.load(run_dir), run_dir, index)
    if not processes.kill(node):
        raise DeployError(f"node {index} (pid {node.pid}) still runs after KILL")


def restart_node(run_dir: Path, index: int, timeout: float) -> processes.Process:
    """Starts node `index` again on its folder, as a supervisor restarts a crashed process: the same
    command, configuration, address, ports and data directory; a node still running is stopped
    first (TERM, then KILL). Node 0 keeps its empty bootstrap: the backends look for the running
    overlay through p2psip.overlay.members first. Returns once the node answers OPTIONS."""
    old = recorded_node(processes.load(run_dir), run_dir, index)
    if processes.stop([old], grace_seconds=20):
        raise DeployError(f"node {index} (pid {old.pid}) could not be stopped")
    wait_ports_freed(old)
    new = launch_again(run_dir, old)
    print(f"node {index}: restarted, pid {new.pid}", file=sys.stderr, flush=True)
    wait_answering([new], timeout, client_address(run_dir, old.address, old.login))
    return new


def wait_ports_freed(node: processes.Process) -> None:
    """Until a stopped node's ports on this machine can be bound again; DeployError after 15 s."""
    if node.netns or node.login:
        return   # its namespace's or its host's ports: not this machine's to probe
    busy = processes.wait_ports_free([(node.address, port) for port in
                                      (node.port, node.overlay_port, node.tls_port, node.http_port) if port], 15)
    if busy:
        raise DeployError("ports still in use: " + ", ".join(f"{a}:{p}" for a, p in busy))


def launch_again(run_dir: Path, old: processes.Process) -> processes.Process:
    """Starts a stopped node's JVM again with the command `up` saved in its folder (in its group
    with a CPU quota) and puts the new process in its record's place; returns at once."""
    folder = Path(old.folder)
    command = json.loads((folder / COMMAND_FILE).read_text())
    if old.cgroup:
        cgroups.make(Path(old.cgroup), old.cpu_quota)   # there already unless removed by hand: the command enters it
    pid, ticks = processes.launch(command, folder / "logs" / "console.log", folder, old.login, old.ssh_config)
    new = replace(old, pid=pid, start_ticks=ticks)
    processes.save(run_dir, [new if p.folder == old.folder else p for p in processes.load(run_dir)])
    return new


def recorded_node(records: list[processes.Process], run_dir: Path, index: int) -> processes.Process:
    """Node `index` of the deployment: the record whose folder is node-<index>."""
    found = [p for p in records if p.role == "node" and Path(p.folder).name == f"node-{index}"]
    if not found:
        raise DeployError(f"no node {index} recorded in {run_dir}")
    return found[0]


def client_address(run_dir: Path, address: str, login: str = "") -> str:
    """The address SIPp binds to reach the deployment in run_dir: its gateway with --netns, the
    address this machine reaches an ssh host from, else `address` (the nodes' own, loopback)."""
    network = netns.load(run_dir)
    if network:
        return network.gateway
    return remote.source_address(address) if login else address


def status_lines(run_dir: Path) -> list[str]:
    network = netns.load(run_dir)
    lines = [f"network {network.describe()}"] if network else []
    for p in processes.load(run_dir):
        running = processes.alive(p)
        local = network.gateway if network and p.netns else (remote.source_address(p.address) if p.login else p.address)
        answers = running and sipp.options_probe(p.address, p.port, local)
        said = share.of_status(f"{p.address}:{p.http_port}") if p.login else share.of_node(Path(p.folder))
        lines.append(f"{p.role:5} {p.backend:9} {p.sip_address:21} pid {p.pid:<7} "
                     f"{'running' if running else 'gone   '} answers {'yes' if answers else 'no'}"
                     + (f" tls {p.address}:{p.tls_port}" if p.tls_port else "")
                     + (f" http://{p.address}:{p.http_port}/" if p.http_port else "")
                     + (f" namespace {p.netns}" if p.netns else "") + (f" on {p.login}" if p.login else "")
                     + (f" cpus {p.cpus}" if p.cpus else "")
                     + (f" cpu-quota {p.cpu_quota:g} cgroup {p.cgroup}" if p.cgroup else "")
                     + (f" {said.describe()}" if p.role == "node" else ""))
    return lines

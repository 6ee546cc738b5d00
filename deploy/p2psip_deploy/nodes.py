"""`up`, `down` and `status`: starting, stopping and listing a deployment's container JVMs."""
import secrets
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import build, front, layout, nodefolder, processes, sipp

BOOTSTRAP = "org.apache.catalina.startup.Bootstrap"
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
    heap: str = "1g"
    young: str = ""                 # empty: half the heap
    overlay_offset: int = 1000
    settings: dict = field(default_factory=dict)
    run_dir: Path = layout.DEFAULT_RUN_DIR
    timeout: float = 120.0
    jvm_args: list = field(default_factory=list)
    front: str = layout.NO_FRONT    # or a policy of layout.FRONT_POLICIES
    front_port: int = 5060

    @property
    def wants_front(self) -> bool:
        return self.front != layout.NO_FRONT


class DeployError(Exception):
    pass


def up(options: UpOptions) -> list[processes.Process]:
    """Starts options.nodes containers and returns once each answers OPTIONS, then the front if
    options ask for one; on failure stops whatever it started and raises DeployError (or
    front.FrontError)."""
    _check(options)
    app = layout.APPS[options.app]
    build.ensure(app)
    if options.wants_front:
        build.ensure_front()
    specs = node_specs(options, app)
    ports = sorted(node_ports(options)) + ([options.front_port] if options.wants_front else [])
    busy = [(options.address, p) for p in ports if not processes.port_free(options.address, p)]
    if busy:
        raise DeployError("ports in use: " + ", ".join(f"{a}:{p}" for a, p in busy))
    processes.save(options.run_dir, [])
    try:
        for spec in specs:
            nodefolder.write(spec)
    except ValueError as e:
        raise DeployError(f"cannot deploy {app.exploded}: {e}") from e
    try:
        first = start(specs[0], options)
        wait_answering([first], options.timeout)
        rest = [start(spec, options) for spec in specs[1:]]
        wait_answering(rest, options.timeout)
        if options.wants_front:
            front.start(options.run_dir, options.address, options.front_port, options.front, [first, *rest],
                        options.timeout)
    except BaseException:  # a failed start, a late node, Ctrl-C: leave nothing running
        stop_all(options.run_dir)
        raise
    return processes.load(options.run_dir)


def _check(options: UpOptions) -> None:
    if options.dht not in layout.SERVLET_OF_BACKEND:
        raise DeployError(f"unknown --dht {options.dht}; one of {', '.join(layout.SERVLET_OF_BACKEND)}")
    if options.app not in layout.APPS:
        raise DeployError(f"unknown --app {options.app}; one of {', '.join(layout.APPS)}")
    if options.wants_front and options.front not in layout.FRONT_POLICIES:
        raise DeployError(f"unknown --front {options.front}; {layout.NO_FRONT} or one of "
                          + ", ".join(layout.FRONT_POLICIES))
    if options.wants_front and options.front_port in node_ports(options):
        raise DeployError(f"--front-port {options.front_port} is a node's SIP or overlay port")
    if options.nodes < 1:
        raise DeployError("--nodes must be at least 1")
    running = [p for p in processes.load(options.run_dir) if processes.alive(p)]
    if running:
        raise DeployError(f"{len(running)} processes of an earlier `up` still run in {options.run_dir}; "
                          "run `deploy/p2psip down` first")


def node_ports(options: UpOptions) -> set[int]:
    """Every node's SIP and overlay port."""
    sip = range(options.base_port, options.base_port + options.nodes)
    return {port + offset for port in sip for offset in (0, options.overlay_offset)}


def node_specs(options: UpOptions, app: layout.App) -> list[nodefolder.NodeSpec]:
    overlay = [f"{options.address}:{options.base_port + options.overlay_offset + i}" for i in range(options.nodes)]
    secret = secrets.token_hex(16)
    specs = []
    for i in range(options.nodes):
        folder = (options.run_dir / f"node-{i}").resolve()
        properties = {
            "p2psip.dht": options.dht,
            "p2psip.sip.address": f"{options.address}:{options.base_port + i}",
            "p2psip.overlay.address": overlay[i],
            "p2psip.overlay.bootstrap": "" if i == 0 else overlay[0],
            "p2psip.overlay.members": ",".join(overlay),
            "p2psip.overlay.secret": secret,
            "p2psip.data.dir": str(folder / "data"),
            **options.settings,
        }
        specs.append(nodefolder.NodeSpec(i, folder, options.address, options.base_port + i,
                                         options.base_port + options.overlay_offset + i, options.dht, app,
                                         options.t1_ms, properties, options.sip_trace))
    return specs


def jvm_command(spec: nodefolder.NodeSpec, options: UpOptions) -> list[str]:
    young = options.young or _half(options.heap)
    return ["java", "-XX:+UseG1GC", f"-Xms{options.heap}", f"-Xmx{options.heap}", f"-Xmn{young}",
            f"-Xlog:gc:file={spec.folder / 'logs' / 'gc.log'}:time,uptime",
            ROUTER_SPI,
            f"-Dcatalina.home={layout.CONTAINER_HOME}", f"-Dcatalina.base={spec.folder}",
            f"-Djava.io.tmpdir={spec.folder / 'temp'}",
            f"-Dlog4j.configuration={(spec.folder / 'conf' / 'log4j.properties').as_uri()}",
            f"-Dp2psip.config={spec.folder / 'node.properties'}",
            *(layout.JVM_ARGS_OF_BACKEND.get(spec.dht, []) if spec.app.name == "p2psip" else []),
            *options.jvm_args,
            "-cp", f"{layout.CONTAINER_LIB}/*", BOOTSTRAP, "start"]


def _half(size: str) -> str:
    units = {"k": 1, "m": 1024, "g": 1024 * 1024}
    suffix = size[-1].lower()
    kilobytes = int(size[:-1]) * units[suffix] if suffix in units else int(size) // 1024
    return f"{max(kilobytes // 2, 1024)}k"


def start(spec: nodefolder.NodeSpec, options: UpOptions) -> processes.Process:
    pid, ticks = processes.launch(jvm_command(spec, options), spec.folder / "logs" / "console.log", spec.folder)
    process = processes.Process("node", spec.dht if spec.app.name == "p2psip" else "ceiling", spec.address,
                                spec.sip_port, pid, ticks, str(spec.folder), spec.overlay_port)
    processes.record(options.run_dir, process)
    print(f"node {spec.index}: pid {pid}, SIP {spec.sip_address} (udp+tcp), folder {spec.folder}",
          file=sys.stderr, flush=True)
    return process


def wait_answering(started: list[processes.Process], timeout: float) -> None:
    """Polls every process with an OPTIONS probe until all answer; DeployError past the deadline
    or as soon as one of them has died."""
    deadline = time.monotonic() + timeout
    waiting = list(started)
    while waiting:
        for process in list(waiting):
            if not processes.alive(process):
                raise DeployError(f"node at {process.sip_address} (pid {process.pid}) died while starting; "
                                  f"see {process.folder}/logs/console.log")
            if sipp.options_probe(process.address, process.port):
                waiting.remove(process)
        if waiting and time.monotonic() >= deadline:
            raise DeployError("no answer within the deadline from " + ", ".join(p.sip_address for p in waiting)
                              + f"; see their logs/console.log")
        if waiting:
            time.sleep(0.2)  # poll interval: a refused probe returns at once


def stop_all(run_dir: Path, grace_seconds: float = 20) -> bool:
    """Stops every recorded process, then waits until their SIP and overlay ports are free.
    True when everything stopped and every port is free."""
    recorded = processes.load(run_dir)
    stuck = processes.stop(recorded, grace_seconds)
    for process in stuck:
        print(f"could not stop pid {process.pid} ({process.sip_address})", file=sys.stderr)
    ports = [(p.address, port) for p in recorded for port in (p.port, p.overlay_port) if port]
    busy = processes.wait_ports_free(ports, 15)
    for address, port in busy:
        print(f"port {address}:{port} still in use after down", file=sys.stderr)
    if not stuck:
        processes.save(run_dir, [])
    return not stuck and not busy


def kill_node(run_dir: Path, index: int) -> None:
    """KILLs node `index` of the deployment (folder node-<index>) without warning: a crash."""
    found = [p for p in processes.load(run_dir) if p.role == "node" and Path(p.folder).name == f"node-{index}"]
    if not found:
        raise DeployError(f"no node {index} recorded in {run_dir}")
    if not processes.kill(found[0]):
        raise DeployError(f"node {index} (pid {found[0].pid}) still runs after KILL")


def status_lines(run_dir: Path) -> list[str]:
    lines = []
    for p in processes.load(run_dir):
        running = processes.alive(p)
        answers = running and sipp.options_probe(p.address, p.port)
        lines.append(f"{p.role:5} {p.backend:9} {p.sip_address:21} pid {p.pid:<7} "
                     f"{'running' if running else 'gone   '} answers {'yes' if answers else 'no'}")
    return lines

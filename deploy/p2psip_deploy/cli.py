"""Command line of deploy/p2psip: up, down, status, demo, test."""
import argparse
import os
import re
import sys
from pathlib import Path

from . import backends, build, cgroups, changes, cpus, faultrun, faults, front, hosts, layout, nodes, ready, units, users


def duration_ms(text: str) -> int:
    """'500ms', '0.1s', '100' (milliseconds) -> milliseconds."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s)?", text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"not a duration: {text} (e.g. 500ms, 0.1s)")
    value = float(match.group(1))
    return int(value * 1000) if match.group(2) == "s" else int(value)


def key_value(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"--set wants key=value, got {text}")
    key, value = text.split("=", 1)
    return key.strip(), value


def cpu_spec(text: str) -> dict[str, str]:
    """`--cpus front=0,nodes=1` -> {'front': '0', 'nodes': '1'}, each CPU checked to be one of this machine's."""
    try:
        return cpus.parse(text)
    except cpus.CpusError as e:
        raise argparse.ArgumentTypeError(str(e)) from e


def run_dir_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run-dir", type=Path, default=Path(os.environ.get("P2PSIP_RUN_DIR", layout.DEFAULT_RUN_DIR)),
                        help="folder of the deployment's node folders and process records "
                             "(default deploy/run, or $P2PSIP_RUN_DIR)")


def up_arguments(parser: argparse.ArgumentParser, nodes_default: int) -> None:
    defaults = nodes.UpOptions()
    # No argparse choices: the backends are the built WAR's registry's, asked only when needed (backends.py).
    parser.add_argument("--dht", default=defaults.dht,
                        help=f"DHT backend of every node, one the WAR registers (`deploy/p2psip backends` lists "
                             f"them; default {defaults.dht})")
    parser.add_argument("--nodes", type=int, default=nodes_default, help=f"number of nodes (default {nodes_default})")
    parser.add_argument("--base-port", type=int, default=defaults.base_port,
                        help=f"SIP port of node 0; node i listens on base+i (default {defaults.base_port})")
    parser.add_argument("--address", default=defaults.address, help=f"SIP and overlay address (default {defaults.address})")
    parser.add_argument("--app", default=defaults.app, choices=sorted(layout.APPS),
                        help=f"application the nodes run (default {defaults.app})")
    parser.add_argument("--t1", type=duration_ms, default=defaults.t1_ms,
                        help="SIP timer T1 (baseTimerInterval); default 500ms as RFC 3261, 100ms allowed on a LAN")
    parser.add_argument("--sip-trace", action="store_true",
                        help="every node logs each SIP message it sends or receives to logs/container.log "
                             "(slower; for tests that check which node a message reached)")
    parser.add_argument("--sip-threads", type=int, default=defaults.sip_threads,
                        help=f"JAIN-SIP message threads of each node (default {defaults.sip_threads})")
    parser.add_argument("--heap", default=defaults.heap,
                        help=f"JVM heap, -Xms and -Xmx (default: sized for --register-rate, {nodes.DEFAULT_HEAP_MB}m without it)")
    parser.add_argument("--register-rate", type=int, default=defaults.register_rate,
                        help="REGISTER/s each node is meant to carry; sizes the heap when --heap is not given "
                             "(deploy/README.md, \"The JVM of a node\")")
    parser.add_argument("--users-expected", type=int, default=defaults.users_expected,
                        help="users the deployment keeps registered; sizes the heap for their records when --heap "
                             "is not given (deploy/README.md, \"Sizing\")")
    parser.add_argument("--young", default=defaults.young, help="G1 young generation -Xmn (default half the heap)")
    parser.add_argument("--overlay-offset", type=int, default=defaults.overlay_offset,
                        help=f"overlay port = SIP port + this (default {defaults.overlay_offset})")
    parser.add_argument("--http-offset", type=int, default=defaults.http_offset,
                        help=f"HTTP port (status page, /metrics) = SIP port + this (default {defaults.http_offset}; "
                             "front process k: its SIP port + this - k)")
    parser.add_argument("--set", dest="settings", action="append", type=key_value, default=[],
                        metavar="KEY=VALUE", help="extra node.properties entry; one named p2psip.front.* is the "
                             "front's instead (src/front/README.md lists them); repeatable")
    parser.add_argument("--jvm-arg", dest="jvm_args", action="append", default=[],
                        help="extra JVM argument; repeatable")
    parser.add_argument("--jit", default=defaults.jit, choices=nodes.JIT_MODES,
                        help="the nodes' just-in-time compilers: tiered (C1 then C2), c1 (the first tier alone), "
                             "or auto: c1 when this machine's nodes outnumber its CPUs (default auto)")
    parser.add_argument("--timeout", type=float, default=defaults.timeout,
                        help=f"seconds to wait for the nodes (and the front) to answer (default {defaults.timeout:g})")
    parser.add_argument("--front", default=defaults.front, choices=[layout.NO_FRONT, *layout.ALL_FRONTS],
                        help=f"start a front with this policy once the nodes answer: src/front's rr, hash, cjsq, "
                             f"tjsq or tlwl, or Kamailio's dispatcher, kamailio-rr or kamailio-hash (default "
                             f"{defaults.front}: no front)")
    parser.add_argument("--front-port", type=int, default=defaults.front_port,
                        help=f"SIP port of the front, UDP and TCP, on --address (default {defaults.front_port})")
    parser.add_argument("--front-processes", type=int, default=defaults.front_processes,
                        help="src/front processes sharing the front's address (SO_REUSEPORT), each talking to the "
                             "nodes from an inner port of its own; a process holds at most about 19,000 TCP clients "
                             f"here (default {defaults.front_processes})")
    parser.add_argument("--front-state", default=defaults.front_state, choices=layout.FRONT_STATES,
                        help="how much of each call src/front keeps (its --state): stateless (the nodes keep the "
                             "transactions), stateful (the front does; the node answers a 302 with the contacts) or "
                             "dynamic (a share moved by load); default: the front's own")
    parser.add_argument("--cpus", type=cpu_spec, default={}, metavar="SPEC",
                        help="pin the processes to CPUs with taskset -c: roles front and nodes (every node), "
                             "each with a CPU list as taskset takes it, e.g. front=0,nodes=1 or nodes=0-1 "
                             "(checked against this machine's CPUs before anything starts)")
    parser.add_argument("--cpu-quota", type=float, default=defaults.cpu_quota, metavar="CORES",
                        help="each node's JVM in a group of the cgroup v1 cpu controller of its own with this many "
                             "cores (e.g. 0.2; with --hosts, each netns host's nodes together, unless its line says "
                             "cpus=Q); the front and SIPp stay outside; needs root (default: none)")
    parser.add_argument("--tls", action="store_true",
                        help=f"SIP over TLS too, every process on its SIP port + {defaults.tls_offset}; "
                             "a new CA and a key store per process in <run-dir>/tls/ (ca.pem: what clients trust)")
    parser.add_argument("--overlay-tls", action="store_true",
                        help="Chord and Bamboo nodes also speak to each other over mutual TLS with those keys "
                             "(p2psip.overlay.tls), next to the overlay's MAC; implies --tls")
    parser.add_argument("--hosts", type=Path, metavar="FILE",
                        help="place the nodes on the hosts FILE lists, one line each: ADDRESS and how to reach "
                             "it, `netns` (a network namespace made here) or `ssh USER@HOST` (a machine of its own); "
                             "node i on host i mod their number, the front on the first (deploy/README.md, \"Hosts\")")
    parser.add_argument("--ssh-config", default=defaults.ssh_config, metavar="FILE",
                        help="ssh configuration file (ssh -F) that reaches the ssh hosts of --hosts without "
                             "asking (default: ssh's own)")
    parser.add_argument("--netns", action="store_true",
                        help="every node (and the front) in a network namespace of its own, p2psip-ID-N, with "
                             "its own address on a private /24 behind a bridge; SIPp reaches them from the "
                             "root namespace's gateway address (needs root; `down` removes them)")


def auth_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--auth", action="store_true",
                        help="REGISTERs must carry Digest credentials of a user of the deployment's users file "
                             "(<run-dir>/users.csv, kept by `deploy/p2psip users`); without it a node accepts anyone")
    parser.add_argument("--users", dest="users_file", type=Path, metavar="FILE.csv",
                        help="add the user,domain,password lines of FILE.csv to the users file first; implies --auth")


def fault_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = faultrun.FaultOptions()
    parser.add_argument("--backend", default=defaults.backend,
                        help=f"DHT backend of the nodes it starts (default {defaults.backend})")
    parser.add_argument("--faults", default=",".join(defaults.kinds),
                        help=f"the faults to draw from, comma-separated: {', '.join(faults.KINDS)} "
                             f"(default {','.join(defaults.kinds)}; partition and slow need --netns)")
    parser.add_argument("--minutes", type=float, default=defaults.minutes,
                        help=f"how long the load and the faults run (default {defaults.minutes:g})")
    parser.add_argument("--seed", type=int, default=defaults.seed,
                        help=f"seed of the fault schedule and the load's mix (default {defaults.seed})")
    parser.add_argument("--nodes", type=int, default=defaults.nodes, help=f"nodes to start (default {defaults.nodes})")
    parser.add_argument("--base-port", type=int, default=defaults.base_port,
                        help=f"SIP port of node 0 of the nodes it starts (default {defaults.base_port})")
    parser.add_argument("--overlay-offset", type=int, default=defaults.overlay_offset,
                        help=f"overlay port of the nodes it starts = SIP port + this (default {defaults.overlay_offset})")
    parser.add_argument("--http-offset", type=int, default=defaults.http_offset,
                        help=f"HTTP port of the nodes it starts = SIP port + this (default {defaults.http_offset})")
    parser.add_argument("--timeout", type=float, default=defaults.up_timeout,
                        help=f"seconds `up` waits for the nodes it starts to answer (default {defaults.up_timeout:g})")
    parser.add_argument("--netns", action="store_true", help="start every node in a network namespace of its own "
                                                             "(root; what partition needs)")
    parser.add_argument("--use-running", action="store_true",
                        help="take the nodes running in --run-dir rather than starting (and stopping) its own")
    parser.add_argument("--keep-up", action="store_true", help="leave the nodes it started running afterwards")
    parser.add_argument("--rate", type=float, default=defaults.rate,
                        help=f"operations started a second, over every node (default {defaults.rate:g})")
    parser.add_argument("--aors", type=int, default=defaults.aors, help=f"AORs of the load (default {defaults.aors})")
    parser.add_argument("--check", type=Path, metavar="HISTORY.jsonl",
                        help="only check a recorded history (a run folder's history.jsonl) and report, as at the "
                             "end of its run; starts nothing")
    parser.add_argument("--settle", type=float, default=defaults.settle_s,
                        help=f"seconds of quiet once every node answers again, before the read-back "
                             f"(default {defaults.settle_s:g})")
    run_dir_argument(parser)


def fault_options(args: argparse.Namespace):
    return faultrun.FaultOptions(backend=args.backend, kinds=faults.parse_kinds(args.faults), minutes=args.minutes,
                                 seed=args.seed, nodes=args.nodes, base_port=args.base_port,
                                 overlay_offset=args.overlay_offset, http_offset=args.http_offset,
                                 up_timeout=args.timeout, netns=args.netns,
                                 use_running=args.use_running, keep_up=args.keep_up, rate=args.rate,
                                 aors=args.aors, settle_s=args.settle, run_dir=args.run_dir.resolve())


def hosts_of(args: argparse.Namespace) -> list[hosts.Host]:
    """The hosts of --hosts FILE, or none."""
    return hosts.read(args.hosts) if getattr(args, "hosts", None) else []


def up_options(args: argparse.Namespace) -> nodes.UpOptions:
    settings = dict(args.settings)
    if getattr(args, "auth", False) or getattr(args, "users_file", None):
        settings.setdefault("p2psip.auth.enabled", "true")
        settings.setdefault("p2psip.auth.users-file", str(users.users_file(args.run_dir.resolve())))
    return nodes.UpOptions(dht=args.dht, nodes=args.nodes, base_port=args.base_port, address=args.address,
                           app=args.app, t1_ms=args.t1, sip_trace=args.sip_trace, sip_threads=args.sip_threads,
                           heap=args.heap, register_rate=args.register_rate, users_expected=args.users_expected, young=args.young,
                           overlay_offset=args.overlay_offset, http_offset=args.http_offset, settings=settings,
                           run_dir=args.run_dir.resolve(), timeout=args.timeout, jvm_args=args.jvm_args, jit=args.jit,
                           front=args.front, front_port=args.front_port, front_processes=args.front_processes,
                           front_state=args.front_state, cpus=args.cpus, cpu_quota=args.cpu_quota,
                           netns=args.netns, hosts=hosts_of(args), ssh_config=args.ssh_config,
                           tls=args.tls or args.overlay_tls, overlay_tls=args.overlay_tls)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="deploy/p2psip", description="Run P2PSIP nodes: up, down, status, demo, test.")
    commands = top.add_subparsers(dest="command", required=True)
    up = commands.add_parser("up", help="start nodes; returns when every node answers OPTIONS")
    up_arguments(up, nodes_default=1)
    auth_arguments(up)
    run_dir_argument(up)
    for name, text in (("down", "stop exactly the processes `up` started"),
                       ("status", "one line per started process: role, backend, address, PID, answers")):
        run_dir_argument(commands.add_parser(name, help=text))
    kill = commands.add_parser("kill", help="KILL one node without warning (a crash, to test failover)")
    kill.add_argument("node", type=int, help="the node's number (0 for node 0, the first)")
    run_dir_argument(kill)
    restart = commands.add_parser("restart", help="start one node again on its folder (as after a crash); "
                                                  "returns when it answers OPTIONS")
    restart.add_argument("node", type=int, help="the node's number (0 for node 0, the first)")
    restart.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for its answer (default 300)")
    run_dir_argument(restart)
    change_arguments(commands)
    units = commands.add_parser("units", help="write node folders and systemd unit files for them (and the "
                                               "front) into <run-dir>/units/, starting nothing")
    up_arguments(units, nodes_default=1)
    auth_arguments(units)
    run_dir_argument(units)
    ready = commands.add_parser("ready", help="wait until the process with this status address says it is "
                                              "ready; exit code 1 at --timeout (the units' start condition)")
    ready.add_argument("status", metavar="ADDRESS:PORT", help="its HTTP address (SIP port + --http-offset)")
    ready.add_argument("--timeout", type=float, default=300.0, help="seconds to wait (default 300)")
    ready.add_argument("--serving", action="store_true",
                       help="wait only until the status page answers (a node's overlay serves), ready or not")
    demo = commands.add_parser("demo", help="two nodes, 1,000 registrations and calls with SIPp, a summary")
    up_arguments(demo, nodes_default=2)
    demo.add_argument("--users", type=int, default=1000, help="distinct AORs to register (default 1000)")
    demo.add_argument("--calls", type=int, default=100, help="calls to place (default 100)")
    demo.add_argument("--rate", type=int, default=200, help="SIPp rate, registrations or calls per second (default 200)")
    run_dir_argument(demo)
    accounts = commands.add_parser("users", help="who may register when the nodes run with --auth: "
                                                 "add, remove, import (a running deployment reads the change)")
    actions = accounts.add_subparsers(dest="action", required=True)
    add = actions.add_parser("add", help="add a user, or set a user's password")
    add.add_argument("user", metavar="USER@DOMAIN")
    add.add_argument("password")
    run_dir_argument(add)
    remove = actions.add_parser("remove", help="remove a user")
    remove.add_argument("user", metavar="USER@DOMAIN")
    run_dir_argument(remove)
    load = actions.add_parser("import", help="add every user,domain,password line of a CSV file")
    load.add_argument("file", type=Path, metavar="FILE.csv")
    run_dir_argument(load)
    commands.add_parser("backends", help="the DHT backends the WAR registers, one NAME SERVLET-CLASS line each "
                                         "(builds the WAR when it is missing)")
    fault_arguments(commands.add_parser("faults", help="a fault run: load with a recorded history while nodes are "
                                                       "killed, paused, starved or cut off, then a check that "
                                                       "nothing acknowledged was lost"))
    test = commands.add_parser("test", help="unit tests, integration tests, bench tests")
    test.add_argument("--no-install", action="store_true", help="do not install SIPp when missing")
    test.add_argument("--matrix", action="store_true",
                      help="also the integration tests of the other backends and front policies (README.md, \"Two commands\", says how long)")
    return top


def change_arguments(commands) -> None:
    """add, remove N and rolling-restart: planned changes of the deployment running in --run-dir."""
    add = commands.add_parser("add", help="start one more node, as `up` started the others, joined to them; "
                                          "returns once it is ready and the front sends it requests")
    remove = commands.add_parser("remove", help="stop one node for good: the front stops sending it requests, "
                                                "then it stops gracefully, handing its records over")
    remove.add_argument("node", type=int, help="the node's number (0 for node 0, the first)")
    rolling = commands.add_parser("rolling-restart", help="every node in turn: drained, stopped gracefully, started "
                                                          "again on its folder, waited for until ready, put back")
    rolling.add_argument("--upgrade", action="store_true",
                         help="give each node, while it is stopped, the application as built now (its WAR, with "
                              "the node's backend's servlet) in place of its copy")
    for command in (add, rolling):
        command.add_argument("--timeout", type=float, default=300.0,
                             help="seconds to wait for a started node to be ready (default 300)")
    for command in (remove, rolling):
        command.add_argument("--stop-timeout", type=float, default=changes.STOP_S,
                             help="seconds a node may take to stop after TERM, its hand-over included, before "
                                  f"it is KILLed (default {changes.STOP_S:g})")
    for command in (add, remove, rolling):
        run_dir_argument(command)


def change_command(args: argparse.Namespace) -> int:
    run_dir = args.run_dir.resolve()
    if args.command == "add":
        node = changes.add(run_dir, args.timeout)
        print(f"{Path(node.folder).name} ready at {node.sip_address}, pid {node.pid}")
        return 0
    if args.command == "remove":
        graceful = changes.remove(run_dir, args.node, args.stop_timeout)
        print(f"node {args.node} removed" + ("" if graceful else " (KILLed: it did not stop in time)"))
        return 0 if graceful else 1
    killed = changes.rolling_restart(run_dir, args.timeout, args.stop_timeout, upgrade=args.upgrade)
    print("every node restarted" + (f"; KILLed, not stopped in time: {killed}" if killed else ""))
    return 0 if not killed else 1


def users_command(args: argparse.Namespace) -> int:
    file = users.users_file(args.run_dir.resolve())
    try:
        if args.action == "add":
            users.add(file, args.user, args.password)
            print(f"{args.user} may register ({file})")
        elif args.action == "remove":
            if not users.remove(file, args.user):
                print(f"deploy/p2psip users: no user {args.user} in {file}", file=sys.stderr)
                return 1
            print(f"{args.user} removed ({file})")
        else:
            print(f"{users.import_csv(file, args.file)} user(s) imported into {file}")
    except (users.UsersError, OSError) as e:
        print(f"deploy/p2psip users: {e}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        if args.command == "users":
            return users_command(args)
        if args.command in ("add", "remove", "rolling-restart"):
            return change_command(args)
        if args.command == "up":
            if args.users_file:
                users.import_csv(users.users_file(args.run_dir.resolve()), args.users_file)
            started = nodes.up(up_options(args))
            count = sum(1 for p in started if p.role == "node")
            fronts = [p for p in started if p.role == front.ROLE]
            processes_note = f", {len(fronts)} processes" if len(fronts) > 1 else ""
            fronted = f" behind the front on {fronts[0].sip_address} ({fronts[0].backend}{processes_note})" if fronts else ""
            print(f"{count} node(s) answer{fronted}; `deploy/p2psip status` lists them, "
                  "`deploy/p2psip down` stops them")
            return 0
        if args.command == "down":
            return 0 if nodes.stop_all(args.run_dir.resolve()) else 1
        if args.command == "kill":
            nodes.kill_node(args.run_dir.resolve(), args.node)
            print(f"node {args.node} killed; `deploy/p2psip down` still frees its ports")
            return 0
        if args.command == "restart":
            nodes.restart_node(args.run_dir.resolve(), args.node, args.timeout)
            print(f"node {args.node} answers again")
            return 0
        if args.command == "status":
            lines = nodes.status_lines(args.run_dir.resolve())
            print("\n".join(lines) if lines else "nothing started")
            return 0
        if args.command == "units":
            written = units.write(up_options(args))
            print("\n".join(map(str, written)))
            return 0
        if args.command == "backends":
            print("\n".join(backend.line(name) for name, backend in backends.registered().items()))
            return 0
        if args.command == "ready":
            return 0 if ready.wait(args.status, args.timeout, args.serving) else 1
        if args.command == "demo":
            from . import demo
            return demo.run(up_options(args), args.users, args.calls, args.rate)
        if args.command == "faults":
            if args.check:
                return faultrun.check_file(args.check, args.backend)
            return faultrun.run(fault_options(args))
        if args.command == "test":
            from . import testrun
            return testrun.run(install=not args.no_install, matrix=args.matrix)
    except cgroups.CgroupError as e:   # a quota this machine cannot give: refused before anything starts
        print(f"deploy/p2psip {args.command}: {e}", file=sys.stderr)
        return 2
    except (nodes.DeployError, backends.BackendsError, front.FrontError, build.BuildError, users.UsersError, hosts.HostsError,
            units.UnitsError, faults.FaultError) as e:
        print(f"deploy/p2psip {args.command}: {e}", file=sys.stderr)
        return 1
    return 2

"""bench/run: argument parsing, the run's folders, and the one place that stops everything.

Three profiles (modes.py): quick is a first look (minutes): the default backend (chord) and both
references, one node, registration and calls, short steps, nothing confirmed. Headline decides the
headline figures within an hour (experiments.headline_plan) and prints one line per target. Full is
the whole matrix: every registered backend, 1, 2, 4 and 8 nodes, every experiment, sustained steps (120 s).
Every profile searches to 5%; headline and full confirm each rate found in a step of 120 s.
"""
from __future__ import annotations

import argparse
import datetime
import shlex
import signal
import subprocess
import sys
from pathlib import Path

# deploy/p2psip's readings of --cpus and of CPU quotas, so that a bad one stops the bench at once
from p2psip_deploy import cgroups, cpus

from dataclasses import replace

from . import (budget, capacity, deploy, experiments, faultruns, headline, machine, modes, network, overload, report,
               search, sipload, summary, tcp, tools)
from .capacityrun import CapacityRunner
from .faultruns import FaultRunner
from .procs import BenchError, Processes
from .runner import Runner, Settings
from .tcprun import SETTLE_S, TcpRunner, TcpSettings
from .sipp import AVALANCHE, REGISTER, REGISTER_503, REGISTER_POOL, REGISTRATION_POOL, SCENARIOS, Timing

BENCH = Path(__file__).resolve().parents[1]
REPO = BENCH.parent

# The window in which every phone of the avalanche starts.
AVALANCHE_WINDOW_S = 2.0
# The auth experiment's users per deployment: enough that at tens of thousands of registrations a
# second each phone's registrations stay seconds apart (a phone never has two out at once).
AUTH_USERS = 20000
AUTH_ALGORITHMS = ("SHA-256", "MD5")


def _setting(text: str) -> str:
    key, equals, _ = text.partition("=")
    if not key.strip() or not equals:
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE")
    return text


def _cpu_spec(text: str) -> str:
    """--state-cpus as deploy/p2psip up --cpus takes it, checked here before anything starts."""
    try:
        return cpus.text(cpus.parse(text))
    except cpus.CpusError as e:
        raise argparse.ArgumentTypeError(str(e)) from e


def _quota(text: str) -> float:
    """--scale-quota: cores per node, one the kernel takes as deploy/p2psip up --cpu-quota would."""
    try:
        cores = float(text)
        cgroups.check_quota(cores, "--scale-quota")
    except ValueError:
        raise argparse.ArgumentTypeError(f"--scale-quota {text}: not a number of cores (e.g. 0.2)") from None
    except cgroups.CgroupError as e:
        raise argparse.ArgumentTypeError(str(e)) from e
    return cores


def _positive(text: str) -> int:
    """A whole number above 0 (--register-pool: a pool of no AOR registers nothing)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: at least 1")
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="bench/run", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--profile", choices=tuple(modes.BY_NAME), default=None,
                   help="quick: minutes, chord and the references, one node, nothing confirmed; headline: the "
                        "headline figures within an hour, each rate confirmed in 120 s; full: the whole matrix "
                        "(default full)")
    p.add_argument("--quick", action="store_true", help="the same as --profile quick")
    p.add_argument("--experiments", type=_names(experiments.ALL),
                   help=f"comma-separated, from: {', '.join(experiments.ALL)} (default: quick register,call; full all)")
    p.add_argument("--backends", type=_list, help="comma-separated backends (default: quick chord; full every "
                                                  "one the WAR registers, `deploy/p2psip backends`, and a disk "
                                                  "one's NAME-tmpfs variant)")
    p.add_argument("--front-policies", type=_names(experiments.FRONT_POLICIES + experiments.KAMAILIO_FRONT_POLICIES),
                   help="comma-separated policies of the front's experiments, from: "
                        + ", ".join(experiments.FRONT_POLICIES + experiments.KAMAILIO_FRONT_POLICIES)
                        + " (default: src/front's " + ", ".join(experiments.FRONT_POLICIES) + ")")
    p.add_argument("--nodes", type=_ints, help="comma-separated node counts (default: quick 1; full 1,2,4,8)")
    p.add_argument("--step-seconds", type=float, help="length of one rate step in seconds (quick 3, full 120: "
                                                      "a rate counts as sustained only when held 120 s)")
    p.add_argument("--start-rate", type=int, help="first offered rate per second (quick 200, full 200)")
    p.add_argument("--max-rate", type=int, default=20000,
                   help=f"highest rate tried (default 20000); the references' searches go on to "
                        f"{search.REFERENCE_REACH} times it")
    p.add_argument("--precision", type=float, help="stop bisecting when fail/pass rates are this close "
                                                   "(quick 0.35, full 0.05)")
    p.add_argument("--growth", type=float, help="factor between rates until the first failure (quick 3, full 2)")
    p.add_argument("--max-steps", type=int, help="steps per search at most, confirmations apart (default: as many "
                                                 "as a limit up to --max-rate needs; headline 9)")
    p.add_argument("--confirmations", type=int,
                   help="confirmation steps after each search, at most: the rate found held for --confirm-seconds, "
                        "after one fails 10%%, 20%%, 40%% lower (or to what it completed: search.after_refusal) "
                        "until one holds, then bisecting to --precision; 0: none (quick 0, headline 4, full 3)")
    p.add_argument("--confirm-seconds", type=float,
                   help=f"length of a confirmation step (default {search.SUSTAINED_S:g})")
    p.add_argument("--confirm-failures", action="store_true",
                   help="measure a failed step once more; its rate passes if the repeat does (default off)")
    p.add_argument("--cooldown", type=float, help="seconds of rest after a failed step (quick 3, full 15)")
    p.add_argument("--max-p99-ms", type=float, default=search.REGISTER_P99_MS,
                   help=f"fail a REGISTER step whose p99 response time is above this many ms; 0: no bound (default "
                        f"{search.REGISTER_P99_MS:g}: a fifth of T1, when a client retransmits)")
    p.add_argument("--max-call-p99-ms", type=float, default=search.CALL_P99_MS,
                   help=f"fail a call step whose p99 (INVITE to 200) is above this many ms; 0: no bound (default "
                        f"{search.CALL_P99_MS:g}: two legs through the proxy)")
    p.add_argument("--overload-multiples", type=_floats,
                   help="multiples of the clean rate the overload experiment offers, comma-separated (quick and "
                        "headline 2,3; full 2,3,5)")
    p.add_argument("--overload-step-seconds", type=float,
                   help="length of one step of the overload experiment in seconds (quick 20, full 120)")
    p.add_argument("--avalanche-users", type=int,
                   help=f"phones of the overload experiment's avalanche, all starting within {AVALANCHE_WINDOW_S:g} s "
                        "(quick 5000, full 20000)")
    p.add_argument("--auth-users", type=int, default=AUTH_USERS,
                   help=f"users of each deployment of the auth experiment, registered round and round "
                        f"(default {AUTH_USERS})")
    p.add_argument("--auth-algorithm", choices=AUTH_ALGORITHMS, default=AUTH_ALGORITHMS[0],
                   help="Digest algorithm of the auth experiment: what its clients answer and Kamailio offers "
                        "(default SHA-256, the nodes' first choice)")
    p.add_argument("--tcp-idle", type=_ints,
                   help="the tcp experiment's levels of idle TCP connections held, comma-separated (quick "
                        + ",".join(map(str, tcp.QUICK_IDLE)) + ", full " + ",".join(map(str, tcp.FULL_IDLE)) + ")")
    p.add_argument("--tcp-front-processes", type=int,
                   help=f"front processes of the tcp experiment's idle part (default: one per {tcp.PER_HOLDER:,} "
                        "connections of the most held, six for 100,000)")
    p.add_argument("--tcp-rates", type=_ints,
                   help="the tcp experiment's ladder of offered REGISTER/s, comma-separated (quick "
                        + ",".join(map(str, tcp.QUICK_RATES)) + "; full from " + str(tcp.FULL_RATES[0]) + " to "
                        + str(tcp.FULL_RATES[-1]) + ")")
    p.add_argument("--capacity-users", type=int,
                   help=f"users the capacity experiment loads and keeps registered (quick {capacity.QUICK_USERS:,}, "
                        f"full {capacity.FULL_USERS:,})")
    p.add_argument("--capacity-nodes", type=int, default=capacity.NODES,
                   help=f"nodes of each backend's deployment in the capacity experiment (default {capacity.NODES})")
    p.add_argument("--capacity-expiry", type=int, default=capacity.EXPIRY_S,
                   help=f"Expires of the capacity experiment's registrations, in s; its steady state refreshes each "
                        f"user once per expiry (default {capacity.EXPIRY_S})")
    p.add_argument("--capacity-seconds", type=float,
                   help=f"length of the capacity experiment's steady state in s (quick {capacity.QUICK_SECONDS:g}, "
                        f"full {capacity.FULL_SECONDS:g})")
    p.add_argument("--capacity-call-rate", type=int, default=capacity.CALL_RATE,
                   help=f"calls/s between registered users through the capacity experiment's steady state "
                        f"(default {capacity.CALL_RATE})")
    p.add_argument("--fault-runs", type=_positive,
                   help=f"runs of the faults experiment for each backend (quick {faultruns.QUICK_RUNS}, "
                        f"full {faultruns.FULL_RUNS})")
    p.add_argument("--fault-minutes", type=float,
                   help=f"minutes of load and faults of each run of the faults experiment (quick "
                        f"{faultruns.QUICK_MINUTES:g}, full {faultruns.FULL_MINUTES:g})")
    p.add_argument("--fault-seed", type=int, default=1,
                   help="seed of each backend's first run of the faults experiment; run i has seed + i - 1 "
                        "(default 1)")
    p.add_argument("--state-cpus", type=_cpu_spec, metavar="SPEC",
                   help="the state experiment's pinned run: deploy/p2psip up --cpus SPEC for each of its "
                        "deployments, e.g. front=0,nodes=1 (default: unpinned); its targets differ (bench/README.md, "
                        "\"State split\")")
    p.add_argument("--scale-quota", type=_quota, default=experiments.SCALE_QUOTA, metavar="CORES",
                   help="the scale experiment's cores per node: each node a host of its own, a network namespace "
                        "and a cgroup quota of this many cores (deploy/p2psip up --netns --cpu-quota; default "
                        f"{experiments.SCALE_QUOTA:g})")
    p.add_argument("--scale-nodes", type=_ints,
                   help="the scale experiment's node counts, comma-separated (default "
                        + ",".join(map(str, experiments.SCALE_NODES)) + ")")
    p.add_argument("--warmup", type=float, help="seconds of unjudged load per node before each search (2 nodes: twice "
                                                "as long), in three stages of 1/4, 1/2 and 1 x the start rate per node "
                                                "(quick 15, full 60)")
    p.add_argument("--t1", type=int, metavar="MS", help="SIP timer T1 in ms for nodes and Kamailio "
                                                        "(default: deploy/p2psip's, 500 as RFC 3261)")
    p.add_argument("--heap", help=f"JVM heap of each node of the rate searches (default {modes.RATE_HEAP}, so that "
                                  "the heap never binds before the CPU; the capacity experiment sizes its own)")
    p.add_argument("--young", help=f"G1 young generation of each node of the rate searches, -Xmn (default "
                                   f"{modes.RATE_YOUNG}, a default node's, so that pauses stay as short)")
    p.add_argument("--register-pool", type=_positive, default=REGISTRATION_POOL, metavar="AORS",
                   help="AORs each deployment's registrations go round (searches, warm-ups, overload steps): the "
                        "first pass registers them, every later one refreshes them, so no table grows with a "
                        f"search's length (default {REGISTRATION_POOL:,}; bench/README.md, \"Registrations\")")
    p.add_argument("--sip-threads", type=int, help="JAIN-SIP message threads of each node (default: deploy/p2psip's)")
    p.add_argument("--set", dest="node_settings", action="append", default=[], type=_setting, metavar="KEY=VALUE",
                   help="a line of the node.properties of every node of the backends measured, not of the references "
                        "(deploy/p2psip up --set; repeatable), to measure what an option does")
    p.add_argument("--base-port", type=int, default=25070,
                   help="SIP port of node 0; the front on +40, Kamailio on +50, the callee on +60 (default 25070)")
    p.add_argument("--network", choices=network.MODES,
                   help="netns: every deploy/p2psip deployment (nodes, front, ceiling) with each node in a network "
                        "namespace of its own, SIPp in the root namespace; loopback: all on 127.0.0.1 (default: "
                        "netns when root and `ip netns add` works, else loopback)")
    # Absolute, since Kamailio and the nodes run in folders below it from other working directories.
    p.add_argument("--out", type=lambda text: Path(text).resolve(), default=BENCH / "results",
                   help="results root (default bench/results)")
    p.add_argument("--budget-minutes", type=float,
                   help="the run's budget: optional rows (a figure no judged target needs) run only while they and "
                        "the required rows left fit in it, and a search confirms again only while that fits; 0: none "
                        f"(headline {modes.HEADLINE_MINUTES:g}, quick and full none)")
    p.add_argument("--references-again", action=argparse.BooleanOptionalAction, default=None,
                   help="measure the references again at the end, to show drift (default: full mode yes, quick no)")
    p.add_argument("--report-only", type=Path, metavar="FOLDER",
                   help="rebuild report.md and the plots of an earlier run from its summary.csv")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.report_only:
        rebuild(args.report_only)
        return 0
    processes = Processes()
    signal.signal(signal.SIGTERM, _interrupt)
    # Python leaves SIGINT ignored when it was at start, as in a job a shell started with `&`:
    # Ctrl-C (or a test's SIGINT) must still stop the run and every process it started
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return run(args, processes, argv if argv is not None else sys.argv[1:])
    except BenchError as e:
        print(f"\nbench: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nbench: interrupted; every process it started is stopped", file=sys.stderr)
        return 130
    finally:
        processes.stop_all()


def profile_of(args: argparse.Namespace) -> str:
    """The run's profile: --profile, else quick with --quick, else full."""
    if args.quick and args.profile not in (None, "quick"):
        raise BenchError(f"--quick and --profile {args.profile} contradict each other")
    return args.profile or ("quick" if args.quick else "full")


def default_backends(profile: str) -> list[str]:
    """Quick: chord; headline: every registered backend once (bamboo on disk, not its tmpfs variant as well);
    full: every registered one and variant."""
    if profile == "quick":
        return ["chord"]
    landed = deploy.backends()
    return [b for b in landed if not deploy.on_tmpfs(b)] if profile == "headline" else landed


def plan_of(args: argparse.Namespace, mode: dict) -> search.Plan:
    """The search's plan from the options and the profile's defaults; without --max-steps, as many steps
    as a limit anywhere up to --max-rate needs (search.steps_needed)."""
    plan = search.Plan(start=args.start_rate or mode["start"], max_rate=args.max_rate,
                       precision=args.precision or mode["precision"], growth=args.growth or mode["growth"],
                       confirm_failures=args.confirm_failures,
                       retry_first_failure=mode["retry_first_failure"],
                       confirmations=args.confirmations if args.confirmations is not None else mode["confirmations"],
                       confirm_s=args.confirm_seconds or mode["confirm_s"])
    return replace(plan, max_steps=args.max_steps or mode["max_steps"] or search.steps_needed(plan))


def run(args: argparse.Namespace, processes: Processes, argv: list[str]) -> int:
    profile = profile_of(args)
    mode = modes.BY_NAME[profile]
    args.quick = profile == "quick"   # the experiments' own quick defaults (tcp) follow the profile
    headline = profile == "headline"
    chosen = args.experiments or mode["experiments"]
    backends = args.backends or default_backends(profile)
    capacity_backends = args.backends or [b for b in experiments.CAPACITY_BACKENDS if b in deploy.backends()]
    nodes = args.nodes or mode["nodes"]
    tools.require("sipp")
    tools.require("kamailio")
    needed = [REGISTER, REGISTER_POOL, SCENARIOS / "call" / "uac.xml"]
    if experiments.OVERLOAD in chosen:
        needed += [REGISTER_503, AVALANCHE]
    for scenario in needed:
        if not scenario.is_file():
            raise BenchError(f"{scenario} is missing: the bench runs the project's own SIPp scenarios "
                             "(and its variant in bench/scenarios/)")
    if experiments.AUTH in chosen or experiments.TCP in chosen:
        sipload.ensure_built()
    if not deploy.available():
        raise BenchError(f"{deploy.P2PSIP} is missing: the bench starts nodes and the container ceiling only "
                         "through it")
    unknown = [b for b in dict.fromkeys(backends + (capacity_backends if experiments.CAPACITY in chosen else []))
               if b not in deploy.backends()]
    if unknown:
        raise BenchError(f"backend(s) {', '.join(unknown)} not registered; available: {', '.join(deploy.backends())}")
    try:
        mode_of_network, why = network.choose(args.network,
                                              network.netns_unavailable_reason() if args.network != "loopback" else "")
    except ValueError as e:
        raise BenchError(str(e)) from e
    print(f"bench: network {mode_of_network} ({why})", file=sys.stderr)
    missing = small_hosts_unavailable(mode_of_network) if experiments.SCALE in chosen else ""
    if missing and args.experiments:
        raise BenchError(missing)
    if missing:   # a full run's whole matrix goes on without it, as without the state experiment's front
        print(f"bench: the scale experiment is skipped: {missing}", file=sys.stderr)
        chosen = [name for name in chosen if name != experiments.SCALE]
    timing = Timing(step_s=args.step_seconds or mode["step"], recv_timeout_ms=mode["recv_timeout_ms"])
    plan = plan_of(args, mode)
    max_p99_ms = args.max_p99_ms or None  # 0: no bound
    max_call_p99_ms = args.max_call_p99_ms or None
    multiples = tuple(args.overload_multiples or mode["overload_multiples"])
    settings = Settings(timing=timing, plan=plan, base_port=args.base_port,
                        cooldown_s=args.cooldown if args.cooldown is not None else mode["cooldown"],
                        warmup_s=args.warmup if args.warmup is not None else mode["warmup"],
                        heap=args.heap or modes.RATE_HEAP, young=args.young or modes.RATE_YOUNG,
                        sip_threads=args.sip_threads,
                        node_settings=tuple(args.node_settings), t1_ms=args.t1,
                        criteria=search.Criteria(max_p99_ms=max_p99_ms),
                        call_criteria=search.Criteria(max_p99_ms=max_call_p99_ms),
                        overload_multiples=multiples,
                        netns=mode_of_network == network.NETNS,
                        overload_step_s=args.overload_step_seconds or mode["overload_step"],
                        avalanche_users=(args.avalanche_users if args.avalanche_users is not None
                                         else mode["avalanche_users"]),
                        avalanche_window_s=AVALANCHE_WINDOW_S,
                        auth_users=args.auth_users, auth_algorithm=args.auth_algorithm,
                        state_cpus=(args.state_cpus or "") if experiments.STATE in chosen else "",
                        scale_quota=args.scale_quota, register_pool=args.register_pool,
                        start_known=mode["start_known"])
    commit = _commit()
    out = _fresh(args.out / f"{datetime.date.today().isoformat()}-{commit}")
    again = args.references_again if args.references_again is not None else profile == "full"
    policies = tuple(args.front_policies or experiments.FRONT_POLICIES) if deploy.front_available() else ()
    wants_front = any(experiments.EXPERIMENTS.get(name) and experiments.EXPERIMENTS[name].routing == experiments.FRONT
                      for name in chosen) or experiments.TABLE2 in chosen or experiments.OVERLOAD in chosen
    if wants_front and not policies:
        print("bench: deploy/p2psip up has no --front yet: the front's experiments (Figs. 9, 10, Table 2's "
              "load-balanced row, the overload experiment's two nodes behind the front and their avalanche) "
              "are skipped", file=sys.stderr)
    if experiments.STATE in chosen and not (experiments.state_policy(policies) and deploy.front_state_available()):
        print("bench: the state experiment is skipped: it needs deploy/p2psip up --front with --front-state "
              "(src/front's state modes) and one of src/front's policies in --front-policies", file=sys.stderr)
        chosen = [name for name in chosen if name != experiments.STATE]
    if headline and not args.experiments:
        measurements, overloaded_ones = experiments.headline_plan(backends)
        overloaded = frozenset(overloaded_ones)
        measurements = budget.order(measurements, overloaded)
    else:
        measurements = experiments.plan(chosen, backends, nodes, again, policies, scale_nodes_of(args))
        overloaded = frozenset(experiments.overloaded(chosen, backends, policies))
    tcp_settings = tcp_settings_of(args, backends) if experiments.TCP in chosen else None
    if tcp_settings and not deploy.front_available():
        raise BenchError("the tcp experiment needs the front (deploy/p2psip up --front ... --front-processes): "
                         "TCP clients reach the nodes through it")
    capacity_settings = capacity_settings_of(args, mode) if experiments.CAPACITY in chosen else None
    fault_settings = fault_settings_of(args, mode_of_network) if experiments.FAULTS in chosen else None
    fault_backends = faulted_backends(backends)
    others = (tcp_minutes(tcp_settings, settings) if tcp_settings else 0) + (
        capacity_minutes(capacity_settings, len(capacity_backends), settings) if capacity_settings else 0) + (
        faultruns.minutes(fault_settings, len(fault_backends)) if fault_settings else 0)
    expected = worst_minutes(measurements, overloaded, settings, confirmations=min(1, plan.confirmations)) + others
    worst = worst_minutes(measurements, overloaded, settings) + others
    print(f"bench: profile {profile}; {len(measurements)} rate searches, {plan.max_steps} steps each at most"
          + (f", each rate found confirmed in {plan.confirm_s:g} s ({plan.confirmations} confirmations at most)"
             if plan.confirmations else "")
          + (f", {len(overloaded)} of them followed by overload steps at "
             f"{', '.join(f'{m:g}x' for m in multiples)}" if overloaded else "")
          + scale_text(measurements, settings)
          + (f"; the capacity experiment with {capacity_settings.users:,} users on Kamailio and "
             f"{', '.join(capacity_backends)} ({capacity_settings.nodes} node(s) each)" if capacity_settings else "")
          + (f" (about {expected:.0f} minutes when every first confirmation holds, {worst:.0f} at most"
             if plan.confirmations > 1 else f" (about {worst:.0f} minutes at most")
          + f", the start-ups of {len(experiments.deployments(measurements))} deployments included); results in {out}",
          file=sys.stderr)
    minutes = args.budget_minutes if args.budget_minutes is not None else mode["budget_minutes"]
    limit = budget.Budget(minutes * 60 if minutes else None,
                          budget.rows(measurements, overloaded, settings, min(1, plan.confirmations)), settings)
    print("bench: the plan, each row's estimate with one confirmation:\n" + "\n".join(limit.plan_lines()),
          file=sys.stderr)
    described = machine.describe()
    runner = Runner(settings, out, out / "work", processes, limit)
    runner.run(measurements, overloaded)
    if tcp_settings:
        TcpRunner(settings, tcp_settings, out, out / "work", processes).run()
    if capacity_settings:
        capacity_runner = CapacityRunner(settings, capacity_settings, capacity_backends, out, out / "work", processes)
        capacity_runner.run()
        runner.networks.update(capacity_runner.runner.networks)
    if fault_settings:
        FaultRunner(fault_settings, fault_backends, out, out / "work", processes).run()
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": commit, "mode": profile,
            "step_seconds": f"{timing.step_s:g}",
            **recorded_settings(settings),
            # the overload experiment's deployments, so that the report names one that got no step
            "overload": "; ".join(overload.deployment_label(m.system, m.nodes, m.routing)
                                  for m in measurements if m in overloaded),
            "network": network.describe(mode_of_network, why, runner.networks),
            "front": ", ".join(policies) if policies else "not available (deploy/p2psip up has no --front)",
            "auth_algorithm": args.auth_algorithm if experiments.AUTH in chosen else "",
            # whether the state experiment ran pinned: its targets differ (statereport.py)
            "state_cpus": settings.state_cpus,
            # the scale experiment's cores per node, which its report and verdicts read
            **(scale_meta(args) if experiments.SCALE in chosen else {}),
            **(capacity_meta(capacity_settings) if capacity_settings else {}),
            **(fault_meta(fault_settings) if fault_settings else {}),
            "command": "bench/run " + " ".join(shlex.quote(a) for a in argv)}
    _write_meta(out, meta, described)
    rebuild(out)
    if headline:
        print("\n".join(headline_lines(out)))
    return 0


# The headline profile's one line per target, beside its report.
HEADLINE_FILE = "headline.txt"


def recorded_settings(settings: Settings) -> dict[str, str]:
    """The settings a verdict depends on, as run.tsv records them (modes.DOCUMENTED is compared with them)."""
    plan = settings.plan
    return {"precision": f"{plan.precision:g}", "growth": f"{plan.growth:g}", "max_steps": str(plan.max_steps),
            "confirmations": str(plan.confirmations),
            "confirm_s": f"{plan.confirm_s:g}" if plan.confirmations else "none",
            "min_success": f"{settings.criteria.min_success:g}",
            "max_p99_ms": f"{settings.criteria.max_p99_ms:g}" if settings.criteria.max_p99_ms else "none",
            "max_call_p99_ms": (f"{settings.call_criteria.max_p99_ms:g}" if settings.call_criteria.max_p99_ms
                                else "none"),
            "overload_step_s": f"{settings.overload_step_s:g}",
            "overload_multiples": modes.multiples_text(settings.overload_multiples),
            "good_within_ms": f"{overload.GOOD_WITHIN_MS:g}",
            "heap": settings.heap or "deploy's", "young": settings.young or "deploy's",
            "ceiling_young": modes.CEILING_YOUNG, "ceiling_pause_ms": str(modes.CEILING_PAUSE_MS),
            "register_pool": str(settings.register_pool)}


def headline_lines(out: Path) -> list[str]:
    """One line per target of a finished run: target, figure, verdict, run folder (headline.py)."""
    rows = summary.read_summary(out / "summary.csv") if (out / "summary.csv").exists() else []
    meta, _ = _read_meta(out)
    return headline.lines(rows, overload.read_steps(out / overload.STEPS_CSV), meta, out)


def worst_minutes(measurements: list[experiments.Measurement], overloaded: frozenset, settings: Settings,
                  confirmations: int | None = None) -> float:
    """The run's length in minutes, at most: each row's estimate (budget.rows: its search's steps, its
    warm-up and rest, `confirmations` confirmation steps (all its plan allows unless given), each but the
    last failed and rested, its overload steps, its deployment's start-up); an avalanche about a minute."""
    confirming = settings.plan.confirmations if confirmations is None else confirmations
    avalanches = sum(1 for m in overloaded if experiments.avalanche_after(m)) if settings.avalanche_users else 0
    return (sum(row.seconds for row in budget.rows(measurements, overloaded, settings, confirming))
            + avalanches * 60) / 60


def small_hosts_unavailable(mode_of_network: str) -> str:
    """Why the scale experiment's nodes cannot be small hosts here, or "": each runs in a network namespace
    of its own with a CPU quota, which needs namespaces and a cpu controller the bench may write."""
    if mode_of_network != network.NETNS:
        return ("the scale experiment runs each node as a host of its own, in a network namespace: it needs "
                "--network netns (root, and `ip netns add` working)")
    reason = cgroups.unavailable()
    return f"the scale experiment gives each node a CPU quota (deploy/p2psip up --cpu-quota): {reason}" if reason else ""


def scale_nodes_of(args: argparse.Namespace) -> tuple[int, ...]:
    return tuple(args.scale_nodes or experiments.SCALE_NODES)


def scale_meta(args: argparse.Namespace) -> dict[str, str]:
    return {"scale_quota": f"{args.scale_quota:g}", "scale_nodes": ",".join(map(str, scale_nodes_of(args)))}


def scale_text(measurements: list[experiments.Measurement], settings: Settings) -> str:
    """The start-up line's words on the scale experiment: its deployments and their quota (its searches are
    among the rate searches counted, and in the estimate)."""
    scaled = [m for m in measurements if m.routing == experiments.SCALE]
    if not scaled:
        return ""
    return (f"; the scale experiment's {len(scaled)} of them on nodes of {settings.scale_quota:g} cores each "
            f"(up to {max(m.nodes for m in scaled)} nodes)")


def capacity_settings_of(args: argparse.Namespace, mode: dict) -> capacity.Settings:
    return capacity.Settings(users=args.capacity_users or mode["capacity_users"], nodes=args.capacity_nodes,
                             expiry_s=args.capacity_expiry, steady_s=args.capacity_seconds or mode["capacity_seconds"],
                             call_rate=args.capacity_call_rate)


def capacity_meta(settings: capacity.Settings) -> dict[str, str]:
    """What the report says of the capacity experiment's settings (its --report-only has no options)."""
    return {"capacity_users": f"{settings.users:,}", "capacity_nodes": str(settings.nodes),
            "capacity_expiry": str(settings.expiry_s), "capacity_seconds": f"{settings.steady_s:g}",
            "capacity_call_rate": str(settings.call_rate)}


def capacity_minutes(settings: capacity.Settings, backends: int, run: Settings) -> float:
    """The capacity experiment's length at most: per backend the nodes' start, loading and querying N users
    at about 1,000/s each (a pass or two), the steady state, a restart's wait and two searches; Kamailio's
    load."""
    search_s = run.plan.max_steps * (run.timing.step_s + 3 + run.cooldown_s / 2)
    per_backend = 120 + 3 * settings.users / 1000 + settings.steady_s + 330 + 2 * search_s
    return (backends * per_backend + settings.users / 1000) / 60


def fault_settings_of(args: argparse.Namespace, mode_of_network: str) -> faultruns.Settings:
    return faultruns.Settings(runs=args.fault_runs or (faultruns.QUICK_RUNS if args.quick else faultruns.FULL_RUNS),
                              minutes=args.fault_minutes or (faultruns.QUICK_MINUTES if args.quick
                                                             else faultruns.FULL_MINUTES),
                              first_seed=args.fault_seed, base_port=args.base_port,
                              netns=mode_of_network == network.NETNS, starve=faultruns.starve_available())


def faulted_backends(backends: list[str]) -> list[str]:
    """The faults experiment's backends: those whose nodes share their bindings, each once (not on tmpfs)."""
    return [b for b in backends if not deploy.on_tmpfs(b) and "alone" not in deploy.registered().get(b, ())]


def fault_meta(settings: faultruns.Settings) -> dict[str, str]:
    """What the report says of the faults experiment's settings (its --report-only has no options)."""
    return {"fault_runs": str(settings.runs), "fault_minutes": f"{settings.minutes:g}",
            "fault_left_out": "; ".join(f"{kind} {why}" for kind, why in faultruns.left_out(settings).items())}


def tcp_settings_of(args: argparse.Namespace, backends: list[str]) -> TcpSettings:
    """The tcp experiment runs on one backend: chord when chosen, else the first chosen."""
    idle = tuple(args.tcp_idle or (tcp.QUICK_IDLE if args.quick else tcp.FULL_IDLE))
    if 0 not in idle:
        idle = (0, *idle)   # the memory and rates of every level are compared with none held
    return TcpSettings(backend="chord" if "chord" in backends else backends[0], idle=idle,
                       idle_front_processes=args.tcp_front_processes or tcp.front_processes_for(idle),
                       rates=tuple(args.tcp_rates or (tcp.QUICK_RATES if args.quick else tcp.FULL_RATES)))


def tcp_minutes(tcp_settings: TcpSettings, settings: Settings) -> float:
    """The tcp experiment's length at most: every rung of the ladder for each transport of the rate part
    (twice: ours and Kamailio), and at each level of the idle part, plus registering the held phones."""
    step_s = settings.timing.step_s + 3
    ladder_s = len(tcp_settings.rates) * step_s + settings.cooldown_s
    rate_part = 2 * len(tcp.TRANSPORTS) * ladder_s + settings.warmup_for(2)
    idle_part = 2 * (len(tcp_settings.idle) * (ladder_s + SETTLE_S) + max(tcp_settings.idle) / tcp.HOLD_RATE)
    return (rate_part + idle_part) / 60


def rebuild(out: Path) -> None:
    rates = out / "summary.csv"
    rows = summary.read_summary(rates) if rates.exists() else []   # a run of the tcp experiment alone
    meta, described = _read_meta(out)
    path = report.write_report(out, rows, described, meta)
    plots = report.write_plots(out, rows)
    print(f"bench: report {path}, {len(plots)} plot(s)", file=sys.stderr)
    if meta.get("mode") == "headline":
        (out / HEADLINE_FILE).write_text("\n".join(headline_lines(out)) + "\n")


def _write_meta(out: Path, meta: dict, described: dict) -> None:
    lines = [f"{k}\t{v}" for k, v in meta.items()] + ["-"] + [f"{k}\t{v}" for k, v in described.items()]
    (out / "run.tsv").write_text("\n".join(lines) + "\n")


def _read_meta(out: Path) -> tuple[dict, dict]:
    meta, described, target = {}, {}, None
    path = out / "run.tsv"
    if not path.exists():
        return meta, described
    target = meta
    for line in path.read_text().splitlines():
        if line == "-":
            target = described
            continue
        key, _, value = line.partition("\t")
        target[key] = value
    return meta, described


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO)
    return out.stdout.strip() or "unknown"


def _fresh(folder: Path) -> Path:
    candidate, n = folder, 1
    while candidate.exists():
        n += 1
        candidate = folder.with_name(f"{folder.name}-{n}")
    candidate.mkdir(parents=True)
    return candidate


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _list(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def _floats(text: str) -> list[float]:
    try:
        return sorted({float(x) for x in _list(text)})
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of numbers: {text}")


def _ints(text: str) -> list[int]:
    try:
        return sorted({int(x) for x in _list(text)})
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of numbers: {text}")


def _names(allowed):
    def parse(text: str) -> list[str]:
        names = _list(text)
        bad = [n for n in names if n not in allowed]
        if bad:
            raise argparse.ArgumentTypeError(f"unknown name(s) {', '.join(bad)}; choose from {', '.join(allowed)}")
        return names
    return parse

"""The bench's experiments and the measurements they need, as data.

A measurement is one rate search: a workload (registration or call) against a system (a
backend, or a reference: the container's ceiling, Kamailio) with a number of nodes and a
routing (spread: SIPp sends to every node in turn; one: every request to node 0, the others
only hold data). Experiments share measurements: with one node, spread and one are the same,
and Table 2 is read from the two-node measurements of the figures.

Pure data and functions; immutable, safe to share.
"""
from __future__ import annotations

from dataclasses import dataclass

KAMAILIO = "kamailio"
CEILING = "ceiling"
REFERENCES = (CEILING, KAMAILIO)
WORKLOADS = ("registration", "call")
# First registrations: REGISTERs of AORs never used before (sipp.FIRST_PREFIX), each creating a binding, on a
# deployment after its registrations (workload "registration"), which go round a pool of AORs and so are
# refreshes after the pool's first pass (sipp.REGISTRATION_POOL): the register-refresh experiment's pair.
FIRST = "first"


@dataclass(frozen=True, order=True)
class Measurement:
    workload: str
    system: str
    nodes: int
    routing: str  # "spread", "one", "front-POLICY" (every request through the front), "state-MODE-POLICY", "scale"
    round: int = 1  # references are measured again at the end of a run (round 2) to show drift

    @property
    def label(self) -> str:
        return f"{self.workload} {self.system} {self.nodes} node{'s' if self.nodes > 1 else ''} {self.routing}"


@dataclass(frozen=True)
class Experiment:
    name: str
    title: str
    workload: str
    routing: str
    paper: str


EXPERIMENTS = {
    "register": Experiment("register", "Registration, single server, requests spread over the nodes",
                           "registration", "spread", "Fig. 5"),
    "call": Experiment("call", "Calls, single server, requests spread over the nodes", "call", "spread", "Fig. 6"),
    "register-one": Experiment("register-one", "Registration, every request to one node", "registration", "one",
                               "Fig. 7"),
    "call-one": Experiment("call-one", "Calls, every request to one node", "call", "one", "Fig. 8"),
    "register-front": Experiment("register-front", "Registration through the front, each policy", "registration",
                                 "front", "Fig. 9"),
    "call-front": Experiment("call-front", "Calls through the front, each policy", "call", "front", "Fig. 10"),
    "register-refresh": Experiment("register-refresh", "First registrations (AORs never used before), against the "
                                   "same deployment's registrations round the pool", FIRST, "spread", "-"),
}
FRONT = "front"
FRONT_POLICIES = ("rr", "hash", "cjsq", "tjsq", "tlwl")
# Kamailio's dispatcher as the front (deploy/p2psip up --front kamailio-*): measured when asked for.
KAMAILIO_FRONT_POLICIES = ("kamailio-rr", "kamailio-hash")
# Table 2 reads two-node results of these experiments.
TABLE2 = "table2"
# Offered load at multiples of each deployment's clean rate, after its registration search, and
# the registration avalanche (overload.py): one node of each backend directly, two behind the front,
# and both references.
OVERLOAD = "overload"
# Registration with Digest authentication on one node (authreport.py): plain registrations, first
# registrations (401, then 200) and refreshes on the same nonce, each searched to the deployment's
# own limit with bench/sipload, on the backends and on Kamailio. Plain runs on a deployment without
# authentication, the other two on one with it (`up --users`; Kamailio's auth configuration).
AUTH = "auth"
AUTH_WORKLOADS = ("auth-plain", "auth-first", "auth-refresh")
# Registration over UDP and TCP, and with up to 100,000 idle TCP connections held (tcp.py): two nodes
# of one backend behind the front, and Kamailio; its own deployments and steps, outside `plan`.
TCP = "tcp"
# Registration on one node of each backend twice on the same deployment: as `register` does, and
# with the node's /metrics scraped every second all through the search (routing SCRAPED).
METRICS = "metrics"
SCRAPED = "scraped"
# How many users a deployment keeps registered (capacity.py): a population loaded, a steady state of
# refreshes and calls with a node killed and restarted, every user queried, the memory per binding against
# Kamailio's per contact, and refreshes against first registrations; its own deployments, outside `plan`.
CAPACITY = "capacity"
CAPACITY_WORKLOADS = ("capacity-refresh", "capacity-first")
# The backends it measures unless --backends names others.
CAPACITY_BACKENDS = ("chord", "bamboo")
# Calls through the front in each of its state modes (statereport.py, after SERvartuka): two nodes of each
# backend behind one front policy, the front stateless, stateful and dynamic (deploy/p2psip up
# --front-state), each a call search of its own deployment; routing "state-MODE-POLICY".
STATE = "state"
STATE_MODES = ("stateless", "stateful", "dynamic")
STATE_NODES = 2
# Whether a registrar on a DHT grows with its nodes (scalereport.py): each node a small host of its own,
# a network namespace and a cgroup quota of SCALE_QUOTA cores (deploy/p2psip up --netns --cpu-quota), the
# REGISTER/s of each node count spread over the nodes as `register` spreads them; routing SCALE.
SCALE = "scale"
SCALE_NODES = (1, 2, 4, 8)
SCALE_QUOTA = 0.2
# Fault runs (faultruns.py): for each backend, runs of `deploy/p2psip faults` with every fault kind this
# machine can inject, checked for lost and stale bindings; its own deployments, outside `plan`.
FAULTS = "faults"
ALL = tuple(EXPERIMENTS) + (TABLE2, OVERLOAD, AUTH, TCP, METRICS, CAPACITY, STATE, SCALE, FAULTS)
# The headline profile (bench/run --profile headline): what headline_plan measures, by experiment.
HEADLINE_EXPERIMENTS = ("register", "call", "register-refresh", OVERLOAD)
# Its scaling figures and its overloaded and refreshed backend.
HEADLINE_BACKEND = "chord"
HEADLINE_NODES = (2, 4)


def headline_plan(backends: list[str]) -> tuple[list[Measurement], list[Measurement]]:
    """The headline profile's searches, and those of them the overload steps follow: REGISTER/s and
    calls/s of one node of each backend and of both references; REGISTER/s of 2 and 4 Chord nodes;
    Chord's first registrations after its registrations round the pool on the same node; overload (2x, 3x) on one Chord
    node and both references. Chord's parts only when chord is among `backends`."""
    wanted = {Measurement(workload, system, 1, "one") for workload in WORKLOADS for system in (*REFERENCES, *backends)}
    overloaded_ones = [Measurement("registration", reference, 1, "one") for reference in REFERENCES]
    if HEADLINE_BACKEND in backends:
        wanted |= {Measurement("registration", HEADLINE_BACKEND, n, "spread") for n in HEADLINE_NODES}
        wanted.add(Measurement(FIRST, HEADLINE_BACKEND, 1, "one"))
        overloaded_ones.append(Measurement("registration", HEADLINE_BACKEND, 1, "one"))
    return _ordered(wanted), overloaded_ones


def needs_auth(workload: str) -> bool:
    """Whether a workload runs on a deployment that challenges every REGISTER (a deployment apart)."""
    return workload in ("auth-first", "auth-refresh")


def sipload_mode(workload: str) -> str | None:
    """bench/sipload's mode of an auth workload (plain, first, refresh); None for SIPp's workloads."""
    return workload[len("auth-"):] if workload in AUTH_WORKLOADS else None


def routing_for(nodes: int, routing: str) -> str:
    """With one node there is nothing to spread: both routings are the same measurement (a front
    before one node is still a front)."""
    return "one" if nodes == 1 and routing in ("spread", "one") else routing


def front_policy(routing: str) -> str | None:
    """The policy of a front experiment's routing (front-POLICY); None for every other routing."""
    return routing[len(FRONT) + 1:] if routing.startswith(FRONT + "-") else None


def state_routing(mode: str, policy: str) -> str:
    return f"{STATE}-{mode}-{policy}"


def state_mode(routing: str) -> str | None:
    """The front's state mode of a state experiment's routing (state-MODE-POLICY); None for others."""
    parts = routing.split("-", 2)
    return parts[1] if len(parts) == 3 and parts[0] == STATE and parts[1] in STATE_MODES else None


def front_of(routing: str) -> str | None:
    """The policy of the front a routing sends through: a front experiment's or the state experiment's."""
    return routing.split("-", 2)[2] if state_mode(routing) else front_policy(routing)


def state_policy(front_policies: tuple[str, ...]) -> str | None:
    """The front policy of the state experiment: tlwl when chosen, else the first of src/front's chosen
    (Kamailio's dispatcher keeps no call state to move); None when there is none."""
    ours = [p for p in front_policies if p in FRONT_POLICIES]
    return ("tlwl" if "tlwl" in ours else ours[0]) if ours else None


def state_measurements(backends: list[str], front_policies: tuple[str, ...]) -> list[Measurement]:
    """The state experiment's call searches: each backend's two nodes behind the front in each mode."""
    policy = state_policy(front_policies)
    if policy is None:
        return []
    return [Measurement("call", system, STATE_NODES, state_routing(mode, policy))
            for system in backends for mode in STATE_MODES]


def scale_measurements(backends: list[str], node_counts: tuple[int, ...] = SCALE_NODES) -> list[Measurement]:
    """The scale experiment's registration searches: each backend at each node count, each node a host
    with its quota (a deployment of its own, apart from `register`'s unbounded nodes)."""
    return [Measurement("registration", system, nodes, SCALE) for system in backends for nodes in node_counts]


def overload_policy(front_policies: tuple[str, ...]) -> str | None:
    """The front of the overload experiment's two nodes: tlwl when chosen, else the first policy chosen;
    None when there is no front to start."""
    if not front_policies:
        return None
    return "tlwl" if "tlwl" in front_policies else front_policies[0]


def overloaded(experiments: list[str], backends: list[str], front_policies: tuple[str, ...] = ()) -> list[Measurement]:
    """The registration searches the overload experiment follows with its steps, on the same deployment
    (their results are the clean rates): both references, one node of each backend, and two nodes of
    each behind the front (none without a front). Empty when the experiment is not chosen."""
    if OVERLOAD not in experiments:
        return []
    policy = overload_policy(front_policies)
    wanted = [Measurement("registration", reference, 1, "one") for reference in REFERENCES]
    for system in backends:
        wanted.append(Measurement("registration", system, 1, "one"))
        if policy:
            wanted.append(Measurement("registration", system, 2, f"{FRONT}-{policy}"))
    return wanted


def avalanche_after(measurement: Measurement) -> bool:
    """Whether the overload experiment sends the avalanche to this deployment as well: two nodes
    behind the front, and Kamailio to compare with."""
    return measurement.system == KAMAILIO or front_policy(measurement.routing) is not None


def plan(experiments: list[str], backends: list[str], node_counts: list[int],
         references_again: bool = False, front_policies: tuple[str, ...] = (),
         scale_nodes: tuple[int, ...] = SCALE_NODES) -> list[Measurement]:
    """Every measurement the chosen experiments need, references first, without repeats; with
    `references_again`, the references once more at the end, so that the report shows how far
    the machine drifted during the run. Front experiments need `front_policies` (none when
    deploy/p2psip cannot start a front); Table 2's load-balanced row then uses two nodes behind it,
    and the overload experiment its searches (`overloaded`). The scale experiment measures `scale_nodes`."""
    wanted: set[Measurement] = set(overloaded(experiments, backends, front_policies))
    if AUTH in experiments:
        # one node (Kamailio is one server), whatever --nodes says: the targets compare a deployment with itself
        wanted |= {Measurement(workload, system, 1, "one") for workload in AUTH_WORKLOADS
                   for system in (*backends, KAMAILIO)}
    if METRICS in experiments:
        wanted |= {Measurement("registration", system, 1, routing) for system in backends for routing in ("one", SCRAPED)}
    if STATE in experiments:
        wanted |= set(state_measurements(backends, front_policies))
    if SCALE in experiments:
        wanted |= set(scale_measurements(backends, scale_nodes))
    needs = [(EXPERIMENTS[name], node_counts) for name in experiments if name in EXPERIMENTS]
    if TABLE2 in experiments:
        needs += [(EXPERIMENTS["register"], [2]), (EXPERIMENTS["register-one"], [2])]
        if front_policies:
            needs += [(EXPERIMENTS["register-front"], [2])]
    for experiment, counts in needs:
        if experiment.routing == FRONT and not front_policies:
            continue
        routings = [f"{FRONT}-{p}" for p in front_policies] if experiment.routing == FRONT else [experiment.routing]
        for system in backends:
            for nodes in counts:
                for routing in routings:
                    wanted.add(Measurement(experiment.workload, system, nodes, routing_for(nodes, routing)))
        for reference in REFERENCES:
            wanted.add(Measurement(experiment.workload, reference, 1, "one"))
    # first registrations are judged against the registrations round the pool on the same deployment
    wanted |= {Measurement("registration", m.system, m.nodes, m.routing, m.round) for m in wanted if m.workload == FIRST}
    if references_again:
        wanted |= {Measurement(m.workload, m.system, m.nodes, m.routing, 2) for m in wanted if m.system in REFERENCES}
    return _ordered(wanted)


def _ordered(wanted) -> list[Measurement]:
    """References first, then by deployment, the scale experiment's after the others (a backend's node
    counts one after another); within one, first registrations last: the bindings they create stay."""
    return sorted(wanted, key=lambda m: (m.round, m.system not in REFERENCES, m.routing == SCALE, m.system, m.nodes,
                                         front_of(m.routing) or "", _state_order(m.routing),
                                         m.workload == FIRST, m.workload, m.routing))


def _state_order(routing: str) -> int:
    """The state experiment's modes in their order (stateless, stateful, dynamic); other routings first."""
    mode = state_mode(routing)
    return -1 if mode is None else STATE_MODES.index(mode)


def deployments(measurements: list[Measurement]) -> list[tuple[str, int, list[Measurement]]]:
    """Measurements grouped by what must be running (system, nodes, round, front policy and state mode,
    whether it challenges REGISTERs, whether its nodes have CPU quotas), in plan order: a front is
    started with its nodes, so each policy and each state mode needs its own deployment, and
    authentication and quotas are set when a deployment starts."""
    groups: dict[tuple, list[Measurement]] = {}
    for m in measurements:
        key = (m.system, m.nodes, m.round, front_of(m.routing) or "", state_mode(m.routing) or "",
               needs_auth(m.workload), m.routing == SCALE)
        groups.setdefault(key, []).append(m)
    return [(key[0], key[1], ms) for key, ms in groups.items()]

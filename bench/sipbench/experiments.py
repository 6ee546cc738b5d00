"""The experiments of issue 7 and the measurements they need, as data.

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


@dataclass(frozen=True, order=True)
class Measurement:
    workload: str
    system: str
    nodes: int
    routing: str  # "spread" or "one"
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
}
# Table 2 reads two-node results of these experiments.
TABLE2 = "table2"
ALL = tuple(EXPERIMENTS) + (TABLE2,)


def routing_for(nodes: int, routing: str) -> str:
    """With one node there is nothing to spread: both routings are the same measurement."""
    return "one" if nodes == 1 else routing


def plan(experiments: list[str], backends: list[str], node_counts: list[int],
         references_again: bool = False) -> list[Measurement]:
    """Every measurement the chosen experiments need, references first, without repeats; with
    `references_again`, the references once more at the end, so that the report shows how far
    the machine drifted during the run."""
    wanted: set[Measurement] = set()
    needs = [(EXPERIMENTS[name], node_counts) for name in experiments if name in EXPERIMENTS]
    if TABLE2 in experiments:
        needs += [(EXPERIMENTS["register"], [2]), (EXPERIMENTS["register-one"], [2])]
    for experiment, counts in needs:
        for system in backends:
            for nodes in counts:
                wanted.add(Measurement(experiment.workload, system, nodes, routing_for(nodes, experiment.routing)))
        for reference in REFERENCES:
            wanted.add(Measurement(experiment.workload, reference, 1, "one"))
    if references_again:
        wanted |= {Measurement(m.workload, m.system, m.nodes, m.routing, 2) for m in wanted if m.system in REFERENCES}
    return sorted(wanted, key=lambda m: (m.round, m.system not in REFERENCES, m.system, m.nodes, m.workload,
                                         m.routing))


def deployments(measurements: list[Measurement]) -> list[tuple[str, int, list[Measurement]]]:
    """Measurements grouped by what must be running (system, nodes, round), in plan order."""
    groups: dict[tuple[str, int, int], list[Measurement]] = {}
    for m in measurements:
        groups.setdefault((m.system, m.nodes, m.round), []).append(m)
    return [(system, nodes, ms) for (system, nodes, _), ms in groups.items()]

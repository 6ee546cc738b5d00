"""The original evaluation's figures (Wauthy and Schumacher, NGMAST 2007), keyed by our backend names;
and, apart, those of SERvartuka, the reference of the `state` experiment.

Wauthy and Schumacher, NGMAST 2007: dual 3.06 GHz Xeon servers, SIPp on its own machine,
gigabit LAN. Immutable data.
"""
import math

# Our backend -> the paper's column name.
COLUMNS = {"chord": "OpenChord", "bamboo": "Bamboo", "bamboo-tmpfs": "Bamboo (RAMDISK)", "bryan": "Bryan-draft"}

# Table 2, two nodes, REGISTER/s: configuration -> paper column -> value.
TABLE2 = {
    "single server": {"OpenChord": 270, "Bamboo": 100, "Bamboo (RAMDISK)": 690},
    "distributed": {"OpenChord": 540, "Bamboo": 180, "Bamboo (RAMDISK)": 730},
    "load-balanced": {"OpenChord": 590, "Bamboo": 180, "Bamboo (RAMDISK)": 1130},
}

# Our experiment whose two-node figure is a row of Table 2.
TABLE2_ROWS = {"register": "single server", "register-one": "distributed", "register-front": "load-balanced"}

# Registration, single server, one node, REGISTER/s.
ONE_NODE_REGISTRATION = {"OpenChord": 1050, "Bamboo": 160, "Bamboo (RAMDISK)": 790, "Bryan-draft": 1100}

# Registration, single server, four nodes: Bamboo on disk only.
FOUR_NODES_BAMBOO_ON_DISK = 40

# Calls, configuration B (every request to one node; one to five servers of up to two nodes): the
# paper gives one range for Bamboo on disk or RAMDISK over all its sizes, so every row gets it.
DISTRIBUTED_CALLS = {"Bamboo": "300-350", "Bamboo (RAMDISK)": "300-350"}


def beside(experiment: str, backend: str, nodes: int) -> str | None:
    """The paper's figure for one row of ours (an experiment of experiments.EXPERIMENTS, our backend
    name, a node count), as printed there; None when the paper measured nothing comparable.
    One node is the same measurement in every experiment that is not behind a front."""
    column = COLUMNS.get(backend)
    if column is None:
        return None
    if nodes == 1 and experiment in ("register", "register-one"):
        value = ONE_NODE_REGISTRATION.get(column)
    elif nodes == 2 and experiment in TABLE2_ROWS:
        value = TABLE2[TABLE2_ROWS[experiment]].get(column)
    elif nodes == 4 and experiment == "register" and column == "Bamboo":
        value = FOUR_NODES_BAMBOO_ON_DISK
    elif experiment == "call-one":
        return DISTRIBUTED_CALLS.get(column)
    else:
        value = None
    return f"{value:,}" if value is not None else None


# SERvartuka (Balasubramaniyan, Acharya, Ahamad, Srivatsa, Dacosta and Wright, "SERvartuka: Enhancing SIP
# Server Scalability with Dynamic State Management"): OpenSER proxies, calls/s at saturation, as the paper
# reports them; the reference of our `state` experiment (statereport.py). Other hardware and software.
SERVARTUKA_TITLE = "SERvartuka (Balasubramaniyan et al.)"
SERVARTUKA_ONE_SERVER = {"stateful": 4700, "stateless": 5700}          # one OpenSER, calls/s
SERVARTUKA_TWO_IN_SERIES = {"static": 4000, "dynamic": 4600}           # two servers in series, calls/s
SERVARTUKA_DYNAMIC_GAIN = 0.15                                          # 4,600 over 4,000
SERVARTUKA_OPTIMUM_SHARE = 0.5   # the optimum keeps state for about half the calls at each server (Fig. 4)


def servartuka_fig4_shape(points: int = 41) -> dict[str, list[tuple[float, float]]]:
    """The shape of the paper's Figure 4, drawn beside ours: the share of calls each of two servers in
    series handles statefully, over (normalised) time, converging to about half each. A schematic of
    what the paper reports (its end point, SERVARTUKA_OPTIMUM_SHARE), not its data: the paper's own
    curve and time axis are not reproduced here. Server 1 starts keeping every call, server 2 none."""
    times = [i / (points - 1) for i in range(points)]
    settle = [math.exp(-6 * t) for t in times]
    half = SERVARTUKA_OPTIMUM_SHARE
    return {"server 1": [(t, half + (1 - half) * s) for t, s in zip(times, settle)],
            "server 2": [(t, half - half * s) for t, s in zip(times, settle)]}

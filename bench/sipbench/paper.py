"""The original evaluation's figures (Wauthy and Schumacher, NGMAST 2007), keyed by our backend names.

Wauthy and Schumacher, NGMAST 2007: dual 3.06 GHz Xeon servers, SIPp on its own machine,
gigabit LAN. Immutable data.
"""

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

"""The original evaluation's figures (shared/design/paper-results.md), keyed by our backend names.

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

# Registration, single server, one node, REGISTER/s.
ONE_NODE_REGISTRATION = {"OpenChord": 1050, "Bamboo": 160, "Bamboo (RAMDISK)": 790, "Bryan-draft": 1100}

"""deploy/p2psip: assembles the SIP servlet container, generates node folders, starts, probes and
stops nodes, runs the demo and the tests. Standard library only (Python 3.11)."""

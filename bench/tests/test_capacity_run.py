"""The capacity experiment for real, at its smallest: Kamailio and one Chord node, 500 users, a steady
state of 10 s, through bench/run. Checks that every user was registered, none lost and none with two
bindings, that the report has the section and that no node is left running. Two to three minutes
here (the node's start, the load, the query, two one-step searches): matrix run only."""
import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from liveness import alive

BENCH = Path(__file__).resolve().parents[1]
P2PSIP = BENCH.parent / "deploy" / "p2psip"


@pytest.mark.matrix
@pytest.mark.skipif(not P2PSIP.is_file(), reason="deploy/p2psip is not there: the bench starts nodes only through it")
def test_500_users_on_one_chord_node_are_all_kept_each_with_one_binding(tmp_path):
    command = [sys.executable, str(BENCH / "run"), "--quick", "--experiments", "capacity", "--backends", "chord",
               "--capacity-nodes", "1", "--capacity-users", "500", "--capacity-seconds", "10",
               "--capacity-call-rate", "20", "--max-steps", "1", "--step-seconds", "2", "--cooldown", "1",
               "--base-port", "27270", "--out", str(tmp_path),
               # the node's warm-up cut to 5 s: the test checks what is kept, not how fast
               "--set", "p2psip.warmup.timeout=5s"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    with open(run / "capacity.csv") as f:
        rows = {row["system"]: row for row in csv.DictReader(f)}
    chord, kamailio = rows["chord"], rows["kamailio"]
    assert chord["not_loaded"] == "0" and kamailio["not_loaded"] == "0", rows
    assert (chord["queried"], chord["unanswered"], chord["lost"], chord["duplicates"]) == ("500", "0", "0", "0"), chord
    assert chord["killed"] == "none: one node"
    assert float(kamailio["heap_per_binding_b"]) > 0, kamailio   # Kamailio's shared memory grew with the contacts
    report = (run / "report.md").read_text()
    assert "## Capacity (experiment capacity)" in report and "### Kamailio" in report
    records = run / "work" / "capacity" / "deploy-run" / "processes.json"
    pids = [entry["pid"] for entry in json.loads(records.read_text())] if records.exists() else []
    assert not [pid for pid in pids if alive(pid)], "nodes left running"

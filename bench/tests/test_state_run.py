"""The state experiment for real, at its smallest: two Chord nodes behind the front in each state mode,
one short step each at a low rate, through bench/run. Checks that each mode got its search, that the
dynamic search left samples of the front's fraction, that the report has the section and that nothing is
left running. A few minutes here (three deployments of two nodes and a front): matrix run only, and only
once src/front has its state modes (p2psip.front.state)."""
import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from liveness import alive

BENCH = Path(__file__).resolve().parents[1]
REPO = BENCH.parent
P2PSIP = REPO / "deploy" / "p2psip"


def front_has_state_modes() -> bool:
    sources = REPO / "src" / "front" / "src" / "main" / "java"
    return any("p2psip.front.state" in path.read_text(errors="replace") for path in sources.rglob("*.java"))


@pytest.mark.matrix
@pytest.mark.skipif(not P2PSIP.is_file(), reason="deploy/p2psip is not there: the bench starts nodes only through it")
@pytest.mark.skipif(not front_has_state_modes(), reason="src/front has no state modes (p2psip.front.state) yet")
def test_each_state_mode_gets_its_search_and_the_dynamic_one_its_samples(tmp_path):
    command = [sys.executable, str(BENCH / "run"), "--quick", "--experiments", "state", "--backends", "chord",
               "--front-policies", "tlwl", "--start-rate", "20", "--max-steps", "1", "--step-seconds", "2",
               "--cooldown", "1", "--warmup", "2", "--base-port", "27370", "--out", str(tmp_path),
               # the nodes' warm-up cut to 5 s: the test checks the experiment's plumbing, not how fast
               "--set", "p2psip.warmup.timeout=5s"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    with open(run / "summary.csv") as f:
        routings = [row["routing"] for row in csv.DictReader(f)]
    assert routings == ["state-stateless-tlwl", "state-stateful-tlwl", "state-dynamic-tlwl"]
    with open(run / "state-samples.csv") as f:
        samples = list(csv.DictReader(f))
    assert samples and any(s["fraction"] for s in samples), "the front's fraction was sampled"
    report = (run / "report.md").read_text()
    assert "## State split (experiment state)" in report and (run / "state.png").exists()
    records = run / "work" / "deploy-run" / "processes.json"
    pids = [entry["pid"] for entry in json.loads(records.read_text())] if records.exists() else []
    assert not [pid for pid in pids if alive(pid)], "nodes or the front left running"

"""The quick mode's smallest experiment for real: registration against one memory-backend node,
with both references, through bench/run. Checks the report, the plots, a measured rate above
zero, and that no process the run started is left."""
import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from liveness import alive

BENCH = Path(__file__).resolve().parents[1]
P2PSIP = BENCH.parent / "deploy" / "p2psip"


@pytest.mark.skipif(not P2PSIP.is_file(), reason="deploy/p2psip is not there yet: the bench starts nodes only through it")
def test_quick_registration_on_one_memory_node_measures_a_rate_and_writes_the_report(tmp_path):
    command = [sys.executable, str(BENCH / "run"), "--quick", "--experiments", "register",
               "--backends", "memory", "--nodes", "1", "--step-seconds", "2", "--start-rate", "100",
               "--max-steps", "2", "--cooldown", "1", "--base-port", "23070", "--out", str(tmp_path),
               # the nodes' warm-up cut to 5 s (its default waits for the compiler, about a minute here),
               # and the bench's own warm-up load to 2 s a search: the smoke test checks the run's
               # plumbing, not its figures
               "--set", "p2psip.warmup.timeout=5s", "--warmup", "2"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert (run / "report.md").is_file()
    assert (run / "register.png").is_file()
    with open(run / "summary.csv") as f:
        rows = {(r["workload"], r["system"]): int(r["rate"]) for r in csv.DictReader(f)}
    assert rows[("registration", "memory")] > 0, rows
    assert ("registration", "ceiling") in rows and ("registration", "kamailio") in rows
    report = (run / "report.md").read_text()
    assert "| memory | 1 |" in report and "Re-run with" in report
    records = run / "work" / "deploy-run" / "processes.json"
    pids = [entry["pid"] for entry in json.loads(records.read_text())] if records.exists() else []
    assert not [pid for pid in pids if alive(pid)], "nodes left running"

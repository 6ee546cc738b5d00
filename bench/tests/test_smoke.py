"""The headline profile's code path at its smallest, for real: registration against one memory-backend
node, with both references, through bench/run, each rate confirmed in a short step under a budget that
leaves none out.
Checks the report, the plots, the headline's lines, a measured and confirmed rate above zero, what each
search took, and that no process the run started is left. `BENCH_SMOKE_BASE_PORT` moves its ports (its
default 23070; the run uses that port and up to 60 above it)."""
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from liveness import alive

BENCH = Path(__file__).resolve().parents[1]
P2PSIP = BENCH.parent / "deploy" / "p2psip"


@pytest.mark.skipif(not P2PSIP.is_file(), reason="deploy/p2psip is not there yet: the bench starts nodes only through it")
def test_headline_registration_on_one_memory_node_confirms_a_rate_and_writes_the_report(tmp_path):
    port = os.environ.get("BENCH_SMOKE_BASE_PORT", "23070")
    command = [sys.executable, str(BENCH / "run"), "--profile", "headline", "--experiments", "register",
               "--backends", "memory", "--nodes", "1", "--step-seconds", "2", "--start-rate", "100",
               "--max-steps", "2", "--confirmations", "2", "--confirm-seconds", "3", "--budget-minutes", "30",
               "--cooldown", "1", "--base-port", port, "--out", str(tmp_path),
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
        summary = list(csv.DictReader(f))
    rows = {(r["workload"], r["system"]): int(r["rate"]) for r in summary}
    assert rows[("registration", "memory")] > 0, rows
    assert ("registration", "ceiling") in rows and ("registration", "kamailio") in rows
    assert all(int(r["seconds"]) > 0 for r in summary), "each search says what it took"
    with open(run / "steps.csv") as f:
        confirmed = [r for r in csv.DictReader(f) if r["confirmation"] == "1" and r["system"] == "memory"]
    assert confirmed and int(confirmed[-1]["rate"]) <= 200 and confirmed[-1]["generator_cpu"].startswith("SIPp ")
    lines = (run / "headline.txt").read_text().splitlines()
    assert any(line.startswith("headline: memory 1 node, REGISTER/s | ") for line in lines), lines
    assert "the plan, each row's estimate with one confirmation:" in done.stderr
    report = (run / "report.md").read_text()
    assert "| memory | 1 |" in report and "Re-run with" in report
    records = run / "work" / "deploy-run" / "processes.json"
    pids = [entry["pid"] for entry in json.loads(records.read_text())] if records.exists() else []
    assert not [pid for pid in pids if alive(pid)], "nodes left running"

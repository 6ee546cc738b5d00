"""Ctrl-C in the middle of a run stops every process the bench started: SIPp, Kamailio, nodes."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1]
P2PSIP = BENCH.parent / "deploy" / "p2psip"


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def started_under(folder: Path) -> list[int]:
    """Processes whose working folder is inside `folder` (every SIPp and Kamailio of the run)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if Path(os.readlink(entry / "cwd")).is_relative_to(folder):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.skipif(not P2PSIP.is_file(), reason="deploy/p2psip is not there yet: the bench starts nodes only through it")
def test_ctrl_c_during_a_step_leaves_no_process(tmp_path):
    command = [sys.executable, str(BENCH / "run"), "--quick", "--experiments", "register", "--backends", "memory",
               "--nodes", "1", "--step-seconds", "30", "--warmup", "0", "--base-port", "22070", "--out", str(tmp_path)]
    log = tmp_path / "bench.log"
    with open(log, "w") as out:
        bench = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 300
        while "offered" not in log.read_text() and time.monotonic() < deadline and bench.poll() is None:
            time.sleep(0.5)
        assert "offered" in log.read_text(), "no step started:\n" + log.read_text()[-2000:]
        assert started_under(tmp_path), "a step is running, so SIPp should be"
        bench.send_signal(signal.SIGINT)
        assert bench.wait(timeout=120) == 130
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait()
    assert "interrupted" in log.read_text()
    left = [pid for pid in started_under(tmp_path) if alive(pid)]
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    records = run / "work" / "deploy-run" / "processes.json"
    nodes = [e["pid"] for e in json.loads(records.read_text())] if records.exists() else []
    assert not left and not [pid for pid in nodes if alive(pid)], f"left running: {left} {nodes}"

"""`deploy/p2psip faults` end to end: against a stand-in deployment (a registrar of a few lines on
two ports, recorded as two nodes, that forgets; seconds), and four real Chord nodes (up, three
minutes of load, a pause, a kill, a node added and one removed, the restart, the read-back, down:
about four and a half minutes, in the default run; marked `faults`, and its longer variant with a
fifth fault also `matrix`)."""
import gzip
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2psip_deploy import faults, history, layout, processes

P2PSIP = layout.DEPLOY / "p2psip"
STANDIN = Path(__file__).resolve().parent / "standin_registrar.py"
LAST_LINE = re.compile(r"faults: backend (\S+) operations (\d+) acknowledged (\d+) lost (\d+) stale (\d+) failed (\d+)")
PLANNED_LINE = re.compile(r"planned: (.*)")


def p2psip(*args, run_dir, timeout):
    return subprocess.run([sys.executable, str(P2PSIP), *args, "--run-dir", str(run_dir)],
                          capture_output=True, text=True, timeout=timeout)


def free_udp_ports(count):
    import socket
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def start_standin(run_dir: Path, *flags):
    """The stand-in on two ports, recorded as nodes 0 and 1 of a deployment in run_dir."""
    ports = free_udp_ports(2)
    pid, ticks = processes.launch([sys.executable, str(STANDIN), *map(str, ports), *flags],
                                  run_dir / "standin.log", run_dir)
    records = []
    for index, port in enumerate(ports):
        folder = run_dir / f"node-{index}"
        folder.mkdir()
        records.append(processes.Process("node", "standin", "127.0.0.1", port, pid, ticks, str(folder)))
    processes.save(run_dir, records)
    return records


def summary(done):
    match = LAST_LINE.fullmatch(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else None
    assert match, f"no summary line:\n{done.stdout}\n{done.stderr}"
    backend, *counts = match.groups()
    return backend, dict(zip(("operations", "acknowledged", "lost", "stale", "failed"), map(int, counts)))


def run_folder(run_dir: Path) -> Path:
    folders = list((run_dir / "faults").iterdir())
    assert len(folders) == 1
    return folders[0]


def test_a_registrar_that_forgets_fails_the_run_with_its_lost_writes_reported(tmp_path):
    records = start_standin(tmp_path, "--forget")
    try:
        done = p2psip("faults", "--use-running", "--faults", "pause", "--minutes", "0.2", "--rate", "40",
                      "--aors", "5", "--settle", "0", run_dir=tmp_path, timeout=120)
    finally:
        processes.stop(records[:1], grace_seconds=2)
    _, counts = summary(done)
    assert done.returncode == 1 and counts["lost"] > 0
    assert "lost-write: sip:faults-" in (run_folder(tmp_path) / "report.txt").read_text()


# Seed 17 draws a pause, the add, a kill and the removal within 3 minutes, with starve among the
# kinds or not; 3.5 minutes leave room for a fifth fault, a starve where this machine can starve a
# node (a pause where it cannot): the matrix run's variant adds that.
CHORD_RUNS = [pytest.param(3.0, id="default"),
              pytest.param(3.5, id="matrix", marks=pytest.mark.matrix)]
# The nodes' SIP ports 31800-31804 (the fifth is the node added), HTTP 31850-31854, overlay 31900-31904;
# `up` may wait 600 s: four JVMs warming up on two cores that other work shares took longer than 300.
CHORD_OPTIONS = ["--base-port", "31800", "--http-offset", "50", "--overlay-offset", "100", "--timeout", "600"]


@pytest.mark.faults
@pytest.mark.parametrize("minutes", CHORD_RUNS)
def test_four_chord_nodes_lose_nothing_acknowledged_and_fail_no_request_of_a_planned_change(tmp_path, minutes):
    kinds = [faults.KILL, faults.PAUSE] + ([] if faults.starve_unavailable() else [faults.STARVE])
    kinds += [faults.ADD, faults.REMOVE]
    started = time.monotonic()
    done = p2psip("faults", "--backend", "chord", "--nodes", "4", "--minutes", str(minutes), "--seed", "17",
                  "--faults", ",".join(kinds), *CHORD_OPTIONS, run_dir=tmp_path, timeout=1500)
    print(done.stdout[-3000:], done.stderr[-3000:], f"{time.monotonic() - started:.0f} s", sep="\n")
    backend, counts = summary(done)
    # the check says something only about acknowledged operations; how many a loaded machine
    # acknowledges varies (a smoke run on two shared cores: 232 of 1,462, the rest 503 Overloaded)
    assert backend == "chord" and counts["operations"] > 1000 * minutes / 3.5 and counts["acknowledged"] >= 100
    report = (run_folder(tmp_path) / "report.txt").read_text()
    assert counts["lost"] == 0 and counts["stale"] == 0, report[:20000]
    changes = {kind: (int(sent), int(failed))
               for kind, sent, failed in re.findall(r"(\w+) requests (\d+) failed (\d+)", planned_line(done))}
    assert set(changes) == {faults.ADD, faults.REMOVE}, planned_line(done)
    assert all(sent > 0 and failed == 0 for sent, failed in changes.values()), report[-5000:]
    assert done.returncode == 0
    assert "lost writes 0" in report
    events = [json.loads(line) for line in (run_folder(tmp_path) / "faults.jsonl").read_text().splitlines()]
    started_kinds = [e["kind"] for e in events if e["event"] == "start"]
    assert faults.KILL in started_kinds and faults.PAUSE in started_kinds
    assert sorted(e["kind"] for e in events if e["event"] == "done") == [faults.ADD, faults.REMOVE]
    assert not [e for e in events if e["event"] in ("failed", "heal-failed")], events
    operations = [json.loads(line) for line in (run_folder(tmp_path) / "history.jsonl").read_text().splitlines()]
    assert len(operations) == counts["operations"]
    # the first fault is the pause, drawn among the four nodes up then: nothing sent to the paused
    # node while it stood still was answered before it ran again
    paused, healed = events[0], events[1]
    assert (paused["kind"], paused["event"], healed["event"]) == (faults.PAUSE, "start", "healed")
    during = [op for op in operations if op["node"] == f"node-{paused['node']}"
              and paused["time"] < op["invoked"] < healed["time"]]
    assert during and all(op["completed"] > healed["time"] for op in during if "completed" in op)
    assert re.search(r"during faults: .*pause 1 requests \d+ failed \d+ recovered", done.stdout)


def planned_line(done):
    found = [PLANNED_LINE.fullmatch(line) for line in done.stdout.strip().splitlines()]
    found = [match.group(1) for match in found if match]
    assert found, f"no planned line:\n{done.stdout}"
    return found[-1]


def test_a_recorded_history_is_checked_again_with_check(tmp_path):
    ops = [history.Operation(id=1, client="c", node="node-0", aor="sip:a@p2psip.test", kind=history.ADD,
                             contact="sip:a@192.0.2.1:5060", expires=3600, invoked=0, completed=1, status=200,
                             reason="OK", listed={"sip:a@192.0.2.1:5060": 3600}),
           history.Operation(id=2, client="c", node="node-1", aor="sip:a@p2psip.test", kind=history.QUERY,
                             invoked=2, completed=3, status=200, reason="OK", listed={})]
    file = tmp_path / "history.jsonl"
    file.write_text("".join(op.to_json() + "\n" for op in ops))
    done = p2psip("faults", "--check", str(file), "--backend", "chord", run_dir=tmp_path, timeout=30)
    assert done.returncode == 1
    assert summary(done) == ("chord", {"operations": 2, "acknowledged": 2, "lost": 1, "stale": 0, "failed": 0})
    assert "lost-write: sip:a@p2psip.test contact sip:a@192.0.2.1:5060, read by operation 2" in done.stderr
    file.write_text("{not json\n")
    bad = p2psip("faults", "--check", str(file), run_dir=tmp_path, timeout=30)
    assert bad.returncode == 1 and "history.jsonl:1" in bad.stderr


def test_a_fault_that_cannot_run_here_is_refused_before_any_node_starts(tmp_path):
    done = p2psip("faults", "--faults", "pause,partition", "--base-port", "40090", run_dir=tmp_path, timeout=30)
    assert done.returncode == 1 and "partition needs the nodes in network namespaces" in done.stderr
    assert not (tmp_path / processes.STATE_FILE).exists()


def check_kept_history(tmp_path, name):
    """`faults --check` on a real run's history kept, gzipped, in tests/data/."""
    file = tmp_path / "history.jsonl"
    file.write_bytes(gzip.decompress((Path(__file__).parent / "data" / name).read_bytes()))
    return p2psip("faults", "--check", str(file), "--backend", "chord", run_dir=tmp_path, timeout=120)


def test_the_recorded_history_of_three_chord_nodes_with_a_kill_shows_its_one_lost_write(tmp_path):
    """A real run's history (three Chord nodes on a starved machine, node 1 paused for 14.5 s, node 0
    killed 38 s in; seed 7): a binding acknowledged through node 2 at 6 s, with Expires 60, was
    missing from a read through node 2 at 53 s and listed again at 65 s. Kept so that a change to
    the checker cannot stop seeing it. The node code that lost it (a place of the restarted node,
    handed the empty range of a neighbour still waiting for its own records) is tested in
    dht-chord's HandOverTest."""
    done = check_kept_history(tmp_path, "chord-kill-lost-write.history.jsonl.gz")
    assert done.returncode == 1
    found = summary(done)
    assert found[0] == "chord" and found[1]["lost"] == 1 and found[1]["stale"] == 0
    assert found[1]["operations"] == 1462 and found[1]["acknowledged"] == 232
    assert "lost-write: sip:faults-7-03e5d2-16@p2psip.test contact sip:faults-7-03e5d2-16@192.0.2.1:5060, read by operation 646" in done.stderr


def test_the_recorded_history_of_four_chord_nodes_with_a_pause_shows_its_lost_write(tmp_path):
    """A real run's history (the 3-minute run above, seed 17, on a quiet machine): node 2 paused from
    10.0 s to 24.6 s; a binding of sip:faults-17-cbf8fb-22 added through node 3 at 21.3 s (a retry of
    one refused 503) was answered 200 listing it, an add of another contact through node 2 completed
    at 24.7 s still listed it, and an add through node 3 at 26.9 s listed only the other contact: the
    binding was gone, and the four reads after it missed it: the binding's owner place and its
    successor were both places of node 2, and the successor handed the owner its own old records
    after the pause (dht-ring, "A stall gives the range up"). Kept so that a change to the checker
    cannot stop seeing such a loss."""
    done = check_kept_history(tmp_path, "chord-pause-lost-write.history.jsonl.gz")
    assert done.returncode == 1
    found = summary(done)
    assert found[0] == "chord" and found[1]["lost"] == 4 and found[1]["stale"] == 0
    assert found[1]["operations"] == 3551 and found[1]["acknowledged"] == 3338
    for read in (439, 545, 652, 673):
        assert ("lost-write: sip:faults-17-cbf8fb-22@p2psip.test contact sip:faults-17-cbf8fb-22@192.0.2.2:5060, "
                f"read by operation {read}") in done.stderr


def test_the_recorded_history_of_a_removal_that_came_back_after_a_pause_shows_its_stale_reads(tmp_path):
    """One AOR of a real run (four Chord nodes on a machine at load 27, node 0 paused for 10.7 s,
    then a rolling restart; seed 1): client c0 removed every contact (`Contact: *`, 200 listing
    none, through node 1, 19.7 s in) while client c1's add of another contact through node 4 was
    timing out (503 DHT Timeout twice, then 200); reads 4 s later, through nodes 5, 0 and 4, listed
    c0's removed contact again, with its old expiry running. Kept so that a change to the checker
    cannot stop seeing it. The node code that let it happen (the stopped owner, running again,
    applied the add that waited for it to the record it kept, stamped as high as its successor's
    removal, and kept it when the range came back) is tested in dht-chord's PauseTest."""
    done = check_kept_history(tmp_path, "chord-pause-removal-came-back.history.jsonl.gz")
    assert done.returncode == 1
    assert summary(done) == ("chord", {"operations": 121, "acknowledged": 110, "lost": 0, "stale": 4, "failed": 11})
    assert "stale: sip:faults-1-4842db-12@p2psip.test contact sip:faults-1-4842db-12@192.0.2.2:5060, read by operation 389" in done.stderr

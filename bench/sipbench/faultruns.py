"""The `faults` experiment: for each backend, R fault runs of M minutes (`deploy/p2psip faults`), each
with every fault kind this machine can inject and a seed of its own, and what each run printed:
operations, acknowledged writes, lost, stale, the requests and failures during each kind of fault
(with the time to recover) and during the planned changes.

Partition and slow act on a node's veth, so they need `--netns`, where `add` cannot grow the
deployment: with network namespaces every second run is in them (kill, pause, starve, partition,
slow, remove, rolling) and the others on loopback (kill, pause, starve, add, remove, rolling).
Starve needs the cgroup v1 cpu controller. A kind this machine cannot inject is left out and the
report says why.

Each run's row goes to faults.csv and its kinds' rows to fault-kinds.csv as soon as it ended, so
that `--report-only` rebuilds the section (faultreport.py). Not thread-safe; from the bench's main
thread, which stops the run's nodes (`deploy/p2psip down` on its own run folder) also on failure
or Ctrl-C.
"""
from __future__ import annotations

import csv
import re
import subprocess
import sys
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from p2psip_deploy import cgroups

from .deploy import P2PSIP, REPO
from .procs import Processes

FAULTS_CSV = "faults.csv"
KINDS_CSV = "fault-kinds.csv"
KILL, PAUSE, STARVE, PARTITION, SLOW = "kill", "pause", "starve", "partition", "slow"
ADD, REMOVE, ROLLING = "add", "remove", "rolling"
FAULT_KINDS = (KILL, PAUSE, STARVE, PARTITION, SLOW)
PLANNED = (ADD, REMOVE, ROLLING)
IN_NAMESPACES = (KILL, PAUSE, STARVE, PARTITION, SLOW, REMOVE, ROLLING)
ON_LOOPBACK = (KILL, PAUSE, STARVE, ADD, REMOVE, ROLLING)
# The documented figure (full mode) and the quick form.
FULL_RUNS, FULL_MINUTES = 10, 10.0
QUICK_RUNS, QUICK_MINUTES = 1, 2.0
NODES = 4
# A run's ports above --base-port: SIP +0..+7 (nodes added), HTTP +100.., overlay +200..
HTTP_OFFSET, OVERLAY_OFFSET = 100, 200
# How long `up` waits for a run's nodes (deploy/p2psip faults --timeout; its default 300 s): four JVMs
# warming up together on two cores that other work shares took longer.
UP_TIMEOUT_S = 600
# What a run takes beyond its minutes: `up` (four JVMs warming up), the last heal, the read-back, `down`.
OVERHEAD_MINUTES = 6.0

SUMMARY = re.compile(r"faults: backend (\S+) operations (\d+) acknowledged (\d+) lost (\d+) stale (\d+) failed (\d+)")
PLANNED_PART = re.compile(r"(\w+) requests (\d+) failed (\d+)( \(not done\))?")
DURING_PART = re.compile(r"(\w+) (\d+) requests (\d+) failed (\d+) recovered ([\d.]+) s")


@dataclass(frozen=True)
class Settings:
    runs: int = FULL_RUNS
    minutes: float = FULL_MINUTES
    first_seed: int = 1
    base_port: int = 25070
    netns: bool = False            # the bench's network: every second run in namespaces
    starve: bool = True            # whether this machine can starve a node (cgroup v1 cpu controller)


@dataclass(frozen=True)
class Run:
    backend: str
    number: int        # 1..runs
    seed: int
    kinds: tuple[str, ...]
    netns: bool


@dataclass
class RunRow:
    """One run as faults.csv keeps it; counts empty when the run printed no summary."""
    backend: str
    run: int
    seed: int
    minutes: float
    kinds: str
    netns: bool
    exit_code: int | None
    operations: int | None = None
    acknowledged: int | None = None
    lost: int | None = None
    stale: int | None = None
    failed: int | None = None
    planned_requests: int | None = None
    planned_failed: int | None = None
    planned_not_done: str = ""
    folder: str = ""


@dataclass
class KindRow:
    """One kind of fault or planned change of one run, as fault-kinds.csv keeps it."""
    backend: str
    run: int
    seed: int
    kind: str
    faults: int
    requests: int
    failed: int
    recovered_s: float | None   # planned changes: none


def starve_available() -> bool:
    return not cgroups.unavailable()


def plan(backends: list[str], settings: Settings) -> list[Run]:
    """Every run, backend after backend, seeds first_seed, first_seed + 1, ... for each backend."""
    runs = []
    for backend in backends:
        for number in range(1, settings.runs + 1):
            netns = settings.netns and number % 2 == 0
            kinds = tuple(k for k in (IN_NAMESPACES if netns else ON_LOOPBACK) if settings.starve or k != STARVE)
            runs.append(Run(backend, number, settings.first_seed + number - 1, kinds, netns))
    return runs


def left_out(settings: Settings) -> dict[str, str]:
    """The fault kinds no run injects, each with why."""
    missing = {}
    if not settings.netns:
        missing.update({kind: "needs network namespaces (the bench's --network netns, as root)" for kind in (PARTITION, SLOW)})
    elif settings.runs < 2:
        missing.update({kind: "one run, on loopback: namespaces are every second run's" for kind in (PARTITION, SLOW)})
    if not settings.starve:
        missing[STARVE] = "needs the cgroup v1 cpu controller, writable (root)"
    return missing


def command(run: Run, settings: Settings, run_dir: Path) -> list[str]:
    return [sys.executable, str(P2PSIP), "faults", "--backend", run.backend, "--nodes", str(NODES),
            "--minutes", f"{settings.minutes:g}", "--seed", str(run.seed), "--faults", ",".join(run.kinds),
            "--base-port", str(settings.base_port), "--http-offset", str(HTTP_OFFSET),
            "--overlay-offset", str(OVERLAY_OFFSET), "--timeout", str(UP_TIMEOUT_S), *(["--netns"] if run.netns else []),
            "--run-dir", str(run_dir)]


def parse(run: Run, minutes: float, exit_code: int | None, output: str) -> tuple[RunRow, list[KindRow]]:
    """A run's rows from what `deploy/p2psip faults` printed."""
    row = RunRow(run.backend, run.number, run.seed, minutes, ",".join(run.kinds), run.netns, exit_code)
    kinds = []
    for line in output.splitlines():
        line = line.strip()
        if (found := SUMMARY.fullmatch(line)):
            row.operations, row.acknowledged, row.lost, row.stale, row.failed = map(int, found.groups()[1:])
        elif line.startswith("planned: "):
            parts = PLANNED_PART.findall(line)
            row.planned_requests = sum(int(p[1]) for p in parts)
            row.planned_failed = sum(int(p[2]) for p in parts)
            row.planned_not_done = ",".join(p[0] for p in parts if p[3])
            kinds += [KindRow(run.backend, run.number, run.seed, p[0], 1, int(p[1]), int(p[2]), None) for p in parts]
        elif line.startswith("during faults: "):
            kinds += [KindRow(run.backend, run.number, run.seed, p[0], int(p[1]), int(p[2]), int(p[3]), float(p[4]))
                      for p in DURING_PART.findall(line)]
        elif line.startswith("history, fault log and report in "):
            row.folder = line[len("history, fault log and report in "):]
    return row, kinds


def append_rows(path: Path, rows: list) -> None:
    if not rows:
        return
    new = not path.exists()
    with open(path, "a", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=[f.name for f in fields(rows[0])])
        if new:
            writer.writeheader()
        writer.writerows(asdict(r) for r in rows)


def read_rows(path: Path) -> list[dict]:
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


class FaultRunner:
    """Runs every run of the plan in turn, each on a run folder of its own under `work`."""

    def __init__(self, settings: Settings, backends: list[str], out: Path, work: Path, processes: Processes) -> None:
        self.settings, self.backends, self.out, self.work, self.processes = settings, backends, out, work, processes

    def run(self) -> None:
        for run in plan(self.backends, self.settings):
            print(f"bench: faults {run.backend} run {run.number}/{self.settings.runs} seed {run.seed}, "
                  f"{self.settings.minutes:g} min of {','.join(run.kinds)}", file=sys.stderr, flush=True)
            row, kinds = self.one(run)
            append_rows(self.out / FAULTS_CSV, [row])
            append_rows(self.out / KINDS_CSV, kinds)

    def one(self, run: Run) -> tuple[RunRow, list[KindRow]]:
        run_dir = self.work / f"faults-{run.backend}-{run.number}"
        log = self.out / "work" / f"faults-{run.backend}-{run.number}.log"
        process = self.processes.start(f"faults {run.backend}", command(run, self.settings, run_dir), log, cwd=REPO)
        try:
            code = self.processes.wait(process, (self.settings.minutes + OVERHEAD_MINUTES) * 60 * 2)
        finally:
            # the run stops its own nodes; after a deadline or Ctrl-C, `down` stops what it left
            subprocess.run([sys.executable, str(P2PSIP), "down", "--run-dir", str(run_dir)],
                           capture_output=True, cwd=REPO)
        return parse(run, self.settings.minutes, code, log.read_text(errors="replace"))


def minutes(settings: Settings, backends: int) -> float:
    """The experiment's length: every run with its start, read-back and stop."""
    return backends * settings.runs * (settings.minutes + OVERHEAD_MINUTES)

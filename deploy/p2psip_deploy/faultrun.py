"""`faults`: a fault run. Starts the nodes (or takes the running ones), drives the load client
(workload.py) while the faults (faults.py) strike on their seeded schedule, waits for quiet
(every node answers again, then a settling time), reads every AOR back through every node, checks
the whole history (history.py) and writes the history, the fault log and the report into a run
folder of its own. Its last line: `faults: backend B operations N acknowledged A lost L stale S
failed F`; exit code 1 when L or S is above 0."""
from __future__ import annotations

import asyncio
import json
import secrets
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import changes, faults, history, layout, nodes, planned, processes, recovery, sipclient, workload


UP_DEFAULTS = nodes.UpOptions()   # the port offsets' one place is `up`'s


@dataclass
class FaultOptions:
    """Every option of `faults`; defaults here are the ones deploy/README.md documents."""
    backend: str = "chord"
    kinds: list = field(default_factory=lambda: [faults.KILL, faults.PAUSE, faults.STARVE])
    minutes: float = 3.0
    seed: int = 1
    nodes: int = 4
    base_port: int = 5070
    overlay_offset: int = UP_DEFAULTS.overlay_offset   # the nodes' overlay and HTTP ports, as `up` takes them
    http_offset: int = UP_DEFAULTS.http_offset
    up_timeout: float = UP_DEFAULTS.timeout   # how long `up` waits for the nodes it starts to answer
    netns: bool = False
    use_running: bool = False       # take the deployment running in run_dir instead of starting one
    keep_up: bool = False           # leave the nodes it started running afterwards
    rate: float = 20.0              # operations started a second
    aors: int = 50
    contacts: int = 3               # possible contacts of an AOR
    clients: int = 2                # clients of an AOR, each with its Call-ID
    settle_s: float = 10.0          # quiet after every node answers again, before the read-back
    read_rate: float = 50.0         # queries a second of the read-back
    run_dir: Path = layout.DEFAULT_RUN_DIR


def folder_of(options: FaultOptions) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return options.run_dir / "faults" / f"{stamp}-{options.backend}-seed{options.seed}"


def run(options: FaultOptions) -> int:
    if options.minutes <= 0 or options.rate <= 0 or options.read_rate <= 0 or options.aors < 1:
        raise faults.FaultError("--minutes, --rate and --aors must be above 0")
    started = not options.use_running
    if started and faults.unsupported(options.kinds, options.netns):
        raise faults.FaultError(faults.unsupported(options.kinds, options.netns))   # before any node starts
    if started:
        nodes.up(nodes.UpOptions(dht=options.backend, nodes=options.nodes, base_port=options.base_port,
                                 overlay_offset=options.overlay_offset, http_offset=options.http_offset,
                                 timeout=options.up_timeout, netns=options.netns, run_dir=options.run_dir))
    try:
        return observed(options)
    finally:
        if started and not options.keep_up:
            nodes.stop_all(options.run_dir)


def observed(options: FaultOptions) -> int:
    records = [p for p in processes.load(options.run_dir) if p.role == "node"]
    if not records or not all(processes.alive(p) for p in records):
        raise faults.FaultError(f"the nodes recorded in {options.run_dir} do not all run")
    faults.check(options.run_dir, options.kinds)
    backend = records[0].backend
    folder = folder_of(options)
    folder.mkdir(parents=True)
    seconds = options.minutes * 60
    plan = faults.schedule(options.kinds, len(records), seconds, options.seed)
    (folder / "schedule.json").write_text(json.dumps([vars(f) for f in plan], indent=1) + "\n")
    with open(folder / "faults.jsonl", "w") as log, open(folder / "history.jsonl", "w") as out:
        injector = faults.Injector(options.run_dir, log)
        recorder = workload.Recorder(out)
        asyncio.run(drive(options, records, recorder, injector, plan, seconds))
    print(f"history, fault log and report in {folder}", file=sys.stderr)
    during = planned.tally(recorder.operations, planned.windows(injector.events, faults.PLANNED))
    unplanned = tuple(kind for kind in faults.KINDS if kind not in faults.PLANNED)
    recovered = recovery.tally(recorder.operations, injector.events, unplanned)
    return conclude(history.check(recorder.operations), backend, folder / "report.txt", during, recovered)


def check_file(path: Path, backend: str) -> int:
    """`faults --check HISTORY`: the check of a recorded history, as at the end of its run."""
    try:
        operations = history.read_history(path)
    except (OSError, ValueError) as e:
        raise faults.FaultError(f"--check: {e}") from e
    return conclude(history.check(operations), backend, None)


def conclude(verdict: history.Verdict, backend: str, report: Path | None,
             during: planned.Tally | None = None, recovered: recovery.Recovery | None = None) -> int:
    """Writes the report, prints the violations, the faults' and the planned changes' lines and the
    summary line; the exit code: 1 when something acknowledged was lost or read stale, a request
    sent during a planned change failed, or a planned change was not done."""
    during = during or planned.Tally()
    line = (f"faults: backend {backend} operations {verdict.operations} acknowledged {verdict.acknowledged} "
            f"lost {verdict.lost} stale {verdict.stale} failed {verdict.operations - verdict.acknowledged}")
    changed = "".join(text + "\n" for text in ((recovered or recovery.Recovery()).line(), during.line()) if text)
    failed = "".join(f"failed during {kind}: operations {ids}\n" for kind, ids in during.failed.items())
    if report:
        report.write_text(verdict.report() + failed + changed + line + "\n")
    if verdict.violations or not report:
        print(verdict.report(), file=sys.stderr)
    print(failed, end="", file=sys.stderr)
    print(changed + line, flush=True)
    return 1 if verdict.lost or verdict.stale or during.failed_count or during.unfinished else 0


async def drive(options: FaultOptions, records: list[processes.Process], recorder: workload.Recorder,
                injector: faults.Injector, plan: list[faults.Fault], seconds: float) -> None:
    client = await sipclient.Client.open(nodes.client_address(options.run_dir, records[0].address))
    try:
        targets = [workload.Node(Path(p.folder).name, p.address, p.port) for p in records]
        load = workload.Workload(client, targets, recorder, aors=options.aors, contacts=options.contacts,
                                 clients=options.clients, seed=options.seed,
                                 prefix=f"faults-{options.seed}-{secrets.token_hex(3)}")
        injector.routes = changes.Routes(
            options.run_dir, drain=lambda node: drain(load, node),
            admit=lambda node: load.targets.admit(workload.Node(Path(node.folder).name, node.address, node.port)))
        stop = threading.Event()
        striker = threading.Thread(target=injector.run, args=(plan, time.time(), stop), name="faults", daemon=True)
        striker.start()
        try:
            await load.run(seconds, options.rate)
        finally:
            stop.set()
            await asyncio.to_thread(striker.join)
        await asyncio.to_thread(quiet, options, client.local[0])
        await load.read_back(options.read_rate)
    finally:
        client.close()


def drain(load: workload.Workload, node: processes.Process) -> None:
    """The load sends `node` nothing new, and what it sent there has its answer (or timed out)."""
    if not load.targets.drain(Path(node.folder).name, DRAIN_S):
        print(f"faults: operations still in flight at {node.sip_address} after {DRAIN_S:g} s; stopping it anyway",
              file=sys.stderr, flush=True)


# Longest an operation may stay in flight at one node: retried for up to RETRY_FOR_S, its last try
# up to a Retry-After (10 s) and Timer F (32 s) later.
DRAIN_S = workload.RETRY_FOR_S + 10 + 64 * sipclient.T1_S


def quiet(options: FaultOptions, local: str) -> None:
    """Until every node answers OPTIONS again, then the settling time. A node found dead (a restart
    that failed) is started again once; what cannot be brought back is said on stderr, and the
    read-back then records its queries unanswered rather than the run ending unchecked."""
    for process in processes.load(options.run_dir):
        if process.role == "node" and not processes.alive(process):
            try:
                nodes.restart_node(options.run_dir, faults.index_of(process), faults.RESTART_S)
            except nodes.DeployError as e:
                print(f"faults: before the read-back: {e}", file=sys.stderr)
    live = [p for p in processes.load(options.run_dir) if p.role == "node" and processes.alive(p)]
    try:
        nodes.wait_answering(live, faults.RESTART_S, local)
    except nodes.DeployError as e:
        print(f"faults: before the read-back: {e}", file=sys.stderr)
    time.sleep(options.settle_s)   # a fixed settling time: the ring's own repair has no signal to await

"""Runs the capacity experiment (capacity.py): for each backend, its nodes started once with a heap
sized for the users, the population loaded, the steady state (refreshes and calls, a node killed and
restarted midway), every user queried, each node's memory read, then the refresh and first-registration
searches on the same deployment; and the same population loaded on Kamailio, its memory read.

Each deployment's figures go to capacity.csv and its processes' memory to capacity-nodes.csv as soon
as they are known, the searches to steps.csv and summary.csv as every search's; everything it started
is stopped again, also on failure or Ctrl-C.

Not thread-safe; from the bench's main thread (a node's restart runs in a thread of its own, which
only runs deploy/p2psip).
"""
from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

# sipp-scenarios' own helpers; bench/run puts sipp-scenarios/ on the path
from sipphelp import sipprun

from . import capacity, memory, overload, search, stats
from .capacity import NodeMemory, Pace, Population, Result
from .deploy import Deployment, dht_of
from .experiments import KAMAILIO, Measurement
from .kamailio import Capacity, Kamailio
from .procs import Processes, wait_until
from .runner import ProgressLine, Runner, Settings, node_arguments
from .scraper import records_held, shedding
from .sipp import (FIRST_PREFIX, HOLD_MS, REPO, SCENARIOS, Callee, Pool, Registration, StepRunner, Target, base_command, check_ran,
                   stats_options)

REGISTER = REPO / "bench" / "scenarios" / "capacity-register.xml"
QUERY = REPO / "bench" / "scenarios" / "capacity-query.xml"
CALL = SCENARIOS / "call" / "uac.xml"
REFRESH_WORKLOAD, FIRST_WORKLOAD = "capacity-refresh", "capacity-first"
# How long a node's restart may take (deploy/p2psip restart's own default is 300 s: it warms up first).
RESTART_WAIT_S = 330.0
# How long a search waits for the nodes to stop shedding after the one before it.
SETTLE_S = 120.0
# SIPp runs of a wave of the load at least, round the targets: a run's start and end cost a good part of a
# second, so one target (Kamailio) gets several buckets at once.
WAVE_RUNS = 4
# How long `up` waits for the nodes (its --timeout; its default 300 s): four JVMs warming up together on
# two cores each take up to their warm-up bound (3 min), and a machine busy with other work took longer.
UP_TIMEOUT_S = 600


def rate_args(per_second: float) -> list[str]:
    """SIPp's -r/-rp for a rate that may be below one a second (a small population's refreshes)."""
    period_ms = 1000 if per_second >= 100 else (10_000 if per_second >= 1 else max(1000, round(1000 / per_second)))
    return ["-r", str(max(1, round(per_second * period_ms / 1000))), "-rp", str(period_ms)]


@dataclass(frozen=True)
class Launch:
    """One SIPp run of a batch: where it sends, its scenario, its options, how many calls at what rate."""
    name: str
    target: Target
    scenario: Path
    options: list[str]
    calls: int
    per_second: float


@dataclass(frozen=True)
class Done:
    """What a batch's runs did: summed counters, their logs' text, response times, the rate offered."""
    counts: stats.Counts
    log: str
    times: list[float]
    offered_rate: float
    seconds: float


class Batch:
    """SIPp runs started together and waited for together (a wave of the load, a step, the steady state)."""

    def __init__(self, processes: Processes, folder: Path, timing) -> None:
        self.processes = processes
        self.folder = folder
        self.timing = timing
        self.running: list[tuple[Launch, object]] = []
        self.started = 0.0

    def start(self, launches: list[Launch]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.started = time.monotonic()
        for launch in launches:
            run_s = launch.calls / max(launch.per_second, 1e-9) + self.timing.recv_timeout_ms / 1000 + 20
            command = (base_command(launch.target, launch.scenario, self.timing, run_s)
                       + rate_args(launch.per_second)
                       + ["-m", str(launch.calls), "-l", str(max(1000, round(launch.per_second * 40)))]
                       + stats_options(launch.name, self.folder)
                       + ["-trace_logs", "-log_file", str(self.folder / f"{launch.name}.log")] + launch.options)
            process = self.processes.start(f"sipp {launch.name}", command, self.folder / f"{launch.name}.out",
                                           cwd=self.folder)
            self.running.append((launch, process))

    def alive(self) -> bool:
        return any(process.poll() is None for _, process in self.running)

    def counts(self) -> stats.Counts:
        total = stats.Counts()
        for launch, _ in self.running:
            total = total + stats.final_counts(self.folder / f"{launch.name}.stat.csv")
        return total

    def wait(self, progress=None, rate: int = 0, tick=None) -> Done:
        """Until every run ended (each ends by its -timeout at the latest); `tick` is called every
        half second meanwhile (the steady state's kill)."""
        longest = max((launch.calls / max(launch.per_second, 1e-9) for launch, _ in self.running), default=0)
        deadline = longest + self.timing.recv_timeout_ms / 1000 + 40
        while self.alive() and time.monotonic() - self.started < deadline:
            if tick:
                tick(time.monotonic() - self.started)
            if progress:
                progress(rate, self.counts(), time.monotonic() - self.started)
            # short runs (a wave of the load) end within a second: look often at first
            time.sleep(min(0.5, 0.05 + (time.monotonic() - self.started) / 10))
        seconds = time.monotonic() - self.started
        offered = 0.0
        for launch, process in self.running:
            code = self.processes.wait(process, timeout_s=1.0)
            stat = self.folder / f"{launch.name}.stat.csv"
            check_ran(code, stat, self.folder / f"{launch.name}.out")
            created = stats.creation_seconds(stat, launch.calls)
            wanted = launch.calls / max(launch.per_second, 1e-9)
            offered += launch.calls / max(wanted, (created or seconds) - 1.0)
        logs = "".join(_read(self.folder / f"{launch.name}.log") for launch, _ in self.running)
        # every run's response times: SIPp names its -trace_rtt file after the scenario and its PID
        times = [t for path in self.folder.glob("*_rtt.csv") for t in stats.read_response_times(path)]
        return Done(self.counts(), logs, times, offered, seconds)


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


class CapacityRunner:
    def __init__(self, settings: Settings, capacity_settings: capacity.Settings, backends: list[str], out: Path,
                 work: Path, processes: Processes) -> None:
        self.settings = settings
        self.capacity = capacity_settings
        self.backends = backends
        self.out = out
        self.work = work / "capacity"
        self.processes = processes
        self.progress = ProgressLine()
        self.runner = Runner(settings, out, work, processes)
        self._deployment: Deployment | None = None
        self._kamailio: Kamailio | None = None
        self._callee: Callee | None = None
        self._batches = 0

    def run(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        try:
            if self.capacity.kamailio:
                self._stopping(self._kamailio_run)
            for backend in self.backends:
                self._stopping(lambda: self._backend_run(backend))
        finally:
            self._stop()

    def _stopping(self, part) -> None:
        try:
            part()
        finally:
            self._stop()

    def _stop(self) -> None:
        for thing in (self._callee, self._kamailio, self._deployment):
            if thing is not None:
                thing.stop()
        self._callee = self._kamailio = self._deployment = None

    # --- the SIPp runs ---

    def _batch(self, label: str) -> Batch:
        self._batches += 1
        return Batch(self.processes, self.work / "runs" / f"{self._batches:04d}-{label}", self.settings.timing)

    def _register_options(self, population: Population, bucket: int, contact: str, text: str, folder: Path,
                          name: str) -> list[str]:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.csv"
        path.write_text(text)
        return ["-inf", str(path), "-key", "domain", capacity.DOMAIN, "-key", "contact", contact,
                "-key", "expires", str(self.capacity.expiry_s), "-cid_str", population.cid_str(bucket),
                "-default_behaviors", "all,-bye"]

    def _waves(self, label: str, population: Population, targets: list[Target], pending: list[int] | range, pace: Pace,
               contact: str, query: bool, answered) -> int:
        """Sends `pending` users (REGISTERs, or queries) in waves of a bucket per target (WAVE_RUNS buckets at
        least, round the targets) at the pace's rate, the pace adjusted after each wave; users not answered 200 go again in the next pass, at most
        MAX_ROUNDS passes. `answered(got)` takes each wave's {user: bindings listed (queries) or 1}.
        Returns the passes it took."""
        passes = 0
        while pending and passes < capacity.MAX_ROUNDS:
            passes += 1
            runs = capacity.runs_of(population, pending)
            failed: list[int] = []
            per_wave = max(len(targets), WAVE_RUNS)
            for first in range(0, len(runs), per_wave):
                wave = runs[first:first + per_wave]
                batch = self._batch(label)
                batch.folder.mkdir(parents=True, exist_ok=True)
                launches = []
                for k, (bucket, send) in enumerate(wave):
                    name = f"{label}-b{bucket}"
                    if query:
                        path = batch.folder / f"{name}.csv"
                        path.write_text("SEQUENTIAL\n" + "".join(f"{population.user(i)};\n" for i in sorted(send)))
                        options, lines = ["-inf", str(path), "-key", "domain", capacity.DOMAIN,
                                          "-default_behaviors", "all,-bye"], len(send)
                    else:
                        text, _ = population.injection(bucket, send)
                        options = self._register_options(population, bucket, contact, text, batch.folder, name)
                        lines = text.count("\n") - 1
                    launches.append(Launch(name, targets[k % len(targets)], QUERY if query else REGISTER, options,
                                           lines, capacity.run_rate(pace.rate / len(wave), lines, len(send))))
                batch.start(launches)
                self.progress.label = f"{label} (pass {passes}, {pace.rate:,.0f}/s)"
                done = batch.wait(self.progress, round(pace.rate))
                got = capacity.bindings(done.log) if query else dict.fromkeys(capacity.ok_users(done.log), 1)
                answered(got)
                sent = sum(len(send) for _, send in wave)
                missed = [i for _, send in wave for i in send if population.user(i) not in got]
                failed += missed
                if not pace.after(sent, sent - len(missed), done.counts.timeout_on_recv + done.counts.max_udp_retrans):
                    time.sleep(self.settings.cooldown_s)
            pending = failed
        return passes

    def _load(self, label: str, population: Population, targets: list[Target], contact: str) -> tuple[float, int]:
        """Registers every user; returns the seconds it took and the passes."""
        began = time.monotonic()
        passes = self._waves(label, population, targets, range(population.users), Pace(), contact,
                             query=False, answered=population.mark)
        seconds = time.monotonic() - began
        loaded = sum(population.registered)
        self.progress.end(f"{label}: {loaded:,} of {population.users:,} registered in {seconds:.1f} s "
                          f"({loaded / max(seconds, 1e-9):,.0f}/s, {passes} pass(es))")
        return seconds, passes

    # --- Kamailio ---

    def _kamailio_run(self) -> None:
        users = self.capacity.users
        folder = self.work / "kamailio"
        self.progress.end(f"capacity: Kamailio, {users:,} users")
        self._kamailio = Kamailio(self.processes, folder, self.settings.kamailio_port, self.settings.t1_ms or 500,
                                  capacity=Capacity(capacity.kamailio_shm_mib(users), capacity.usrloc_hash_bits(users)))
        self._kamailio.start()
        before = self._kamailio_memory()
        population = Population(users)
        target = Target("127.0.0.1", self.settings.kamailio_port)
        seconds, passes = self._load("kamailio-load", population, [target], f"127.0.0.1:{self.settings.callee_port}")
        after = self._kamailio_memory()
        population.write(folder / "users.csv")
        loaded = sum(population.registered)
        shm_before, shm_after = before[0], after[0]
        pss_before = capacity.total([m.pss_kib for m in before[1]])
        pss_after = capacity.total([m.pss_kib for m in after[1]])
        rss_after = capacity.total([m.rss_kib for m in after[1]])
        result = Result(KAMAILIO, 1, users, seconds, loaded / max(seconds, 1e-9), passes, users - loaded,
                        shm_before_kib=_blank(shm_before), shm_after_kib=_blank(shm_after),
                        rss_before_kib=_blank(pss_before), rss_after_kib=_blank(pss_after),
                        heap_per_binding_b=_blank(capacity.per_item(shm_after, shm_before, loaded)),
                        rss_per_binding_b=_blank(capacity.per_item(pss_after, pss_before, loaded)),
                        heap_per_binding_abs_b=_blank(capacity.per_item_absolute(shm_after, loaded)),
                        rss_per_binding_abs_b=_blank(capacity.per_item_absolute(rss_after, loaded)),
                        note=f"shared memory -m {capacity.kamailio_shm_mib(users)} MB; usrloc 2^"
                             f"{capacity.usrloc_hash_bits(users)} slots; memory columns: core.shmmem real_used "
                             "and the Pss of all its processes")
        _append(self.out / capacity.NODES_CSV, capacity.NODE_FIELDS,
                        capacity.node_rows(KAMAILIO, "before", before[1]) + capacity.node_rows(KAMAILIO, "after", after[1]))
        _append(self.out / capacity.CSV_FILE, capacity.FIELDS, [capacity.row_of(result)])

    def _kamailio_memory(self) -> tuple[int | None, list[NodeMemory]]:
        main = self._kamailio.pid
        pids = [main] + memory.children(main)
        return self._kamailio.shmmem_kib(), [NodeMemory(f"kamailio-{pid}", pid, None, None, memory.rss_kib(pid),
                                                        memory.pss_kib(pid)) for pid in pids]

    # --- a backend ---

    def _backend_run(self, backend: str) -> None:
        users, nodes = self.capacity.users, self.capacity.nodes
        heap = self.settings.heap  # none: the deploy tool sizes it for --users-expected
        folder = self.work / f"{backend}-{nodes}"
        self.progress.end(f"capacity: {backend}, {nodes} node(s) with heap {heap or 'sized for them'}, {users:,} users")
        self._deployment = Deployment(self.work / "deploy-run", folder / "deploy.log", dht_of(backend), nodes,
                                      self.settings.base_port, "p2psip", self.settings.t1_ms, heap,
                                      node_arguments(self.settings, backend)
                                      + ["--timeout", str(UP_TIMEOUT_S), "--users-expected", str(users)], [],
                                      self.settings.netns,
                                      young=self.settings.young, sip_threads=self.settings.sip_threads)
        self._deployment.start()
        local = self._deployment.local_address
        targets = [Target(host, port, local) for host, port in self._deployment.addresses()]
        if self._deployment.network:
            self.runner.networks[f"capacity-{backend}-{nodes}"] = self._deployment.network_summary()
        self._callee = Callee(self.processes, folder / "uas", self.settings.callee_port, local)
        self._callee.start([], self.settings.timing)
        contact = f"{local}:{self.settings.callee_port}"
        before = self._node_memory()
        population = Population(users)
        load_s, passes = self._load(f"{backend}-load", population, targets, contact)
        loaded = sum(population.registered)
        steady, all_up = self._steady(backend, population, targets, contact)
        if not all_up:   # the killed node's restart failed or did not end: the rest goes to the nodes that are up
            targets = [t for i, t in enumerate(targets) if i != self.capacity.victim()]
        queried, absent = self._query(backend, population, targets)
        after = self._node_memory()
        population.write(folder / "users.csv")
        _append(self.out / capacity.NODES_CSV, capacity.NODE_FIELDS,
                        capacity.node_rows(backend, "before", before) + capacity.node_rows(backend, "after", after))
        refresh_rate, first_rate = self._searches(backend, nodes, population, targets, contact)
        heap_b, heap_a = capacity.total([m.heap_kib for m in before]), capacity.total([m.heap_kib for m in after])
        rss_b, rss_a = capacity.total([m.rss_kib for m in before]), capacity.total([m.rss_kib for m in after])
        records_b = capacity.total([m.records for m in before])
        records_a = capacity.total([m.records for m in after])
        result = replace(steady, system=backend, nodes=nodes, users=users, load_s=load_s,
                         load_rate=loaded / max(load_s, 1e-9), load_rounds=passes, not_loaded=users - loaded,
                         queried=queried.users, unanswered=queried.unanswered, absent=absent, lost=queried.lost,
                         duplicates=queried.duplicates, records_before=_blank(records_b),
                         records_after=_blank(records_a), heap_before_kib=_blank(heap_b), heap_after_kib=_blank(heap_a),
                         rss_before_kib=_blank(rss_b), rss_after_kib=_blank(rss_a),
                         heap_per_binding_b=_blank(capacity.per_item(heap_a, heap_b, loaded)),
                         rss_per_binding_b=_blank(capacity.per_item(rss_a, rss_b, loaded)),
                         heap_per_binding_abs_b=_blank(capacity.per_item_absolute(heap_a, loaded)),
                         rss_per_binding_abs_b=_blank(capacity.per_item_absolute(rss_a, loaded)),
                         refresh_rate=refresh_rate, first_rate=first_rate,
                         note=f"heap {heap} per node" + (f"; {steady.note}" if steady.note else ""))
        _append(self.out / capacity.CSV_FILE, capacity.FIELDS, [capacity.row_of(result)])

    def _node_memory(self) -> list[NodeMemory]:
        found = []
        for index, entry in enumerate(self._deployment.recorded_nodes()):
            pid = entry["pid"]
            found.append(NodeMemory(f"node-{index}", pid,
                                    records_held(entry["address"], entry["http_port"]) if entry.get("http_port") else None,
                                    memory.heap_after_full_gc_kib(pid), memory.rss_kib(pid), memory.pss_kib(pid)))
        return found

    def _steady(self, backend: str, population: Population, targets: list[Target], contact: str) -> tuple[Result, bool]:
        """Refreshes (N / expiry a second, each user's own Call-ID and its next CSeq) and calls between random
        registered users, for the steady state's length, over the nodes that stay up; the victim killed
        halfway and restarted at once (its restart runs on meanwhile). Returns the steady state's figures,
        and whether every node is up at its end (the victim's restart done)."""
        seconds, victim = self.capacity.steady_s, self.capacity.victim()
        live = [t for i, t in enumerate(targets) if i != victim] or targets
        refreshes = self.capacity.refreshes()
        runs, _ = capacity.prefixes(population, 0, refreshes)
        refresh, calls = self._batch(f"{backend}-refresh"), self._batch(f"{backend}-calls")
        launches = []
        for k, (bucket, users) in enumerate(runs):
            name = f"refresh-b{bucket}"
            text, sent = population.injection(bucket, users)
            launches.append(Launch(name, live[k % len(live)], REGISTER,
                                   self._register_options(population, bucket, contact, text, refresh.folder, name),
                                   sent, sent / seconds))
        chooser = random.Random(population.token)
        call_launches = []
        for k, target in enumerate(live):
            share = self.capacity.call_rate / len(live)
            count = max(1, round(share * seconds))
            callees = [population.user(i) for i in capacity.callees(population.registered, count, chooser)]
            call_launches.append(Launch(f"calls-{k}", target, CALL,
                                        [*sipprun.callee_args(callees, calls.folder), "-key", "domain", capacity.DOMAIN,
                                         "-key", "callee_domain", capacity.DOMAIN, "-key", "caller", f"caller{k}",
                                         "-d", str(HOLD_MS), "-default_behaviors", "all,-abortunexp"],
                                        count, share))
        self.progress.end(f"{backend} steady state: {refreshes:,} refreshes and {self.capacity.call_rate}/s calls "
                          f"for {seconds:g} s" + (f", node {victim} killed at {seconds / 2:g} s" if victim else ""))
        restart: dict = {}

        def kill_midway(elapsed: float) -> None:
            if victim is None or restart or elapsed < seconds / 2:
                return
            self._deployment.kill(victim)
            restart["began"] = time.monotonic()
            thread = threading.Thread(target=lambda: restart.update(code=self._deployment.restart(victim),
                                                                    ended=time.monotonic()),
                                      name="capacity-restart", daemon=True)
            restart["thread"] = thread
            thread.start()
            self.progress.end(f"{backend} steady state: node {victim} killed at {elapsed:.0f} s, restarting")

        refresh.start(launches)
        calls.start(call_launches)
        self.progress.label = f"{backend} steady state (calls)"
        done_calls = calls.wait(self.progress, self.capacity.call_rate, kill_midway)
        done_refresh = refresh.wait()
        killed = "none: one node" if victim is None else f"node {victim} not killed (the steady state ended first)"
        all_up = True
        if restart:
            restart["thread"].join(RESTART_WAIT_S)
            all_up = restart.get("code") == 0
            if "code" not in restart:
                killed = f"node {victim} killed; its restart did not end within {RESTART_WAIT_S:.0f} s"
            elif restart["code"] != 0:
                killed = f"node {victim} killed; its restart failed (exit {restart['code']})"
            else:
                killed = f"node {victim} killed, restarted in {restart['ended'] - restart['began']:.0f} s"
        ok_refresh = len(capacity.ok_users(done_refresh.log))
        self.progress.end(f"{backend} steady state: refreshes {ok_refresh:,}/{refreshes:,}, calls "
                          f"{done_calls.counts.successful:,}/{sum(launch.calls for launch in call_launches):,}; {killed}")
        return Result(backend, len(targets), population.users, 0.0, 0.0, 0, 0,
                      refresh_sent=refreshes, refresh_ok=ok_refresh,
                      refresh_p50_ms=_blank(stats.percentile(done_refresh.times, 50)),
                      refresh_p99_ms=_blank(stats.percentile(done_refresh.times, 99)),
                      calls_sent=sum(launch.calls for launch in call_launches), calls_ok=done_calls.counts.successful,
                      call_p50_ms=_blank(stats.percentile(done_calls.times, 50)),
                      call_p99_ms=_blank(stats.percentile(done_calls.times, 99)), killed=killed), all_up

    def _query(self, backend: str, population: Population, targets: list[Target]) -> tuple[capacity.Queried, int]:
        """Every user queried; those whose answer listed no binding asked once more, once no node sheds.
        Returns what the first query found, with `lost` those still without a binding when asked again,
        and how many the first query found without one."""
        began = time.monotonic()
        tally = capacity.Tally(population.users)
        self._waves(f"{backend}-query", population, targets, range(population.users), Pace(), "",
                    query=True, answered=lambda got: tally.add({population.index(u): n for u, n in got.items()}))
        queried = tally.queried()
        empty = tally.empty()
        lost = len(empty)
        if empty:
            self._settle(backend)
            again = capacity.Tally(population.users)
            self._waves(f"{backend}-query-again", population, targets, empty, Pace(), "", query=True,
                        answered=lambda got: again.add({population.index(u): n for u, n in got.items()}))
            lost = sum(1 for i in empty if again.listed[i] <= 0)
        self.progress.end(f"{backend} query: {queried.answered:,} of {queried.users:,} answered in "
                          f"{time.monotonic() - began:.1f} s; {queried.lost} without a binding ({lost} still "
                          f"without when asked again), {queried.duplicates} with more than one")
        return replace(queried, lost=lost), queried.lost

    def _searches(self, backend: str, nodes: int, population: Population, targets: list[Target],
                  contact: str) -> tuple[int | str, int | str]:
        """Refreshes of the loaded users, then first registrations of fresh AORs, each searched to its limit
        on the same deployment (search.py); their rates."""
        folder = self.work / f"{backend}-{nodes}"
        rates = []
        for workload, steps, load in (
                (REFRESH_WORKLOAD, RefreshSteps(self, population, contact, folder / "refresh-search"), population),
                (FIRST_WORKLOAD, StepRunner(self.processes, folder / "first-search", self.settings.timing,
                                            self.settings.criteria), Registration(Pool(FIRST_PREFIX)))):
            self._settle(backend)
            measurement = Measurement(workload, backend, nodes, "spread")
            outcome = self.runner.search_on(self._deployment, measurement, targets, load, steps)
            rates.append(outcome.best.rate if outcome.best else 0)
        return rates[0], rates[1]


    def _settle(self, backend: str) -> None:
        """Before a search: until no node's intake sheds (the last search ended past the limit, and a node
        drains its queue and retransmissions first), SETTLE_S at most, then a --cooldown rest."""
        nodes = [(e["address"], e["http_port"]) for e in self._deployment.recorded_nodes() if e.get("http_port")]
        if not wait_until(lambda: not any(shedding(host, port) for host, port in nodes), SETTLE_S, 1.0):
            self.progress.end(f"{backend}: a node still sheds after {SETTLE_S:.0f} s; searching all the same")
        time.sleep(self.settings.cooldown_s)


class RefreshSteps:
    """One step of the refresh search: `rate` x step refreshes of loaded users (their own Call-ID, their
    next CSeq), whole buckets in turn round the population, spread over the targets; judged as every step."""

    def __init__(self, owner: CapacityRunner, population: Population, contact: str, folder: Path) -> None:
        self.owner = owner
        self.population = population
        self.contact = contact
        self.folder = folder
        self.next_bucket = 0

    def run(self, workload, targets: list[Target], rate: int, progress=None, seconds: float | None = None) -> search.Step:
        step_s = seconds or self.owner.settings.timing.step_s
        wanted = max(1, round(rate * step_s))
        runs, self.next_bucket = capacity.prefixes(self.population, self.next_bucket, wanted)
        batch = self.owner._batch(f"refresh-{rate}")
        launches = []
        for k, (bucket, users) in enumerate(runs):
            name = f"refresh-b{bucket}"
            text, sent = self.population.injection(bucket, users)
            launches.append(Launch(name, targets[k % len(targets)], REGISTER,
                                   self.owner._register_options(self.population, bucket, self.contact, text,
                                                                batch.folder, name),
                                   sent, sent / step_s))
        batch.start(launches)
        done = batch.wait(progress, rate)
        return search.judge(rate, wanted, done.counts, done.offered_rate, stats.percentile(done.times, 50),
                            stats.percentile(done.times, 99), self.owner.settings.criteria)


def _blank(value):
    return "" if value is None else value


def _append(path: Path, fields: list[str], rows: list[dict]) -> None:
    for row in rows:
        overload.append(path, fields, row)

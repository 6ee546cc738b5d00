"""Runs a plan of measurements: starts each system once, searches each rate, stops it again.

Every step is appended to steps.csv as soon as it is judged (an overload step to overload.csv,
an avalanche to avalanche.csv), so an interrupted run keeps what it measured. Whatever happens
(a failure, Ctrl-C), the running system and every SIPp are stopped before `run` returns or raises.

Not thread-safe; one runner per bench run.
"""
from __future__ import annotations

import csv
import os
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from . import cpuuse, modes, overload, search, sipload, statereport, targets
from .deploy import TMPFS, Deployment, dht_of, on_tmpfs
from .experiments import (CEILING, FIRST, KAMAILIO, REFERENCES, SCALE, SCRAPED, Measurement, avalanche_after, deployments,
                          front_of, needs_auth, sipload_mode, state_mode)
from .kamailio import Auth, Kamailio
from .procs import Processes
from .scraper import Scraper
from .sipp import (AVALANCHE_PREFIX, FIRST_PREFIX, REGISTER_503, REGISTRATION_POOL, RTD_200, RTD_503, Call, Callee,
                   Pool, Registration, StepRunner, Target, Timing, avalanche)
from .stats import Counts
from .summary import UNITS

STEP_FIELDS = ["workload", "system", "nodes", "routing", "round", "rate", "attempts", "successful", "failed",
               "retrans_timeouts", "recv_timeouts", "unexpected", "retransmissions", "offered_rate",
               "p50_ms", "p99_ms", "passed", "reason", "confirmation", "generator_cpu"]
# A search that would start on cold JIT-compiled code gets at least COLD_WARMUP_S of warm-up, whatever
# the profile's --warmup: a node opens warm for REGISTER only (p2psip.warmup), the container's ceiling
# app not at all, and Kamailio is compiled. Measured cold, the ceiling's first 2 s call step at
# 1,000/s failed with a p99 of 384 ms and its search settled at a third of its warm rate; after 15 s
# of warm-up its first steps still failed in one run of three (its C2 compiler busy for a minute),
# and the search settled at 327 calls/s where the others confirmed 880.
COLD_WARMUP_S = 30.0
# The rest after a failed confirmation: 64 x T1 and a little, so that every transaction its two
# minutes of overload left (Timer B, F, H, J) has ended before the next one starts. After 1 s,
# Kamailio completed 69% of its calls at 1,900/s following a failed confirmation at 4,000/s, with
# the callee restarted, and confirmed 1,249/s only after that.
TRANSACTIONS_END_S = 33.0


def opens_cold(system: str, workload: str) -> bool:
    """Whether a system's JVM meets a workload's requests cold: the calls of a node and of the ceiling
    app, each the first search on its deployment (experiments.deployments); the ceiling's registrations
    follow on a JVM its calls warmed."""
    return system != KAMAILIO and workload == "call"


SUMMARY_FIELDS = ["workload", "system", "nodes", "routing", "round", "rate", "rate_p99_100ms", "p50_ms", "p99_ms", "retransmissions", "steps",
                  "hops", "largest_range", "overload_rate", "overload_goodput", "cpu_ms_per_request", "seconds", "note"]
# How long `deploy/p2psip up` may take for nodes of the scale experiment, by the cores of their quota: a
# node with a fraction of a core starts and warms up that much slower than deploy's 300 s allow for.
UP_TIMEOUT_S = 300.0


@dataclass(frozen=True)
class Settings:
    timing: Timing
    plan: search.Plan
    base_port: int = 25070
    cooldown_s: float = 5.0
    warmup_s: float = 3.0
    criteria: search.Criteria = search.Criteria()   # of every registration workload
    call_criteria: search.Criteria = search.criteria_for("call")
    heap: str | None = None
    young: str | None = None
    sip_threads: int | None = None
    node_settings: tuple[str, ...] = ()   # KEY=VALUE lines for the measured backends' nodes (bench/run --set)
    t1_ms: int | None = None
    netns: bool = False   # deployments through deploy/p2psip in network namespaces (network.py)
    overload_step_s: float = 120.0   # length of one overload step
    avalanche_users: int = 20000   # 0: no avalanche
    overload_multiples: tuple[float, ...] = overload.MULTIPLES
    avalanche_window_s: float = 2.0
    auth_users: int = 20000           # the auth experiment's pool of users per deployment
    auth_algorithm: str = "SHA-256"   # the Digest algorithm its clients answer (and Kamailio offers)
    state_cpus: str = ""              # the state experiment's `deploy/p2psip up --cpus` (bench/run --state-cpus); "": unpinned
    scale_quota: float = 0.2          # the scale experiment's cores per node (`deploy/p2psip up --cpu-quota`)
    register_pool: int = REGISTRATION_POOL   # AORs each deployment's registrations go round (bench/run --register-pool)
    # Start a search at the rate the last search of the same unit (REGISTER/s, calls/s) and kind (a
    # reference, or ours) found, not at the plan's start: most systems lie within a factor of a few of one another, and each growth step a
    # search saves is one a 2 s search need not take (the headline profile).
    start_known: bool = False

    def criteria_for(self, workload: str) -> search.Criteria:
        """Calls have their own p99 bound (search.CALL_P99_MS); every other workload registers."""
        return self.call_criteria if workload == "call" else self.criteria

    def warmup_for(self, nodes: int, system: str = "", workload: str = "") -> float:
        """Seconds of warm-up before a search on {nodes} nodes: warmup_s per node (see _warm_up), and at
        least COLD_WARMUP_S where the system meets the workload cold (opens_cold)."""
        warmup = self.warmup_s * max(1, nodes)
        return max(warmup, COLD_WARMUP_S) if opens_cold(system, workload) else warmup

    @property
    def kamailio_port(self) -> int:
        return self.base_port + 50

    @property
    def callee_port(self) -> int:
        return self.base_port + 60

    @property
    def front_port(self) -> int:
        return self.base_port + 40


class ProgressLine:
    """One line on stderr, rewritten in place on a terminal, printed every few seconds otherwise."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.last = 0.0
        self.label = ""

    def __call__(self, rate: int, counts: Counts, elapsed: float) -> None:
        text = (f"{self.label}: offered {rate}/s, completed {counts.successful}, failed {counts.failed}, "
                f"elapsed {elapsed:4.1f}s")
        if self.tty:
            sys.stderr.write("\r" + text[:160].ljust(160))
            sys.stderr.flush()
        elif time.monotonic() - self.last >= 5.0:
            self.last = time.monotonic()
            print(text, file=sys.stderr, flush=True)

    def end(self, text: str) -> None:
        if self.tty:
            sys.stderr.write("\r" + " " * 160 + "\r")
        print(text, file=sys.stderr, flush=True)


def full_collection(pid: int) -> None:
    """A full collection of a running JVM's heap (jcmd GC.run), waited for; a JVM gone or a jcmd
    missing changes nothing (the next step shows what is wrong)."""
    try:
        subprocess.run(["jcmd", str(pid), "GC.run"], capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        pass


class Runner:
    def __init__(self, settings: Settings, out: Path, work: Path, processes: Processes, budget=None) -> None:
        self.settings = settings
        # the run's time against its budget (budget.Budget: fits, why_not, affordable, finished); None: none
        self.budget = budget
        # the rate the last search of each unit found, references apart (Settings.start_known)
        self._known: dict[tuple[str, bool], int] = {}
        self.out = out
        self.work = work
        self.processes = processes
        self.progress = ProgressLine()
        self.summary: list[dict] = []
        self.networks: dict[str, dict] = {}   # deployment label -> its namespaces' addresses (netns)
        self._deployment: Deployment | None = None
        self._kamailio: Kamailio | None = None
        self._callee: Callee | None = None
        self._registrations = Pool(size=settings.register_pool)   # the running deployment's AORs, round and round
        self._firsts = Pool(FIRST_PREFIX)   # its first registrations' AORs, each new
        self._pool: sipload.Pool | None = None   # the running deployment's users for bench/sipload

    def run(self, measurements: list[Measurement], overloaded: frozenset[Measurement] = frozenset()) -> list[dict]:
        """Every measurement's search; after those in `overloaded`, the overload steps at multiples
        of its result on the same deployment, and the avalanche where `avalanche_after` says so."""
        self.out.mkdir(parents=True, exist_ok=True)
        if self.budget is not None:
            self.budget.start()
        try:
            for system, nodes, group in deployments(measurements):
                if not any(self._fits(m) for m in group):
                    for measurement in group:
                        self._left_out(measurement)
                    continue
                targets, front = self._start(system, nodes, group)
                for measurement in group:
                    if not self._fits(measurement):
                        self._left_out(measurement)
                        continue
                    chosen = _chosen(measurement, front if front_of(measurement.routing) else targets)
                    outcome = self._measure(measurement, chosen)
                    if measurement in overloaded:
                        self._overload(measurement, chosen, outcome.best)
                        if avalanche_after(measurement) and self.settings.avalanche_users > 0:
                            self._avalanche(measurement, chosen[0])
                    if self.budget is not None:
                        self.budget.finished(measurement)
                self._stop()
        finally:
            self._stop()
            self.processes.stop_all()
        return self.summary

    def _callee_pid(self) -> list[tuple[str, int]]:
        """The callee's process, whose CPU a call step reads beside its callers' (sipp.generator_bound)."""
        running = self._callee.process if self._callee is not None else None
        return [("SIPp callee", running.pid)] if running is not None and running.poll() is None else []

    def _fits(self, measurement: Measurement) -> bool:
        return self.budget is None or self.budget.fits(measurement)

    def _left_out(self, measurement: Measurement) -> None:
        """A row the budget leaves out, recorded with why (its verdicts read "not judged: over the hour")."""
        note = self.budget.why_not(measurement)
        self.budget.finished(measurement)
        self.progress.end(f"{measurement.label}: left out, {note}")
        row = {**{name: "" for name in SUMMARY_FIELDS}, "workload": measurement.workload,
               "system": measurement.system, "nodes": measurement.nodes, "routing": measurement.routing,
               "round": measurement.round, "rate": 0, "rate_p99_100ms": 0, "steps": 0, "seconds": 0, "note": note}
        self.summary.append(row)
        _append(self.out / "summary.csv", SUMMARY_FIELDS, row)

    def _start(self, system: str, nodes: int, group: list[Measurement]) -> tuple[list[Target], list[Target]]:
        """Starts what `group` needs; returns the nodes' addresses and the front's (if any)."""
        policy = next((front_of(m.routing) for m in group if front_of(m.routing)), None)
        state = next((state_mode(m.routing) for m in group if state_mode(m.routing)), None)
        auth = any(needs_auth(m.workload) for m in group)
        scaled = any(m.routing == SCALE for m in group)
        folder = self.work / (f"{system}-{nodes}" + (f"-front-{policy}" if policy else "")
                              + (f"-state-{state}" if state else "") + ("-auth" if auth else "")
                              + ("-scale" if scaled else ""))
        self.progress.end(f"starting {system} with {nodes} node(s)" + (f" behind the front ({policy})" if policy else "")
                          + (f", the front {state}" if state else "")
                          + (", every REGISTER authenticated" if auth else "")
                          + (f", each a host of {self.settings.scale_quota:g} cores" if scaled else ""))
        front: list[Target] = []
        self._registrations = Pool(size=self.settings.register_pool)
        self._firsts = Pool(FIRST_PREFIX)
        self._pool = None
        if any(sipload_mode(m.workload) for m in group):
            self._pool = sipload.write_pool(folder / "users", self.settings.auth_users)
        if system == KAMAILIO:
            self._kamailio = Kamailio(self.processes, folder / "kamailio", self.settings.kamailio_port,
                                      self.settings.t1_ms or 500,
                                      Auth(self._pool.users, self.settings.auth_algorithm) if auth else None)
            self._kamailio.start()
            targets = [Target("127.0.0.1", self.settings.kamailio_port)]
            local = "127.0.0.1"
        else:
            extra = []
            app = "p2psip"
            if system == CEILING:
                app = "ceiling"
                # {host}: deploy/p2psip's address of the root namespace, where the callee listens
                extra = [f"--jvm-arg=-Dp2psip.ceiling.target=sip:{{host}}:{self.settings.callee_port}"]
            extra += node_arguments(self.settings, system) + ceiling_arguments(system)
            if auth:
                extra += ["--users", str(self._pool.users)]   # implies --auth: every REGISTER challenged
            if policy:
                extra += ["--front", policy, "--front-port", str(self.settings.front_port)]
            extra += state_arguments(self.settings, state)
            extra += scale_arguments(self.settings, scaled)
            run_dir = self.work / "deploy-run"
            if on_tmpfs(system):
                run_dir = TMPFS / f"p2psip-bench-{os.getpid()}" / f"{system}-{nodes}"
            self._deployment = Deployment(run_dir, folder / "deploy.log",
                                          "memory" if system == CEILING else dht_of(system), nodes,
                                          self.settings.base_port, app, self.settings.t1_ms,
                                          self.settings.heap, extra,
                                          [self.settings.front_port] if policy else [], self.settings.netns,
                                          young=young_of(self.settings, system), sip_threads=self.settings.sip_threads)
            self._deployment.start()
            local = self._deployment.local_address
            targets = [Target(host, port, local) for host, port in self._deployment.addresses()]
            front = [Target(host, port, local) for host, port in self._deployment.addresses("front")]
            if self._deployment.network:
                self.networks[folder.name] = self._deployment.network_summary()
        if any(m.workload == "call" for m in group):
            self._callee = Callee(self.processes, folder / "callee", self.settings.callee_port, local)
            # The ceiling proxies to a fixed address and stores nothing: nothing to register there.
            registrars = [] if system == CEILING else targets
            self._callee.start(registrars, self.settings.timing)
        return targets, front

    def _stop(self) -> None:
        for part in (self._callee, self._kamailio, self._deployment):
            if part is not None:
                part.stop()
        self._callee = self._kamailio = self._deployment = None

    def search_on(self, deployment: Deployment, measurement: Measurement, chosen: list[Target], workload,
                  steps) -> search.Outcome:
        """A search of another experiment's workload on a deployment it started (the capacity experiment's
        refreshes and first registrations): `steps.run(workload, targets, rate, progress)` measures one
        step. Recorded as every search is (steps.csv, summary.csv), without the warm-up: the deployment
        has carried that experiment's load already."""
        self._deployment = deployment
        try:
            return self._measure(measurement, chosen, workload, steps, warm=False)
        finally:
            self._deployment = None

    def _measure(self, measurement: Measurement, chosen: list[Target], workload=None, steps=None,
                 warm: bool = True) -> search.Outcome:
        folder = (self.work / f"{measurement.system}-{measurement.nodes}"
                  / f"{measurement.workload}-{measurement.routing}-round{measurement.round}")
        mode = sipload_mode(measurement.workload)
        if steps is None and mode:
            workload = sipload.Load(mode, self._pool, self.settings.auth_algorithm)
            steps = sipload.SiploadSteps(self.processes, folder, self.settings.timing,
                                         self.settings.criteria_for(measurement.workload),
                                         self.settings.t1_ms or 500)
        elif steps is None:
            workload = {"registration": lambda: Registration(self._registrations),
                        FIRST: lambda: Registration(self._firsts, name=FIRST), "call": Call}[measurement.workload]()
            steps = StepRunner(self.processes, folder, self.settings.timing,
                               self.settings.criteria_for(measurement.workload), self._callee_pid)
        self.progress.label = measurement.label

        # Every search on a deployment of ours is metered: the register experiment's 1, 2 and 4
        # nodes on shared cores are compared by their CPU per REGISTER as the scale experiment's are.
        meter = cpuuse.CpuMeter(self._deployment.named_pids()) if self._deployment else None

        def measure(rate: int, seconds: float | None = None) -> search.Step:
            before = meter.read() if meter else {}
            step = steps.run(workload, chosen, rate, self.progress, seconds)
            if meter:
                meter.add(before, meter.read())
            confirming = seconds is not None
            self._append_step(measurement, step, confirming)
            self.progress.end(f"{measurement.label}: {rate}/s" + (f" (confirmation, {seconds:g} s)" if confirming else "")
                              + f" {'passed' if step.passed else 'failed: ' + step.reason}")
            return step

        def cool_down(step: search.Step) -> None:
            # After an overload the server needs time to drain its retransmissions, and the callee
            # a fresh start (Callee.restart); after a failed confirmation the server settles too.
            if not step.passed:
                if measurement.workload == "call" and self._callee is not None:
                    self._callee.restart()
                time.sleep(max(self.settings.cooldown_s, TRANSACTIONS_END_S) if step.confirmation
                           else self.settings.cooldown_s)
                if step.confirmation:
                    self._settle()

        lookups_before = self._deployment.lookups() if self._deployment else None
        scraper = Scraper(self._deployment.http_addresses()[:1]) if measurement.routing == SCRAPED else None
        if state_mode(measurement.routing) == "dynamic" and self._deployment:
            # the front's share of calls kept statefully, once a second, with the rate offered then
            steps = offering = Offering(steps)
            scraper = Scraper(self._deployment.http_addresses("front")[:1],
                              sample=lambda text: statereport.state_sample(text, offering.rate))
        began = time.monotonic()
        # references (16,000 REGISTER/s and more) and our nodes (2,000 to 14,000) each start from their own kind
        kind = (UNITS.get(measurement.workload, measurement.workload), measurement.system in REFERENCES)
        try:
            if warm:
                self._warm_up(steps, workload, chosen, measurement.nodes, measurement.system)
            plan = plan_for(self.settings.plan, measurement.system)
            if self.settings.start_known and kind in self._known:
                plan = replace(plan, start=min(self._known[kind], plan.max_rate))
            outcome = search.run(plan, measure, cool_down,
                                 lambda confirmations: self.budget is None or self.budget.affordable(measurement))
        finally:
            if scraper:
                scraper.stop()
                if scraper.sample:
                    statereport.append_samples(self.out, measurement.system, measurement.nodes, measurement.routing,
                                               scraper.samples)
        if outcome.found is not None:
            self._known[kind] = outcome.found.rate
        best = outcome.best
        prompt = outcome.best_within(search.PROMPT_P99_MS)
        deepest = outcome.overload
        # Mean hops over the whole search (warm-up and every step), as the nodes counted them.
        mean_hops = self._deployment.lookups().since(lookups_before).mean_hops() if lookups_before else None
        largest_range = self._deployment.largest_range() if self._deployment else None
        row = {"workload": measurement.workload, "system": measurement.system, "nodes": measurement.nodes,
               "routing": measurement.routing, "round": measurement.round, "rate": best.rate if best else 0,
               "rate_p99_100ms": prompt.rate if prompt else 0,
               "p50_ms": _number(best.p50_ms if best else None), "p99_ms": _number(best.p99_ms if best else None),
               "retransmissions": best.counts.retransmissions if best else "", "steps": len(outcome.steps),
               "hops": "" if mean_hops is None else f"{mean_hops:.2f}",
               "largest_range": "" if largest_range is None else f"{largest_range:.3f}",
               "overload_rate": deepest.rate if deepest else "",
               "overload_goodput": search.goodput(deepest) if deepest else "",
               "cpu_ms_per_request": _number3(cpu_ms_per_request(meter, outcome)),
               "seconds": f"{time.monotonic() - began:.0f}",
               "note": "; ".join(filter(None, [search_note(outcome, plan, "sipload" if mode else "SIPp"),
                                               scraper.note() if scraper else "", cpu_note(meter, outcome)]))}
        self.summary.append(row)
        _append(self.out / "summary.csv", SUMMARY_FIELDS, row)
        return outcome

    def _settle(self) -> None:
        """What two minutes of overload left goes before the next confirmation, which would
        otherwise measure it: Kamailio starts again (the transactions and dialogs its failed call
        confirmation left in shared memory outlived the rest: it completed 87% of 1,543 calls/s after
        failing at 3,250/s, where a fresh one confirms above 3,000), and the callee registers with it
        again; each JVM of a deployment collects its heap in full (`jcmd GC.run`), so that the
        next step does not pay for the old generation's garbage (the ceiling app completed 79% of
        16,397 REGISTER/s after failing at 18,000/s, 96% of 12,323/s after that)."""
        if self._kamailio is not None:
            self._kamailio.stop()
            self._kamailio.start()
            if self._callee is not None:
                self._callee.register([Target("127.0.0.1", self.settings.kamailio_port)])
        elif self._deployment is not None:
            for pid in self._deployment.pids():
                full_collection(pid)

    def _overload(self, measurement: Measurement, chosen: list[Target], clean: search.Step | None) -> None:
        """REGISTERs at multiples of the clean rate, open loop, with a 503 a final answer, a rest
        before each step; each step is written to overload.csv as soon as it ends."""
        label = f"{measurement.label} overload"
        if clean is None:
            self.progress.end(f"{label}: skipped, its search passed no step (no clean rate)")
            return
        folder = self.work / f"{measurement.system}-{measurement.nodes}" / f"overload-{measurement.routing}"
        steps = StepRunner(self.processes, folder, self.settings.timing, self.settings.criteria)
        workload = Registration(self._registrations, REGISTER_503)
        seconds = self.settings.overload_step_s
        for multiple, rate in overload.step_rates(clean.rate, self.settings.overload_multiples):
            time.sleep(self.settings.cooldown_s)
            self.progress.label = f"{label} {multiple:g}x"
            done = steps.offer(workload, chosen, rate, self.progress, seconds)
            step = overload.summarize(measurement.system, measurement.nodes, measurement.routing, clean.rate,
                                      multiple, rate, seconds, done.attempts, done.counts, done.offered_rate,
                                      done.response_times(RTD_200), done.response_times(RTD_503),
                                      self.settings.criteria)
            overload.append(self.out / overload.STEPS_CSV, overload.STEP_FIELDS, overload.step_row(step))
            self.progress.end(f"{self.progress.label}: {rate}/s asked, goodput {step.goodput:,.0f}/s, "
                              f"503 {step.refused_per_s:,.0f}/s, neither {step.other_per_s:,.0f}/s"
                              + (" (generator short)" if step.generator_short else ""))

    def _avalanche(self, measurement: Measurement, target: Target) -> None:
        time.sleep(self.settings.cooldown_s)
        users, window = self.settings.avalanche_users, self.settings.avalanche_window_s
        self.progress.label = f"{measurement.label} avalanche of {users}"
        folder = self.work / f"{measurement.system}-{measurement.nodes}" / f"avalanche-{measurement.routing}"
        run = avalanche(self.processes, folder, target, users, window, Pool(AVALANCHE_PREFIX), self.progress)
        result = overload.Avalanche(measurement.system, measurement.nodes, measurement.routing, users, window,
                                    run.registered, run.refusals, run.seconds, run.exit_code)
        overload.append(self.out / overload.AVALANCHE_CSV, overload.AVALANCHE_FIELDS, overload.avalanche_row(result))
        self.progress.end(f"{self.progress.label}: {run.registered} registered after {run.seconds:.1f} s, "
                          f"{run.refusals} refusals")

    def _warm_up(self, steps: StepRunner | sipload.SiploadSteps, workload, targets: list[Target],
                 nodes: int, system: str) -> None:
        """Unjudged load in three equal stages, each target getting a quarter, a half and then all
        of the start rate: JVMs just started run their first requests interpreted while their JIT
        compilers take the cores (measured: two cold Chord nodes on two cores fail at 300/s each
        and pass 1,500/s each once warm). Scaling the rate by target warms every node alike; the
        length grows with the node count, because N JVMs compile N times the code on the same two
        cores (two Chord nodes: 4,000/s after 60 s, 8,000/s after 180 s). A rest follows, so that
        the first judged step does not meet a backlog."""
        seconds = self.settings.warmup_for(nodes, system, workload)
        if seconds <= 0:
            return
        label = self.progress.label
        self.progress.label = f"{label} (warm-up)"
        for share in (0.25, 0.5, 1.0):
            rate = max(len(targets), int(self.settings.plan.start * share) * len(targets))
            steps.run(workload, targets, rate, self.progress, seconds / 3)
        self.progress.label = label
        time.sleep(self.settings.cooldown_s)

    def _append_step(self, m: Measurement, step: search.Step, confirmation: bool = False) -> None:
        c = step.counts
        _append(self.out / "steps.csv", STEP_FIELDS, {
            "workload": m.workload, "system": m.system, "nodes": m.nodes, "routing": m.routing,
            "round": m.round, "rate": step.rate, "attempts": step.attempts, "successful": c.successful, "failed": c.failed,
            "retrans_timeouts": c.max_udp_retrans, "recv_timeouts": c.timeout_on_recv,
            "unexpected": c.unexpected, "retransmissions": c.retransmissions,
            "offered_rate": f"{step.offered_rate:.1f}", "p50_ms": _number(step.p50_ms),
            "p99_ms": _number(step.p99_ms), "passed": int(step.passed), "reason": step.reason,
            "confirmation": int(confirmation),
            "generator_cpu": "; ".join(f"{name} {share:.0%}" for name, share in step.generator_cpu)})


class Offering:
    """A step runner that says which rate it offers now (0 between steps), for the samples a scraper
    takes beside the search (the state experiment's fraction over time). Read from the scraper's thread:
    an int, replaced whole."""

    def __init__(self, steps) -> None:
        self.steps = steps
        self.rate = 0

    def run(self, workload, targets: list[Target], rate: int, progress=lambda rate, counts, elapsed: None,
            seconds: float | None = None) -> search.Step:
        self.rate = rate
        try:
            return self.steps.run(workload, targets, rate, progress, seconds)
        finally:
            self.rate = 0


def state_arguments(settings: Settings, state: str | None) -> list[str]:
    """deploy/p2psip up's options for a deployment of the state experiment: the front's mode and, in
    the pinned run, the CPUs of the front and the nodes; none for every other deployment."""
    if not state:
        return []
    return ["--front-state", state] + (["--cpus", settings.state_cpus] if settings.state_cpus else [])


def scale_arguments(settings: Settings, scaled: bool) -> list[str]:
    """deploy/p2psip up's options for a deployment of the scale experiment: each node in a cgroup of its
    own with the experiment's quota, and time to start as slowly as the quota makes it; none for others."""
    if not scaled:
        return []
    timeout = UP_TIMEOUT_S / min(1.0, settings.scale_quota)
    return ["--cpu-quota", f"{settings.scale_quota:g}", "--timeout", f"{timeout:g}"]


def _kept(outcome: search.Outcome) -> int | None:
    """The index of the step a search keeps (its confirmation, or its best step), among its steps."""
    best = outcome.best
    return next((i for i, step in enumerate(outcome.steps) if step is best), None)


def cpu_ms_per_request(meter: cpuuse.CpuMeter | None, outcome: search.Outcome) -> float | None:
    """CPU ms of the metered processes per request answered in the step the search keeps."""
    index = _kept(outcome)
    if meter is None or index is None:
        return None
    return cpuuse.ms_per_request(meter.of(index), outcome.steps[index].counts.successful)


def cpu_note(meter: cpuuse.CpuMeter | None, outcome: search.Outcome) -> str:
    """What summary.csv's note says of a metered search's CPU: the processes, or why there is no figure."""
    index = _kept(outcome)
    if meter is None or index is None:
        return ""
    use = meter.of(index)
    if use.missing:
        return f"no CPU per request: {', '.join(use.missing)} could not be read across the step"
    return (f"CPU {use.seconds:.1f} s of {', '.join(name for name, _ in meter.processes)} in the "
            + ("confirmation" if outcome.steps[index].confirmation else "step") + " kept")


def _chosen(measurement: Measurement, targets: list[Target]) -> list[Target]:
    """Where a measurement sends: node 0 alone ("one"), or every target given (the nodes, or the front)."""
    return targets[:1] if measurement.routing in ("one", SCRAPED) else targets


def plan_for(plan: search.Plan, system: str) -> search.Plan:
    """The references are measured to their limit, past --max-rate (search.for_reference); ours stop there."""
    return search.for_reference(plan) if system in REFERENCES else plan


def search_note(outcome: search.Outcome, plan: search.Plan, generator: str = "SIPp") -> str:
    """What a search's result is worth, for summary.csv's note: why its limit lies higher than measured."""
    best, short = outcome.best, outcome.generator_limit
    refused = outcome.refused
    if best is None and refused:
        return (f"{targets.NOT_CONFIRMED}: {', '.join(f'{s.rate:,}/s' for s in refused)} failed a confirmation of "
                f"{plan.confirm_s:g} s (the search found {outcome.found.rate:,}/s in shorter steps)")
    if best is None:
        return "no step passed"
    if short is not None and not search.generator_short(short.rate, short.offered_rate):
        # offered in full, but a SIPp process was busy throughout (sipp.generator_bound)
        return f"generator-limited: at {short.rate:,}/s {short.reason.split('; ')[-1]}, so the limit may be higher"
    if short is not None:
        return (f"generator-limited: {generator} offered {short.offered_rate:,.0f}/s of {short.rate:,}/s asked, "
                "so the limit is higher than measured")
    if best.rate >= plan.max_rate:
        return "reached the search's maximum rate"
    if all(step.passed for step in outcome.steps):
        return "every step passed: the limit is higher than measured (step budget)"
    above = [s.rate for s in outcome.steps if not s.passed and not s.confirmation and s.rate > outcome.found.rate]
    if above and min(above) - outcome.found.rate > plan.precision * outcome.found.rate:
        return (f"the step budget ended the search {min(above) / outcome.found.rate - 1:.0%} below its lowest failure "
                f"({min(above):,}/s), coarser than {plan.precision:g}")
    if refused:
        return (f"confirmed {best.rate:,}/s in {plan.confirm_s:g} s after {', '.join(f'{s.rate:,}/s' for s in refused)} "
                "failed a confirmation")
    return ""


def young_of(settings: Settings, system: str) -> str | None:
    """The young generation of a deployment's JVMs: the container ceiling's own (modes.CEILING_YOUNG), the
    nodes' from bench/run's --young."""
    return modes.CEILING_YOUNG if system == CEILING else settings.young


def ceiling_arguments(system: str) -> list[str]:
    """deploy/p2psip up's JVM options of the container ceiling alone: its G1 pause goal (modes.CEILING_PAUSE_MS)."""
    return [f"--jvm-arg=-XX:MaxGCPauseMillis={modes.CEILING_PAUSE_MS}"] if system == CEILING else []


def node_arguments(settings: Settings, system: str) -> list[str]:
    """deploy/p2psip up's `--set` for each of bench/run's: the backends' nodes get them, the
    container's ceiling does not (a reference stays the same whatever the backends are given)."""
    if system == CEILING:
        return []
    return [argument for setting in settings.node_settings for argument in ("--set", setting)]


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def _number3(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def _append(path: Path, fields: list[str], row: dict) -> None:
    new = not path.exists()
    with open(path, "a", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=fields, delimiter=",")
        if new:
            writer.writeheader()
        writer.writerow(row)

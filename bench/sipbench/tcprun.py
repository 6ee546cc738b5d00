"""Runs the tcp experiment (tcp.py): each deployment of its plan started once, its rate part and
idle part measured, everything it started stopped again, also on failure or Ctrl-C.

Every step is appended to tcp-steps.csv as it is judged, each transport's result to tcp-rate.csv
and each level of connections held to tcp-idle.csv (tcpreport.py), so an interrupted run keeps
what it measured; what the run found out about a system (Kamailio's file limit) goes to
tcp-notes.txt for the report.

Not thread-safe; from the bench's main thread.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from . import memory, sipload, tcp, tcpload, tcpreport
from .deploy import Deployment, dht_of
from .experiments import KAMAILIO
from .kamailio import Kamailio, TcpLimits, open_files_hard_limit
from .procs import BenchError, Processes
from .runner import ProgressLine, Settings, node_arguments

# What Kamailio's tcp_main needs besides its connections: listen sockets, pipes to its workers, logs.
KAMAILIO_OWN_FILES = 200
# Seconds the holders' connections settle before memory is read: the last answers written, the
# JVMs' allocation of the registrations' garbage behind them.
SETTLE_S = 3.0


@dataclass(frozen=True)
class TcpSettings:
    backend: str
    idle: tuple[int, ...]
    idle_front_processes: int
    rates: tuple[int, ...]


class TcpRunner:
    def __init__(self, settings: Settings, tcp_settings: TcpSettings, out: Path, work: Path,
                 processes: Processes) -> None:
        self.settings = settings
        self.tcp = tcp_settings
        self.out = out
        self.work = work / "tcp"
        self.processes = processes
        self.progress = ProgressLine()
        self._deployment: Deployment | None = None
        self._kamailio: Kamailio | None = None
        self._holders: tcpload.Holders | None = None

    def run(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        try:
            for deployment in tcp.plan(self.tcp.backend, self.tcp.idle_front_processes):
                client = self._start(deployment)
                if tcp.RATE_PART in deployment.parts:
                    self._rate_part(deployment, client)
                if tcp.IDLE_PART in deployment.parts:
                    self._idle_part(deployment, client)
                self._stop()
        finally:
            self._stop()

    def _client(self, port: int) -> tcp.Client:
        return tcp.Client(str(sipload.ensure_built()), f"127.0.0.1:{port}", self.settings.t1_ms or 500,
                          self.settings.timing.recv_timeout_ms)

    def _start(self, deployment: tcp.Deployment) -> tcp.Client:
        self.progress.end(f"tcp: starting {deployment.label}")
        folder = self.work / _slug(deployment)
        if deployment.system == KAMAILIO:
            self._kamailio = self._start_kamailio(folder / "kamailio")
            return self._client(self.settings.kamailio_port)
        port = self.settings.front_port
        extra = node_arguments(self.settings, deployment.system) + [
            "--front", "rr", "--front-port", str(port), "--front-processes", str(deployment.front_processes)]
        # Loopback whatever --network says: the holders' source addresses are 127.0.x.y.
        self._deployment = Deployment(self.work / "deploy-run", folder / "deploy.log", dht_of(deployment.system), 2,
                                      self.settings.base_port, "p2psip", self.settings.t1_ms, self.settings.heap,
                                      extra, [port], netns=False, young=self.settings.young,
                                      sip_threads=self.settings.sip_threads)
        self._deployment.start()
        client = self._client(port)
        self._warm_up(client, folder)
        return client

    def _start_kamailio(self, folder: Path) -> Kamailio:
        """Kamailio with room for every connection asked; when its open files cannot be raised that far
        (tcp_main holds all its connections, and a process here may not raise its hard limit), again
        with the most it may open, so that it is measured to its own limit, and the note says so."""
        wanted = max(self.tcp.idle, default=0) + tcp.MAX_MEASURING_USERS + KAMAILIO_OWN_FILES
        limits = TcpLimits(max_connections=wanted, open_files=wanted + KAMAILIO_OWN_FILES)
        kamailio = Kamailio(self.processes, folder, self.settings.kamailio_port, self.settings.t1_ms or 500, tcp=limits)
        try:
            kamailio.start()
            return kamailio
        except BenchError as e:
            hard = open_files_hard_limit()
            if limits.open_files <= hard:
                raise
            note = (f"Kamailio did not start with open_files_limit={limits.open_files} (tcp_max_connections="
                    f"{limits.max_connections}): the hard limit of open files here is {hard} and it may not raise "
                    f"it ({_first_error(kamailio.log(), str(e))}); measured with open_files_limit={hard} and "
                    f"tcp_max_connections={hard - KAMAILIO_OWN_FILES}, the most its one tcp_main process may hold.")
            self.progress.end(f"tcp: {note}")
            tcpreport.append_note(self.out, note)
        limits = TcpLimits(max_connections=hard - KAMAILIO_OWN_FILES, open_files=hard)
        kamailio = Kamailio(self.processes, folder, self.settings.kamailio_port, self.settings.t1_ms or 500, tcp=limits)
        kamailio.start()
        return kamailio

    def _stop(self) -> None:
        if self._holders is not None:
            self._holders.stop()
            self._holders = None
        for part in (self._kamailio, self._deployment):
            if part is not None:
                part.stop()
        self._kamailio = self._deployment = None

    def _warm_up(self, client: tcp.Client, folder: Path) -> None:
        """As every search's warm-up (runner.Runner._warm_up), over UDP through the front: the two nodes'
        JITs compile before the first judged step. Kamailio, compiled ahead, needs none."""
        if self.settings.warmup_s <= 0:
            return
        steps = tcpload.Measuring(self.processes, folder / "warm-up", client, self.settings.criteria, "tcpwarm")
        self.progress.label = "tcp warm-up"
        for share in (0.25, 0.5, 1.0):
            rate = max(1, int(self.settings.plan.start * share) * 2)
            steps.run("warm-up", "", tcp.UDP, 0, rate, self.settings.warmup_for(2) / 3, self.progress)
        time.sleep(self.settings.cooldown_s)

    def _ladder(self, steps: tcpload.Measuring, part: str, system: str, transport: str, held: int,
                rates: tuple[int, ...]) -> list[tcp.RateStep]:
        """Offers the rates from the lowest up until a step fails (measured once more with
        --confirm-failures, the rate passing if the repeat does)."""
        measured = []
        for rate in rates:
            self.progress.label = f"tcp {system} {transport}" + (f" with {held:,} held" if part == tcp.IDLE_PART else "")
            step = self._step(steps, part, system, transport, held, rate)
            measured.append(step)
            if not step.passed and self.settings.plan.confirm_failures:
                step = self._step(steps, part, system, transport, held, rate)
                measured.append(step)
            if not step.passed:
                time.sleep(self.settings.cooldown_s)
                break
        return measured

    def _step(self, steps: tcpload.Measuring, part: str, system: str, transport: str, held: int,
              rate: int) -> tcp.RateStep:
        step = steps.run(part, system, transport, held, rate, self.settings.timing.step_s, self.progress)
        tcpreport.append(self.out / tcpreport.STEPS_CSV, tcpreport.STEP_FIELDS, tcpreport.step_row(step))
        self.progress.end(f"{self.progress.label}: {rate}/s " + ("passed" if step.passed else f"failed: {step.reason}"))
        return step

    def _rate_part(self, deployment: tcp.Deployment, client: tcp.Client) -> None:
        folder = self.work / _slug(deployment) / "rate"
        steps = tcpload.Measuring(self.processes, folder, client, self.settings.criteria, "tcprate")
        for transport in tcp.TRANSPORTS:
            measured = self._ladder(steps, tcp.RATE_PART, deployment.system, transport, 0, self.tcp.rates)
            tcpreport.append(self.out / tcpreport.RATE_CSV, tcpreport.RATE_FIELDS,
                             tcpreport.rate_row(deployment.system, transport, measured, self.tcp.rates))

    def _idle_part(self, deployment: tcp.Deployment, client: tcp.Client) -> None:
        """Each level adds holders to those already holding, reads every server process's memory, then
        climbs the ladder with the measuring process, from two rates below what it sustained with none
        held (the rate p99 is compared at)."""
        folder = self.work / _slug(deployment) / "idle"
        users = tcpload.write_users(folder / "holders.csv", f"{tcp.USER_PREFIX}held", max(self.tcp.idle, default=0))
        self._holders = tcpload.Holders(self.processes, folder, client, users)
        steps = tcpload.Measuring(self.processes, folder, client, self.settings.criteria, "tcpidle")
        base: tcp.RateStep | None = None
        for level, added in zip(self.tcp.idle, tcp.holders_for(self.tcp.idle)):
            self.progress.end(f"tcp {deployment.system}: {level:,} connections to hold ({len(added)} more holder(s))")
            self._holders.add(added)
            time.sleep(SETTLE_S)
            held, failed = self._holders.held()
            memory_now = self._memory()
            rates = self.tcp.rates if base is None else tcp.from_rate(self.tcp.rates, base.rate, below=2)
            measured = self._ladder(steps, tcp.IDLE_PART, deployment.system, tcp.IDLE_TRANSPORT, held, rates)
            top = tcp.best(measured)
            at_base = next((s for s in measured if base is not None and s.rate == base.rate), None)
            if base is None:
                base, at_base = top, top
            result = tcp.IdleLevel(deployment.system, level, held, failed, top.rate if top else 0,
                                   top.p50_ms if top else None, top.p99_ms if top else None,
                                   at_base.p99_ms if at_base else None, tuple(memory_now), self._holders.rss_kib())
            tcpreport.append(self.out / tcpreport.IDLE_CSV, tcpreport.IDLE_FIELDS, tcpreport.idle_row(result))
            self.progress.end(f"tcp {deployment.system}: {held:,} held ({failed:,} failed), {result.rate:,}/s, "
                              f"server RSS {result.total() / 1024:,.0f} MiB")
        self._holders.stop()
        self._holders = None

    def _memory(self) -> list[tcp.Memory]:
        """Every server process: the nodes and front processes deploy/p2psip recorded, or Kamailio's
        main process and all its children."""
        if self._kamailio is not None and self._kamailio.pid:
            main = self._kamailio.pid
            named = [("kamailio-main", main)] + [(f"kamailio-{pid}", pid) for pid in memory.children(main)]
        elif self._deployment is not None:
            named = self._deployment.named_pids()
        else:
            named = []
        return [tcp.Memory(name, pid, memory.rss_kib(pid), memory.pss_kib(pid)) for name, pid in named]


def _slug(deployment: tcp.Deployment) -> str:
    if deployment.system == KAMAILIO:
        return "kamailio"
    return f"{deployment.system}-2-front-rr-x{deployment.front_processes}"


def _first_error(log: str, fallback: str) -> str:
    """The log's line about the file limit, else its first error line, else the bench's message."""
    lines = [line.strip() for line in log.splitlines()]
    for words in ("open file", "file limit", "ERROR", "CRITICAL"):
        found = next((line for line in lines if words in line), None)
        if found:
            return found[:300]
    return fallback.splitlines()[0][:300]

"""`demo`: two nodes, distinct registrations through both, calls between registered SIPp users,
a summary; everything it started is stopped again, and it exits non-zero if anything failed.
With --front, every registration and call goes through the front instead."""
import csv
import shutil
import time
from pathlib import Path

from . import front, layout, nodes, processes, sipp


def run(options: nodes.UpOptions, users: int, calls: int, rate: int) -> int:
    if not sipp.ensure_installed():
        raise nodes.DeployError("SIPp is missing and could not be installed (Debian package sip-tester)")
    if options.wants_front and options.dht in layout.LOCAL_BACKENDS:
        raise nodes.DeployError(f"--front spreads requests over nodes that must share bindings; "
                                f"{options.dht} keeps them per node")
    out = options.run_dir / "demo"
    shutil.rmtree(out, ignore_errors=True)  # SIPp appends to statistics files
    started = entry_points(nodes.up(options))
    try:
        local = nodes.client_address(options.run_dir, options.address)
        registered = register_half_per_node(started, users, rate, out, local)
        called = call_across(started, options.dht, calls, rate, out, local)
    finally:
        nodes.stop_all(options.run_dir)
    print_summary(options, registered, called)
    return 0 if registered.passed and called.passed else 1


def entry_points(started: list[processes.Process]) -> list[processes.Process]:
    """Where the demo's SIPp sends its requests: the front alone if there is one, else the nodes."""
    fronts = [p for p in started if p.role == front.ROLE]
    return fronts or [p for p in started if p.role == "node"]


class Outcome:
    """One SIPp step: its exit codes, counts from its statistics file, and how long it took."""

    def __init__(self, what: str, codes: list[int], stat_files: list[Path], seconds: float):
        self.what = what
        self.passed = all(code == 0 for code in codes)
        self.ok = sum(counter(f, "SuccessfulCall(C)") for f in stat_files)
        self.failed = sum(counter(f, "FailedCall(C)") for f in stat_files)
        self.seconds = seconds

    def line(self) -> str:
        rate = self.ok / self.seconds if self.seconds > 0 else 0.0
        verdict = "ok" if self.passed else "FAILED"
        return f"{self.what:14} {self.ok:6} ok {self.failed:6} failed  {rate:8.1f}/s  ({self.seconds:.1f} s)  {verdict}"


def counter(stat_file: Path, column: str) -> int:
    """The last value of a cumulative column of a SIPp -trace_stat file (0 when absent)."""
    if not stat_file.is_file():
        return 0
    rows = list(csv.DictReader(stat_file.open(), delimiter=";"))
    return int(rows[-1].get(column) or 0) if rows else 0


def register_half_per_node(started: list[processes.Process], users: int, rate: int, out: Path,
                           local: str = "127.0.0.1") -> Outcome:
    """Half the AORs through node 0, the other half through node 1, at once; rate is the total.
    SIPp binds `local` (the gateway with --netns)."""
    first, second = started[0], started[1 % len(started)]
    half = users // 2
    began = time.monotonic()
    runs = [sipp.start_script("register", first.sip_address, "--users", str(half), "--start", "0",
                              "--rate", str(rate // 2 or 1), "--out", str(out / "register-0"), "--address", local),
            sipp.start_script("register", second.sip_address, "--users", str(users - half), "--start", str(half),
                              "--rate", str(rate // 2 or 1), "--out", str(out / "register-1"), "--address", local)]
    codes = [run.wait() for run in runs]
    seconds = time.monotonic() - began
    stats = [out / "register-0" / "register.stat.csv", out / "register-1" / "register.stat.csv"]
    return Outcome("registrations", codes, stats, seconds)


def call_across(started: list[processes.Process], dht: str, calls: int, rate: int, out: Path,
                local: str = "127.0.0.1") -> Outcome:
    """The callee registers through node 0; calls go through node 1, unless the backend keeps
    bindings per node (memory), when they go through node 0 as well."""
    registrar = started[0]
    proxy = registrar if dht in layout.LOCAL_BACKENDS else started[1 % len(started)]
    began = time.monotonic()
    code = sipp.script("call", proxy.sip_address, "--register-via", registrar.sip_address, "--calls", str(calls),
                       "--rate", str(min(rate, 50)), "--out", str(out / "call"), "--address", local)
    seconds = time.monotonic() - began
    print(f"calls: callee registered through {registrar.sip_address}, calls through {proxy.sip_address}")
    return Outcome("calls", [code], [out / "call" / "uac.stat.csv"], seconds)


def print_summary(options: nodes.UpOptions, registered: Outcome, called: Outcome) -> None:
    print(f"demo: {options.nodes} nodes, backend {options.dht}, app {options.app}, front {options.front}")
    print(registered.line())
    print(called.line())
    print("demo " + ("passed" if registered.passed and called.passed else "FAILED")
          + f"; SIPp statistics in {options.run_dir / 'demo'}")

"""`demo`: two nodes with authentication on, distinct users registering through both (each answering
the nodes' Digest challenge with a password of its own), calls between them, a summary; everything
it started is stopped again, and it exits non-zero if anything failed. With --front, every
registration and call goes through the front instead.

The demo provisions its own users, as `up --auth --users FILE.csv` would: a CSV of user,domain,
password lines with generated passwords in its folder (`<run dir>/demo/users.csv`), imported into
the deployment's users file before the nodes start. Registrations run bench/sipload (SIPp 3.6
takes one username and password per run, so it cannot register many users each with their own);
calls still run SIPp (sipp-scenarios/call), INVITEs not being challenged (p2psip.auth.invite off),
to a callee that sipload registered from the SIPp UAS's own port."""
import csv
import secrets
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from . import backends, front, layout, nodes, processes, sipp, users

DOMAIN = "p2psip.test"
CALLEE = "callee"
SIPLOAD_MODULE = "bench/sipload"
SIPLOAD_JAR = layout.ROOT / SIPLOAD_MODULE / "target" / "sipload.jar"
# What a registration is: REGISTER, 401, REGISTER with credentials, 200; SHA-256, the nodes' first choice.
MODE, ALGORITHM = "first", "SHA-256"


def run(options: nodes.UpOptions, users_count: int, calls: int, rate: int) -> int:
    if not sipp.ensure_installed():
        raise nodes.DeployError("SIPp is missing and could not be installed (Debian package sip-tester)")
    if options.wants_front and backends.has(options.dht, "alone"):
        raise nodes.DeployError(f"--front spreads requests over nodes that must share bindings; "
                                f"{options.dht} keeps them per node")
    jar = ensure_sipload()
    out = options.run_dir / "demo"
    shutil.rmtree(out, ignore_errors=True)  # SIPp appends to statistics files
    halves = provision(out, options.run_dir, users_count)
    started = entry_points(nodes.up(with_authentication(options)))
    try:
        local = nodes.client_address(options.run_dir, options.address)
        registered = register_half_per_node(jar, started, halves, rate, out, local)
        called = call_across(jar, started, options.dht, calls, rate, out, local)
    finally:
        nodes.stop_all(options.run_dir)
    print_summary(options, users_count, registered, called)
    return 0 if registered.passed and called.passed else 1


def ensure_sipload() -> Path:
    """bench/sipload's jar, built when missing (as `up` builds the container and the WAR)."""
    if not SIPLOAD_JAR.is_file():
        print(f"== building {SIPLOAD_MODULE} (registrations with a password per user)", file=sys.stderr, flush=True)
        code = subprocess.run(["mvn", "-q", "-pl", SIPLOAD_MODULE, "-am", "install", "-DskipTests"],
                              cwd=layout.ROOT).returncode
        if code != 0 or not SIPLOAD_JAR.is_file():
            raise nodes.DeployError(f"could not build {SIPLOAD_MODULE} (mvn exit code {code})")
    return SIPLOAD_JAR


def with_authentication(options: nodes.UpOptions) -> nodes.UpOptions:
    """The options of `up --auth`: every REGISTER must carry credentials of a user of the run dir's
    users file (the two settings cli.up_options writes for --auth; a --set given to the demo wins)."""
    settings = {"p2psip.auth.enabled": "true",
                "p2psip.auth.users-file": str(users.users_file(options.run_dir)), **options.settings}
    return replace(options, settings=settings)


def user_name(number: int) -> str:
    """The demo's AORs: user0000000@p2psip.test, ... (as sipp-scenarios/register names them)."""
    return f"user{number:07d}"


def provision(out: Path, run_dir: Path, count: int) -> list[Path]:
    """Writes the demo's users with generated passwords (out/users.csv, the callee included, readable
    by its owner only), imports them into the deployment's users file as `up --users` does, and
    returns the two halves, one per node, as files sipload reads (out/users-0.csv, out/users-1.csv)."""
    out.mkdir(parents=True, exist_ok=True)
    lines = [f"{user_name(i)},{DOMAIN},{secrets.token_urlsafe(12)}" for i in range(count)]
    callee = f"{CALLEE},{DOMAIN},{secrets.token_urlsafe(12)}"
    every = _private(out / "users.csv", [*lines, callee])
    users.import_csv(users.users_file(run_dir), every)
    _private(out / "callee.csv", [callee])
    half = count // 2
    return [_private(out / "users-0.csv", lines[:half]), _private(out / "users-1.csv", lines[half:])]


def _private(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    path.chmod(0o600)  # passwords
    return path


def entry_points(started: list[processes.Process]) -> list[processes.Process]:
    """Where the demo's clients send their requests: the front alone if there is one, else the nodes."""
    fronts = [p for p in started if p.role == front.ROLE]
    return fronts or [p for p in started if p.role == "node"]


class Outcome:
    """One step of the demo: whether every client passed, what they completed and failed, how long it took,
    and how long a registration took (sipload's p50 and p99, the worst of the clients)."""

    def __init__(self, what: str, passed: bool, ok: int, failed: int, seconds: float, latency: str = ""):
        self.what = what
        self.passed = passed
        self.ok = ok
        self.failed = failed
        self.seconds = seconds
        self.latency = latency

    def line(self) -> str:
        rate = self.ok / self.seconds if self.seconds > 0 else 0.0
        verdict = "ok" if self.passed else "FAILED"
        return (f"{self.what:14} {self.ok:6} ok {self.failed:6} failed  {rate:8.1f}/s  ({self.seconds:.1f} s)  {verdict}"
                + (f"  {self.latency}" if self.latency else ""))


def summary_fields(log: Path) -> dict[str, str]:
    """The key=value fields of sipload's summary line in its log (bench/sipload/README.md); empty when
    it wrote none."""
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return {}
    for line in reversed(text.splitlines()):
        if line.startswith("sipload mode="):
            return dict(word.split("=", 1) for word in line.split()[1:] if "=" in word)
    return {}


def sipload_command(jar: Path, target: str, users_csv: Path, rate: int, local: str, port: int = 0) -> list[str]:
    """One first registration per user of users_csv through target, from local:port (the Contact)."""
    return ["java", "-XX:TieredStopAtLevel=1", "-jar", str(jar), "--target", target, "--bind", f"{local}:{port}",
            "--users", str(users_csv), "--mode", MODE, "--algorithm", ALGORITHM, "--rate", str(rate), "--quiet"]


def start_sipload(command: list[str], log: Path) -> subprocess.Popen:
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as out:
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)


def register_half_per_node(jar: Path, started: list[processes.Process], halves: list[Path], rate: int, out: Path,
                           local: str = "127.0.0.1") -> Outcome:
    """Half the users through node 0, the other half through node 1, at once; rate is the total.
    sipload binds `local` (the gateway with --netns)."""
    targets = [started[0], started[1 % len(started)]]
    began = time.monotonic()
    logs = [out / f"register-{i}" / "sipload.log" for i in range(2)]
    runs = [start_sipload(sipload_command(jar, node.sip_address, half, max(1, rate // 2), local), log)
            for node, half, log in zip(targets, halves, logs)]
    codes = [run.wait() for run in runs]
    seconds = time.monotonic() - began
    fields = [summary_fields(log) for log in logs]
    ok = sum(int(f.get("completed", 0)) for f in fields)
    failed = sum(int(f.get("failed", 0)) for f in fields)
    p50 = max((float(f["p50_ms"]) for f in fields if f.get("p50_ms")), default=None)
    p99 = max((float(f["p99_ms"]) for f in fields if f.get("p99_ms")), default=None)
    latency = f"p50 {p50:.1f} ms, p99 {p99:.1f} ms (401, then 200)" if p50 is not None and p99 is not None else ""
    return Outcome("registrations", all(code == 0 for code in codes) and all(fields), ok, failed, seconds, latency)


def free_udp_port(address: str) -> int:
    """A UDP port free on address now (the callee's: sipload registers from it, then SIPp's UAS listens there)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind((address, 0))
        return probe.getsockname()[1]


def call_across(jar: Path, started: list[processes.Process], dht: str, calls: int, rate: int, out: Path,
                local: str = "127.0.0.1") -> Outcome:
    """The callee registers through node 0 (sipload, from the port its SIPp UAS then listens on, so
    that its Contact is the UAS); calls go through node 1, unless the backend keeps bindings per node
    (memory), when they go through node 0 as well."""
    registrar = started[0]
    proxy = registrar if backends.has(dht, "alone") else started[1 % len(started)]
    began = time.monotonic()
    uas_port = free_udp_port(local)
    log = out / "callee" / "sipload.log"
    code = start_sipload(sipload_command(jar, registrar.sip_address, out / "callee.csv", 1, local, uas_port), log).wait()
    if code != 0:
        print(f"calls: the callee could not register through {registrar.sip_address} (sipload exit code {code}, "
              f"{log})", file=sys.stderr)
        return Outcome("calls", False, 0, calls, time.monotonic() - began)
    code = sipp.script("call", proxy.sip_address, "--no-register", "--uas-port", str(uas_port), "--calls", str(calls),
                       "--rate", str(min(rate, 50)), "--out", str(out / "call"), "--address", local)
    seconds = time.monotonic() - began
    print(f"calls: callee registered through {registrar.sip_address} (authenticated), calls through {proxy.sip_address}")
    stat = out / "call" / "uac.stat.csv"
    return Outcome("calls", code == 0, counter(stat, "SuccessfulCall(C)"), counter(stat, "FailedCall(C)"), seconds)


def counter(stat_file: Path, column: str) -> int:
    """The last value of a cumulative column of a SIPp -trace_stat file (0 when absent)."""
    if not stat_file.is_file():
        return 0
    rows = list(csv.DictReader(stat_file.open(), delimiter=";"))
    return int(rows[-1].get(column) or 0) if rows else 0


def print_summary(options: nodes.UpOptions, users_count: int, registered: Outcome, called: Outcome) -> None:
    print(f"demo: {options.nodes} nodes, backend {options.dht}, app {options.app}, front {options.front}, "
          f"authentication on ({users_count} users and a callee, Digest {ALGORITHM}, passwords generated)")
    print(registered.line())
    print(called.line())
    print("demo " + ("passed" if registered.passed and called.passed else "FAILED")
          + f"; users, sipload logs and SIPp statistics in {options.run_dir / 'demo'}")

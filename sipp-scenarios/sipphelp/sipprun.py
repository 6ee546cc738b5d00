"""Shared by the run scripts of sipp-scenarios/ and by bench/: how SIPp is started, with which
ports, and where its trace files go. Standard library only. The verdict of every run is SIPp's
exit code (0: every call passed; 1: at least one failed; 97, 99, 253-255: aborted, nothing done,
fatal)."""
import collections
import os
import random
import socket
import subprocess
from pathlib import Path

# sipp-scenarios/: every scenario is named relative to it (register/register.xml, call/uac.xml, ...)
SCENARIOS = Path(__file__).resolve().parents[1]
SIPP = os.environ.get("SIPP", "sipp")

# By default SIPp ends an aborted call (say, one answered 503) with a BYE. A REGISTER or an OPTIONS
# is no dialog: the server answers that BYE with an error, one more request for each one refused
# (under overload, or from a node still starting).
NO_BYE_ON_ABORT = ["-default_behaviors", "all,-bye"]


def bindable(address: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.bind((address, port))
        except OSError:
            return False
    return True


# Ports this process handed out lately: free until the SIPp given them binds them, so a port
# picked for one SIPp must not be picked again for another started beside it (a bench step with
# two SIPp once failed: "Unable to bind main socket", its SIP port inside the other's media block).
_HANDED_OUT: collections.deque = collections.deque(maxlen=512)


def free_port(address: str, block: int = 1, avoid: int = 0) -> int:
    """The first of `block` consecutive UDP ports free on address now, none of them `avoid` nor one
    this process handed out lately. SIPp left to itself takes 5060 and up (where nodes listen) and
    binds four media ports from -mp (RTP and RTCP, audio and video), so every run is given ports
    from the ephemeral range instead; the media block must miss the SIP port chosen just before it,
    which is free until SIPp binds it (a bench step once failed on a video port equal to its SIP port)."""
    for _ in range(200):
        first = random.randrange(20000, 32000 - block)
        ports = range(first, first + block)
        if avoid in ports or any(p in _HANDED_OUT for p in ports):
            continue
        if all(bindable(address, p) for p in ports):
            _HANDED_OUT.extend(ports)
            return first
    raise RuntimeError(f"no {block} free consecutive UDP ports on {address}")


# SIPp's socket buffers (-buff_size; SIPp's default 64 KiB). A node that resumes after a collector
# pause answers in a burst: at 12,000 REGISTER/s SIPp's default buffer dropped 7,810 of 360,000
# answers, each then retransmitted and timed at 500 ms or more; 2 MiB dropped none. The kernel
# caps it at net.core.rmem_max.
BUFFER_BYTES = 2 * 1024 * 1024


def command(scenario: str, target: str, args: list[str], address: str, port: int = 0,
            timeout_seconds: float = 600) -> list[str]:
    """The SIPp command line for sipp-scenarios/<scenario> against target (host:port)."""
    port = port or free_port(address)
    return [SIPP, "-sf", str(SCENARIOS / scenario), "-nostdin", "-i", address,
            "-p", str(port), "-mp", str(free_port(address, block=4, avoid=port)),
            "-timeout", f"{int(timeout_seconds)}s", "-timeout_error", "-buff_size", str(BUFFER_BYTES),
            *args, target]


def run(scenario: str, target: str, args: list[str], address: str = "127.0.0.1", port: int = 0,
        out: Path | None = None, timeout_seconds: float = 600, quiet: bool = False) -> int:
    """Runs SIPp to the end and returns its exit code. Its files (-trace_* output) land in out
    (created when missing), else in the temporary folder. SIPp's screen is dropped; its error
    lines go to stderr unless quiet."""
    cmd = command(scenario, target, args, address, port, timeout_seconds)
    return subprocess.run(cmd, cwd=_folder(out), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL if quiet else None, timeout=timeout_seconds + 60).returncode


def start(scenario: str, target: str, args: list[str], address: str = "127.0.0.1", port: int = 0,
          out: Path | None = None, timeout_seconds: float = 600) -> subprocess.Popen:
    """Starts SIPp in the background (a UAS); the caller waits on it and reads returncode."""
    cmd = command(scenario, target, args, address, port, timeout_seconds)
    return subprocess.Popen(cmd, cwd=_folder(out), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)


def callee_args(callees: list[str], folder: Path) -> list[str]:
    """The -inf option of call/uac.xml: its callees' user parts, one per call in turn (SIPp's
    SEQUENTIAL injection file, written in folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"callees-{os.getpid()}-{len(callees)}-{abs(hash(tuple(callees))) % 10**8}.csv"
    path.write_text("SEQUENTIAL\n" + "".join(f"{callee};\n" for callee in callees))
    return ["-inf", str(path)]


def _folder(out: Path | None) -> Path:
    folder = out if out is not None else Path(os.environ.get("TMPDIR", "/tmp"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def stats_args(name: str, out: Path | None) -> list[str]:
    """-trace_stat/-trace_rtt options when out is set: <name>.stat.csv (every second) and
    <scenario>_<pid>_rtt.csv in out, for the bench to read rates and response times."""
    if out is None:
        return ["-trace_err", "-error_file", os.devnull]
    return ["-trace_stat", "-stf", str(out / f"{name}.stat.csv"), "-fd", "1",
            "-trace_rtt", "-rtt_freq", "1", "-trace_err", "-error_file", str(out / f"{name}.errors.log")]


def report(name: str, code: int) -> int:
    """Prints a check's verdict line (pass/FAIL with SIPp's exit code); 1 if it failed, to count."""
    print(f"{'pass' if code == 0 else 'FAIL'} {name} (SIPp exit code {code})")
    return 1 if code != 0 else 0


def run_each(folder: str, target: str, names: list[str], domain: str, address: str = "127.0.0.1",
             extra: list[str] | None = None) -> int:
    """Runs folder/NAME.xml once per name (all of the folder's scenarios when names is empty) with
    -key domain and the `extra` arguments, prints each verdict; 0 when all passed, else 1. For
    folders of one-call checks."""
    names = names or sorted(p.stem for p in (SCENARIOS / folder).glob("*.xml"))
    failed = 0
    for name in names:
        # 10 s: covers the UDP retransmissions of a request nobody answers
        code = run(f"{folder}/{name}.xml", target, ["-m", "1", "-key", "domain", domain, *(extra or [])], address,
                   timeout_seconds=10, quiet=True)
        failed += report(name, code)
    return 1 if failed else 0

"""bench/profile: what a node's CPU goes to.

Given a JVM's PID and a duration it reads the process's utime+stime from /proc/PID/stat before
and after (every thread of the process, what the kernel charged it), records a CPU profile and
writes it as collapsed stacks (`frame;frame;frame count`, root first), a flame graph (one SVG file,
drawn here, no script or font from elsewhere) and a text summary of the methods with the most
samples by self and by total.

The profiler is async-profiler's agent from Maven Central (`tools.profiler:async-profiler`, whose
jar carries linux-x64/libasyncProfiler.so; fetched with the project's own Maven settings and
loaded with `jcmd PID JVMTI.agent_load`), else JDK Flight Recorder (`jcmd JFR.start`, then
`jfr print --events jdk.ExecutionSample`). `--event alloc` records allocations instead (bytes).

`load` also drives the load: SIPp's REGISTER scenario (sipp-scenarios/register) at a fixed rate
for a fixed time against one node, distinct AORs, UDP, open loop, and reports CPU ms per REGISTER
answered 200 (SIPp's SuccessfulCall count: the scenario passes on 200 only).
"""
from __future__ import annotations

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def within_repository(text: str) -> str:
    """Paths inside the checkout written relative to its root: a result kept in the repository
    says nothing of the folder one machine held the checkout in."""
    return text.replace(str(REPO) + "/", "")
ASYNC_PROFILER = "tools.profiler:async-profiler:3.0"
TOOLS = REPO / "bench" / ".profiler"
NATIVE = "linux-x64/libasyncProfiler.so"

Stacks = Counter  # collapsed stack (root first, ';'-joined) -> samples (or bytes)


# --- /proc ------------------------------------------------------------------------------------

def parse_stat(text: str) -> tuple[int, int]:
    """utime and stime, in clock ticks, of a /proc/PID/stat line (fields 14 and 15; the command
    in parentheses may hold spaces and parentheses of its own, so fields count from the last ')')."""
    rest = text[text.rindex(")") + 2:].split()
    # rest[0] is field 3 (state): utime is field 14, stime field 15
    return int(rest[11]), int(rest[12])


def cpu_seconds(pid: int, proc: Path = Path("/proc")) -> float:
    """User plus system CPU seconds the process (all its threads) has used so far."""
    utime, stime = parse_stat((proc / str(pid) / "stat").read_text())
    return (utime + stime) / os.sysconf("SC_CLK_TCK")


def thread_ticks(pid: int) -> dict[int, tuple[str, int]]:
    """Each thread of the process: its name (/proc/PID/task/TID/comm) and utime+stime in ticks."""
    out = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            utime, stime = parse_stat((task / "stat").read_text())
        except (FileNotFoundError, ProcessLookupError, ValueError):
            continue   # a thread that ended meanwhile
        out[int(task.name)] = (name, utime + stime)
    return out


def thread_family(name: str) -> str:
    """A thread's name without its number, so a pool's threads add up ("SIP-Thread-12" -> "SIP-Thread-#")."""
    return re.sub(r"\d+", "#", name)


def threads_delta(before: dict[int, tuple[str, int]], after: dict[int, tuple[str, int]],
                  ticks_per_s: float) -> list[tuple[str, int, float]]:
    """CPU seconds per thread family between two readings (threads started in between count from
    zero), with how many threads of it used any, heaviest first."""
    seconds: Counter = Counter()
    threads: Counter = Counter()
    for tid, (name, ticks) in after.items():
        used = ticks - before.get(tid, (name, 0))[1]
        if used > 0:
            seconds[thread_family(name)] += used / ticks_per_s
            threads[thread_family(name)] += 1
    return [(family, threads[family], round(cpu, 3)) for family, cpu in seconds.most_common()]


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


# --- jstat: collections and what was allocated ------------------------------------------------

def parse_jstat_gc(text: str) -> dict[str, float]:
    """`jstat -gc PID` output (a header line and a value line) as a dict: EU, OU (KB), YGC, YGCT, ..."""
    lines = [line.split() for line in text.strip().splitlines() if line.strip()]
    if len(lines) < 2:
        raise ValueError(f"not jstat -gc output: {text!r}")
    return {name: float(value.replace(",", ".")) for name, value in zip(lines[0], lines[-1]) if value != "-"}


def gc_delta(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    """Young and full collections and their seconds between two jstat -gc readings, and the bytes
    allocated in between (young collections x eden capacity + eden's growth: exact with a fixed
    young generation, -Xmn, as the nodes run)."""
    ygc = after.get("YGC", 0) - before.get("YGC", 0)
    allocated_kb = ygc * after.get("EC", 0) + after.get("EU", 0) - before.get("EU", 0)
    return {"young_gcs": ygc, "young_gc_s": round(after.get("YGCT", 0) - before.get("YGCT", 0), 4),
            "full_gcs": after.get("FGC", 0) - before.get("FGC", 0),
            "gc_s": round(after.get("GCT", 0) - before.get("GCT", 0), 4),
            "allocated_mb": round(allocated_kb / 1024, 1)}


def jstat_gc(pid: int) -> dict[str, float] | None:
    jstat = shutil.which("jstat")
    if not jstat:
        return None
    done = subprocess.run([jstat, "-gc", str(pid)], capture_output=True, text=True, timeout=30)
    return parse_jstat_gc(done.stdout) if done.returncode == 0 else None


# --- collapsed stacks -------------------------------------------------------------------------

def parse_collapsed(text: str) -> Stacks:
    """`frame;frame;frame count` lines (async-profiler's collapsed output, or ours) summed per stack."""
    stacks: Stacks = Counter()
    for line in text.splitlines():
        line = line.rstrip()
        if not line:
            continue
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        stacks[stack] += int(count)
    return stacks


def format_collapsed(stacks: Stacks) -> str:
    return "".join(f"{stack} {count}\n" for stack, count in sorted(stacks.items(), key=lambda kv: (-kv[1], kv[0])))


_JFR_FRAME = re.compile(r"^\s+(?P<method>[^\s(]+)\((?P<args>[^)]*)\)(?:\s+line:\s*\d+)?(?:\s+bci:\s*\d+)?")
_SIZE = re.compile(r"^(?P<number>[\d.,]+)\s*(?P<unit>bytes|byte|kB|KB|MB|GB)?$")
_UNITS = {None: 1, "byte": 1, "bytes": 1, "kB": 1024, "KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3}


def parse_size(value: str) -> int:
    """`jfr print`'s sizes ("123 bytes", "15.6 kB", "1.2 MB") in bytes."""
    match = _SIZE.match(value.strip())
    if not match:
        raise ValueError(f"not a size: {value!r}")
    return round(float(match["number"].replace(",", "")) * _UNITS[match["unit"]])


def parse_jfr_print(text: str, weight: str | None = None) -> Stacks:
    """Collapsed stacks from `jfr print --events EVENT --stack-depth N`: one per event, its stack
    trace (printed leaf first) turned root first. Each event counts 1, or with `weight` the size
    in bytes of that field (jdk.ObjectAllocationSample's `weight`). A stack cut at the depth
    (`...`) keeps the frames printed."""
    stacks: Stacks = Counter()
    frames: list[str] = []
    amount = 1
    in_stack = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("jdk.") and stripped.endswith("{"):
            frames, amount, in_stack = [], 1, False
        elif stripped.startswith("stackTrace = ["):
            in_stack = True
        elif in_stack:
            if stripped == "]":
                in_stack = False
            elif stripped != "...":
                match = _JFR_FRAME.match(line)
                if match:
                    frames.append(match["method"])
        elif weight and stripped.startswith(f"{weight} = "):
            amount = parse_size(stripped.split("=", 1)[1])
        elif stripped == "}" and not in_stack:
            if frames:
                stacks[";".join(reversed(frames))] += amount
            frames, amount = [], 1
    return stacks


def self_and_total(stacks: Stacks) -> tuple[Counter, Counter]:
    """Samples per frame: self (the frame was the leaf) and total (on the stack; once per stack
    however often recursion repeats it)."""
    own: Counter = Counter()
    total: Counter = Counter()
    for stack, count in stacks.items():
        frames = stack.split(";")
        own[frames[-1]] += count
        for frame in set(frames):
            total[frame] += count
    return own, total


def strip_frame(frame: str) -> str:
    """A frame without async-profiler's type suffixes (`_[j]` JIT, `_[i]` inlined, `_[k]` kernel, ...)
    and with its class named as JFR names it (`java.lang.Thread.run`, not `java/lang/Thread.run`)."""
    frame = re.sub(r"_\[[a-z0-9]\]$", "", frame)
    frame = re.sub(r"\$\$Lambda\$\d+[./]0x[0-9a-f]+", "$$Lambda", frame)   # a lambda's class differs per JVM run
    return frame if "::" in frame or frame.startswith("[") else frame.replace("/", ".")


def normalise(stacks: Stacks) -> Stacks:
    """Stacks with frame suffixes dropped, so that async-profiler's and JFR's compare."""
    out: Stacks = Counter()
    for stack, count in stacks.items():
        out[";".join(strip_frame(f) for f in stack.split(";"))] += count
    return out


def summary(stacks: Stacks, top: int = 40, unit: str = "samples", scale: float | None = None,
            scale_unit: str = "") -> str:
    """The `top` frames by self and by total, each with its count, share and, with `scale`, the
    count times scale (e.g. CPU ms per REGISTER)."""
    own, total = self_and_total(normalise(stacks))
    whole = sum(stacks.values()) or 1
    lines = [f"{whole} {unit} in {len(stacks)} distinct stacks", ""]
    for title, counter in (("by self", own), ("by total", total)):
        lines.append(f"Top {top} {title}:")
        header = f"{'count':>10} {'share':>7}" + (f" {scale_unit:>12}" if scale else "") + "  frame"
        lines.append(header)
        for frame, count in counter.most_common(top):
            extra = f" {count * scale:12.4f}" if scale else ""
            lines.append(f"{count:>10} {100 * count / whole:6.2f}%{extra}  {frame}")
        lines.append("")
    return "\n".join(lines)


# --- groups: where the samples of a profile belong -----------------------------------------------

@dataclass(frozen=True)
class Group:
    name: str
    pattern: str  # regex searched in one frame (async-profiler's suffixes kept: `_[k]` is a kernel frame)
    inclusive: bool = False  # takes every stack it appears in, with what it calls


# The node's cost centres, for `groups`. A stack goes to the first inclusive group (in this order)
# that any of its frames matches, with everything that frame called: a cost centre such as the
# places scan keeps the BigInteger arithmetic it does. Else it goes to the group of its leaf-most
# frame that a group matches, so a wrapper (TimedDht) gets only its own work; kernel frames (a send,
# a futex wake, a page fault) match none and go to the Java code that entered the kernel.
NODE_GROUPS = [
    Group("gc", r"^(G1|GangWorker|ConcurrentGCThread|ConcurrentMark|WorkerThread::|VM_G1|GCTaskThread)", True),
    Group("jit", r"^(CompileBroker|C2Compiler|C1Compiler|Compile::|Compilation::|PhaseChaitin|Phase[A-Z])", True),
    Group("logging", r"^(java[./]util[./]logging|org[./]apache[./](log4j|juli)|org[./]slf4j)", True),
    Group("metrics/status", r"^org[./]p2psip[./]metrics[./]", True),
    Group("intake ResponseDelay", r"^org[./]p2psip[./]intake[./]ResponseDelay", True),
    Group("intake screen/RequestSyntax", r"^org[./]p2psip[./](intake[./]Screen|lazysip[./])", True),
    Group("auth", r"^org[./]p2psip[./]auth[./]", True),
    Group("places scan", r"^org[./]p2psip[./]dht[./](ring[./]VirtualNodes|chord[./]NodePlaces)[./]", True),
    Group("codecs", r"^org[./]p2psip[./].*(RegisterCodec|PackedRecord|BindingCodec)[./]", True),
    Group("store table (PackedRecords)", r"^org[./]p2psip[./]dht[./]ring[./]store[./]PackedRecords[./]", True),
    Group("TimedDht", r"^org[./]p2psip[./]servlet[./]TimedDht"),
    Group("intake (queue, socket)", r"^org[./]p2psip[./]intake[./]"),
    Group("ring (ids, store, loop)", r"^org[./]p2psip[./]dht[./]ring[./]"),
    Group("chord/overlay", r"^org[./]p2psip[./](dht|overlay)[./]"),
    Group("registrar rules", r"^org[./]p2psip[./]registrar[./]"),
    Group("servlet", r"^org[./]p2psip[./]"),
    Group("netty", r"^io[./]netty[./]"),
    Group("JAIN-SIP parser", r"^gov[./]nist[./](javax[./]sip[./]parser|core)[./]"),
    Group("JAIN-SIP/container", r"^(gov[./]nist|org[./]mobicents|org[./]apache[./]catalina|javax[./]sip)[./]"),
    Group("JVM runtime (safepoints, threads)", r"^(SafepointSynchronize|VMThread|JavaThread::|ObjectMonitor|Unsafe_Park|Parker::)"),
]


def grouped(stacks: Stacks, groups: list[Group]) -> Counter:
    """Samples per group: each stack goes to the first inclusive group any of its frames matches,
    else to the group of its leaf-most frame that a group matches (the first listed, when several
    match that frame), else to "other"."""
    compiled = [(g.name, re.compile(g.pattern)) for g in groups]
    inclusive = [(g.name, re.compile(g.pattern)) for g in groups if g.inclusive]
    out: Counter = Counter()
    for stack, count in stacks.items():
        frames = stack.split(";")
        name = next((n for n, pattern in inclusive if any(pattern.search(f) for f in frames)), None)
        if name is None:
            name = "other"
            for frame in reversed(frames):
                hit = next((n for n, pattern in compiled if pattern.search(frame)), None)
                if hit:
                    name = hit
                    break
        out[name] += count
    return out


def kernel_share(stacks: Stacks) -> float:
    """Share of samples whose leaf is a kernel frame (async-profiler's `_[k]`)."""
    whole = sum(stacks.values()) or 1
    return sum(c for s, c in stacks.items() if s.endswith("_[k]")) / whole


def groups_table(columns: list[tuple[str, Counter, float]]) -> str:
    """Groups as rows, one column per profile (its name, grouped samples, ms per sample per
    REGISTER), and with two profiles the difference of the second and the first."""
    names = sorted({g for _, counter, _ in columns for g in counter},
                   key=lambda g: -max(c.get(g, 0) * scale for _, c, scale in columns))
    header = f"{'group':<36}" + "".join(f"{name[-25:]:>26}" for name, _, _ in columns)
    header += f"{'difference':>12}" if len(columns) == 2 else ""
    lines = [header]
    for g in names + ["total"]:
        values = [sum(c.values()) * s if g == "total" else c.get(g, 0) * s for _, c, s in columns]
        line = f"{g:<36}" + "".join(f"{v:26.4f}" for v in values)
        if len(values) == 2:
            line += f"{values[1] - values[0]:+12.4f}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def compare(a: Stacks, b: Stacks, scale_a: float, scale_b: float, top: int = 30) -> str:
    """Frames by total, of two profiles scaled to a common unit (e.g. CPU ms per REGISTER: samples x
    scale), the largest differences b - a (growth or fall) first."""
    _, ta = self_and_total(normalise(a))
    _, tb = self_and_total(normalise(b))
    rows = [(frame, ta.get(frame, 0) * scale_a, tb.get(frame, 0) * scale_b) for frame in set(ta) | set(tb)]
    rows.sort(key=lambda r: (-round(abs(r[2] - r[1]), 9), r[0]))
    lines = [f"{'a':>10} {'b':>10} {'b - a':>10}  frame (by total)"]
    for frame, va, vb in rows[:top]:
        lines.append(f"{va:10.4f} {vb:10.4f} {vb - va:+10.4f}  {frame}")
    return "\n".join(lines) + "\n"


# --- flame graph --------------------------------------------------------------------------------

@dataclass
class Node:
    name: str
    value: int = 0
    children: dict[str, "Node"] = field(default_factory=dict)


def tree(stacks: Stacks) -> Node:
    root = Node("all")
    for stack, count in stacks.items():
        root.value += count
        node = root
        for frame in stack.split(";"):
            node = node.children.setdefault(frame, Node(frame))
            node.value += count
    return root


def _colour(name: str) -> str:
    """Warm colours, a hue per name (stable across graphs): Java green-ish, native/kernel red-ish."""
    h = sum(ord(c) * (i + 1) for i, c in enumerate(name)) % 1000 / 1000
    if name.endswith("_[k]") or "::" in name or name.startswith(("__", "[")) or "/" not in name and "." not in name:
        return f"rgb({200 + int(55 * h)},{60 + int(60 * h)},{50})"
    return f"rgb({50 + int(60 * h)},{170 + int(60 * h)},{60 + int(40 * h)})"


def flamegraph_svg(stacks: Stacks, title: str = "", width: int = 1600, row: int = 16,
                   min_width: float = 0.3) -> str:
    """One self-contained SVG: frames as boxes, root at the bottom, each box's width its share;
    hovering a box shows its name, count and share (the SVG's own <title>). Boxes narrower than
    `min_width` pixels are left out."""
    root = tree(stacks)
    total = root.value or 1
    boxes: list[tuple[int, float, float, Node]] = []
    depth_max = 0

    def walk(node: Node, depth: int, x: float) -> None:
        nonlocal depth_max
        w = node.value / total * width
        if w < min_width:
            return
        boxes.append((depth, x, w, node))
        depth_max = max(depth_max, depth)
        for child in sorted(node.children.values(), key=lambda n: n.name):
            walk(child, depth + 1, x)
            x += child.value / total * width

    walk(root, 0, 0.0)
    top = 40
    height = top + (depth_max + 1) * row + 10
    out = [f'<?xml version="1.0" encoding="UTF-8"?>',
           f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="11">',
           f'<rect width="100%" height="100%" fill="#fdfdf5"/>',
           f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="15">{html.escape(title)}</text>',
           f'<text x="4" y="34" font-size="10">{total} samples; hover a frame for its name and share</text>']
    for depth, x, w, node in boxes:
        y = height - 10 - (depth + 1) * row
        label = html.escape(node.name)
        share = 100 * node.value / total
        chars = int((w - 4) / 6.6)
        text = label if len(node.name) <= chars else (html.escape(node.name[:max(chars - 2, 0)]) + ".." if chars > 3 else "")
        out.append(f'<g><title>{label} ({node.value} samples, {share:.2f}%)</title>'
                   f'<rect x="{x:.2f}" y="{y}" width="{max(w - 0.5, 0.1):.2f}" height="{row - 1}" '
                   f'fill="{_colour(node.name)}" rx="1"/>'
                   + (f'<text x="{x + 2:.2f}" y="{y + row - 4}">{text}</text>' if text else "") + '</g>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# --- profilers ----------------------------------------------------------------------------------

def jcmd(pid: int, *args: str, timeout: float = 60) -> str:
    done = subprocess.run(["jcmd", str(pid), *args], capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0 or "Exception" in done.stdout:
        raise RuntimeError(f"jcmd {pid} {' '.join(args)}: {done.stdout.strip()} {done.stderr.strip()}")
    return done.stdout


def async_profiler_library() -> Path | None:
    """libasyncProfiler.so for linux-x64, taken from the Maven Central jar (fetched through the
    project's Maven settings when missing) into bench/.profiler/; None when it cannot be had."""
    lib = TOOLS / "libasyncProfiler.so"
    if lib.exists():
        return lib
    TOOLS.mkdir(parents=True, exist_ok=True)
    jars = list(TOOLS.glob("async-profiler-*.jar"))
    if not jars and shutil.which("mvn"):
        subprocess.run(["mvn", "-q", "dependency:copy", f"-Dartifact={ASYNC_PROFILER}",
                        f"-DoutputDirectory={TOOLS}"], cwd=REPO, capture_output=True, timeout=600)
        jars = list(TOOLS.glob("async-profiler-*.jar"))
    if not jars:
        return None
    with zipfile.ZipFile(jars[0]) as jar:
        if NATIVE not in jar.namelist():
            return None
        lib.write_bytes(jar.read(NATIVE))
    return lib


class AsyncProfiler:
    name = "async-profiler"

    def __init__(self, pid: int, lib: Path, event: str, interval_ns: int, threads: bool = False) -> None:
        self.pid, self.lib, self.event, self.interval, self.threads = pid, lib, event, interval_ns, threads

    def _load(self, options: str) -> None:
        """The agent's command, through jcmd: quoted, since jcmd would split `key=value` pairs;
        the agent answers with its return code (0: done; its errors go to the JVM's stdout)."""
        out = jcmd(self.pid, "JVMTI.agent_load", str(self.lib), f'"{options}"')
        if "return code: 0" not in out:
            raise RuntimeError(f"async-profiler refused {options!r}: {out.strip()} (see the JVM's console log)")

    def start(self) -> None:
        options = f"start,event={self.event}" + (f",interval={self.interval}" if self.event != "alloc" else "")
        self._load(options + (",threads" if self.threads else ""))

    def stop(self, folder: Path) -> Stacks:
        raw = folder / "profile.raw.collapsed"
        self._load(f"stop,file={raw},collapsed" + (",total" if self.event == "alloc" else ""))
        stacks = parse_collapsed(raw.read_text())
        raw.unlink()
        return stacks


class FlightRecorder:
    name = "jfr"

    def __init__(self, pid: int, event: str) -> None:
        self.pid, self.event = pid, event
        self.recording = f"benchprofile{os.getpid()}"

    def start(self) -> None:
        jcmd(self.pid, "JFR.start", f"name={self.recording}", "settings=profile")

    def stop(self, folder: Path) -> Stacks:
        path = folder / "profile.jfr"
        jcmd(self.pid, "JFR.stop", f"name={self.recording}", f"filename={path}")
        for _ in range(50):
            if path.exists() and path.stat().st_size > 0:
                break
            time.sleep(0.1)
        event, weight = (("jdk.ObjectAllocationSample", "weight") if self.event == "alloc"
                         else ("jdk.ExecutionSample", None))
        printed = subprocess.run(["jfr", "print", "--events", event, "--stack-depth", "64", str(path)],
                                 capture_output=True, text=True, timeout=600).stdout
        if path.stat().st_size > 2 * 1024 * 1024:
            path.unlink()   # results stay small: the collapsed stacks carry what the binary did
        return parse_jfr_print(printed, weight)


def profiler(pid: int, choice: str, event: str, interval_ns: int, threads: bool = False):
    if choice in ("auto", "async"):
        lib = async_profiler_library()
        if lib:
            return AsyncProfiler(pid, lib, event, interval_ns, threads)
        if choice == "async":
            raise RuntimeError(f"async-profiler unavailable: {ASYNC_PROFILER} could not be fetched")
    return FlightRecorder(pid, "alloc" if event == "alloc" else "cpu")


# --- one measurement --------------------------------------------------------------------------

@dataclass
class Measured:
    pid: int
    seconds: float
    cpu_s: float
    load_before: list[float]
    load_after: list[float]
    profiler: str = ""
    event: str = ""
    samples: int = 0
    gc: dict | None = None
    threads: list = field(default_factory=list)
    response_times: dict = field(default_factory=dict)
    registers_200: int = 0
    offered: int = 0
    rate: int = 0
    cpu_ms_per_register: float | None = None
    idle_cpu_s_per_s: float | None = None
    command: list[str] = field(default_factory=list)


def write_profile(folder: Path, stacks: Stacks, title: str, scale: float | None = None,
                  scale_unit: str = "", unit: str = "samples") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "profile.collapsed").write_text(format_collapsed(stacks))
    (folder / "flamegraph.svg").write_text(flamegraph_svg(normalise(stacks), title))
    (folder / "summary.txt").write_text(summary(stacks, unit=unit, scale=scale, scale_unit=scale_unit))


def record(pid: int, seconds: float, folder: Path, choice: str = "auto", event: str = "cpu",
           interval_ns: int = 1_000_000, during=None, threads: bool = False) -> tuple[Measured, Stacks]:
    """CPU seconds of `pid` over `seconds` (or over `during()`, a callable that returns once the
    load is done), with a profile recorded alongside when `choice` is not "none"."""
    folder.mkdir(parents=True, exist_ok=True)
    prof = None if choice == "none" else profiler(pid, choice, event, interval_ns, threads)
    load_before = load_average()
    gc_before = jstat_gc(pid)
    if prof:
        prof.start()
    threads_before, cpu_before, t0 = thread_ticks(pid), cpu_seconds(pid), time.monotonic()
    during() if during else time.sleep(seconds)
    cpu_after, t1, threads_after = cpu_seconds(pid), time.monotonic(), thread_ticks(pid)
    stacks = prof.stop(folder) if prof else Counter()
    gc_after = jstat_gc(pid)
    measured = Measured(pid=pid, seconds=round(t1 - t0, 3), cpu_s=round(cpu_after - cpu_before, 3),
                        load_before=load_before, load_after=load_average(),
                        profiler=prof.name if prof else "none", event=event, samples=sum(stacks.values()),
                        gc=gc_delta(gc_before, gc_after) if gc_before and gc_after else None,
                        threads=threads_delta(threads_before, threads_after, os.sysconf("SC_CLK_TCK")))
    return measured, stacks


# SIPp's own SIP port and media block: from a range of their own, away from 5060-5090 and from
# 25000-26999, where other deployments on a shared machine listen
SIPP_PORTS = range(31000, 31990)


def sipp_ports(local: str, ports: range = SIPP_PORTS) -> tuple[int, int]:
    """A free SIP port and, after it, a free block of four media ports, both in `ports`."""
    from sipphelp import sipprun
    import random
    for _ in range(200):
        first = random.randrange(ports.start, ports.stop - 5)
        if all(sipprun.bindable(local, p) for p in range(first, first + 5)):
            return first, first + 1
    raise RuntimeError(f"no 5 free consecutive UDP ports in {ports} on {local}")


def sipp_register_command(target: str, local: str, rate: int, count: int, users: Path, folder: Path,
                          seconds: float) -> list[str]:
    """The bench's SIPp REGISTER step (bench/sipbench/sipp.py): open loop at `rate`, `count` calls,
    a call limit far above what the rate needs, statistics every second, UDP on one socket."""
    from sipphelp import registering, sipprun
    port, media = sipp_ports(local)
    command = sipprun.command("register/register.xml", target,
                              ["-t", "u1", "-recv_timeout", "8000", "-max_retrans", "5"], local,
                              port=port, timeout_seconds=seconds + 60)
    command[command.index("-mp") + 1] = str(media)
    return command + [
        "-r", str(rate), "-rp", "1000", "-m", str(count), "-l", str(max(1000, rate * 40)),
        *sipprun.stats_args("sipp", folder), "-inf", str(users), "-key", "expires", "3600",
        *registering.NO_BYE_ON_ABORT]


def tidy(folder: Path, keep_lines: int = 100) -> dict:
    """Keeps a run's folder small: SIPp's response times (a line per REGISTER) become their p50 and
    p99 in ms, returned, and its error log keeps its first `keep_lines` lines and a count of the rest."""
    from sipbench import stats
    times = [t for path in folder.glob("*_rtt.csv") for t in stats.read_response_times(path)]
    for path in folder.glob("*_rtt.csv"):
        path.unlink()
    errors = folder / "sipp.errors.log"
    if errors.exists():
        with open(errors, encoding="latin-1") as log:
            lines = log.readlines()
        if len(lines) > keep_lines:
            errors.write_text("".join(lines[:keep_lines]) + f"... {len(lines) - keep_lines} more lines cut\n",
                              encoding="latin-1")
    if not times:
        return {}
    return {"p50_ms": stats.percentile(times, 50), "p99_ms": stats.percentile(times, 99), "timed": len(times)}


def successful(stat_csv: Path) -> int:
    """REGISTERs answered 200: SIPp's SuccessfulCall(C) in the last row of its statistics."""
    from sipbench import stats
    return stats.final_counts(stat_csv).successful


def load_run(pid: int, target: str, rate: int, seconds: float, folder: Path, choice: str, event: str,
             interval_ns: int, local: str = "127.0.0.1", idle_s: float = 5.0,
             threads: bool = False) -> tuple[Measured, Stacks]:
    """Idle CPU of the node for `idle_s`, then a REGISTER load of rate x seconds distinct AORs with
    the node's CPU (and a profile) taken from SIPp's start until it ended."""
    from sipphelp import registering
    folder = folder.resolve()   # SIPp runs in it: its file options must not be relative to here
    folder.mkdir(parents=True, exist_ok=True)
    idle = 0.0
    if idle_s > 0:
        c0 = cpu_seconds(pid)
        time.sleep(idle_s)
        idle = (cpu_seconds(pid) - c0) / idle_s
    count = int(rate * seconds)
    prefix = "p" + format(int(time.time() * 10) % 36 ** 5, "x")   # AORs never sent before
    users = registering.write_users(folder / "users.csv", count, "p2psip.test", prefix=prefix)
    command = sipp_register_command(target, local, rate, count, users, folder, seconds)

    def during() -> None:
        with open(folder / "sipp.log", "w") as log:
            done = subprocess.run(command, cwd=folder, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=log, timeout=seconds + 120)
        if done.returncode not in (0, 1):   # 1: some calls failed, still counted
            raise RuntimeError(f"SIPp exit code {done.returncode}: {(folder / 'sipp.log').read_text()[-500:]}")

    measured, stacks = record(pid, seconds, folder, choice, event, interval_ns, during, threads)
    (folder / "users.csv").unlink()
    ok = successful(folder / "sipp.stat.csv")
    measured.registers_200, measured.offered, measured.rate = ok, count, rate
    measured.idle_cpu_s_per_s = round(idle, 4)
    measured.response_times = tidy(folder)
    measured.cpu_ms_per_register = round(1000 * measured.cpu_s / ok, 4) if ok else None
    measured.command = command
    return measured, stacks


# --- command line -------------------------------------------------------------------------------

def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="bench/profile", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="mode", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--pid", type=int, required=True, help="the JVM to measure (a node's PID, `deploy/p2psip status`)")
    common.add_argument("--out", type=Path, required=True, help="folder of the results")
    common.add_argument("--profiler", choices=["auto", "async", "jfr", "none"], default="auto",
                        help="auto: async-profiler, else JFR; none: CPU seconds only")
    common.add_argument("--event", choices=["cpu", "itimer", "wall", "alloc"], default="cpu",
                        help="async-profiler's event (alloc: bytes allocated; JFR: alloc is jdk.ObjectAllocationSample)")
    common.add_argument("--interval-us", type=int, default=1000, help="CPU sampling interval (async-profiler)")
    common.add_argument("--label", default="", help="title of the flame graph")
    common.add_argument("--threads", action="store_true", help="each stack under its thread's name (async-profiler)")
    pid = sub.add_parser("pid", parents=[common], help="CPU and profile of a running process over --seconds")
    pid.add_argument("--seconds", type=float, default=20)
    load = sub.add_parser("load", parents=[common], help="drive REGISTERs with SIPp and report CPU ms per 200")
    load.add_argument("--target", required=True, help="node's SIP address, HOST:PORT")
    load.add_argument("--local", default="127.0.0.1", help="address SIPp binds")
    load.add_argument("--rate", type=int, default=2000, help="REGISTER/s offered")
    load.add_argument("--seconds", type=float, default=20, help="how long the load lasts")
    load.add_argument("--idle-seconds", type=float, default=5, help="idle CPU measured before the load")
    cmp_ = sub.add_parser("compare", help="two load results' frames by total, in CPU ms per REGISTER")
    cmp_.add_argument("a", type=Path)
    cmp_.add_argument("b", type=Path)
    cmp_.add_argument("--top", type=int, default=40)
    grp = sub.add_parser("groups", help="load results' CPU ms per REGISTER by the node's cost centres")
    grp.add_argument("results", type=Path, nargs="+", help="folders of `load` results (cpu.json, profile.collapsed)")
    tab = sub.add_parser("table", help="load results side by side, a Markdown table")
    tab.add_argument("results", type=Path, nargs="+", help="folders of `load` results (cpu.json)")
    return p


def table_row(name: str, measured: dict) -> str:
    """One `load` result as a Markdown table row: CPU ms per REGISTER, the 200s of the REGISTERs
    offered, allocation per REGISTER, young collections, the busiest thread and the load average."""
    ok = measured.get("registers_200") or 0
    gc = measured.get("gc") or {}
    alloc = f"{1024 * gc['allocated_mb'] / ok:.0f}" if ok and "allocated_mb" in gc else ""
    busiest = measured.get("threads") or []
    top = f"{busiest[0][0]} {1000 * busiest[0][2] / ok:.3f}" if busiest and ok else ""
    # the ring's loop: one Netty event loop thread, which every DHT operation of a Chord node crosses
    loop = next((f"{1000 * cpu / ok:.3f}" for family, _, cpu in busiest if family.startswith(LOOP_THREAD)), "")
    load = f"{measured['load_before'][0]} / {measured['load_after'][0]}"
    return (f"| {name} | {measured.get('rate')} | {measured.get('cpu_ms_per_register')} | {ok}/{measured.get('offered')} "
            f"| {alloc} | {gc.get('young_gcs', '')} | {top} | {loop} | {measured.get('profiler')} | {load} |")


LOOP_THREAD = "nioEventLoopGro"   # /proc's comm: the first 15 characters of the thread's name


TABLE_HEADER = ("| run | REGISTER/s | CPU ms/REGISTER | 200s/offered | KB allocated/REGISTER | young GCs "
                "| busiest thread, CPU ms/REGISTER | ring loop thread, CPU ms/REGISTER | profiler "
                "| load average 1 min before / after |\n"
                "|---|---|---|---|---|---|---|---|---|---|")


def per_register_scale(measured: dict) -> float | None:
    """CPU ms per REGISTER that one sample stands for: the measured CPU spread over the samples."""
    if not measured.get("samples") or not measured.get("registers_200"):
        return None
    return 1000 * measured["cpu_s"] / measured["samples"] / measured["registers_200"]


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if getattr(args, "out", None):
        args.out = args.out.resolve()
    if args.mode == "compare":
        a, b = (json.loads((f / "cpu.json").read_text()) for f in (args.a, args.b))
        sa, sb = (parse_collapsed((f / "profile.collapsed").read_text()) for f in (args.a, args.b))
        print(f"a: {args.a} ({a.get('cpu_ms_per_register')} CPU ms/REGISTER)\nb: {args.b} "
              f"({b.get('cpu_ms_per_register')} CPU ms/REGISTER)\nunit: CPU ms per REGISTER")
        print(compare(sa, sb, per_register_scale(a) or 0, per_register_scale(b) or 0, args.top))
        return 0
    if args.mode == "table":
        print(TABLE_HEADER)
        for folder in args.results:
            print(table_row(folder.name, json.loads((folder / "cpu.json").read_text())))
        return 0
    if args.mode == "groups":
        columns = []
        for folder in args.results:
            data = json.loads((folder / "cpu.json").read_text())
            stacks = parse_collapsed((folder / "profile.collapsed").read_text())
            columns.append((folder.name, grouped(stacks, NODE_GROUPS), per_register_scale(data) or 0))
            print(f"{folder.name}: {data.get('cpu_ms_per_register')} CPU ms/REGISTER, {data.get('samples')} samples, "
                  f"{100 * kernel_share(stacks):.1f}% of them in the kernel")
        print("CPU ms per REGISTER by cost centre (bench/sipbench/profile.py, NODE_GROUPS)")
        print(groups_table(columns))
        return 0
    command = [sys.argv[0], *(argv if argv is not None else sys.argv[1:])]
    if args.mode == "pid":
        measured, stacks = record(args.pid, args.seconds, args.out, args.profiler, args.event,
                                  args.interval_us * 1000, threads=args.threads)
        measured.command = command
    else:
        measured, stacks = load_run(args.pid, args.target, args.rate, args.seconds, args.out, args.profiler,
                                    args.event, args.interval_us * 1000, args.local, args.idle_seconds,
                                    args.threads)
        measured.command = [*command, "&&", *measured.command]
    data = asdict(measured)
    (args.out / "cpu.json").write_text(within_repository(json.dumps(data, indent=1)) + "\n")
    if stacks:
        scale = per_register_scale(data) if args.event != "alloc" else (
            1 / measured.registers_200 if measured.registers_200 else None)
        write_profile(args.out, stacks, args.label or f"pid {args.pid} {args.event}",
                      scale=scale, scale_unit="bytes/REG" if args.event == "alloc" else "ms/REG",
                      unit="bytes" if args.event == "alloc" else "samples")
    line = f"cpu {measured.cpu_s:.3f} s in {measured.seconds:.1f} s, load {measured.load_before} -> {measured.load_after}"
    if args.mode == "load":
        line += (f"; {measured.registers_200} of {measured.offered} REGISTERs answered 200: "
                 f"{measured.cpu_ms_per_register} CPU ms per REGISTER (idle {measured.idle_cpu_s_per_s} CPU s/s)")
    if measured.gc:
        line += f"; gc {measured.gc}"
    print(line)
    busiest = ", ".join(f"{family} x{n} {cpu:.2f} s" for family, n, cpu in measured.threads[:6])
    print(f"busiest threads (CPU s over {measured.seconds:.1f} s): {busiest}")
    return 0

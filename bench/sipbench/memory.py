"""Memory of processes by PID: resident memory from /proc, VmRSS of /proc/PID/status and Pss of
/proc/PID/smaps_rollup (a page shared by several processes counted once over all of them, so that
the sum over Kamailio's processes does not count its shared memory once per process); and a JVM's
heap in use right after a full collection, through the JDK's jcmd (GC.run, then GC.heap_info).

Stateless functions; safe from any thread.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

PROC = Path("/proc")


def _field_kib(path: Path, name: str) -> int:
    """A `Name:   123 kB` field of a /proc file, in KiB; 0 when the file or field is missing."""
    try:
        for line in path.read_text().splitlines():
            if line.startswith(name + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def rss_kib(pid: int, proc: Path = PROC) -> int:
    return _field_kib(proc / str(pid) / "status", "VmRSS")


def pss_kib(pid: int, proc: Path = PROC) -> int:
    return _field_kib(proc / str(pid) / "smaps_rollup", "Pss")


def children(pid: int, proc: Path = PROC) -> list[int]:
    """Every descendant of `pid` (Kamailio's workers are its main process's children), by the parent
    PID in each /proc/N/stat."""
    parents: dict[int, list[int]] = {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue   # ended meanwhile
        parent = int(stat[stat.rindex(")") + 2:].split()[1])
        parents.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in sorted(parents.get(todo.pop(0), [])):
            found.append(child)
            todo.append(child)
    return found


_HEAP_USED = re.compile(r"heap\s+total\s+\d+K,\s+used\s+(\d+)K")
JCMD_TIMEOUT_S = 120


def heap_used_kib(heap_info: str) -> int | None:
    """The heap in use, in KiB, from jcmd's GC.heap_info (`garbage-first heap total 1048576K, used 27976K`)."""
    found = _HEAP_USED.search(heap_info)
    return int(found.group(1)) if found else None


def heap_after_full_gc_kib(pid: int) -> int | None:
    """A JVM's heap in use right after a full collection (jcmd PID GC.run, then GC.heap_info): what the
    live objects hold. None without jcmd or when the JVM does not answer."""
    jcmd = shutil.which("jcmd")
    if jcmd is None:
        return None
    try:
        if subprocess.run([jcmd, str(pid), "GC.run"], capture_output=True, timeout=JCMD_TIMEOUT_S).returncode != 0:
            return None
        info = subprocess.run([jcmd, str(pid), "GC.heap_info"], capture_output=True, text=True, timeout=JCMD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None
    return heap_used_kib(info.stdout) if info.returncode == 0 else None

"""Resident memory of processes by PID, from /proc: VmRSS of /proc/PID/status and Pss of
/proc/PID/smaps_rollup (a page shared by several processes counted once over all of them, so that
the sum over Kamailio's processes does not count its shared memory once per process).

Stateless functions; safe from any thread.
"""
from __future__ import annotations

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

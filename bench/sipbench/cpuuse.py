"""CPU seconds of a deployment's processes over each step of a rate search (the scale experiment's CPU
per REGISTER): utime+stime of /proc/PID/stat (profile.py's reader: every thread of the process, what the
kernel charged it) read before and after every step, so that whichever step the search keeps, its
confirmation or its best step, has the CPU it took. A process that ended or restarted in between has no
figure, and the step then has none either.

One meter per search, used from the thread that runs it.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import profile

PROC = Path("/proc")


@dataclass(frozen=True)
class Use:
    """The CPU one step took, summed over the processes, and those that could not be read across it."""
    seconds: float
    missing: tuple[str, ...] = ()


class CpuMeter:
    def __init__(self, processes: list[tuple[str, int]], proc: Path = PROC) -> None:
        self.processes = processes   # (name, PID): deploy/p2psip's records, node-N and front-N
        self.proc = proc
        self.steps: list[Use] = []   # one per step, in the order measured

    def read(self) -> dict[str, float | None]:
        """Each process's CPU seconds so far; None for one that is gone."""
        readings = {}
        for name, pid in self.processes:
            try:
                readings[name] = profile.cpu_seconds(pid, self.proc)
            except (OSError, ValueError, IndexError):
                readings[name] = None
        return readings

    def add(self, before: dict[str, float | None], after: dict[str, float | None]) -> Use:
        """The use of the step between two readings, kept as the next step's."""
        missing = tuple(name for name in before if before[name] is None or after.get(name) is None
                        or after[name] < before[name])
        use = Use(sum(after[name] - before[name] for name in before if name not in missing), missing)
        self.steps.append(use)
        return use

    def of(self, index: int) -> Use:
        return self.steps[index]


def ms_per_request(use: Use, answered: int) -> float | None:
    """CPU ms per request answered: None when nothing was answered or a process could not be read."""
    if answered <= 0 or use.missing:
        return None
    return use.seconds * 1000 / answered

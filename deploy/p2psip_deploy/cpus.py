"""`up --cpus SPEC`: which CPUs the front and the nodes may run on, through `taskset -c` (Debian's
util-linux), so that a measurement can give each role cores of its own. SPEC names roles and CPU
lists as taskset takes them: `front=0,nodes=1`, `front=0,nodes=1-3`, `nodes=0,1` (an item without
`=` continues the list of the role before it). Everything is checked before anything starts: the
roles, the lists' syntax, and that each CPU is one this process may run on (os.sched_getaffinity).

Pure functions apart from the look-ups of taskset and the CPUs; safe to share."""
from __future__ import annotations

import os
import re
import shutil

FRONT = "front"
NODES = "nodes"
ROLES = (FRONT, NODES)
TASKSET = "taskset"
_RANGE = re.compile(r"(\d+)(?:-(\d+))?")


class CpusError(ValueError):
    pass


def available() -> set[int]:
    """The CPUs this process may run on (those its children may be pinned to)."""
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return set(range(os.cpu_count() or 1))


def parse(spec: str, cpus: set[int] | None = None) -> dict[str, str]:
    """SPEC -> {role: CPU list as taskset -c takes it}; CpusError saying what is wrong. `cpus`: the
    CPUs that exist here (default: available())."""
    cpus = available() if cpus is None else cpus
    if not spec.strip():
        raise CpusError("--cpus names no role; e.g. front=0,nodes=1")
    lists: dict[str, list[str]] = {}
    role = None
    for item in (part.strip() for part in spec.split(",")):
        if "=" in item:
            role, _, item = (s.strip() for s in item.partition("="))
            if role not in ROLES:
                raise CpusError(f"unknown role {role!r} in --cpus {spec}; roles: {', '.join(ROLES)}")
            if role in lists:
                raise CpusError(f"role {role} twice in --cpus {spec}")
            lists[role] = []
        elif role is None:
            raise CpusError(f"--cpus {spec}: each CPU list follows a role, as in front=0,nodes=1")
        lists[role].append(item)
    for role, items in lists.items():
        missing = _cpus_of(role, items, spec) - cpus
        if missing:
            raise CpusError(f"--cpus {role}={','.join(items)}: CPU {describe(missing)} is not one this machine "
                            f"lets us run on (available: {describe(cpus)})")
    return {role: ",".join(items) for role, items in lists.items()}


def count(cpu_list: str) -> int:
    """How many CPUs a list of taskset -c's syntax names (one of parse()'s values)."""
    return len(_cpus_of("list", cpu_list.split(","), cpu_list))


def _cpus_of(role: str, items: list[str], spec: str) -> set[int]:
    found = set()
    for item in items:
        match = _RANGE.fullmatch(item)
        if not match:
            raise CpusError(f"--cpus {spec}: {role} has {item!r}, not a CPU (2) or a range (0-1)")
        first, last = int(match.group(1)), int(match.group(2) or match.group(1))
        if last < first:
            raise CpusError(f"--cpus {spec}: range {item} runs backwards")
        found |= set(range(first, last + 1))
    return found


def describe(cpus: set[int]) -> str:
    """{0, 1, 2, 5} -> '0-2,5'."""
    parts, ordered = [], sorted(cpus)
    start = prev = None
    for cpu in ordered + [None]:
        if cpu is not None and prev is not None and cpu == prev + 1:
            prev = cpu
            continue
        if start is not None:
            parts.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = cpu
    return ",".join(parts) or "none"


def text(pinning: dict[str, str]) -> str:
    """{'front': '0', 'nodes': '1'} -> 'front=0,nodes=1' (SPEC again, roles in their order)."""
    return ",".join(f"{role}={pinning[role]}" for role in ROLES if role in pinning)


def require_taskset() -> None:
    if shutil.which(TASKSET) is None:
        raise CpusError("--cpus pins processes with taskset, which is missing: apt-get install util-linux")


def pinned(cpu_list: str, command: list[str]) -> list[str]:
    """`command` run on the CPUs of `cpu_list` ("" leaves it as it is). taskset execs the command in
    place, so the PID recorded is still the command's own (as `ip netns exec` does)."""
    return [TASKSET, "-c", cpu_list, *command] if cpu_list else list(command)

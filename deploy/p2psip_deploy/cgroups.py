"""Groups of the cgroup v1 cpu controller (/sys/fs/cgroup/cpu): a group whose
`cpu.cfs_quota_us` is a fraction of its `cpu.cfs_period_us` lets its processes use that fraction of
one core, however many cores the machine has. Two users:
- `up --cpu-quota Q` (and `cpus=Q` on a netns line of `--hosts`): each node's JVM, or each host's
  nodes together, in a group of its own with Q cores, so that one machine stands for several small
  hosts. The groups are children of the group `up` itself runs in (a quota never grants more than
  the caller has), under one group per deployment, `p2psip-ID` (ID: netns.identity of the run
  folder); they are recorded in <run dir>/cgroups.json before they are made, so that `down`
  removes them, and only them, even after a failed `up`. A node enters its group through a shell
  that writes its own PID into the group's `cgroup.procs` and then execs the JVM (`entered`), so
  the PID stays the JVM's and the node's command.json carries the group to `restart`. It enters the
  group before its network namespace: `ip netns exec` mounts a /sys of the namespace's own, in which
  /sys/fs/cgroup is empty.
- the fault run's starve (faults.py): a node moved into a child of its own group with a few
  percent of a core, then back.

Functions of paths given to them; nothing is shared between calls."""
from __future__ import annotations

import json
import os
from pathlib import Path

from . import netns

CPU_CGROUP = Path("/sys/fs/cgroup/cpu")
# The kernel's period, 100 ms, for every quota. At 0.2 cores a node then runs 20 ms and stands
# still 80 ms, and a peer waiting on it waits with it (one chord node of 0.2 cores passed 525
# REGISTER/s within p99 100 ms, two 143, four 231); shorter periods are worse for a JVM, whose
# collector and compiler need their CPU in bursts (one node alone passed 118 at 25 ms, 60 at 10 ms).
CFS_PERIOD_US = 100_000
MIN_QUOTA_US = 1_000          # the kernel refuses a smaller cpu.cfs_quota_us
STATE_FILE = "cgroups.json"
PREFIX = "p2psip-"
PROCS = "cgroup.procs"


class CgroupError(Exception):
    pass


def group_of(pid: int, text: str | None = None) -> str:
    """The process's group in the cgroup v1 cpu controller, from /proc/PID/cgroup."""
    text = Path(f"/proc/{pid}/cgroup").read_text() if text is None else text
    for line in text.splitlines():
        _, controllers, path = line.split(":", 2)
        if "cpu" in controllers.split(","):
            return path
    raise CgroupError(f"process {pid} is in no group of the cgroup v1 cpu controller")


def own_group() -> str:
    """The group this process runs in: where the groups it makes go."""
    return group_of(os.getpid())


def unavailable(root: Path | None = None) -> str:
    """Why groups cannot be made here (the controller missing, or this process may not write it), or ""."""
    root = CPU_CGROUP if root is None else root
    if not (root / PROCS).is_file():
        return f"no cgroup v1 cpu controller at {root}"
    try:
        home = root / own_group().lstrip("/")
    except (CgroupError, OSError) as e:
        return str(e)
    if not os.access(home, os.W_OK):
        return f"{home} is not writable (making a group there needs root)"
    return ""


def quota_us(cores: float) -> int:
    """cpu.cfs_quota_us for `cores` cores (a fraction of one, or several) per CFS_PERIOD_US."""
    return round(cores * CFS_PERIOD_US)


def check_quota(cores: float, where: str) -> None:
    """CgroupError when `cores` is no quota the kernel takes (above 0, at least MIN_QUOTA_US a period)."""
    if quota_us(cores) < MIN_QUOTA_US:
        raise CgroupError(f"{where} {cores:g}: a quota is at least {MIN_QUOTA_US / CFS_PERIOD_US:g} cores")


def make(group: Path, cores: float) -> None:
    """The group, made when missing, with `cores` cores; CgroupError when the kernel refuses them."""
    try:
        group.mkdir(exist_ok=True)
        (group / "cpu.cfs_period_us").write_text(str(CFS_PERIOD_US))
        (group / "cpu.cfs_quota_us").write_text(str(quota_us(cores)))
    except OSError as e:
        # v1 refuses a quota above the quota of a group above it (EINVAL)
        raise CgroupError(f"cannot give {group} {cores:g} cores: {e.strerror} (is it more than a group above "
                          "it has?)") from e


def move(group: Path, pid: int) -> None:
    """Moves the process, every thread of it (v1's cgroup.procs), into the group."""
    (group / PROCS).write_text(str(pid))


def remove_group(group: Path) -> None:
    """Removes an empty group: the kernel takes its interface files with it (EBUSY while a process or
    a child group is in it)."""
    group.rmdir()


def entered(group: Path, command: list[str]) -> list[str]:
    """`command` run inside the group: a shell writes its own PID into the group, then execs the
    command in place, so the PID recorded is still the command's (as `ip netns exec` and taskset do)."""
    return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(group / PROCS), *command]


def deployment_group(run_dir: Path, root: Path | None = None) -> Path:
    """The group of the deployment in run_dir, beneath the group this process runs in."""
    root = CPU_CGROUP if root is None else root
    return root / own_group().lstrip("/") / f"{PREFIX}{netns.identity(run_dir)}"


def create(run_dir: Path, quotas: dict[str, float], root: Path | None = None) -> dict[str, Path]:
    """The deployment's group and a child per name with its quota, recorded in run_dir before any is
    made; name -> the child's path."""
    parent = deployment_group(run_dir, root)
    groups = {name: parent / name for name in quotas}
    save(run_dir, [parent, *groups.values()])
    parent.mkdir(exist_ok=True)
    for name, cores in quotas.items():
        make(groups[name], cores)
    return groups


def save(run_dir: Path, groups: list[Path]) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / STATE_FILE).write_text(json.dumps({"groups": [str(g) for g in groups]}, indent=2) + "\n")


def recorded(run_dir: Path) -> list[Path]:
    path = run_dir / STATE_FILE
    if not path.is_file():
        return []
    return [Path(g) for g in json.loads(path.read_text())["groups"]]


def remove(run_dir: Path) -> list[str]:
    """Removes the recorded groups, children before their parent; forgets them once all are gone.
    Returns what could not be removed (a group a process still runs in), with why."""
    left = []
    for group in sorted(recorded(run_dir), key=lambda g: len(g.parts), reverse=True):
        if not group.exists():
            continue
        try:
            remove_group(group)
        except OSError as e:
            left.append(f"cgroup {group} ({e.strerror})")
    if not left:
        (run_dir / STATE_FILE).unlink(missing_ok=True)
    return left

"""A description of the machine a run was measured on, for the report. Read-only, thread-safe."""
from __future__ import annotations

import os
import platform
import subprocess

from . import tools


def describe() -> dict[str, str]:
    return {
        "cores (nproc)": str(os.cpu_count()),
        "memory": _memory(),
        "CPU": _cpu(),
        "kernel": platform.release(),
        "JDK": _java(),
        "SIPp": tools.version("sipp"),
        "Kamailio": tools.version("kamailio"),
        "Python": platform.python_version(),
        "load average at start": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


def _memory() -> str:
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return "unknown"


def _cpu() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _java() -> str:
    try:
        out = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=20)
        return out.stderr.strip().splitlines()[0]
    except (OSError, subprocess.TimeoutExpired, IndexError):
        return "not found"

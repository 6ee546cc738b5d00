"""The external programs the bench needs, installed from Debian when missing and possible.

Each is looked up on PATH; when absent and we are root on Debian, `apt-get install` is tried
once; otherwise the bench stops with a message naming the package. Not thread-safe.
"""
from __future__ import annotations

import os
import shutil
import subprocess

from .procs import BenchError

# program -> (Debian package, what it is for)
PROGRAMS = {
    "sipp": ("sip-tester", "the SIP load generator"),
    "kamailio": ("kamailio", "the peer reference (in-memory registrar and proxy)"),
    "kamcmd": ("kamailio", "Kamailio's control client (the capacity experiment reads its shared memory)"),
}


def require(program: str, install: bool = True) -> str:
    path = shutil.which(program) or _in_sbin(program)
    if path:
        return path
    package, purpose = PROGRAMS[program]
    if install and _can_apt():
        print(f"{program} ({purpose}) is missing: installing Debian package {package}", flush=True)
        subprocess.run(["apt-get", "update", "-qq"], check=False)
        done = subprocess.run(["apt-get", "install", "-y", "-qq", package], check=False,
                              env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        path = shutil.which(program) or _in_sbin(program)
        if done.returncode == 0 and path:
            return path
    raise BenchError(f"{program} ({purpose}) is not installed; get it with "
                     f"`apt-get install {package}` (Debian) and run the bench again")


def version(program: str) -> str:
    flag = {"sipp": "-v", "kamailio": "-v"}[program]
    try:
        out = subprocess.run([require(program, install=False), flag], capture_output=True,
                             text=True, timeout=10)
    except (BenchError, subprocess.TimeoutExpired):
        return "not installed"
    for line in (out.stdout + out.stderr).splitlines():
        line = line.strip()
        if line.lower().startswith(("sipp v", "version:")):
            return line
    return (out.stdout + out.stderr).strip().splitlines()[0] if (out.stdout + out.stderr).strip() else "unknown"


def _in_sbin(program: str) -> str | None:
    for folder in ("/usr/sbin", "/sbin", "/usr/local/sbin"):
        candidate = os.path.join(folder, program)
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def _can_apt() -> bool:
    return os.geteuid() == 0 and shutil.which("apt-get") is not None

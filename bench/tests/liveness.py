"""Whether a process still runs, for the tests of real runs that check nothing is left running."""
import os
from pathlib import Path


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"

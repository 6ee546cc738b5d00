"""REGISTER runs and the files of AORs they read, shared by register/run, call/run (which registers
its callee and caller), avalanche/run, register/make-users and bench/."""
from pathlib import Path

from . import sipprun


def write_users(file: Path, count: int, domain: str, prefix: str = "user", start: int = 0) -> Path:
    """A SIPp injection file of `count` distinct AORs, "user;domain;" per line, read in order."""
    lines = ["SEQUENTIAL"] + [f"{prefix}{n:07d};{domain};" for n in range(start, start + count)]
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text("\n".join(lines) + "\n")
    return file


def write_user(file: Path, user: str, domain: str) -> Path:
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(f"SEQUENTIAL\n{user};{domain};\n")
    return file


NO_BYE_ON_ABORT = sipprun.NO_BYE_ON_ABORT


def register(target: str, users_csv: Path, count: int, rate: int, expires: int = 3600,
             address: str = "127.0.0.1", port: int = 0, transport: str = "u1", out: Path | None = None,
             name: str = "register", timeout_seconds: float = 600, query: bool = False, flood: bool = False) -> int:
    """REGISTERs `count` lines of users_csv at `rate` per second; SIPp's exit code (0: all got 200).
    port: SIPp's local port, which is also the registered Contact's port. query: send query
    REGISTERs instead (query.xml), which pass only when the AOR still lists a binding. flood: a 503 is
    an answer too (flood.xml), for load past a node's capacity."""
    args = ["-inf", str(users_csv), "-key", "expires", str(expires), "-m", str(count), "-r", str(rate),
            "-t", transport, "-l", str(max(rate * 4, 10)), *NO_BYE_ON_ABORT, *sipprun.stats_args(name, out)]
    scenario = "register/query.xml" if query else "register/flood.xml" if flood else "register/register.xml"
    return sipprun.run(scenario, target, args, address, port, out, timeout_seconds)


AVALANCHE = "avalanche/avalanche.xml"


def avalanche_args(users_csv: Path, users: int, window_seconds: float, out: Path | None) -> tuple[int, list[str]]:
    """The avalanche's rate and SIPp options (sipp-scenarios/avalanche): every phone of users_csv
    started within window_seconds, and any number of them waiting at once, since every phone of
    an avalanche may be (no cap below the population)."""
    rate = max(1, round(users / window_seconds))
    return rate, ["-inf", str(users_csv), "-key", "expires", "3600", "-m", str(users), "-r", str(rate),
                  "-l", str(users), *NO_BYE_ON_ABORT, *sipprun.stats_args("avalanche", out)]


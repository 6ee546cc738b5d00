"""Processes on other machines, for `up --hosts` lines `ADDRESS ssh USER@HOST`: commands over ssh
(non-interactive: a key, an agent or the ssh configuration of `--ssh-config` must let it in), and
files copied by rsync over ssh to the same absolute paths there, so that a node's command, written
for this machine, runs there as it is. The remote machine needs Java and rsync; a process there is
known by its PID there."""
import shlex
import subprocess
from pathlib import Path

SSH_DEADLINE_S = 30


class RemoteError(Exception):
    pass


def ssh(login: str, config: str = "") -> list[str]:
    """The ssh command that reaches `login` (USER@HOST) without asking anything."""
    return ["ssh", *(["-F", config] if config else []), "-o", "BatchMode=yes", login]


def run(login: str, config: str, command: str, timeout: float = SSH_DEADLINE_S) -> subprocess.CompletedProcess:
    """`command` (one shell command line) run on `login`; its output captured."""
    try:
        return subprocess.run([*ssh(login, config), command], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise RemoteError(f"ssh {login}: no answer within {timeout:g} s") from e


def copy(login: str, config: str, paths: list[Path]) -> None:
    """The files and folders `paths` (absolute) to the same paths on `login`, by rsync over ssh:
    what is there already, the same size and time, is left as it is."""
    command = ["rsync", "-a", "--relative", "-e", shlex.join(ssh(login, config)[:-1]),
               *(str(p.resolve()) for p in paths), f"{login}:/"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired as e:
        raise RemoteError(f"copying to {login}: not done within 600 s") from e
    if done.returncode != 0:
        raise RemoteError(f"copying to {login} failed: {done.stderr.strip()}")


def launch(login: str, config: str, command: list[str], log: Path, cwd: Path) -> int:
    """Starts `command` detached on `login` (its own session, output appended to `log` there);
    returns its PID there."""
    # the background job is the one command, its output away from ssh's channel, so that the
    # session ends at once (a backgrounded `cd && command` list would hold the channel open)
    line = (f"cd {shlex.quote(str(cwd))} || exit 1; setsid {shlex.join(command)} >> {shlex.quote(str(log))} 2>&1 "
            f"< /dev/null & echo $!")
    done = run(login, config, line)
    if done.returncode != 0 or not done.stdout.strip().isdigit():
        raise RemoteError(f"starting {command[0]} on {login} failed: {done.stderr.strip() or done.stdout.strip()}")
    return int(done.stdout.strip())


def alive(login: str, config: str, pid: int) -> bool:
    """Whether the PID lives on `login` (and is no zombie)."""
    done = run(login, config, f"ps -o stat= -p {pid}")
    return done.returncode == 0 and bool(done.stdout.strip()) and not done.stdout.strip().startswith("Z")


def signal(login: str, config: str, pid: int, name: str) -> None:
    run(login, config, f"kill -{name} {pid}")


def source_address(destination: str) -> str:
    """The address this machine sends from to `destination` (`ip route get`): where SIPp binds to
    reach an ssh host, and where the hosts reach back."""
    done = subprocess.run(["ip", "-o", "route", "get", destination], capture_output=True, text=True)
    words = done.stdout.split()
    if done.returncode != 0 or "src" not in words:
        raise RemoteError(f"no route from this machine to {destination}: {done.stderr.strip()}")
    return words[words.index("src") + 1]

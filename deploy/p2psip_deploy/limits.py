"""The operating system's limits a deployment with many TCP clients needs, raised by `up` where a
process may raise them and named where it may not (deploy/README.md, "100,000 clients on TCP")."""
import resource
from pathlib import Path

SOMAXCONN = Path("/proc/sys/net/core/somaxconn")
BACKLOG = 4096   # the front's listen backlog (src/front's Front.BACKLOG)


def raise_open_files() -> int:
    """Raises this process's soft open-file limit to its hard one, so that the nodes and fronts
    it starts inherit it (a front needs a file per client); returns the limit they get."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        return hard
    return soft if hard == resource.RLIM_INFINITY else hard


def raise_backlog() -> str:
    """Raises net.core.somaxconn to the front's backlog when it is lower and this process may
    (root, a writable /proc/sys); otherwise says what to do. "" when nothing needs saying."""
    try:
        current = int(SOMAXCONN.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return ""
    if current >= BACKLOG:
        return ""
    try:
        SOMAXCONN.write_text(str(BACKLOG))
        return ""
    except OSError:
        return (f"note: net.core.somaxconn is {current}: connections beyond that many waiting to be accepted are "
                f"refused; `sysctl -w net.core.somaxconn={BACKLOG}` as root raises it")

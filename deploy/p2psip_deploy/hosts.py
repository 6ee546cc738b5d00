"""The hosts of `up --hosts FILE`: one line per host, its address and how to reach it, `#` starting
a comment:

    10.77.0.10  netns
    10.77.0.11  netns  cpus=0.5

`netns`: a network namespace `up` makes on this machine, with that address on the deployment's
bridge (the addresses share one /24, whose first address the root namespace takes). `cpus=Q` gives
the host's nodes, together, Q cores of this machine (a group of the cgroup v1 cpu controller,
cgroups.py); `up` refuses it on ssh hosts.
`ssh USER@HOST`: a machine of its own, reached over ssh (remote.py), its SIP, overlay and HTTP
ports on ADDRESS. The lines of one file are all of one kind. Node i runs on host i mod the number
of hosts, the front (`--front`) on the first; nodes on one host share its address and differ by
port."""
import ipaddress
from dataclasses import dataclass
from pathlib import Path

REACHES = ("netns", "ssh")
CPUS = "cpus="   # a last word of a line: the cores of the host's quota


class HostsError(Exception):
    pass


@dataclass(frozen=True)
class Host:
    address: str
    reach: str          # "netns" or "ssh"
    login: str = ""     # USER@HOST for ssh
    cpus: float | None = None   # `cpus=Q`: the cores its nodes share (a cgroup quota); None: none of its own


def parse(text: str, source: str = "hosts file") -> list[Host]:
    hosts = []
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        where = f"{source}:{number}"
        cpus = _cpus(words, where)
        try:
            ipaddress.IPv4Address(words[0])
        except ValueError:
            raise HostsError(f"{where}: {words[0]!r} is not an IPv4 address") from None
        if len(words) < 2 or words[1] not in REACHES:
            raise HostsError(f"{where}: say how to reach {words[0]}: `netns` or `ssh USER@HOST`")
        if words[1] == "netns" and len(words) == 2:
            hosts.append(Host(words[0], "netns", cpus=cpus))
        elif words[1] == "ssh" and len(words) == 3:
            hosts.append(Host(words[0], "ssh", words[2], cpus))
        else:
            raise HostsError(f"{where}: expected `ADDRESS netns [cpus=Q]` or `ADDRESS ssh USER@HOST`, "
                             f"got {line.strip()!r}")
    if not hosts:
        raise HostsError(f"{source} names no host")
    return hosts


def _cpus(words: list[str], where: str) -> float | None:
    """The number of a last word `cpus=Q`, taken off `words`; None without one. `up` checks the value."""
    if len(words) < 3 or not words[-1].startswith(CPUS):
        return None
    text = words.pop()[len(CPUS):]
    try:
        return float(text)
    except ValueError:
        raise HostsError(f"{where}: cpus={text} is not a number of cores (e.g. cpus=0.5)") from None



def read(path: Path) -> list[Host]:
    """The hosts in `path`, in order; HostsError for a line it cannot place."""
    try:
        text = Path(path).read_text()
    except OSError as e:
        raise HostsError(f"cannot read {path}: {e.strerror}") from None
    hosts = parse(text, str(path))
    if len({h.reach for h in hosts}) > 1:
        raise HostsError(f"{path}: the hosts are all namespaces (netns) or all machines (ssh), not both")
    return hosts

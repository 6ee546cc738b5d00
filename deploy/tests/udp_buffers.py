"""The receive buffer the kernel granted a process's UDP socket, read as an operator would: `ss -m`."""
import re
import subprocess

from p2psip_deploy import nodefolder


def rmem_max() -> int:
    return int(nodefolder.RMEM_MAX.read_text())


def granted(asked: int) -> int:
    """What `ss` shows for a socket that asked for `asked` bytes: Linux caps it at rmem_max and
    doubles it (the other half is its own bookkeeping)."""
    return 2 * min(asked, rmem_max())


def udp_receive_buffer(port: int, namespace: str = "") -> int | None:
    """The rb (bytes) of the UDP socket bound to port, in a network namespace when named; None
    while no socket is bound there."""
    prefix = ["ip", "netns", "exec", namespace] if namespace else []
    shown = subprocess.run(prefix + ["ss", "-uanm", "sport", "=", f":{port}"],
                           capture_output=True, text=True, check=True).stdout
    sizes = re.findall(r"\brb(\d+)", shown)
    assert len(sizes) <= 1, shown
    return int(sizes[0]) if sizes else None

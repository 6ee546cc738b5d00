"""SIPp's and the Kamailio reference's UDP sockets get the receive buffers the bench asks for, so a
node's burst of answers after a collector pause is not dropped at SIPp and timed as a
retransmission, and the reference meets bursts with the nodes' buffer size."""
import re
import socket
import subprocess
import time

import pytest

from sipbench import kamailio, tools
from sipbench.procs import Processes, wait_until
from sipbench.sipp import SCENARIOS, Target, Timing, base_command
from sipphelp import registering, sipprun

RMEM_MAX = "/proc/sys/net/core/rmem_max"


def _granted(asked: int) -> int:
    """What `ss` shows for a socket that asked for `asked` bytes: Linux caps it at rmem_max and
    doubles it (the other half is its own bookkeeping)."""
    with open(RMEM_MAX) as f:
        return 2 * min(asked, int(f.read()))


def _receive_buffer(port: int) -> int | None:
    shown = subprocess.run(["ss", "-uanm", "sport", "=", f":{port}"], capture_output=True, text=True).stdout
    sizes = re.findall(r"\brb(\d+)", shown)
    return int(sizes[0]) if sizes else None


def test_sipps_udp_socket_has_the_asked_receive_buffer(tmp_path):
    if tools.shutil.which("sipp") is None:
        pytest.skip("SIPp is not installed (apt-get install sip-tester)")
    users = registering.write_users(tmp_path / "users.csv", 1, "p2psip.test")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:   # a target that never answers
        silent.bind(("127.0.0.1", 0))
        port = sipprun.free_port("127.0.0.1")
        command = base_command(Target("127.0.0.1", silent.getsockname()[1], "127.0.0.1"),
                               SCENARIOS / "register" / "register.xml", Timing(), 20, port=port)
        sipp = subprocess.Popen(command + ["-m", "1", "-r", "1", "-inf", str(users), "-key", "expires", "60"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 15
            size = None
            while size is None and sipp.poll() is None and time.monotonic() < deadline:
                size = _receive_buffer(port)
                time.sleep(0.1)
        finally:
            sipp.kill()
            sipp.wait()
    assert size == _granted(sipprun.BUFFER_BYTES)


def test_the_kamailio_references_udp_socket_has_the_asked_receive_buffer(tmp_path):
    if tools.shutil.which("kamailio") is None and tools._in_sbin("kamailio") is None:
        pytest.skip("Kamailio is not installed (apt-get install kamailio)")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    reference = kamailio.Kamailio(Processes(), tmp_path, port)
    try:
        reference.start()   # returns once one of its sockets (UDP or TCP) is bound
        wait_until(lambda: _receive_buffer(port) is not None, 10.0)
        size = _receive_buffer(port)
    finally:
        reference.stop()
    assert size == _granted(kamailio.RECEIVE_BUFFER_BYTES)

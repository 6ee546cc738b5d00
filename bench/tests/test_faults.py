"""A component that cannot start stops the bench with a message saying what and how, and leaves
nothing running."""
import socket

import pytest

from sipbench import tools
from sipbench.kamailio import Kamailio
from sipbench.procs import BenchError, Processes, port_taken, require_ports_free


def test_a_taken_port_is_named_with_how_to_find_its_holder(tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as holder:
        holder.bind(("127.0.0.1", 0))
        port = holder.getsockname()[1]
        assert port_taken("127.0.0.1", port) == f"UDP 127.0.0.1:{port}"
        with pytest.raises(BenchError, match=rf"UDP 127.0.0.1:{port} is already in use.*--base-port"):
            require_ports_free("127.0.0.1", [port], "Kamailio")


def test_kamailio_on_a_taken_port_starts_nothing(tmp_path):
    if tools.shutil.which("kamailio") is None and tools._in_sbin("kamailio") is None:
        pytest.skip("Kamailio is not installed (apt-get install kamailio)")
    processes = Processes()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with pytest.raises(BenchError, match="TCP 127.0.0.1"):
            Kamailio(processes, tmp_path, port).start()
    assert processes.pids() == []


def test_kamailio_starts_and_stops_by_pid(tmp_path):
    if tools.shutil.which("kamailio") is None and tools._in_sbin("kamailio") is None:
        pytest.skip("Kamailio is not installed (apt-get install kamailio)")
    processes = Processes()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    kamailio = Kamailio(processes, tmp_path, port)
    try:
        kamailio.start()
        pid = kamailio.pid
        assert port_taken("127.0.0.1", port)
    finally:
        kamailio.stop()
    assert processes.pids() == []
    with pytest.raises(ProcessLookupError):
        tools.os.kill(pid, 0)


def test_a_missing_program_names_its_debian_package(monkeypatch):
    monkeypatch.setattr(tools.shutil, "which", lambda name: None)
    monkeypatch.setattr(tools, "_in_sbin", lambda name: None)
    with pytest.raises(BenchError, match=r"apt-get install sip-tester"):
        tools.require("sipp", install=False)
    with pytest.raises(BenchError, match=r"apt-get install kamailio"):
        tools.require("kamailio", install=False)

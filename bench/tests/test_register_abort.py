"""A refused REGISTER ends there: SIPp sends no BYE after it (its default for an aborted call), so
an overloaded registrar is not sent one more request for each one it refused."""
import socket
import threading

import pytest

from sipbench import tools
from sipphelp import registering


def _answer_503(sock: socket.socket, methods: list[str], stop: threading.Event) -> None:
    """Answers every request with 503, as a registrar over its admission limit; records the methods."""
    sock.settimeout(0.2)
    while not stop.is_set():
        try:
            data, sender = sock.recvfrom(65536)
        except socket.timeout:
            continue
        text = data.decode("utf-8", "replace")
        first = text.split("\r\n", 1)[0]
        if first.startswith("SIP/2.0"):
            continue
        methods.append(first.split(" ", 1)[0])
        copied = [line for line in text.split("\r\n")
                  if line.split(":", 1)[0].strip().lower() in ("via", "from", "to", "call-id", "cseq")]
        answer = "\r\n".join(["SIP/2.0 503 Overloaded", *copied, "Content-Length: 0", "", ""])
        sock.sendto(answer.encode(), sender)


def test_a_register_answered_503_is_not_followed_by_a_bye(tmp_path):
    if tools.shutil.which("sipp") is None:
        pytest.skip("SIPp is not installed (apt-get install sip-tester)")
    methods: list[str] = []
    stop = threading.Event()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as registrar:
        registrar.bind(("127.0.0.1", 0))
        port = registrar.getsockname()[1]
        server = threading.Thread(target=_answer_503, args=(registrar, methods, stop), daemon=True)
        server.start()
        try:
            users = registering.write_users(tmp_path / "users.csv", 3, "p2psip.test")
            code = registering.register(f"127.0.0.1:{port}", users, 3, 10, timeout_seconds=30)
        finally:
            stop.set()
            server.join()
    assert code == 1, f"SIPp's exit code {code}: the refused REGISTERs should count as failed calls"
    assert methods.count("REGISTER") == 3, methods
    assert "BYE" not in methods, f"SIPp followed refused REGISTERs with: {methods}"

"""The Kamailio front of `up --front kamailio-*`: its files, and the real Kamailio before a stand-in
node (a UDP socket that answers 200): a REGISTER is relayed to the node and its answer back; once
the node falls silent the front logs it down and answers 503 with Retry-After. Its UDP socket has
the receive buffer the front asks for."""
import re
import socket
import threading
import time

import pytest

from p2psip_deploy import front, kamailio_front, layout, processes
from udp_buffers import granted, udp_receive_buffer


def test_the_config_has_every_marker_filled_in(tmp_path):
    text = kamailio_front.config(layout.KAMAILIO_FRONT_CONFIG.read_text(), tmp_path / "dispatcher.list",
                                 "kamailio-hash", "127.0.0.1:5060")
    assert re.findall(r"@[A-Z_]+@", text) == []
    assert f'"list_file", "{tmp_path / "dispatcher.list"}"' in text
    assert 'ds_select_dst("1", "0")' in text          # hash over the Call-ID
    assert "listening on 127.0.0.1:5060" in text


def test_every_node_is_an_active_destination_of_set_1():
    assert kamailio_front.dispatcher_list(["127.0.0.1:7000", "10.0.0.3:7001"]) == \
        "1 sip:127.0.0.1:7000 0 0\n1 sip:10.0.0.3:7001 0 0\n"


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class StandInNode:
    """Answers every request 200 (its Via, From, To, Call-ID and CSeq copied) until stopped; notes
    where each REGISTER came from."""

    def __init__(self):
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind(("127.0.0.1", 0))
        self.socket.settimeout(0.2)
        self.port = self.socket.getsockname()[1]
        self.registers_from = []
        self.running = True
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while self.running:
            try:
                data, sender = self.socket.recvfrom(65535)
            except socket.timeout:
                continue
            text = data.decode(errors="replace")
            if text.startswith("SIP/2.0"):
                continue
            if text.startswith("REGISTER"):
                self.registers_from.append(sender)
            kept = [line for line in text.split("\r\n")
                    if line.split(":", 1)[0].strip().lower() in ("via", "from", "to", "call-id", "cseq")]
            self.socket.sendto(("SIP/2.0 200 OK\r\n" + "\r\n".join(kept) + "\r\nContent-Length: 0\r\n\r\n").encode(),
                               sender)

    def stop(self):
        self.running = False
        self.thread.join()
        self.socket.close()


def register(front_port: int, call_id: str) -> str:
    """One REGISTER to the front; its final answer's status line and headers."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client:
        client.bind(("127.0.0.1", 0))
        client.settimeout(10)
        port = client.getsockname()[1]
        client.sendto((f"REGISTER sip:p2psip.test SIP/2.0\r\n"
                       f"Via: SIP/2.0/UDP 127.0.0.1:{port};branch=z9hG4bK-{call_id}\r\n"
                       f"Max-Forwards: 70\r\nFrom: <sip:alice@p2psip.test>;tag=t1\r\nTo: <sip:alice@p2psip.test>\r\n"
                       f"Call-ID: {call_id}\r\nCSeq: 1 REGISTER\r\nContact: <sip:alice@127.0.0.1:{port}>\r\n"
                       f"Expires: 60\r\nContent-Length: 0\r\n\r\n").encode(), ("127.0.0.1", front_port))
        while True:
            answer = client.recv(65535).decode(errors="replace")
            if not answer.startswith("SIP/2.0 1"):
                return answer


def until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)  # poll interval of a condition
    return True


@pytest.fixture
def kamailio():
    try:
        return kamailio_front.ensure_installed()
    except front.FrontError as e:
        pytest.fail(str(e))


def test_the_front_relays_to_a_live_node_and_answers_503_once_it_is_down(tmp_path, kamailio):
    node = StandInNode()
    front_port = free_udp_port()
    record = processes.Process("node", "memory", "127.0.0.1", node.port, 1, 1, str(tmp_path))
    started = kamailio_front.start(tmp_path, "127.0.0.1", front_port, "kamailio-rr", [record], timeout=20)
    try:
        assert udp_receive_buffer(front_port) == granted(kamailio_front.RECEIVE_BUFFER_BYTES)
        assert register(front_port, "relayed-1").startswith("SIP/2.0 200")
        assert node.registers_from == [("127.0.0.1", front_port)]   # from the front's own socket

        node.stop()
        log = tmp_path / "front" / "console.log"
        assert until(lambda: f"node sip:127.0.0.1:{node.port} is down" in log.read_text(errors="replace"), 20), \
            log.read_text(errors="replace")[-2000:]
        refused = register(front_port, "refused-1")
        assert refused.startswith("SIP/2.0 503 No Node Available")
        assert "Retry-After: 5" in refused
    finally:
        assert processes.stop([started], grace_seconds=5) == []
    assert not processes.alive(started)

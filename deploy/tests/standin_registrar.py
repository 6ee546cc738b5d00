"""A registrar of a few lines over UDP for the fault harness's tests: it keeps each AOR's contacts
with their expiry and answers every REGISTER as RFC 3261 section 10.3 says (200 listing every
current contact). Its knobs make it misbehave in the ways the harness must notice: `forget`
drops an AOR's bindings after acknowledging them, `undo_removals` answers a removal as done but
puts the bindings back afterwards, `silent_first` ignores the first copy of each
transaction (the client must retransmit), `busy_first` answers the first transaction 503 with
Retry-After, `mute` answers nothing. Run as a program (`standin_registrar.py PORT... [--forget]`)
it serves one registrar on every port: a stand-in for nodes that share their bindings."""
import asyncio
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # deploy/, when run as a program

from p2psip_deploy import sipclient  # noqa: E402


class StandInRegistrar(asyncio.DatagramProtocol):
    def __init__(self):
        self.bindings: dict[str, dict[str, float]] = {}   # AOR -> contact -> expiry (time.time())
        self.forget: set[str] = set()
        self.undo_removals = False
        self.silent_first = False
        self.busy_first = False
        self.mute = False
        self.seen: set[str] = set()
        self.received = 0
        self.transport = None

    @classmethod
    async def start(cls) -> "StandInRegistrar":
        loop = asyncio.get_running_loop()
        _, server = await loop.create_datagram_endpoint(cls, local_addr=("127.0.0.1", 0))
        return server

    @property
    def port(self) -> int:
        return self.transport.get_extra_info("sockname")[1]

    def connection_made(self, transport):
        self.transport = transport

    def close(self):
        self.transport.close()

    def datagram_received(self, data, addr):
        self.received += 1
        text = data.decode()
        head, *lines = text.split("\r\n\r\n")[0].split("\r\n")
        headers = [(name.strip().lower(), value.strip()) for name, _, value in (line.partition(":") for line in lines)]
        branch = re.search(r"branch=([^;]+)", dict(headers)["via"]).group(1)
        first = branch not in self.seen
        self.seen.add(branch)
        if self.mute or (self.silent_first and first):
            return
        if self.busy_first and len(self.seen) == 1:
            self.transport.sendto(answer(headers, "503 DHT Timeout", ["Retry-After: 0"]), addr)
            return
        aor = re.search(r"<([^>]+)>", dict(headers)["to"]).group(1)
        before = dict(self.bindings.get(aor, {}))
        self.apply(aor, [value for name, value in headers if name == "contact"], dict(headers).get("expires"))
        now = time.time()
        live = {c: e for c, e in self.bindings.get(aor, {}).items() if e > now}
        contacts = [f"Contact: <{c}>;expires={int(e - now)}" for c, e in live.items()]
        self.transport.sendto(answer(headers, "200 OK", contacts), addr)
        if aor in self.forget:
            self.bindings.pop(aor, None)
        if self.undo_removals:
            self.bindings[aor] = {**before, **self.bindings[aor]}

    def apply(self, aor: str, contacts: list[str], expires: str | None):
        stored = self.bindings.setdefault(aor, {})
        if contacts == ["*"] and expires == "0":
            stored.clear()
            return
        for item in contacts:
            uri, seconds = sipclient.contact_of(item)
            stored.pop(uri, None)
            if seconds > 0:
                stored[uri] = time.time() + seconds


def answer(headers, status_line, extra) -> bytes:
    copied = [f"{name.title()}: {value}" for name, value in headers if name in ("via", "from", "to", "call-id", "cseq")]
    return ("\r\n".join([f"SIP/2.0 {status_line}", *copied, *extra, "Content-Length: 0"]) + "\r\n\r\n").encode()


async def serve(ports: list[int], forget: bool) -> None:
    """One registrar on every port (the stand-in for a deployment of nodes that share their
    bindings), until killed."""
    loop = asyncio.get_running_loop()
    shared = StandInRegistrar()
    for port in ports:
        await loop.create_datagram_endpoint(lambda: Endpoint(shared), local_addr=("127.0.0.1", port))
    if forget:
        shared.forget = Everything()
    await asyncio.Event().wait()


class Endpoint(asyncio.DatagramProtocol):
    """One port of a shared stand-in: answers from its own socket."""

    def __init__(self, registrar: StandInRegistrar):
        self.registrar = registrar

    def connection_made(self, transport):
        self.transport = transport

    def datagram_received(self, data, addr):
        self.registrar.transport = self.transport
        self.registrar.datagram_received(data, addr)


class Everything:
    def __contains__(self, item):
        return True


if __name__ == "__main__":
    arguments = sys.argv[1:]
    asyncio.run(serve([int(a) for a in arguments if a != "--forget"], "--forget" in arguments))

"""A SIP user agent client for REGISTER over UDP, on asyncio: one socket, many transactions at
once, each a non-INVITE client transaction of RFC 3261 section 17.1.2 (retransmission after T1,
doubling up to T2, at most MAX_RETRANSMISSIONS times; no final answer within Timer F, 64 x T1, is
a time-out). Answers are matched to their transaction by the branch of their top Via."""
from __future__ import annotations

import asyncio
import re
import secrets
from dataclasses import dataclass, field

T1_S = 0.5
T2_S = 4.0
MAX_RETRANSMISSIONS = 7
DOMAIN = "p2psip.test"   # the nodes' default p2psip.domains
_BRANCH = re.compile(r";\s*branch=([^;,\s]+)", re.IGNORECASE)
_COMPACT = {"v": "via", "m": "contact", "i": "call-id", "f": "from", "t": "to", "l": "content-length"}


@dataclass
class Response:
    status: int
    reason: str
    headers: dict[str, list[str]] = field(default_factory=dict)   # lower-case name -> values, in order

    def first(self, name: str) -> str | None:
        values = self.headers.get(name.lower())
        return values[0] if values else None

    @property
    def branch(self) -> str | None:
        via = self.first("via")
        match = _BRANCH.search(via) if via else None
        return match.group(1) if match else None

    def contacts(self) -> dict[str, int]:
        """Every Contact as URI -> its expires parameter (-1 when it has none)."""
        found = {}
        for value in self.headers.get("contact", []):
            for item in split_list(value):
                uri, expires = contact_of(item)
                if uri:
                    found[uri] = expires
        return found

    def retry_after(self) -> float | None:
        value = self.first("retry-after")
        match = re.match(r"\s*(\d+)", value) if value else None
        return float(match.group(1)) if match else None


def parse_response(data: bytes) -> Response | None:
    """A SIP response's status line and headers, or None for anything else (a request, noise)."""
    head = data.split(b"\r\n\r\n", 1)[0].decode("utf-8", errors="replace")
    lines = head.split("\r\n")
    match = re.match(r"SIP/2\.0 (\d{3}) ?(.*)", lines[0])
    if not match:
        return None
    response = Response(int(match.group(1)), match.group(2).strip())
    for line in lines[1:]:
        if line[:1] in (" ", "\t") and response.headers:   # a folded continuation line
            last = list(response.headers)[-1]
            response.headers[last][-1] += " " + line.strip()
            continue
        name, colon, value = line.partition(":")
        if colon:
            key = name.strip().lower()
            response.headers.setdefault(_COMPACT.get(key, key), []).append(value.strip())
    return response


def split_list(value: str) -> list[str]:
    """A header value of comma-separated items, commas inside <> or quotes left alone."""
    items, current, depth, quoted = [], [], 0, False
    for ch in value:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "<":
            depth += 1
        elif not quoted and ch == ">":
            depth -= 1
        if ch == "," and depth == 0 and not quoted:
            items.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    items.append("".join(current).strip())
    return [item for item in items if item]


def contact_of(item: str) -> tuple[str, int]:
    """`"Name" <sip:u@h>;expires=60` -> ('sip:u@h', 60); expires -1 when absent."""
    if "<" in item:
        uri = item[item.index("<") + 1:item.index(">")]
        params = item[item.index(">") + 1:]
    else:
        uri, _, params = item.partition(";")
        params = ";" + params
    match = re.search(r";\s*expires\s*=\s*(\d+)", params, re.IGNORECASE)
    return uri.strip(), int(match.group(1)) if match else -1


def new_branch() -> str:
    return "z9hG4bK" + secrets.token_hex(8)


def register_request(*, user: str, call_id: str, cseq: int, tag: str, branch: str, local: tuple[str, int],
                     contact: str | None = None, expires: int | None = None,
                     wildcard: bool = False) -> bytes:
    """A REGISTER of sip:USER@DOMAIN: with `contact` it adds (expires > 0) or removes (0) that
    contact, with `wildcard` it removes all (`Contact: *`, `Expires: 0`), with neither it queries."""
    aor = f"sip:{user}@{DOMAIN}"
    lines = [f"REGISTER sip:{DOMAIN} SIP/2.0",
             f"Via: SIP/2.0/UDP {local[0]}:{local[1]};branch={branch};rport",
             "Max-Forwards: 70",
             f"From: <{aor}>;tag={tag}",
             f"To: <{aor}>",
             f"Call-ID: {call_id}",
             f"CSeq: {cseq} REGISTER"]
    if wildcard:
        lines += ["Contact: *", "Expires: 0"]
    elif contact is not None:
        lines.append(f"Contact: <{contact}>;expires={expires}")
    lines += ["User-Agent: p2psip-faults", "Content-Length: 0"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


class Client(asyncio.DatagramProtocol):
    """The socket every transaction of a run shares."""

    def __init__(self, t1: float = T1_S, t2: float = T2_S, max_retransmissions: int = MAX_RETRANSMISSIONS):
        self.t1, self.t2, self.max_retransmissions = t1, t2, max_retransmissions
        self.transport: asyncio.DatagramTransport | None = None
        self.local: tuple[str, int] = ("", 0)
        self.waiting: dict[str, asyncio.Queue] = {}
        self.retransmissions = 0

    @classmethod
    async def open(cls, address: str, **timers) -> "Client":
        loop = asyncio.get_running_loop()
        _, client = await loop.create_datagram_endpoint(lambda: cls(**timers), local_addr=(address, 0))
        return client

    def connection_made(self, transport):
        self.transport = transport
        self.local = transport.get_extra_info("sockname")[:2]

    def datagram_received(self, data, addr):
        response = parse_response(data)
        queue = self.waiting.get(response.branch) if response else None
        if queue is not None:
            queue.put_nowait(response)

    def error_received(self, exc):
        pass   # an ICMP port unreachable from a killed node: the transaction times out as with silence

    def close(self):
        if self.transport:
            self.transport.close()

    @property
    def timer_f(self) -> float:
        return 64 * self.t1

    async def transact(self, request: bytes, branch: str, target: tuple[str, int]) -> Response | None:
        """Sends the request and retransmits it until a final answer, or None past Timer F."""
        queue: asyncio.Queue = asyncio.Queue()
        self.waiting[branch] = queue
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timer_f
        interval, sent = self.t1, 0
        try:
            self.transport.sendto(request, target)
            while True:
                wait = min(interval, deadline - loop.time())
                if wait <= 0:
                    return None
                try:
                    response = await asyncio.wait_for(queue.get(), wait)
                except asyncio.TimeoutError:
                    if sent < self.max_retransmissions and loop.time() < deadline:
                        self.transport.sendto(request, target)
                        sent += 1
                        self.retransmissions += 1
                    interval = min(2 * interval, self.t2)
                    continue
                if response.status >= 200:
                    return response
                interval = self.t2   # a provisional answer: the server has it, retransmit seldom
        finally:
            del self.waiting[branch]

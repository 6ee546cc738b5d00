"""A Prometheus server's load on a node, for the `metrics` experiment: a thread that GETs each
given /metrics once a second while a search runs, and counts what it got, and for the `state`
experiment also keeps what each scrape said (the front's share of calls kept statefully); and single
reads of a node's /metrics for the records it holds and whether its intake sheds (the capacity
experiment)."""
from __future__ import annotations

import re
import threading
import time
import urllib.request
from typing import Callable

INTERVAL_S = 1.0
DEADLINE_S = 2.0


class Scraper:
    def __init__(self, addresses: list[tuple[str, int]], sample: Callable[[str], dict] | None = None) -> None:
        """`addresses`: (host, HTTP port) of each process to scrape; scraping starts at once. With
        `sample`, what it makes of each scrape's text is kept in `samples`, with `t_s`, the seconds
        since scraping started (read them once `stop` returned)."""
        self.urls = [f"http://{host}:{port}/metrics" for host, port in addresses]
        self.scrapes = 0
        self.failures = 0
        self.bytes = 0
        self.sample = sample
        self.samples: list[dict] = []
        self._started = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="metrics-scraper", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            for url in self.urls:
                try:
                    with urllib.request.urlopen(url, timeout=DEADLINE_S) as response:
                        body = response.read()
                    self.bytes += len(body)
                    self.scrapes += 1
                    if self.sample:
                        self.samples.append({"t_s": round(time.monotonic() - self._started, 1),
                                             **self.sample(body.decode("utf-8", "replace"))})
                except OSError:
                    self.failures += 1
            self._stop.wait(max(0.0, INTERVAL_S - (time.monotonic() - started)))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=DEADLINE_S + INTERVAL_S)

    def note(self) -> str:
        """What the summary's note says of the scraping: how many, how large, how many failed."""
        size = self.bytes // self.scrapes if self.scrapes else 0
        return f"/metrics scraped {self.scrapes} times ({size} bytes each), {self.failures} failed"


# A backend's gauge of the records a node holds, its own and its replicas (src/metrics/README.md):
# p2psip_dht_chord_records, p2psip_dht_bryan_records, p2psip_dht_memory_records.
_RECORDS = re.compile(r"^p2psip_dht_[a-z0-9_]+?_records(?:\{[^}]*\})?\s+([0-9.eE+]+)\s*$", re.M)


def records_in(metrics: str) -> int | None:
    """The records a node holds, from its /metrics text; None when its backend has no such gauge."""
    found = _RECORDS.findall(metrics)
    return round(sum(float(v) for v in found)) if found else None


# 1 while the node's intake sheds new requests (src/metrics/README.md).
_SHEDDING = re.compile(r"^p2psip_intake_shedding\s+([0-9.eE+]+)\s*$", re.M)


def shedding_in(metrics: str) -> bool | None:
    """Whether a node's intake sheds now, from its /metrics text; None when it does not say."""
    found = _SHEDDING.search(metrics)
    return None if found is None else float(found.group(1)) > 0


# The front's share of new calls it keeps statefully, 0..1, and the calls it kept so far
# (p2psip.front.state; src/front/README.md, src/metrics/README.md).
_STATE_FRACTION = re.compile(r"^p2psip_front_state_fraction(?:\{[^}]*\})?\s+([0-9.eE+-]+|NaN)\s*$", re.M)
_STATEFUL_CALLS = re.compile(r"^p2psip_front_stateful_calls_total(?:\{[^}]*\})?\s+([0-9.eE+]+)\s*$", re.M)


def state_fraction_in(metrics: str) -> float | None:
    """The front's share of new calls kept at the front (the mean over its processes' gauges), from its
    /metrics text; None when it does not say (a front without state modes) or says NaN."""
    found = [float(v) for v in _STATE_FRACTION.findall(metrics) if v != "NaN"]
    return sum(found) / len(found) if found else None


def stateful_calls_in(metrics: str) -> int | None:
    """The calls the front kept statefully so far, from its /metrics text; None when it does not say."""
    found = _STATEFUL_CALLS.findall(metrics)
    return round(sum(float(v) for v in found)) if found else None


def read_metrics(host: str, port: int) -> str | None:
    """A node's /metrics once; None when it does not answer."""
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=DEADLINE_S * 5) as response:
            return response.read().decode("utf-8", "replace")
    except OSError:
        return None


def records_held(host: str, port: int) -> int | None:
    """The records a node holds (None when it has no gauge or does not answer)."""
    text = read_metrics(host, port)
    return None if text is None else records_in(text)


def shedding(host: str, port: int) -> bool:
    """Whether a node's intake sheds now; a node that does not answer counts as shedding."""
    text = read_metrics(host, port)
    return text is None or bool(shedding_in(text))

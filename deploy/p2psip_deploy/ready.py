"""`ready ADDRESS:PORT`: waits until the process whose status page is there says it is ready (its
/self.json: a node that joined, warmed up and serves; a front that listens), polling every
second; exit code 0 then, 1 when --timeout passed first. The start condition of the units."""
import json
import time
import urllib.request

POLL_S = 1.0


def is_ready(status: str, deadline_s: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"http://{status}/self.json", timeout=deadline_s) as response:
            return json.loads(response.read()).get("ready") is True
    except (OSError, ValueError):
        return False  # not listening yet, starting (503), or not a status page


def answers(status: str, deadline_s: float = 2.0) -> bool:
    """Whether the status page there answers with its JSON at all, ready or not."""
    try:
        with urllib.request.urlopen(f"http://{status}/self.json", timeout=deadline_s) as response:
            return isinstance(json.loads(response.read()), dict)
    except (OSError, ValueError):
        return False


def wait(status: str, timeout: float, serving: bool = False) -> bool:
    """`serving`: until the status page answers at all (a node's overlay serves), ready or not."""
    deadline = time.monotonic() + timeout
    while not (answers(status) if serving else is_ready(status)):
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_S)
    return True

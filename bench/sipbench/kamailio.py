"""The peer reference: Kamailio as an in-memory registrar and record-routing proxy.

Started from bench/kamailio/kamailio.cfg as the bench's own process (foreground, logging to
stderr, in its own process group), listening on one loopback port over UDP and TCP. Sizes fit
a 2-core machine: two UDP workers and one TCP worker (more workers than cores only add
context switches), 2 GB of shared memory (usrloc keeps every binding there, about 1 KB each,
for its full Expires: a 180 s warm-up and a search leave 300,000 and more, and at 256 MB
Kamailio answered every REGISTER past that with an error, "could not allocate shared memory")
and 16 MB of private memory per process. Its UDP receive buffer is probed up to 2 MiB (-b; Kamailio's
own cap is 256 KiB), as the nodes', the front's and SIPp's: the reference meets the same bursts.

Not thread-safe; used from the bench's main thread.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

from .procs import BenchError, Processes, port_taken, require_ports_free, wait_until
from .tools import require

CONFIG = Path(__file__).resolve().parents[1] / "kamailio" / "kamailio.cfg"
SHARED_MB = 2048
PRIVATE_MB = 16
UDP_WORKERS = 2
TCP_WORKERS = 1
RECEIVE_BUFFER_BYTES = 2 * 1024 * 1024


class Kamailio:
    def __init__(self, processes: Processes, folder: Path, port: int, t1_ms: int = 500) -> None:
        self.processes = processes
        self.folder = folder
        self.port = port
        self.t1_ms = t1_ms
        self.process: subprocess.Popen | None = None

    def command(self, binary: str) -> list[str]:
        return [binary, "-f", str(CONFIG), "-DD", "-E",
                "-m", str(SHARED_MB), "-M", str(PRIVATE_MB), "-n", str(UDP_WORKERS),
                "-b", str(RECEIVE_BUFFER_BYTES), "-A", f"TCP_WORKERS={TCP_WORKERS}", "-A", f"T1_MS={self.t1_ms}",
                "-l", f"udp:127.0.0.1:{self.port}", "-l", f"tcp:127.0.0.1:{self.port}",
                "-Y", str(self.folder), "-w", str(self.folder)]

    def start(self) -> None:
        binary = require("kamailio")
        require_ports_free("127.0.0.1", [self.port], "Kamailio")
        self.folder.mkdir(parents=True, exist_ok=True)
        log = self.folder / "kamailio.log"
        self.process = self.processes.start("kamailio", self.command(binary), log, cwd=self.folder)
        up = wait_until(lambda: self.process.poll() is not None or port_taken("127.0.0.1", self.port), 10.0)
        if self.process.poll() is not None or not up:
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            self.stop()
            raise BenchError(f"Kamailio did not start on 127.0.0.1:{self.port} (log {log}):\n{tail}")

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def stop(self) -> None:
        if self.process is not None:
            self.processes.stop(self.process)
            self.process = None

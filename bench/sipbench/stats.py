"""Reading what SIPp writes: the statistics file (-trace_stat) and the response-time file (-trace_rtt).

Both are CSV with ';' separators. In the statistics file the three date columns hold
"date<TAB>time<TAB>epoch"; counters come in pairs, (P) for the last period and (C) cumulative.
Only the cumulative counters of the last row matter for a step's verdict; the rows before it
give the progress line and the time at which SIPp had created every call.

Pure functions, no state: safe from any thread.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Counts:
    """Cumulative counters of one SIPp run (or the sum of several)."""

    created: int = 0
    successful: int = 0
    failed: int = 0
    max_udp_retrans: int = 0
    timeout_on_recv: int = 0
    unexpected: int = 0
    retransmissions: int = 0
    elapsed_s: float = 0.0

    def __add__(self, other: "Counts") -> "Counts":
        return Counts(
            self.created + other.created,
            self.successful + other.successful,
            self.failed + other.failed,
            self.max_udp_retrans + other.max_udp_retrans,
            self.timeout_on_recv + other.timeout_on_recv,
            self.unexpected + other.unexpected,
            self.retransmissions + other.retransmissions,
            max(self.elapsed_s, other.elapsed_s),
        )


_COUNTER_COLUMNS = {
    "created": "TotalCallCreated",
    "successful": "SuccessfulCall(C)",
    "failed": "FailedCall(C)",
    "max_udp_retrans": "FailedMaxUDPRetrans(C)",
    "timeout_on_recv": "FailedTimeoutOnRecv(C)",
    "unexpected": "FailedUnexpectedMessage(C)",
    "retransmissions": "Retransmissions(C)",
}


def read_rows(path: Path) -> list[dict[str, str]]:
    """All complete rows of a statistics file; a half-written last line (SIPp still running) is dropped."""
    try:
        text = Path(path).read_text(encoding="latin-1")
    except FileNotFoundError:
        return []
    lines = text.splitlines()
    if not lines:
        return []
    if not text.endswith("\n"):
        lines = lines[:-1]
    reader = csv.reader(lines, delimiter=";")
    header = next(reader, None)
    if header is None:
        return []
    rows = []
    for fields in reader:
        if len(fields) < len(header) - 1:  # SIPp ends each row with ';', which may add an empty field
            continue
        rows.append(dict(zip(header, fields)))
    return rows


def duration_seconds(value: str) -> float:
    """SIPp's elapsed times: 'HH:MM:SS' or 'HH:MM:SS:micro'."""
    parts = value.strip().split(":")
    if len(parts) < 3:
        raise ValueError(f"not a SIPp duration: {value!r}")
    hours, minutes, seconds = (int(p) for p in parts[:3])
    micros = int(parts[3]) if len(parts) > 3 else 0
    return hours * 3600 + minutes * 60 + seconds + micros / 1e6


def epoch_seconds(value: str) -> float:
    """SIPp's dates: 'YYYY-MM-DD<TAB>HH:MM:SS.micro<TAB>epoch'; the epoch is what we use."""
    return float(value.split("\t")[-1])


def counts_of(row: dict[str, str]) -> Counts:
    values = {name: int(row.get(column, "0") or 0) for name, column in _COUNTER_COLUMNS.items()}
    elapsed = epoch_seconds(row["CurrentTime"]) - epoch_seconds(row["StartTime"])
    return Counts(elapsed_s=elapsed, **values)


def final_counts(path: Path) -> Counts:
    """The cumulative counters of the last complete row, or zeros when SIPp wrote none."""
    rows = read_rows(path)
    return counts_of(rows[-1]) if rows else Counts()


def creation_seconds(path: Path, calls: int) -> float | None:
    """Seconds from SIPp's start until it had created `calls` calls, None if it never did.

    Resolution is the dump period (-fd): the first row whose total reaches `calls`.
    """
    for row in read_rows(path):
        if int(row.get("TotalCallCreated", "0") or 0) >= calls:
            return epoch_seconds(row["CurrentTime"]) - epoch_seconds(row["StartTime"])
    return None


def read_response_times(path: Path, rtd: int | None = None) -> list[float]:
    """Response times in milliseconds from a -trace_rtt file (columns Date_ms;response_time_ms;rtd_no),
    of every response timer or only of timer `rtd` (a scenario that times two answers apart)."""
    try:
        lines = Path(path).read_text(encoding="latin-1").splitlines()
    except FileNotFoundError:
        return []
    values = []
    for line in lines[1:]:
        fields = line.split(";")
        if len(fields) < 2 or (rtd is not None and (len(fields) < 3 or fields[2].strip() != str(rtd))):
            continue
        try:
            values.append(float(fields[1]))
        except ValueError:
            continue
    return values


def received(path: Path, status: str) -> int:
    """How many responses `status` (e.g. "503") SIPp received, summed over the scenario's messages,
    from the last row of a -trace_counts file (columns N_STATUS_Recv); 0 when there is none."""
    rows = read_rows(path)
    if not rows:
        return 0
    return sum(int(value or 0) for column, value in rows[-1].items()
               if column.endswith(f"_{status}_Recv") and column.split("_")[0].isdigit())


def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile (p in 0..100); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100.0 * len(ordered)))
    return ordered[rank - 1]

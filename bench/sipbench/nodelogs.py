"""What the nodes' own logs say: the servlet logs its counters and its DHT's metrics as
`counters {name=value, ...}` every `p2psip.metrics.interval` (the bench sets 1 s) and once more
when it stops. The bench reads lookups and hops from them to report the mean hop count of a
measurement, and the share of the ring each node owns, which only the nodes know."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from p2psip_deploy.share import last_counters  # one reader of the counter line, deploy status's
# The interval the bench gives the nodes (deploy/p2psip up --set), so a measurement's counters
# are at most this old when it ends.
METRICS_INTERVAL = "1s"


@dataclass(frozen=True)
class Lookups:
    """Lookups and the hops they took, summed over the nodes of a deployment."""

    lookups: int = 0
    hops: int = 0

    def since(self, earlier: Lookups) -> Lookups:
        return Lookups(self.lookups - earlier.lookups, self.hops - earlier.hops)

    def mean_hops(self) -> float | None:
        return self.hops / self.lookups if self.lookups > 0 else None


def lookups(counters: dict[str, int]) -> Lookups:
    """A backend's lookups and hops: its metrics named `*.lookups` and `*.lookup.hops` (Chord,
    Bamboo and Bryan have them; a backend without routing hops, as memory or Hazelcast, has neither)."""
    return Lookups(sum(v for k, v in counters.items() if k.endswith(".lookups")),
                   sum(v for k, v in counters.items() if k.endswith(".lookup.hops")))


def node_counters(run_dir: Path) -> list[dict[str, int]]:
    """The last counters of every node folder of a deploy/p2psip run folder (node-*/logs/console.log)."""
    return [last_counters(log.read_text(errors="replace")) for log in sorted(run_dir.glob("node-*/logs/console.log"))]


def deployment_lookups(run_dir: Path) -> Lookups:
    """Summed over every node of a deploy/p2psip run folder."""
    total = Lookups()
    for counters in node_counters(run_dir):
        one = lookups(counters)
        total = Lookups(total.lookups + one.lookups, total.hops + one.hops)
    return total


def largest_range(run_dir: Path) -> float | None:
    """The largest share of the ring one node of a deployment owns, as a fraction (0.5 for two nodes
    split evenly), from the nodes' `*.range.permille` metrics (Chord and Bryan have them; with ids
    the hash of an address two nodes split anywhere from even to 999 to 1, and the busiest node
    carries its share of the load). None when no node reports one."""
    shares = [v for counters in node_counters(run_dir) for k, v in counters.items()
              if k.endswith(".range.permille") and v >= 0]
    return max(shares) / 1000 if shares else None

"""Reading lookups and hops from the nodes' counters lines."""
from sipbench import nodelogs
from sipbench.nodelogs import Lookups

LOG = """Nov 23, 2026 11:00:00 AM org.p2psip.servlet.P2PSipServlet lambda$startMetricsLog$0
INFO: counters {dht.chord.lookup.hops=10, dht.chord.lookups=5, register.ok=7}
Nov 23, 2026 11:00:01 AM org.p2psip.servlet.P2PSipServlet lambda$startMetricsLog$0
INFO: counters {dht.chord.lookup.hops=30, dht.chord.lookups=20, register.ok=9}
"""


def _node_logs(tmp_path, texts):
    for i, text in enumerate(texts):
        log = tmp_path / f"node-{i}" / "logs" / "console.log"
        log.parent.mkdir(parents=True)
        log.write_text(text)


def test_the_last_counters_line_counts():
    assert nodelogs.last_counters(LOG) == {"dht.chord.lookup.hops": 30, "dht.chord.lookups": 20, "register.ok": 9}
    assert nodelogs.last_counters("no counters here") == {}


def test_lookups_and_hops_are_summed_over_nodes_and_differenced(tmp_path):
    _node_logs(tmp_path, [LOG, "INFO: counters {dht.bamboo.lookups=10, dht.bamboo.lookup.hops=5}"])
    total = nodelogs.deployment_lookups(tmp_path)
    assert total == Lookups(lookups=30, hops=35)
    assert total.since(Lookups(10, 15)).mean_hops() == 1.0


def test_a_backend_without_hops_has_no_mean():
    assert nodelogs.lookups({"dht.hazelcast.gets": 4}).mean_hops() is None


def test_the_largest_share_of_the_ring_is_the_busiest_nodes(tmp_path):
    _node_logs(tmp_path, ["INFO: counters {dht.bryan.range.permille=1000}\nINFO: counters {dht.bryan.range.permille=123}",
                          "INFO: counters {dht.bryan.range.permille=876, dht.bryan.records=5}"])
    assert nodelogs.largest_range(tmp_path) == 0.876


def test_no_share_without_a_ring_or_while_a_node_knows_none(tmp_path):
    _node_logs(tmp_path, ["INFO: counters {dht.hazelcast.gets=4}", "INFO: counters {dht.chord.range.permille=-1}"])
    assert nodelogs.largest_range(tmp_path) is None

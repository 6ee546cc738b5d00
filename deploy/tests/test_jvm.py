"""The JVM flags of a node, run in a real JVM."""
import subprocess

import pytest

from p2psip_deploy import nodes

# A thread other than main runs out of heap while main would wait a minute: as with the
# container's UDP reader, only that thread would end without the node's flags.
STARVING_THREAD = """
public class Starve {
    public static void main(String[] args) throws Exception {
        Thread reader = new Thread(() -> {
            java.util.List<long[]> held = new java.util.ArrayList<>();
            while (true) {
                held.add(new long[1 << 16]);
            }
        });
        reader.start();
        reader.join();
        Thread.sleep(60_000);
        System.out.println("still up");
    }
}
"""


def test_a_node_out_of_heap_exits_instead_of_staying_up_deaf(tmp_path):
    source = tmp_path / "Starve.java"
    source.write_text(STARVING_THREAD)
    flags = nodes.memory_flags(nodes.UpOptions(nodes=1, heap="32m", run_dir=tmp_path))
    done = subprocess.run(["java", *flags, str(source)], capture_output=True, text=True, timeout=50)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "Terminating due to java.lang.OutOfMemoryError" in done.stdout + done.stderr
    assert "still up" not in done.stdout


def test_the_young_generation_defaults_to_half_the_heap(tmp_path):
    assert "-Xmn524288k" in nodes.memory_flags(nodes.UpOptions(nodes=1, heap="1g", run_dir=tmp_path))
    assert "-Xmn256m" in nodes.memory_flags(nodes.UpOptions(nodes=1, heap="1g", young="256m", run_dir=tmp_path))


def test_without_heap_or_rate_a_node_gets_one_gibibyte(tmp_path):
    assert "-Xmx1024m" in nodes.memory_flags(nodes.UpOptions(nodes=1, run_dir=tmp_path))


def test_the_heap_grows_with_the_rate_a_node_is_meant_to_carry(tmp_path):
    small = nodes.heap_for(nodes.UpOptions(register_rate=1000, run_dir=tmp_path))
    large = nodes.heap_for(nodes.UpOptions(register_rate=8000, run_dir=tmp_path))
    assert small == "1024m"  # never below the default
    # 8,000/s leave 256,000 final answers (150 MB) until Timer J; the old generation, half the
    # heap, must hold them with room to spare, and the heap guard must let the rate in
    assert int(large[:-1]) // 2 >= 3 * 8000 * 32 * 0.6 / 1024
    assert nodes.register_rate_held(nodes.UpOptions(register_rate=8000, run_dir=tmp_path)) >= 8000


def test_up_says_what_rate_the_default_heap_holds(tmp_path):
    held = nodes.register_rate_held(nodes.UpOptions(run_dir=tmp_path))
    # 1 GiB, half young: 80% of 512 MiB less 64 MiB, at 600 bytes a request for 34 s
    assert held == int((0.8 * 512 - 64) * 1024 / 0.6 / 34)
    fewer = nodes.register_rate_held(nodes.UpOptions(dht="chord", users_expected=1_000_000, run_dir=tmp_path))
    assert fewer < nodes.register_rate_held(nodes.UpOptions(dht="chord", users_expected=1_000_000, heap="4g",
                                                               run_dir=tmp_path))


def test_a_longer_t1_keeps_transactions_longer_and_needs_more_heap(tmp_path):
    assert int(nodes.heap_for(nodes.UpOptions(register_rate=5000, t1_ms=500)).rstrip("m")) > \
        int(nodes.heap_for(nodes.UpOptions(register_rate=5000, t1_ms=100)).rstrip("m"))


def test_a_given_heap_wins_over_the_rate(tmp_path):
    assert nodes.heap_for(nodes.UpOptions(register_rate=8000, heap="768m", run_dir=tmp_path)) == "768m"


def test_users_expected_adds_each_nodes_share_of_their_records_to_the_heap():
    options = nodes.UpOptions(dht="chord", nodes=4, users_expected=10_000_000)
    # 10M users x 3 copies / 4 nodes = 7.5M records of 350 B, 1.5 times over, plus the 1 GiB working heap
    assert nodes.records_mb(options) == pytest.approx(7_500_000 * 350 / (1 << 20))
    assert nodes.heap_for(options) == "4864m"
    assert nodes.young_for(options) == "512m", "records live long: the young generation stays at half the rest"
    assert "-Xmx4864m" in nodes.memory_flags(options) and "-Xmn512m" in nodes.memory_flags(options)


def test_users_expected_on_bamboo_sizes_its_je_cache_not_a_heap_of_records():
    options = nodes.UpOptions(dht="bamboo", nodes=4, users_expected=10_000_000)
    cache = int(nodes.sizing_properties(options)["p2psip.bamboo.je.cache.bytes"])
    assert cache == int(7_500_000 * 100)
    assert nodes.heap_for(options) == "2304m"
    assert nodes.sizing_properties(nodes.UpOptions(dht="chord", users_expected=1000)) == {}


def test_fewer_nodes_than_copies_hold_every_record_once_each():
    one = nodes.UpOptions(dht="chord", nodes=1, users_expected=1_000_000)
    assert nodes.records_mb(one) == pytest.approx(1_000_000 * 350 / (1 << 20))

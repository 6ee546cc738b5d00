"""The JVM flags of a node, run in a real JVM."""
import subprocess

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

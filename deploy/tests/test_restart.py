"""restart: a node started again on its folder with the command `up` used, its record replaced."""
import json

import pytest

from p2psip_deploy import nodes, processes


def node_folder(tmp_path, index, bootstrap, overlay):
    folder = tmp_path / f"node-{index}"
    (folder / "logs").mkdir(parents=True)
    (folder / nodes.COMMAND_FILE).write_text(json.dumps(["sleep", "60"]))
    (folder / "node.properties").write_text(
        f"# generated\np2psip.overlay.address={overlay}\np2psip.overlay.bootstrap={bootstrap}\np2psip.data.dir=x\n")
    return folder


def started(tmp_path, index, folder, overlay_port):
    pid, ticks = processes.launch(["sleep", "60"], folder / "logs" / "console.log", folder)
    process = processes.Process("node", "chord", "127.0.0.1", 0, pid, ticks, str(folder), overlay_port)
    processes.record(tmp_path, process)
    return process


@pytest.fixture
def two_nodes(tmp_path, monkeypatch):
    monkeypatch.setattr(nodes, "wait_answering", lambda started, timeout, local="127.0.0.1": None)
    first = started(tmp_path, 0, node_folder(tmp_path, 0, "", "127.0.0.1:28070"), 28070)
    second = started(tmp_path, 1, node_folder(tmp_path, 1, "127.0.0.1:28070", "127.0.0.1:28071"), 28071)
    yield first, second
    processes.stop(processes.load(tmp_path), grace_seconds=1)


def test_a_killed_node_runs_again_under_a_new_record_and_the_others_are_untouched(tmp_path, two_nodes):
    first, second = two_nodes
    before = (tmp_path / "node-1" / "node.properties").read_text()
    processes.kill(second)
    again = nodes.restart_node(tmp_path, 1, timeout=5)
    assert processes.alive(again) and again.pid != second.pid
    assert [p.pid for p in processes.load(tmp_path)] == [first.pid, again.pid]
    assert processes.alive(first)
    assert (tmp_path / "node-1" / "node.properties").read_text() == before   # as a supervisor would


def test_a_running_node_is_stopped_before_it_starts_again(tmp_path, two_nodes):
    first, second = two_nodes
    again = nodes.restart_node(tmp_path, 0, timeout=5)
    assert not processes.alive(first) and processes.alive(again) and processes.alive(second)


def test_an_unknown_node_is_refused(tmp_path, two_nodes):
    with pytest.raises(nodes.DeployError, match="no node 5"):
        nodes.restart_node(tmp_path, 5, timeout=5)

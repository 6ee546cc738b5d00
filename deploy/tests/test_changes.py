"""add, remove and rolling-restart: the options `up` keeps for `add`, the new node's folder, the
order of drain, stop, start and admit, and the records afterwards, on stand-in processes (`sleep`
recorded as nodes; the real ones: tests/test_fault_run.py)."""
import json
import signal
import time
from pathlib import Path

import pytest

from p2psip_deploy import changes, cli, hosts, layout, nodes, processes


def test_the_options_of_up_are_kept_and_read_back_whole(tmp_path):
    options = nodes.UpOptions(dht="bamboo", nodes=3, base_port=31060, overlay_offset=400, settings={"a.b": "c"},
                              jvm_args=["-Dx=1"], cpus={"nodes": "1"}, run_dir=tmp_path,
                              hosts=[hosts.Host("10.77.0.10", "netns", cpus=0.5)])
    nodes.save_options(options)
    assert nodes.recorded_options(tmp_path) == options


def test_add_without_a_deployment_of_up_says_so(tmp_path):
    with pytest.raises(nodes.DeployError, match="no options of `up` recorded"):
        changes.add(tmp_path, timeout=5)


@pytest.mark.parametrize("options, refusal", [
    (nodes.UpOptions(netns=True), "not with --netns or --hosts"),
    (nodes.UpOptions(tls=True), "without --tls"),
    (nodes.UpOptions(front="kamailio-rr"), "src/front's front or none"),
    (nodes.UpOptions(front="tlwl"), ""),
])
def test_add_grows_only_what_it_can_give_a_node_like_the_others(options, refusal):
    said = changes.add_refusal(options)
    assert refusal in said and bool(said) == bool(refusal)


def test_a_joining_node_has_the_overlays_secret_and_joins_the_nodes_running(tmp_path):
    options = nodes.UpOptions(nodes=5, base_port=31060, overlay_offset=400, run_dir=tmp_path)
    running = []
    for index in (0, 2):
        folder = tmp_path / f"node-{index}"
        folder.mkdir()
        (folder / "node.properties").write_text("p2psip.overlay.secret=0123abcd\np2psip.dht=chord\n")
        running.append(processes.Process("node", "chord", "127.0.0.1", 31060 + index, 1, 1, str(folder), 31460 + index))
    spec = changes.joining_spec(options, running, 4)
    assert (spec.index, spec.sip_port, spec.overlay_port, spec.http_port) == (4, 31064, 31464, 34064)
    assert spec.folder == (tmp_path / "node-4").resolve()
    assert spec.properties["p2psip.overlay.secret"] == "0123abcd"
    assert spec.properties["p2psip.overlay.bootstrap"] == "127.0.0.1:31460"
    assert spec.properties["p2psip.overlay.members"] == "127.0.0.1:31460,127.0.0.1:31462,127.0.0.1:31464"


def stand_in(run_dir: Path, index: int, command=("sleep", "60")) -> processes.Process:
    """A process recorded as node `index`, its folder with the command.json `up` would write."""
    folder = run_dir / f"node-{index}"
    (folder / "logs").mkdir(parents=True)
    (folder / nodes.COMMAND_FILE).write_text(json.dumps(list(command)))
    pid, ticks = processes.launch(list(command), folder / "logs" / "console.log", folder)
    process = processes.Process("node", "chord", "127.0.0.1", 0, pid, ticks, str(folder))
    processes.record(run_dir, process)
    return process


class Witness(changes.Routes):
    """Routes that write down what they were asked, and whether the node then ran."""

    def __init__(self, run_dir):
        super().__init__(run_dir)
        self.calls = []

    def drain(self, node):
        self.calls.append(("drain", Path(node.folder).name, processes.alive(node)))

    def admit(self, node):
        self.calls.append(("admit", Path(node.folder).name, processes.alive(node)))


@pytest.fixture
def three_nodes(tmp_path, monkeypatch):
    monkeypatch.setattr(nodes, "wait_answering", lambda started, timeout, local="127.0.0.1": None)
    records = [stand_in(tmp_path, i) for i in range(3)]
    yield records
    processes.stop(processes.load(tmp_path), grace_seconds=1)


def test_a_node_removed_is_drained_while_it_runs_stopped_by_term_and_forgotten(tmp_path, three_nodes):
    routes = Witness(tmp_path)
    assert changes.remove(tmp_path, 1, stop_s=10, routes=routes)
    assert routes.calls == [("drain", "node-1", True)]
    assert not processes.alive(three_nodes[1])
    assert [Path(p.folder).name for p in processes.load(tmp_path)] == ["node-0", "node-2"]
    with pytest.raises(nodes.DeployError, match="no node 1 recorded"):
        nodes.kill_node(tmp_path, 1)


def test_a_node_that_ignores_term_is_killed_at_the_deadline_and_said_so(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(nodes, "wait_answering", lambda started, timeout, local="127.0.0.1": None)
    stand_in(tmp_path, 0)
    # it says when it ignores TERM: a TERM sent before the trap is set ends the shell at once
    stubborn = stand_in(tmp_path, 1, ("sh", "-c", "trap '' TERM; echo ignoring; sleep 60 & wait; sleep 60"))
    console = Path(stubborn.folder) / "logs" / "console.log"
    deadline = time.monotonic() + 30
    while "ignoring" not in console.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)   # poll interval of a condition
    try:
        assert not changes.remove(tmp_path, 1, stop_s=0.5, routes=Witness(tmp_path))
        assert not processes.alive(stubborn)
        assert "was KILLed" in capsys.readouterr().err
    finally:
        processes.stop(processes.load(tmp_path), grace_seconds=1)


def test_the_last_node_running_is_not_removed(tmp_path, three_nodes):
    for record in three_nodes[1:]:
        processes.kill(record)
    with pytest.raises(nodes.DeployError, match="last node running"):
        changes.remove(tmp_path, 0, routes=Witness(tmp_path))
    assert processes.alive(three_nodes[0])


def test_a_rolling_restart_takes_one_node_at_a_time_out_and_back(tmp_path, three_nodes):
    routes = Witness(tmp_path)
    assert changes.rolling_restart(tmp_path, timeout=5, stop_s=10, routes=routes) == []
    assert routes.calls == [(step, f"node-{i}", True) for i in range(3) for step in ("drain", "admit")]
    after = processes.load(tmp_path)
    assert [Path(p.folder).name for p in after] == ["node-0", "node-1", "node-2"]
    assert all(processes.alive(p) for p in after)
    assert not {p.pid for p in after} & {p.pid for p in three_nodes}


def test_the_routes_tell_a_running_front_through_its_nodes_file(tmp_path, three_nodes, monkeypatch):
    told = []
    monkeypatch.setattr(changes.front, "set_nodes", lambda run_dir, live, timeout: told.append(
        [Path(p.folder).name for p in live]))
    drained = []
    routes = changes.Routes(tmp_path, drain=lambda node: drained.append(Path(node.folder).name))
    routes.drain(three_nodes[1])
    routes.admit(three_nodes[1])
    assert told == [["node-0", "node-2"], ["node-0", "node-1", "node-2"]] and drained == ["node-1"]


@pytest.mark.parametrize("argv, command, value", [
    (["add"], "add", 300.0),
    (["remove", "2", "--stop-timeout", "30"], "remove", 30.0),
    (["rolling-restart", "--timeout", "600"], "rolling-restart", 600.0),
])
def test_the_commands_parse_with_their_deadlines(argv, command, value):
    args = cli.parser().parse_args(argv)
    assert args.command == command
    assert value in (getattr(args, "timeout", None), getattr(args, "stop_timeout", None))
    assert getattr(args, "stop_timeout", changes.STOP_S) in (changes.STOP_S, 30.0)


def test_remove_without_a_number_is_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit) as exit:
        cli.parser().parse_args(["remove"])
    assert exit.value.code == 2 and "node" in capsys.readouterr().err


def test_a_change_of_an_empty_run_folder_exits_1_saying_why(tmp_path, capsys):
    assert cli.main(["remove", "1", "--run-dir", str(tmp_path)]) == 1
    assert "no node 1 recorded" in capsys.readouterr().err


def test_a_rolling_upgrade_gives_each_stopped_node_the_application_built_now(tmp_path, three_nodes, monkeypatch):
    war = tmp_path / "built"
    (war / "WEB-INF").mkdir(parents=True)
    (war / "WEB-INF" / "version").write_text("2\n")
    monkeypatch.setattr(layout, "APPS", {"stand-in": layout.App("stand-in", "none", str(war))})
    monkeypatch.setattr(changes.build, "ensure", lambda app: None)
    nodes.save_options(nodes.UpOptions(app="stand-in", run_dir=tmp_path))
    for index in range(3):
        old = tmp_path / f"node-{index}" / "webapps" / "ROOT"
        old.mkdir(parents=True)
        (old / "left-from-1").write_text("")
    changes.rolling_restart(tmp_path, timeout=5, stop_s=10, routes=Witness(tmp_path), upgrade=True)
    for index in range(3):
        root = tmp_path / f"node-{index}" / "webapps" / "ROOT"
        assert (root / "WEB-INF" / "version").read_text() == "2\n" and not (root / "left-from-1").exists()

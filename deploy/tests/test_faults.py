"""The fault schedule and the injectors that need no node: pause and starve on a stand-in process,
the log of every start and heal, and the refusals before a run starts."""
import io
import json
import subprocess
import threading
import time
from pathlib import Path

import pytest

from p2psip_deploy import cgroups, faults, netns, nodes, processes


def test_the_schedule_is_the_seeds_and_every_fault_heals_before_the_end():
    plan = faults.schedule([faults.KILL, faults.PAUSE, faults.STARVE], 4, 600, seed=5)
    assert plan == faults.schedule([faults.KILL, faults.PAUSE, faults.STARVE], 4, 600, seed=5)
    assert plan != faults.schedule([faults.KILL, faults.PAUSE, faults.STARVE], 4, 600, seed=6)
    assert {f.kind for f in plan} == {faults.KILL, faults.PAUSE, faults.STARVE}
    assert all(0 <= f.node < 4 for f in plan)
    for fault, after in zip(plan, plan[1:]):
        assert after.at >= fault.at + fault.hold + faults.HEAL_S[fault.kind]
    last = plan[-1]
    assert last.at + last.hold + faults.HEAL_S[last.kind] <= 600


def test_each_planned_change_comes_once_after_a_fault_each_with_room_for_it():
    kinds = [faults.KILL, faults.PAUSE, faults.ADD, faults.REMOVE]
    plan = faults.schedule(kinds, 4, 600, seed=3)
    assert plan == faults.schedule(kinds, 4, 600, seed=3)
    drawn = [f.kind for f in plan]
    assert sorted(k for k in drawn if k in faults.PLANNED) == [faults.ADD, faults.REMOVE]
    assert drawn[0] not in faults.PLANNED and drawn[1] in faults.PLANNED and drawn[3] in faults.PLANNED
    assert all(f.hold == 0 for f in plan if f.kind in faults.PLANNED)
    for fault, after in zip(plan, plan[1:]):
        assert after.at >= fault.at + fault.hold + faults.HEAL_S[fault.kind]


def test_a_rolling_restart_takes_room_for_every_node_and_planned_changes_alone_come_one_after_another():
    plan = faults.schedule([faults.ROLLING, faults.ADD], 3, 600, seed=1)
    assert sorted(f.kind for f in plan) == [faults.ADD, faults.ROLLING]
    rolling = next(f for f in plan if f.kind == faults.ROLLING)
    later = [f for f in plan if f.at > rolling.at]
    nodes_then = 3 if plan[0].kind == faults.ROLLING else 4
    assert not later or later[0].at >= rolling.at + nodes_then * faults.HEAL_S[faults.ROLLING]
    assert faults.schedule([faults.ROLLING], 4, 100, seed=1) == []   # no room: not begun


def test_a_pause_holds_longer_than_the_dht_deadline():
    plan = faults.schedule([faults.PAUSE], 2, 600, seed=1)
    assert plan and all(f.hold > 2 for f in plan)


@pytest.mark.parametrize("text", ["", "kill,crash", "pause;kill"])
def test_unknown_faults_are_refused_naming_the_choices(text):
    with pytest.raises(faults.FaultError, match="kill, pause, starve, partition, slow, add, remove, rolling"):
        faults.parse_kinds(text)


def test_the_cpu_group_is_read_from_the_cpu_controllers_line():
    text = "9:name=systemd:/\n4:memory:/x\n2:cpu,cpuacct:/helpers/h46\n0::/\n"
    assert cgroups.group_of(1, text) == "/helpers/h46"
    with pytest.raises(cgroups.CgroupError, match="no group"):
        cgroups.group_of(1, "0::/\n")


@pytest.fixture
def standin_node(tmp_path):
    """A sleeping process recorded as node 0 of a deployment in tmp_path."""
    folder = tmp_path / "node-0"
    folder.mkdir()
    pid, ticks = processes.launch(["sleep", "60"], tmp_path / "sleep.log", tmp_path)
    record = processes.Process("node", "memory", "127.0.0.1", 1, pid, ticks, str(folder))
    processes.record(tmp_path, record)
    yield record
    processes.stop([record], grace_seconds=2)


def state_of(pid: int) -> str:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rindex(")") + 2]


def stopped(pid: int, seconds: float = 10) -> bool:
    """Whether the process reaches the stopped state (T) within `seconds`: a signal lands soon, not at once."""
    deadline = time.monotonic() + seconds
    while state_of(pid) != "T":
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)   # poll interval
    return True


def running(pid: int, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while state_of(pid) == "T":
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)   # poll interval
    return True


def test_a_pause_stops_the_node_and_its_heal_continues_it_both_logged(tmp_path, standin_node):
    log = io.StringIO()
    injector = faults.Injector(tmp_path, log)
    fault = faults.Fault(at=0, kind=faults.PAUSE, node=0, hold=0)
    injector.apply(fault)
    assert stopped(standin_node.pid)
    injector.heal_all()
    assert running(standin_node.pid)
    events = [json.loads(line) for line in log.getvalue().splitlines()]
    assert [e["event"] for e in events] == ["start", "healed"]
    assert events[0]["time"] <= events[1]["time"] and events[0]["kind"] == "pause"


def test_a_faults_node_is_its_place_among_the_nodes_running_and_with_none_it_is_logged_as_failed(
        tmp_path, standin_node):
    log = io.StringIO()
    injector = faults.Injector(tmp_path, log)
    injector.apply(faults.Fault(at=0, kind=faults.PAUSE, node=3, hold=0))   # place 3 of 1: node 0
    assert stopped(standin_node.pid)
    injector.heal_all()
    processes.stop([standin_node], grace_seconds=2)
    injector.apply(faults.Fault(at=0, kind=faults.PAUSE, node=0, hold=0))
    entry = json.loads(log.getvalue().splitlines()[-1])
    assert entry["event"] == "failed" and "no node is running" in entry["detail"]


def test_stopping_the_schedule_early_heals_what_holds(tmp_path, standin_node):
    log = io.StringIO()
    injector = faults.Injector(tmp_path, log)
    stop = threading.Event()
    plan = [faults.Fault(at=0, kind=faults.PAUSE, node=0, hold=60), faults.Fault(at=1, kind=faults.PAUSE, node=0, hold=1)]
    runner = threading.Thread(target=injector.run, args=(plan, time.time(), stop))
    runner.start()
    assert stopped(standin_node.pid)
    stop.set()
    runner.join(10)
    assert not runner.is_alive() and running(standin_node.pid)
    assert [json.loads(line)["event"] for line in log.getvalue().splitlines()] == ["start", "healed"]


@pytest.mark.skipif(bool(faults.starve_unavailable()), reason=faults.starve_unavailable() or "-")
def test_starve_caps_the_node_in_a_child_group_and_its_heal_puts_it_back(tmp_path, standin_node):
    home = cgroups.group_of(standin_node.pid)
    injector = faults.Injector(tmp_path, io.StringIO(), starve_percent=3)
    injector.apply(faults.Fault(at=0, kind=faults.STARVE, node=0, hold=0))
    group = cgroups.group_of(standin_node.pid)
    assert group == f"{home.rstrip('/')}/p2psip-starve-{standin_node.pid}"
    assert (cgroups.CPU_CGROUP / group.lstrip("/") / "cpu.cfs_quota_us").read_text().strip() == "3000"
    injector.heal_all()
    assert cgroups.group_of(standin_node.pid) == home
    assert not (cgroups.CPU_CGROUP / group.lstrip("/")).exists()


def test_partition_and_slow_are_refused_without_namespaces(tmp_path, standin_node):
    with pytest.raises(faults.FaultError, match="partition and slow need the nodes in network namespaces.*--netns"):
        faults.check(tmp_path, [faults.PAUSE, faults.PARTITION, faults.SLOW])


def test_add_is_refused_before_a_run_where_add_could_not_grow_the_deployment(tmp_path, standin_node):
    with pytest.raises(faults.FaultError, match="no options of `up` recorded"):
        faults.check(tmp_path, [faults.PAUSE, faults.ADD])
    nodes.save_options(nodes.UpOptions(tls=True, run_dir=tmp_path))
    with pytest.raises(faults.FaultError, match="without --tls"):
        faults.check(tmp_path, [faults.ADD])
    assert "not with --netns" in faults.unsupported([faults.ADD], in_namespaces=True)
    nodes.save_options(nodes.UpOptions(run_dir=tmp_path))
    faults.check(tmp_path, [faults.ADD, faults.REMOVE, faults.ROLLING])


@pytest.fixture
def one_node_network(tmp_path, standin_node):
    """The namespaces of `up --netns` for one node, around the stand-in node's record."""
    reason = netns.unavailable_reason()
    if reason:
        pytest.skip(reason)
    network = netns.plan(tmp_path, 1, False)
    try:
        netns.create(tmp_path, network)
        yield network
    finally:
        assert netns.remove(tmp_path) == []


def run_in(namespace, *command):
    return subprocess.run(netns.exec_in(namespace, list(command)), capture_output=True, text=True, check=True).stdout


def test_partition_takes_the_nodes_veth_down_and_its_heal_up(tmp_path, one_node_network):
    faults.check(tmp_path, [faults.PARTITION])
    injector = faults.Injector(tmp_path, io.StringIO())
    injector.apply(faults.Fault(at=0, kind=faults.PARTITION, node=0, hold=0))
    assert "state DOWN" in run_in(one_node_network.bridge_namespace, "ip", "link", "show", "v0")
    injector.heal_all()
    assert "state DOWN" not in run_in(one_node_network.bridge_namespace, "ip", "link", "show", "v0")


def test_slow_puts_a_token_bucket_on_both_ends_of_the_veth_and_its_heal_removes_them(tmp_path, one_node_network):
    ends = [(one_node_network.bridge_namespace, "v0"), (one_node_network.node_namespace(0), "eth0")]
    injector = faults.Injector(tmp_path, io.StringIO())
    injector.apply(faults.Fault(at=0, kind=faults.SLOW, node=0, hold=0))
    assert all("tbf" in run_in(ns, "tc", "qdisc", "show", "dev", dev) for ns, dev in ends)
    injector.heal_all()
    assert not any("tbf" in run_in(ns, "tc", "qdisc", "show", "dev", dev) for ns, dev in ends)


def test_a_run_folder_without_nodes_is_refused(tmp_path):
    with pytest.raises(faults.FaultError, match="no nodes recorded"):
        faults.check(tmp_path, [faults.PAUSE])

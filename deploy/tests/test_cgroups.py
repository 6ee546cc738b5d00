"""`up --cpu-quota Q` and a host's `cpus=Q`: each node (or host) in a group of the cgroup v1 cpu
controller with its quota, recorded, shown by status, entered again by restart, removed by down (only
its own), and refused in one line (exit 2) where it cannot be given. On a controller faked in a folder:
the groups are folders, a node enters one by writing its PID into the folder's cgroup.procs, and
`kernel_rmdir` stands in for the kernel's rmdir of a group. No JVM starts: the nodes are `sleep`."""
import errno
import json
import os
import time
from pathlib import Path

import pytest

from p2psip_deploy import cgroups, cli, hosts, layout, netns, nodefolder, nodes, processes


def kernel_rmdir(group: Path) -> None:
    """The kernel's rmdir of a group: refused while a child group or a live process is in it; its
    interface files go with it."""
    listed = (group / cgroups.PROCS).read_text().split() if (group / cgroups.PROCS).exists() else []
    if any(p.is_dir() for p in group.iterdir()) or any(processes.start_ticks(int(pid)) for pid in listed):
        raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), str(group))
    for file in group.iterdir():
        file.unlink()
    group.rmdir()


@pytest.fixture
def controller(tmp_path, monkeypatch):
    """A cpu controller faked in a folder, this process in its root group."""
    root = tmp_path / "cpu"
    root.mkdir()
    (root / cgroups.PROCS).write_text("")
    monkeypatch.setattr(cgroups, "CPU_CGROUP", root)
    monkeypatch.setattr(cgroups, "own_group", lambda: "/")
    monkeypatch.setattr(cgroups, "remove_group", kernel_rmdir)
    return root


@pytest.fixture
def run(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    return folder


def spec(run: Path, index: int, namespace: str = "") -> nodefolder.NodeSpec:
    return nodefolder.NodeSpec(index, run / f"node-{index}", "127.0.0.1", 5070 + index, 6070 + index, "chord",
                               layout.APPS["p2psip"], 500, {}, False, 8, namespace, "127.0.0.1", 0, 8070 + index, "")


def test_each_node_gets_a_group_of_its_own_with_its_quota_under_the_deployments(controller, run):
    options = nodes.UpOptions(run_dir=run, nodes=2, cpu_quota=0.2)
    nodes.make_groups(options)
    deployment = controller / f"p2psip-{netns.identity(run)}"
    for index in (0, 1):
        group = deployment / f"node-{index}"
        assert nodes.node_group(options, index) == group
        assert (group / "cpu.cfs_quota_us").read_text() == "20000"
        assert (group / "cpu.cfs_period_us").read_text() == "100000"
    assert cgroups.recorded(run) == [deployment, deployment / "node-0", deployment / "node-1"]


def test_the_jvm_enters_its_group_then_its_namespace_then_its_cpus(controller, run):
    # in the namespace first, it would find no /sys/fs/cgroup: `ip netns exec` mounts a /sys of its own
    options = nodes.UpOptions(run_dir=run, cpu_quota=0.5, cpus={"nodes": "0"})
    command = nodes.jvm_command(spec(run, 0, "p2psip-t-0"), options)
    procs = str(nodes.node_group(options, 0) / "cgroup.procs")
    assert command[:9] == ["sh", "-c", 'echo $$ > "$0" && exec "$@"', procs, "ip", "netns", "exec", "p2psip-t-0",
                           "taskset"]
    assert command[command.index("taskset") + 3] == "java"


def test_without_a_quota_no_group_is_made_and_the_jvm_runs_as_before(controller, run):
    options = nodes.UpOptions(run_dir=run)
    nodes.make_groups(options)
    assert nodes.node_group(options, 0) is None and nodes.jvm_command(spec(run, 0), options)[0] == "java"
    assert not cgroups.recorded(run) and list(controller.iterdir()) == [controller / cgroups.PROCS]


def test_a_host_is_a_group_its_nodes_share_with_its_own_quota_or_the_options():
    listed = hosts.parse("10.77.0.10 netns cpus=0.5\n10.77.0.11 netns\n10.77.0.12 netns cpus=1.5\n")
    assert [h.cpus for h in listed] == [0.5, None, 1.5]
    options = nodes.UpOptions(nodes=6, hosts=listed, cpu_quota=0.2)
    assert [nodes.group_name(options, i) for i in range(6)] == ["host-0", "host-1", "host-2"] * 2
    assert [nodes.quota_of(options, i) for i in range(3)] == [0.5, 0.2, 1.5]
    assert nodes.quota_of(nodes.UpOptions(nodes=2, hosts=listed), 1) == 0.0, "no quota of its own, none given"


def test_a_cpus_word_that_is_no_number_is_an_error_naming_the_line():
    with pytest.raises(hosts.HostsError, match="hosts.txt:1: cpus=half is not a number"):
        hosts.parse("10.77.0.10 netns cpus=half\n", "hosts.txt")


def launch_recording(monkeypatch, launched):
    def launch(command, log, cwd, login="", ssh_config=""):
        launched.append(command)
        return 4242, 1
    monkeypatch.setattr(processes, "launch", launch)


def test_a_started_node_is_recorded_with_its_quota_and_group_and_status_shows_them(controller, run, monkeypatch):
    options = nodes.UpOptions(run_dir=run, cpu_quota=0.25)
    launched = []
    launch_recording(monkeypatch, launched)
    node = spec(run, 0)
    (node.folder / "logs").mkdir(parents=True)
    nodes.start(node, options)
    group = str(nodes.node_group(options, 0))
    (record,) = processes.load(run)
    assert (record.cpu_quota, record.cgroup) == (0.25, group)
    assert json.loads((node.folder / nodes.COMMAND_FILE).read_text()) == launched[0]
    assert launched[0][3] == f"{group}/cgroup.procs", "command.json keeps the group, for restart"
    monkeypatch.setattr(nodes.sipp, "options_probe", lambda *args: False)
    (line,) = nodes.status_lines(run)
    assert f" cpu-quota 0.25 cgroup {group}" in line


def standin(run: Path, group: Path, index: int = 0) -> processes.Process:
    """A `sleep` in `group` (through the command a node's command.json holds), recorded as node `index`."""
    folder = run / f"node-{index}"
    (folder / "logs").mkdir(parents=True)
    command = cgroups.entered(group, ["sleep", "60"])
    (folder / nodes.COMMAND_FILE).write_text(json.dumps(command))
    pid, ticks = processes.launch(command, folder / "logs" / "console.log", folder)
    record = processes.Process("node", "chord", "127.0.0.1", 0, pid, ticks, str(folder), cpu_quota=0.2,
                               cgroup=str(group))
    processes.record(run, record)
    return record


def listed_in(group: Path, pid: int, seconds: float = 10) -> bool:
    """Whether the group's cgroup.procs names the PID within `seconds`: the shell writes it once it runs."""
    procs, deadline = group / cgroups.PROCS, time.monotonic() + seconds
    while not procs.exists() or procs.read_text().split() != [str(pid)]:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)   # poll interval
    return True


def test_restart_puts_the_node_back_in_its_group_made_again_if_it_went(controller, run, monkeypatch):
    monkeypatch.setattr(nodes, "wait_answering", lambda started, timeout, local="127.0.0.1": None)
    group = cgroups.create(run, {"node-0": 0.2})["node-0"]
    first = standin(run, group)
    try:
        assert listed_in(group, first.pid)
        processes.kill(first)
        kernel_rmdir(group)
        again = nodes.restart_node(run, 0, timeout=5)
        assert again.pid != first.pid and (again.cpu_quota, again.cgroup) == (0.2, str(group))
        assert listed_in(group, again.pid)
        assert (group / "cpu.cfs_quota_us").read_text() == "20000"
    finally:
        processes.stop(processes.load(run), grace_seconds=1)


def test_down_stops_the_nodes_then_removes_their_groups_and_only_those(controller, run):
    groups = cgroups.create(run, {"node-0": 0.2, "node-1": 0.2})
    someone_elses = controller / "p2psip-other" / "node-0"
    someone_elses.mkdir(parents=True)
    records = [standin(run, groups["node-0"], 0), standin(run, groups["node-1"], 1)]
    assert all(listed_in(groups[f"node-{i}"], r.pid) for i, r in enumerate(records))
    assert nodes.stop_all(run, grace_seconds=2)
    assert not any(processes.alive(r) for r in records)
    assert not (controller / f"p2psip-{netns.identity(run)}").exists() and not cgroups.recorded(run)
    assert someone_elses.is_dir()


def test_a_group_a_process_still_runs_in_is_kept_and_named(controller, run):
    group = cgroups.create(run, {"node-0": 0.2})["node-0"]
    record = standin(run, group)
    try:
        assert listed_in(group, record.pid)
        left = cgroups.remove(run)
        assert left == [f"cgroup {group} (Device or resource busy)", f"cgroup {group.parent} (Device or resource busy)"]
        assert cgroups.recorded(run), "kept for the next down"
    finally:
        processes.stop([record], grace_seconds=1)
    assert cgroups.remove(run) == [] and not group.parent.exists()


def refused(capsys, argv) -> str:
    assert cli.main(argv) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize("quota", ["0", "-0.5", "0.001"])
def test_a_quota_the_kernel_cannot_take_is_refused_in_one_line(controller, run, capsys, quota):
    line = refused(capsys, ["up", "--cpu-quota", quota, "--run-dir", str(run)])
    assert line.startswith(f"deploy/p2psip up: --cpu-quota {float(quota):g}: a quota is at least 0.01 cores")


def test_a_missing_controller_is_refused_in_one_line(tmp_path, run, capsys, monkeypatch):
    monkeypatch.setattr(cgroups, "CPU_CGROUP", tmp_path / "no-controller")
    line = refused(capsys, ["up", "--cpu-quota", "0.2", "--run-dir", str(run)])
    assert line == f"deploy/p2psip up: a CPU quota needs the cgroup v1 cpu controller: no cgroup v1 cpu controller " \
                   f"at {tmp_path / 'no-controller'}"


def test_a_controller_this_process_may_not_write_is_refused(controller, run, capsys, monkeypatch):
    monkeypatch.setattr(cgroups.os, "access", lambda path, mode: False)
    assert "is not writable (making a group there needs root)" in refused(
        capsys, ["up", "--cpu-quota", "0.2", "--run-dir", str(run)])


def test_a_quota_on_ssh_hosts_is_refused(controller, run, capsys, tmp_path):
    listed = tmp_path / "hosts.txt"
    listed.write_text("10.0.0.21 ssh p2psip@sip-a.example.net cpus=0.5\n")
    assert "not with ssh hosts" in refused(capsys, ["up", "--hosts", str(listed), "--run-dir", str(run)])
    listed.write_text("10.0.0.21 ssh p2psip@sip-a.example.net\n")
    assert "not with ssh hosts" in refused(capsys, ["up", "--hosts", str(listed), "--cpu-quota", "0.2",
                                                    "--run-dir", str(run)])


def test_a_host_quota_of_zero_is_refused(controller, run, capsys, tmp_path):
    listed = tmp_path / "hosts.txt"
    listed.write_text("10.77.0.10 netns cpus=0\n")
    assert "host 10.77.0.10 cpus= 0: a quota is at least" in refused(
        capsys, ["up", "--hosts", str(listed), "--run-dir", str(run)])


def test_units_refuse_a_quota(controller, run, capsys):
    assert "CPUQuota=" in refused(capsys, ["units", "--cpu-quota", "0.2", "--run-dir", str(run)])
    assert not any(run.iterdir())


def test_a_quota_the_kernel_refuses_leaves_no_group_for_down_to_miss(controller, run, capsys, monkeypatch):
    def refuse(group, cores):
        raise cgroups.CgroupError(f"cannot give {group} {cores:g} cores: Invalid argument")
    monkeypatch.setattr(cgroups, "make", refuse)
    options = nodes.UpOptions(run_dir=run, nodes=2, cpu_quota=0.2)
    with pytest.raises(cgroups.CgroupError, match="node-0 0.2 cores: Invalid argument"):
        nodes.make_groups(options)
    assert cgroups.remove(run) == [] and not cgroups.recorded(run)
    assert list(controller.iterdir()) == [controller / cgroups.PROCS]


def test_the_kernels_refusal_of_a_quota_names_the_group(tmp_path):
    group = tmp_path / "missing-parent" / "node-0"
    with pytest.raises(cgroups.CgroupError, match=f"cannot give {group} 0.2 cores: No such file or directory"):
        cgroups.make(group, 0.2)

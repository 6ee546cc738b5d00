"""`up --cpus SPEC` and `up --front-state MODE`: what the parser accepts and refuses, and the command
lines built from them (taskset before the JVM, --state after the front's options). No process starts."""
import pytest

from p2psip_deploy import cli, cpus, front, layout, nodefolder, nodes, processes

TWO_CPUS = {0, 1}


def up_args(*words):
    return cli.parser().parse_args(["up", *words])


@pytest.mark.parametrize("spec, pinning", [
    ("front=0,nodes=1", {"front": "0", "nodes": "1"}),
    ("nodes=0-1", {"nodes": "0-1"}),
    ("front=1,nodes=0,1", {"front": "1", "nodes": "0,1"}),   # an item without = continues the role before it
    (" front = 0 ", {"front": "0"}),
])
def test_a_spec_names_each_role_with_a_taskset_cpu_list(spec, pinning):
    assert cpus.parse(spec, TWO_CPUS) == pinning


@pytest.mark.parametrize("spec, said", [
    ("gpu=0", "unknown role 'gpu'"),
    ("front=2", "CPU 2 is not one this machine"),
    ("nodes=0-3", "CPU 2-3 is not one this machine"),
    ("0,nodes=1", "each CPU list follows a role"),
    ("front=a", "not a CPU"),
    ("nodes=1-0", "runs backwards"),
    ("front=0,front=1", "role front twice"),
    ("", "names no role"),
    ("front=", "not a CPU"),
])
def test_a_bad_spec_is_refused_saying_what_is_wrong(spec, said):
    with pytest.raises(cpus.CpusError, match=said):
        cpus.parse(spec, TWO_CPUS)


def test_the_parser_checks_the_cpus_against_this_machine_before_anything_starts(capsys):
    with pytest.raises(SystemExit):
        up_args("--cpus", f"nodes={max(cpus.available()) + 1}")
    assert "is not one this machine lets us run on" in capsys.readouterr().err


def test_the_parser_refuses_an_unknown_front_state(capsys):
    with pytest.raises(SystemExit):
        up_args("--front", "tlwl", "--front-state", "halfway")
    assert "invalid choice: 'halfway'" in capsys.readouterr().err


def test_without_the_options_nothing_is_pinned_and_the_front_keeps_its_own_state():
    options = cli.up_options(up_args("--front", "tlwl"))
    assert (options.front_state, options.cpus) == ("", {})
    assert "--state" not in front.command("127.0.0.1", 5060, ["127.0.0.1:5070"], "tlwl", options.front_state)


@pytest.mark.parametrize("state", ["stateless", "stateful", "dynamic"])
def test_the_front_state_reaches_the_front_jar_as_its_state_flag(state):
    options = cli.up_options(up_args("--front", "tlwl", "--front-state", state))
    command = front.command("127.0.0.1", 5060, ["127.0.0.1:5070"], options.front, options.front_state)
    arguments = dict(zip(command[4::2], command[5::2]))
    assert arguments["--state"] == state and arguments["--policy"] == "tlwl"


def test_prepare_keeps_the_state_with_the_status_options(tmp_path):
    _, command, _ = front.prepare(tmp_path, "127.0.0.1", 5060, "rr", ["127.0.0.1:5070"], http_port=8060,
                                  state="dynamic")
    assert command[command.index("--state") + 1] == "dynamic" and "--status" in command


@pytest.mark.parametrize("front_kind", ["none", "kamailio-rr"])
def test_a_front_state_without_src_front_is_refused_before_anything_starts(tmp_path, front_kind):
    with pytest.raises(nodes.DeployError, match="--front-state dynamic is a mode of src/front"):
        nodes.up(nodes.UpOptions(run_dir=tmp_path, front=front_kind, front_state="dynamic"))
    assert processes.load(tmp_path) == []


def test_pinning_a_front_that_is_not_started_is_refused(tmp_path):
    with pytest.raises(nodes.DeployError, match="pins a front, but no --front"):
        nodes.up(nodes.UpOptions(run_dir=tmp_path, cpus={"front": "0"}))


def test_without_taskset_pinning_is_refused_with_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setattr(cpus.shutil, "which", lambda name: None)
    with pytest.raises(nodes.DeployError, match="apt-get install util-linux"):
        nodes.up(nodes.UpOptions(run_dir=tmp_path, cpus={"nodes": "0"}))


def test_a_pinned_node_runs_its_jvm_through_taskset_inside_its_namespace(tmp_path):
    options = nodes.UpOptions(run_dir=tmp_path, cpus={"front": "0", "nodes": "1"})
    spec = nodefolder.NodeSpec(0, tmp_path / "node-0", "10.9.9.10", 5070, 6070, "chord", layout.APPS["p2psip"], 500, {}, False, 8,
                               "p2psip-t-0", "10.9.9.1", 0, 8070, "")
    command = nodes.jvm_command(spec, options)
    assert command[:8] == ["ip", "netns", "exec", "p2psip-t-0", "taskset", "-c", "1", "java"]


def test_an_unpinned_node_runs_its_jvm_as_before(tmp_path):
    spec = nodefolder.NodeSpec(0, tmp_path / "node-0", "127.0.0.1", 5070, 6070, "chord", layout.APPS["p2psip"], 500, {}, False, 8,
                               "", "127.0.0.1", 0, 8070, "")
    assert nodes.jvm_command(spec, nodes.UpOptions(run_dir=tmp_path))[0] == "java"


def test_a_pinned_front_is_launched_through_taskset_and_recorded_with_its_cpus(tmp_path, monkeypatch):
    launched = []

    def launch(command, log, cwd, login="", ssh_config=""):
        launched.append(command)
        return 4242, 1

    monkeypatch.setattr(processes, "launch", launch)
    monkeypatch.setattr(front, "wait_for_lines", lambda *args: None)
    node = processes.Process("node", "chord", "127.0.0.1", 5070, 1, 1, str(tmp_path))
    started = front.start(tmp_path, "127.0.0.1", 5060, "tlwl", [node], timeout=1, state="stateful", cpu_list="0")
    (command,) = launched
    assert command[:4] == ["taskset", "-c", "0", "java"]
    assert command[command.index("--state") + 1] == "stateful"
    assert started.cpus == "0" and processes.load(tmp_path)[0].cpus == "0"


def test_records_of_older_deployments_without_cpus_still_load(tmp_path):
    (tmp_path / processes.STATE_FILE).write_text('[{"role": "node", "backend": "chord", "address": "127.0.0.1", '
                                                 '"port": 5070, "pid": 1, "start_ticks": 1, "folder": "x"}]')
    assert processes.load(tmp_path)[0].cpus == ""


def test_status_shows_the_cpus_a_process_is_pinned_to(tmp_path, monkeypatch):
    processes.save(tmp_path, [processes.Process("front", "tlwl", "127.0.0.1", 5060, 1, 1, str(tmp_path), cpus="0")])
    monkeypatch.setattr(nodes.sipp, "options_probe", lambda *args: False)
    (line,) = nodes.status_lines(tmp_path)
    assert " cpus 0" in line


def test_units_refuse_pinning(tmp_path):
    from p2psip_deploy import units
    with pytest.raises(units.UnitsError, match="CPUAffinity"):
        units.write(nodes.UpOptions(run_dir=tmp_path, cpus={"nodes": "0"}))


def test_jit_auto_takes_the_first_tier_alone_where_the_nodes_outnumber_the_cpus(monkeypatch):
    from p2psip_deploy import nodes
    monkeypatch.setattr(cpus, "available", lambda: {0, 1})
    assert nodes.jit_of(nodes.UpOptions(nodes=4)) == "c1"
    assert nodes.jit_of(nodes.UpOptions(nodes=2)) == "tiered"
    assert nodes.jit_of(nodes.UpOptions(nodes=2, cpus={"nodes": "1"})) == "c1"
    assert nodes.jit_of(nodes.UpOptions(nodes=4, jit="tiered")) == "tiered"
    assert nodes.jit_of(nodes.UpOptions(nodes=1, jit="c1")) == "c1"

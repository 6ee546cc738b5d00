"""The front of `up --front`: its command line, its record, waiting for it, and that a front that
fails to come up leaves nothing running."""
import pytest

from p2psip_deploy import front, layout, nodes, processes

NODE_ADDRESSES = ["127.0.0.1:7000", "127.0.0.1:7001"]


def fake_front(monkeypatch, script: str) -> None:
    """Runs a shell script in place of the front's JVM."""
    monkeypatch.setattr(front, "command", lambda *args: ["sh", "-c", script])


def node_records(tmp_path, count=2):
    return [processes.Process("node", "chord", "127.0.0.1", 7000 + i, 1, 1, str(tmp_path)) for i in range(count)]


def ready_script(nodes_up: int) -> str:
    lines = [f"{front.LISTENING} 127.0.0.1:5060 (udp, tcp)"]
    lines += [f"INFO: {front.node_up_line(i, a)}" for i, a in enumerate(NODE_ADDRESSES[:nodes_up])]
    return "; ".join(f"echo '{line}'" for line in lines) + "; exec sleep 60"


def test_the_front_listens_on_the_front_port_and_names_every_node_in_order():
    command = front.command("127.0.0.1", 25240, NODE_ADDRESSES, "tlwl")
    assert command[:4] == ["java", "-XX:+ExitOnOutOfMemoryError", "-jar", str(layout.FRONT_JAR)]
    arguments = dict(zip(command[4::2], command[5::2]))
    assert arguments == {"--listen": "127.0.0.1:25240", "--nodes": "127.0.0.1:7000,127.0.0.1:7001",
                         "--policy": "tlwl"}


def test_start_returns_once_every_node_is_up_and_records_the_front_with_its_policy(tmp_path, monkeypatch):
    fake_front(monkeypatch, ready_script(nodes_up=2))
    started = front.start(tmp_path, "127.0.0.1", 5060, "rr", node_records(tmp_path), timeout=10)
    try:
        recorded = processes.load(tmp_path)
        assert [(p.role, p.backend, p.sip_address, p.pid) for p in recorded] == \
            [("front", "rr", "127.0.0.1:5060", started.pid)]
        assert processes.alive(started)
    finally:
        assert processes.stop([started], grace_seconds=5) == []


def test_start_waits_for_every_node_not_just_the_listening_line(tmp_path, monkeypatch):
    fake_front(monkeypatch, ready_script(nodes_up=1))
    with pytest.raises(front.FrontError, match="node1"):
        front.start(tmp_path, "127.0.0.1", 5060, "rr", node_records(tmp_path), timeout=1)
    assert processes.stop(processes.load(tmp_path), grace_seconds=5) == []


def test_a_front_that_ends_while_starting_is_an_error_at_once(tmp_path, monkeypatch):
    fake_front(monkeypatch, "echo 'p2psip-front: unknown option' >&2; sleep 0.5; exit 2")
    with pytest.raises(front.FrontError, match="ended while starting"):
        front.start(tmp_path, "127.0.0.1", 5060, "rr", node_records(tmp_path), timeout=60)


def test_up_stops_the_nodes_it_started_when_the_front_fails(tmp_path, monkeypatch):
    """Nodes are stand-in sleeps (no container); the front exits at once."""
    monkeypatch.setattr(nodes.build, "ensure", lambda app: None)
    monkeypatch.setattr(nodes.build, "ensure_front", lambda: None)
    monkeypatch.setattr(nodes.nodefolder, "write", lambda spec: (spec.folder / "logs").mkdir(parents=True))
    monkeypatch.setattr(nodes, "jvm_command", lambda spec, options: ["sleep", "60"])
    monkeypatch.setattr(nodes, "wait_answering", lambda started, timeout, local="127.0.0.1": None)
    monkeypatch.setattr(nodes, "wait_serving", lambda process, timeout: None)
    fake_front(monkeypatch, "sleep 0.5; exit 1")
    launched = []
    launch = processes.launch

    def launch_and_note(*args):
        pid, ticks = launch(*args)
        launched.append(processes.Process("any", "", "", 0, pid, ticks, ""))
        return pid, ticks

    monkeypatch.setattr(processes, "launch", launch_and_note)
    options = nodes.UpOptions(nodes=2, base_port=47000, run_dir=tmp_path, front="tlwl", front_port=47040)
    with pytest.raises(front.FrontError):
        nodes.up(options)
    assert len(launched) == 3                      # two nodes and the front were started ...
    assert not any(processes.alive(p) for p in launched)   # ... and none runs any more
    assert processes.load(tmp_path) == []          # down emptied the records


@pytest.mark.parametrize("front_port", [7001, 8000])
def test_a_front_port_of_a_node_is_refused_before_anything_starts(tmp_path, front_port):
    options = nodes.UpOptions(nodes=2, base_port=7000, run_dir=tmp_path, front="rr", front_port=front_port)
    with pytest.raises(nodes.DeployError, match="front-port"):
        nodes.up(options)
    assert processes.load(tmp_path) == []


def test_an_unknown_policy_is_refused(tmp_path):
    with pytest.raises(nodes.DeployError, match="unknown --front"):
        nodes.up(nodes.UpOptions(run_dir=tmp_path, front="random"))


def test_fronts_sharing_the_address_reuse_its_port_each_with_an_inner_port_and_a_folder_of_its_own(tmp_path,
                                                                                                   monkeypatch):
    launched = []
    monkeypatch.setattr(front, "launch", lambda run_dir, folder, command, *rest, **kw: launched.append((folder, command)))
    for index in range(2):
        front.start(tmp_path, "127.0.0.1", 5060, "rr", node_records(tmp_path), timeout=1, index=index, shared=True)
    (first_folder, first), (second_folder, second) = launched
    assert (first_folder.name, second_folder.name) == ("front", "front-1")
    for command in (first, second):
        arguments = dict(zip(command[4::2], command[5::2]))
        assert arguments["--listen"] == "127.0.0.1:5060"
        assert arguments["--reuse-port"] == "true" and arguments["--inner"] == "127.0.0.1:0"


def test_a_front_is_given_its_nodes_file_and_set_nodes_returns_once_it_logged_the_new_list(tmp_path, monkeypatch):
    watcher = ("last=; while true; do now=$(paste -sd, nodes.txt); "
               f"if [ \"$now\" != \"$last\" ]; then echo \"INFO: {front.NODES_NOW}$now\"; last=$now; fi; "
               "sleep 0.05; done")
    fake_front(monkeypatch, ready_script(nodes_up=2).replace("exec sleep 60", watcher))
    started = front.start(tmp_path, "127.0.0.1", 5060, "rr", node_records(tmp_path), timeout=10)
    try:
        folder = tmp_path / front.FOLDER
        assert (folder / front.NODES_FILE).read_text() == "127.0.0.1:7000\n127.0.0.1:7001\n"
        front.set_nodes(tmp_path, node_records(tmp_path, 3)[1:], timeout=10)
        assert (folder / front.NODES_FILE).read_text() == "127.0.0.1:7001\n127.0.0.1:7002\n"
        assert f"{front.NODES_NOW}127.0.0.1:7001,127.0.0.1:7002" in (folder / "console.log").read_text()
    finally:
        assert processes.stop([started], grace_seconds=5) == []


def test_set_nodes_says_so_when_the_front_does_not_take_the_file_in_time(tmp_path, monkeypatch):
    fake_front(monkeypatch, ready_script(nodes_up=2))   # a front that never reads its nodes file
    started = front.start(tmp_path, "127.0.0.1", 5060, "rr", node_records(tmp_path), timeout=10)
    try:
        with pytest.raises(front.FrontError, match="nodes now 127.0.0.1:7000"):
            front.set_nodes(tmp_path, node_records(tmp_path, 1), timeout=0.5)
    finally:
        assert processes.stop([started], grace_seconds=5) == []


def test_the_fronts_own_settings_of_set_go_to_its_settings_file_and_not_to_the_nodes(tmp_path):
    settings = {"p2psip.front.warmup.requests": "2000", "p2psip.dht.deadline": "500ms"}
    assert nodes.front_settings(settings) == {"p2psip.front.warmup.requests": "2000"}
    folder, command, _ = front.prepare(tmp_path, "127.0.0.1", 5060, "rr", NODE_ADDRESSES,
                                       settings=nodes.front_settings(settings))
    written = (folder / front.SETTINGS).read_text()
    assert command[command.index("--config") + 1] == str(folder / front.SETTINGS)
    assert written == "p2psip.front.warmup.requests=2000\n"


def test_a_front_without_settings_or_tls_gets_no_settings_file(tmp_path):
    folder, command, _ = front.prepare(tmp_path, "127.0.0.1", 5060, "rr", NODE_ADDRESSES)
    assert "--config" not in command and not (folder / front.SETTINGS).exists()

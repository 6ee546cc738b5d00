"""`up --hosts FILE`: the file, the namespaces it makes (one a host, nodes spread over them), and
for real: four Chord nodes on two namespace hosts, and nodes and a front on two ssh hosts (each a
namespace with an sshd of its own), that register and call across them, and `down` leaving
nothing on either."""
import ipaddress
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2psip_deploy import hosts, layout, netns, nodefolder, nodes, processes
from udp_buffers import granted, udp_receive_buffer

CALL = layout.SCENARIOS / "call" / "run"
REGISTER = layout.SCENARIOS / "register" / "run"


def test_a_line_is_an_address_and_how_to_reach_it_and_comments_are_skipped():
    text = "# two namespaces\n10.77.0.10 netns\n\n10.77.0.11  netns  # the second\n10.77.0.12 ssh p2psip@h3\n"
    assert hosts.parse(text) == [hosts.Host("10.77.0.10", "netns"), hosts.Host("10.77.0.11", "netns"),
                                 hosts.Host("10.77.0.12", "ssh", "p2psip@h3")]


@pytest.mark.parametrize("line, says", [("h1 netns", "not an IPv4 address"), ("10.77.0.10", "say how to reach"),
                                        ("10.77.0.10 telnet", "say how to reach"),
                                        ("10.77.0.10 ssh", "expected")])
def test_a_line_that_cannot_be_placed_is_an_error_naming_it(line, says):
    with pytest.raises(hosts.HostsError, match=says):
        hosts.parse(line, "hosts.txt")


def test_a_file_of_namespaces_and_machines_together_is_refused(tmp_path):
    file = tmp_path / "hosts"
    file.write_text("10.77.0.10 netns\n10.77.0.11 ssh root@h2\n")
    with pytest.raises(hosts.HostsError, match="all namespaces .* or all machines"):
        hosts.read(file)


def hosts_network(node_count=4):
    return netns.Network("abc123", "10.77.0.0/24", node_count, front=True, hosts=["10.77.0.10", "10.77.0.11"])


def test_nodes_take_the_hosts_in_turn_and_the_front_the_first():
    network = hosts_network()
    assert [network.node_address(i) for i in range(4)] == ["10.77.0.10", "10.77.0.11", "10.77.0.10", "10.77.0.11"]
    assert [network.node_namespace(i) for i in range(4)] == ["p2psip-abc123-h0", "p2psip-abc123-h1"] * 2
    assert (network.front_namespace, network.front_address) == ("p2psip-abc123-h0", "10.77.0.10")


def test_one_namespace_is_made_a_host_not_a_node():
    network = hosts_network()
    assert network.all_namespaces() == ["p2psip-abc123-br", "p2psip-abc123-h0", "p2psip-abc123-h1"]
    added = [c for c in network.create_commands() if c[:3] == ["ip", "netns", "add"]]
    assert len(added) == 3
    assert ["ip", "-n", "p2psip-abc123-h1", "addr", "add", "10.77.0.11/24", "dev", "eth0"] in network.create_commands()


def test_the_hosts_must_share_a_slash_24_the_machine_does_not_use_and_leave_its_first_address():
    free = []
    assert netns.hosts_subnet(["10.77.0.10", "10.77.0.11"], free) == ipaddress.ip_network("10.77.0.0/24")
    with pytest.raises(netns.NetnsError, match="one /24"):
        netns.hosts_subnet(["10.77.0.10", "10.77.1.11"], free)
    with pytest.raises(netns.NetnsError, match="root namespace"):
        netns.hosts_subnet(["10.77.0.1"], free)
    with pytest.raises(netns.NetnsError, match="overlaps"):
        netns.hosts_subnet(["10.77.0.10"], [ipaddress.ip_network("10.77.0.0/16")])


def test_a_recorded_hosts_network_loads_as_it_was(tmp_path):
    netns.save(tmp_path, hosts_network())
    assert netns.load(tmp_path) == hosts_network()


def test_node_specs_put_each_node_on_its_hosts_address_and_namespace(tmp_path):
    options = nodes.UpOptions(nodes=4, base_port=7000, run_dir=tmp_path,
                              hosts=[hosts.Host("10.77.0.10", "netns"), hosts.Host("10.77.0.11", "netns")])
    specs = nodes.node_specs(options, layout.APPS["p2psip"], hosts_network())
    assert [(s.address, s.sip_port, s.netns) for s in specs] == [
        ("10.77.0.10", 7000, "p2psip-abc123-h0"), ("10.77.0.11", 7001, "p2psip-abc123-h1"),
        ("10.77.0.10", 7002, "p2psip-abc123-h0"), ("10.77.0.11", 7003, "p2psip-abc123-h1")]


def test_on_ssh_hosts_each_node_takes_its_hosts_address_and_login_and_no_namespace(tmp_path):
    options = nodes.UpOptions(nodes=3, base_port=7000, run_dir=tmp_path, front="rr", front_port=7040,
                              hosts=[hosts.Host("10.0.0.21", "ssh", "p2psip@a"), hosts.Host("10.0.0.22", "ssh", "p2psip@b")])
    specs = nodes.node_specs(options, layout.APPS["p2psip"])
    assert [(s.address, s.login, s.netns) for s in specs] == [
        ("10.0.0.21", "p2psip@a", ""), ("10.0.0.22", "p2psip@b", ""), ("10.0.0.21", "p2psip@a", "")]
    assert (nodes.front_address(options, None), nodes.front_login(options)) == ("10.0.0.21", "p2psip@a")
    assert nodes.status_addresses(options, None)[-1] == "10.0.0.21:10040"


# ---- the real thing --------------------------------------------------------------------------

P2PSIP = layout.DEPLOY / "p2psip"


def why_no_namespaces() -> str:
    reason = netns.unavailable_reason()
    if reason:
        return reason
    probe = f"p2psip-probe-{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"ip netns add fails here: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "delete", probe], capture_output=True)
    if not shutil.which("sipp"):
        return "SIPp is missing (Debian package sip-tester)"
    missing = [p for p in (layout.CONTAINER_LIB, layout.APPS["p2psip"].exploded) if not p.exists()]
    if missing:
        return f"not built: {', '.join(map(str, missing))} (deploy/p2psip test builds them first)"
    return ""


@pytest.fixture(scope="module")
def no_namespaces():
    return why_no_namespaces()


def p2psip(*args, run_dir):
    return subprocess.run([sys.executable, str(P2PSIP), *args, "--run-dir", str(run_dir)],
                          capture_output=True, text=True, timeout=180)


def test_four_chord_nodes_on_two_hosts_register_and_call_across_them_and_down_leaves_nothing(
        tmp_path, no_namespaces):
    if no_namespaces:
        pytest.skip(f"network namespaces are not available: {no_namespaces}")
    subnet = netns.choose_subnet(netns.identity(tmp_path), netns.host_networks())
    addresses = [str(subnet[10]), str(subnet[11])]
    file = tmp_path / "hosts"
    file.write_text("".join(f"{a} netns\n" for a in addresses))
    run_dir = tmp_path / "run"
    # a short warm-up and one place per node: this checks where the nodes run, not how soon they carry load
    up = p2psip("up", "--dht", "chord", "--nodes", "4", "--hosts", str(file), "--base-port", "27170",
                "--heap", "256m", "--set", "p2psip.warmup.timeout=5s", "--set", "p2psip.chord.places=1",
                run_dir=run_dir)
    try:
        assert up.returncode == 0, up.stderr[-2000:]
        network = netns.load(run_dir)
        started = processes.load(run_dir)
        assert [p.address for p in started] == addresses * 2
        for p in started:   # each JVM really is in its host's namespace, with the receive buffer it asked for
            assert subprocess.run(["ip", "netns", "identify", str(p.pid)], capture_output=True,
                                  text=True).stdout.strip() == network.node_namespace(started.index(p))
            assert udp_receive_buffer(p.port, p.netns) == granted(nodefolder.RECEIVE_BUFFER_BYTES)
        on_first, on_second = (f"{p.address}:{p.port}" for p in (started[0], started[3]))
        common = ["--users", "40", "--rate", "40", "--address", network.gateway, "--timeout", "30"]
        assert run([REGISTER, on_first, *common]) == 0
        assert run([REGISTER, on_second, *common, "--query"]) == 0
        # the callee registers through the first host, the calls enter on the second
        assert run([CALL, on_second, "--register-via", on_first, "--calls", "5", "--rate", "5",
                    "--address", network.gateway, "--timeout", "60", "--out", str(tmp_path / "calls")]) == 0
    finally:
        down = p2psip("down", run_dir=run_dir)
    assert down.returncode == 0, down.stderr
    assert not [p for p in started if processes.alive(p)]
    assert not netns.existing_namespaces() & set(network.all_namespaces())
    assert not netns.link_exists(network.host_link)


def run(command) -> int:
    return subprocess.run(list(map(str, command)), capture_output=True, timeout=120).returncode


@pytest.fixture
def ssh_hosts(tmp_path, no_namespaces):
    """Two machines reached over ssh, stood up here: each a namespace of a bridge of its own with an
    sshd listening on its address, letting root in with a key made for the test. Yields (hosts file,
    ssh configuration, gateway); everything is removed afterwards."""
    if no_namespaces:
        pytest.skip(f"network namespaces are not available: {no_namespaces}")
    sshd = shutil.which("sshd") or "/usr/sbin/sshd"
    if not os.path.exists(sshd) or not shutil.which("ssh-keygen"):
        pytest.skip("sshd is missing (Debian package openssh-server)")
    keys = tmp_path / "ssh"
    keys.mkdir()
    for name in ("host", "client"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(keys / name)], check=True)
    shutil.copy(keys / "client.pub", keys / "authorized_keys")
    net_dir = tmp_path / "machines"
    subnet = netns.choose_subnet(netns.identity(net_dir), netns.host_networks())
    addresses = [str(subnet[20]), str(subnet[21])]
    network = netns.plan(net_dir, 0, False, addresses)
    daemons = []
    try:
        netns.create(net_dir, network)
        Path("/run/sshd").mkdir(exist_ok=True)   # sshd's privilege separation directory
        for k, address in enumerate(addresses):
            config = keys / f"sshd-{k}.conf"
            config.write_text(f"ListenAddress {address}\nHostKey {keys / 'host'}\nAuthorizedKeysFile "
                              f"{keys / 'authorized_keys'}\nPermitRootLogin prohibit-password\nStrictModes no\n"
                              f"UsePAM no\nPidFile none\nPasswordAuthentication no\n")
            daemons.append(subprocess.Popen(["ip", "netns", "exec", network.host_namespace(k), sshd, "-D", "-e",
                                             "-f", str(config)], stderr=subprocess.DEVNULL))
        client = keys / "config"
        client.write_text(f"Host *\n  IdentityFile {keys / 'client'}\n  StrictHostKeyChecking no\n"
                          f"  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n  ConnectTimeout 5\n")
        for address in addresses:   # wait until each sshd lets the key in
            deadline = time.monotonic() + 20
            while subprocess.run(["ssh", "-F", str(client), "-o", "BatchMode=yes", f"root@{address}", "true"],
                                 capture_output=True).returncode != 0:
                assert time.monotonic() < deadline, f"the sshd on {address} did not let the test's key in"
                time.sleep(0.2)
        file = tmp_path / "ssh-hosts"
        file.write_text("".join(f"{a} ssh root@{a}\n" for a in addresses))
        yield file, client, network.gateway
    finally:
        for daemon in daemons:
            daemon.terminate()
            daemon.wait(timeout=10)
        netns.remove(net_dir)


@pytest.mark.matrix
def test_nodes_and_the_front_on_two_ssh_hosts_register_and_call_across_them_and_down_leaves_nothing(
        tmp_path, ssh_hosts):
    file, client, gateway = ssh_hosts
    run_dir = tmp_path / "run"
    up = p2psip("up", "--dht", "chord", "--nodes", "2", "--hosts", str(file), "--ssh-config", str(client),
                "--front", "rr", "--front-port", "27260", "--base-port", "27270", "--heap", "256m",
                "--set", "p2psip.warmup.timeout=5s", "--set", "p2psip.chord.places=1", run_dir=run_dir)
    started = processes.load(run_dir)
    try:
        assert up.returncode == 0, up.stderr[-2000:]
        (front,) = [p for p in started if p.role == "front"]
        node_0, node_1 = [p for p in started if p.role == "node"]
        assert (node_0.login, node_1.login, front.login) == (f"root@{node_0.address}", f"root@{node_1.address}",
                                                             f"root@{node_0.address}")
        assert node_0.address != node_1.address
        common = ["--users", "40", "--rate", "40", "--address", gateway, "--timeout", "30"]
        assert run([REGISTER, f"{front.address}:{front.port}", *common]) == 0
        assert run([REGISTER, f"{node_1.address}:{node_1.port}", *common, "--query"]) == 0
        assert run([CALL, f"{node_0.address}:{node_0.port}", "--register-via", f"{node_1.address}:{node_1.port}",
                    "--calls", "5", "--rate", "5", "--address", gateway, "--timeout", "60",
                    "--out", str(tmp_path / "calls")]) == 0
        status = p2psip("status", run_dir=run_dir).stdout
        assert status.count("answers yes") == 3 and status.count(" on root@") == 3, status
        assert p2psip("kill", "1", run_dir=run_dir).returncode == 0
        assert not processes.alive(node_1)
    finally:
        down = p2psip("down", run_dir=run_dir)
    assert down.returncode == 0, down.stderr
    assert not [p for p in started if processes.alive(p)]

"""`up --hosts FILE`: the file, the namespaces it makes (one a host, nodes spread over them), and
for real: four Chord nodes on two hosts that register and call across them, and `down` leaving
nothing on either."""
import ipaddress
import subprocess

import pytest

from p2psip_deploy import hosts, layout, netns, nodes, processes
from test_netns import no_namespaces, p2psip  # noqa: F401 (a fixture)

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


def test_ssh_hosts_are_refused_by_this_version(tmp_path):
    file = tmp_path / "hosts"
    file.write_text("10.77.0.10 netns\n10.77.0.11 ssh root@h2\n")
    with pytest.raises(hosts.HostsError, match="ssh hosts .* not supported"):
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
    options = nodes.UpOptions(nodes=4, base_port=7000, run_dir=tmp_path, hosts=["10.77.0.10", "10.77.0.11"])
    specs = nodes.node_specs(options, layout.APPS["p2psip"], hosts_network())
    assert [(s.address, s.sip_port, s.netns) for s in specs] == [
        ("10.77.0.10", 7000, "p2psip-abc123-h0"), ("10.77.0.11", 7001, "p2psip-abc123-h1"),
        ("10.77.0.10", 7002, "p2psip-abc123-h0"), ("10.77.0.11", 7003, "p2psip-abc123-h1")]


# ---- the real thing --------------------------------------------------------------------------

def test_four_chord_nodes_on_two_hosts_register_and_call_across_them_and_down_leaves_nothing(
        tmp_path, no_namespaces):  # noqa: F811
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
        for p in started:   # each JVM really is in its host's namespace
            assert subprocess.run(["ip", "netns", "identify", str(p.pid)], capture_output=True,
                                  text=True).stdout.strip() == network.node_namespace(started.index(p))
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

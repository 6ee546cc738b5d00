"""`up --netns`: naming, the subnet, the ip commands, the node configuration they lead to, and one
real two-node Chord deployment in namespaces (skipped, saying why, where namespaces cannot be made)."""
import ipaddress
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from p2psip_deploy import layout, netns, nodefolder, nodes, processes

ADDRESSES = """1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever
4: eth0    inet 192.0.2.2/24 brd 192.0.2.255 scope global eth0\\       valid_lft forever preferred_lft forever
"""
ROUTES = """default via 192.0.2.1 dev eth0
10.200.0.0/16 via 192.0.2.9 dev eth0
192.0.2.0/24 dev eth0 proto kernel scope link src 192.0.2.2
local 127.0.0.0/8 dev lo table local proto kernel scope host src 127.0.0.1
broadcast 192.0.2.255 dev eth0 table local proto kernel scope link src 192.0.2.2
"""


def network(nodes_count=3, front=False):
    return netns.Network("a1b2c3", "10.201.7.0/24", nodes_count, front)


def test_identity_is_six_hex_digits_of_the_run_folder_and_differs_between_folders(tmp_path):
    one, other = netns.identity(tmp_path / "a"), netns.identity(tmp_path / "b")
    assert len(one) == 6 and int(one, 16) >= 0
    assert one != other and one == netns.identity(tmp_path / "a")


def test_names_carry_the_prefix_and_identity_and_fit_the_kernels_interface_length():
    n = network(front=True)
    assert n.all_namespaces() == ["p2psip-a1b2c3-br", "p2psip-a1b2c3-0", "p2psip-a1b2c3-1", "p2psip-a1b2c3-2",
                                  "p2psip-a1b2c3-front"]
    assert n.host_link == "p2p-a1b2c3" and len(n.host_link) <= 15
    assert all(len(veth) <= 15 for _, _, veth in netns.Network("ffffff", "10.201.7.0/24", 245, True).members())


def test_addresses_gateway_front_and_nodes_from_ten():
    n = network(front=True)
    assert n.gateway == "10.201.7.1" and n.front_address == "10.201.7.2"
    assert [n.node_address(i) for i in range(3)] == ["10.201.7.10", "10.201.7.11", "10.201.7.12"]
    assert [m[1] for m in n.members()] == ["10.201.7.10", "10.201.7.11", "10.201.7.12", "10.201.7.2"]


def test_the_hosts_networks_are_read_from_ip_addr_and_ip_route():
    taken = netns.taken_networks(ADDRESSES, ROUTES)
    for expected in ("127.0.0.0/8", "192.0.2.0/24", "10.200.0.0/16", "192.0.2.255/32"):
        assert ipaddress.ip_network(expected) in taken
    assert all(t.prefixlen > 0 for t in taken)   # the default route takes nothing


def test_the_subnet_is_a_private_slash_24_that_overlaps_nothing_the_host_has():
    taken = netns.taken_networks(ADDRESSES, ROUTES)
    chosen = netns.choose_subnet("004800", taken)   # 0x4800 = 72 * 256: hashes to 10.200.0.0/24, in 10.200.0.0/16, which a route takes
    assert chosen.prefixlen == 24 and chosen.subnet_of(ipaddress.ip_network("10.0.0.0/8"))
    assert not any(chosen.overlaps(t) for t in taken)
    assert chosen == ipaddress.ip_network("10.201.0.0/24")   # the next free one after the taken /16
    assert netns.choose_subnet("000005", []) == ipaddress.ip_network("10.128.5.0/24")


def test_a_full_pool_is_an_error():
    with pytest.raises(netns.NetnsError):
        netns.choose_subnet("000000", [netns.POOL])


def test_create_commands_make_a_bridge_namespace_and_one_veth_per_member():
    commands = [" ".join(c) for c in network(nodes_count=2).create_commands()]
    assert commands[:9] == [
        "ip netns add p2psip-a1b2c3-br", "ip -n p2psip-a1b2c3-br link set lo up",
        "ip -n p2psip-a1b2c3-br link add br0 type bridge", "ip -n p2psip-a1b2c3-br link set br0 up",
        "ip link add p2p-a1b2c3 type veth peer name uplink netns p2psip-a1b2c3-br",
        "ip -n p2psip-a1b2c3-br link set uplink master br0", "ip -n p2psip-a1b2c3-br link set uplink up",
        "ip addr add 10.201.7.1/24 dev p2p-a1b2c3", "ip link set p2p-a1b2c3 up"]
    assert "ip -n p2psip-a1b2c3-br link add v1 type veth peer name eth0 netns p2psip-a1b2c3-1" in commands
    assert "ip -n p2psip-a1b2c3-1 addr add 10.201.7.11/24 dev eth0" in commands
    # nothing but the deployment's own interfaces is ever named
    named = {c.split(" dev ")[1] for c in commands if " dev " in c}
    assert named <= {"p2p-a1b2c3", "eth0"}


def test_remove_commands_delete_every_namespace_and_the_hosts_veth_end():
    commands = [" ".join(c) for c in network(nodes_count=1, front=True).remove_commands()]
    assert commands == ["ip netns delete p2psip-a1b2c3-front", "ip netns delete p2psip-a1b2c3-0",
                        "ip netns delete p2psip-a1b2c3-br", "ip link delete p2p-a1b2c3"]


def test_the_record_survives_a_reload_and_names_the_gateway(tmp_path):
    n = network(front=True)
    n.namespaces = n.all_namespaces()
    netns.save(tmp_path, n)
    assert netns.load(tmp_path) == n
    assert '"gateway": "10.201.7.1"' in (tmp_path / netns.STATE_FILE).read_text()
    assert netns.load(tmp_path / "none") is None


def test_a_command_runs_in_its_namespace_through_ip_netns_exec():
    assert netns.exec_in("p2psip-a1b2c3-0", ["java", "-version"]) == ["ip", "netns", "exec", "p2psip-a1b2c3-0",
                                                                      "java", "-version"]
    assert netns.exec_in("", ["java"]) == ["java"]


def test_with_a_network_each_node_listens_and_peers_on_its_namespaces_address(tmp_path):
    options = nodes.UpOptions(dht="chord", nodes=2, base_port=27070, run_dir=tmp_path, netns=True,
                              settings={"p2psip.callee": "sip:x@{host}:27130"},
                              jvm_args=["-Dp2psip.ceiling.target=sip:{host}:27130"])
    specs = nodes.node_specs(options, layout.APPS["p2psip"], network(nodes_count=2))
    assert [s.address for s in specs] == ["10.201.7.10", "10.201.7.11"]
    assert [s.netns for s in specs] == ["p2psip-a1b2c3-0", "p2psip-a1b2c3-1"]
    second = specs[1].properties
    assert second["p2psip.sip.address"] == "10.201.7.11:27071"
    assert second["p2psip.overlay.address"] == "10.201.7.11:28071"
    assert second["p2psip.overlay.bootstrap"] == "10.201.7.10:28070"
    assert second["p2psip.overlay.members"] == "10.201.7.10:28070,10.201.7.11:28071"
    assert second["p2psip.callee"] == "sip:x@10.201.7.1:27130"
    command = nodes.jvm_command(specs[1], options)
    assert command[:4] == ["ip", "netns", "exec", "p2psip-a1b2c3-1"] and command[4] == "java"
    assert "-Dp2psip.ceiling.target=sip:10.201.7.1:27130" in command


def test_without_a_network_host_is_the_address_and_nothing_is_wrapped(tmp_path):
    options = nodes.UpOptions(nodes=1, base_port=27070, run_dir=tmp_path, jvm_args=["-Dt=sip:{host}:1"])
    (spec,) = nodes.node_specs(options, layout.APPS["p2psip"])
    assert spec.address == "127.0.0.1" and spec.netns == ""
    command = nodes.jvm_command(spec, options)
    assert command[0] == "java" and "-Dt=sip:127.0.0.1:1" in command


def test_address_and_netns_together_are_refused(tmp_path):
    with pytest.raises(nodes.DeployError, match="exclude"):
        nodes.up(nodes.UpOptions(nodes=1, address="127.0.0.2", netns=True, run_dir=tmp_path))


def test_records_without_a_namespace_still_load(tmp_path):
    (tmp_path / processes.STATE_FILE).write_text(
        '[{"role": "node", "backend": "memory", "address": "127.0.0.1", "port": 1, "pid": 1, '
        '"start_ticks": 1, "folder": "x", "overlay_port": 2}]')
    assert processes.load(tmp_path)[0].netns == ""

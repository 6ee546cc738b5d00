"""Which network a run uses, what the report says of it, and how SIPp reaches nodes in namespaces."""
import json
from pathlib import Path

import pytest

from sipbench import deploy, network, report, summary, tables
from sipbench.sipp import SCENARIOS, Target, Timing, base_command

NETNS_RECORD = {"identity": "a1b2c3", "subnet": "10.201.7.0/24", "nodes": 2, "front": True,
                "namespaces": ["p2psip-a1b2c3-br", "p2psip-a1b2c3-0", "p2psip-a1b2c3-1", "p2psip-a1b2c3-front"],
                "gateway": "10.201.7.1"}
PROCESSES = [{"role": "node", "backend": "chord", "address": "10.201.7.10", "port": 27070, "pid": 1,
              "start_ticks": 1, "folder": "n0", "overlay_port": 28070, "netns": "p2psip-a1b2c3-0"},
             {"role": "node", "backend": "chord", "address": "10.201.7.11", "port": 27071, "pid": 2,
              "start_ticks": 1, "folder": "n1", "overlay_port": 28071, "netns": "p2psip-a1b2c3-1"},
             {"role": "front", "backend": "rr", "address": "10.201.7.2", "port": 27110, "pid": 3,
              "start_ticks": 1, "folder": "f", "overlay_port": 0, "netns": "p2psip-a1b2c3-front"}]


def test_netns_is_the_default_where_the_machine_allows_it_and_loopback_otherwise():
    assert network.choose(None, "")[0] == network.NETNS
    mode, why = network.choose(None, "not root (ip netns add needs root)")
    assert mode == network.LOOPBACK and "not root" in why
    assert network.choose("loopback", "") == (network.LOOPBACK, "--network loopback")


def test_asking_for_netns_where_it_cannot_be_had_says_why():
    with pytest.raises(ValueError, match="not root"):
        network.choose("netns", "not root (ip netns add needs root)")


def test_the_report_names_the_network_used_and_its_addresses():
    text = network.describe(network.NETNS, "the default", {"chord-2": {
        "subnet": "10.201.7.0/24", "gateway": "10.201.7.1", "nodes": ["10.201.7.10", "10.201.7.11"], "front": ""}})
    assert text.startswith("network namespaces") and not network.is_loopback(text)
    assert "10.201.7.0/24, SIPp at 10.201.7.1: chord-2 (nodes 10.201.7.10-10.201.7.11)" in text
    assert "Kamailio on loopback" in text
    two = network.describe(network.NETNS, "", {
        "ceiling-1": {"subnet": "10.201.7.0/24", "gateway": "10.201.7.1", "nodes": ["10.201.7.10"], "front": ""},
        "chord-1-front-rr": {"subnet": "10.201.7.0/24", "gateway": "10.201.7.1", "nodes": ["10.201.7.10"],
                             "front": "10.201.7.2"},
        "bamboo-tmpfs-1": {"subnet": "10.140.1.0/24", "gateway": "10.140.1.1", "nodes": ["10.140.1.10"]}})
    assert ("10.201.7.0/24, SIPp at 10.201.7.1: ceiling-1 (node 10.201.7.10), chord-1-front-rr "
            "(node 10.201.7.10, front 10.201.7.2); 10.140.1.0/24, SIPp at 10.140.1.1: bamboo-tmpfs-1") in two
    loopback = network.describe(network.LOOPBACK, "--network loopback", {})
    assert network.is_loopback(loopback) and "127.0.0.1" in loopback


def summary_rows():
    return summary.read_summary(Path(__file__).parent / "data" / "summary.csv")


def test_table2_says_loopback_only_when_the_run_was_on_loopback():
    on_loopback = "\n".join(tables.table2(summary_rows(), loopback=True))
    in_namespaces = "\n".join(tables.table2(summary_rows(), loopback=False))
    unknown = "\n".join(tables.table2(summary_rows(), loopback=None))
    assert "talk over loopback" in on_loopback and "namespace" not in on_loopback
    assert "network namespace and address of its own" in in_namespaces and "over loopback" not in in_namespaces
    assert "over loopback" not in unknown and "namespace" not in unknown


def test_the_report_of_a_netns_run_says_so_in_its_network_line_and_table2(tmp_path):
    meta = {"network": network.describe(network.NETNS, "the default", {}), "mode": "quick"}
    text = report.write_report(tmp_path, summary_rows(), {}, meta).read_text()
    assert "Network: network namespaces" in text and "talk over loopback" not in text


def deployment_in(tmp_path, record=True):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "processes.json").write_text(json.dumps(PROCESSES))
    if record:
        (run_dir / "netns.json").write_text(json.dumps(NETNS_RECORD))
    d = deploy.Deployment(run_dir, tmp_path / "deploy.log", "chord", 2, 27070, netns=record)
    d.network = d._recorded_network()
    return d


def test_a_deployment_in_namespaces_is_reached_at_its_recorded_addresses_from_its_gateway(tmp_path):
    d = deployment_in(tmp_path)
    assert d.local_address == "10.201.7.1"
    assert d.addresses() == [("10.201.7.10", 27070), ("10.201.7.11", 27071)]
    assert d.addresses("front") == [("10.201.7.2", 27110)]
    assert d.network_summary() == {"subnet": "10.201.7.0/24", "gateway": "10.201.7.1",
                                   "nodes": ["10.201.7.10", "10.201.7.11"], "front": "10.201.7.2"}


def test_a_deployment_on_loopback_has_no_network_to_report(tmp_path):
    d = deployment_in(tmp_path, record=False)
    assert d.local_address == "127.0.0.1" and d.network_summary() == {}


def test_sipp_binds_the_targets_local_address_and_sends_to_its_host():
    # the local address must be bindable here (sipprun picks free media ports on it): 127.0.0.2
    command = base_command(Target("10.201.7.11", 27071, "127.0.0.2"), SCENARIOS / "register" / "register.xml",
                           Timing(), 10, port=27130)
    assert command[command.index("-i") + 1] == "127.0.0.2"
    assert command[-1] == "10.201.7.11:27071"

"""bench/run's options: --front-policies takes src/front's policies and Kamailio's dispatcher, and
a hyphenated policy survives the routing name it travels in; --set reaches the measured backends'
nodes, not the container's ceiling."""
from pathlib import Path

import pytest

from sipbench import cli, experiments, runner


def test_front_policies_accept_both_fronts_and_keep_their_order():
    args = cli.parser().parse_args(["--front-policies", "tlwl,kamailio-rr"])
    assert args.front_policies == ["tlwl", "kamailio-rr"]


def test_an_unknown_front_policy_is_refused_with_the_choices(capsys):
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["--front-policies", "fastest"])
    assert "unknown name(s) fastest; choose from rr, hash, cjsq, tjsq, tlwl, kamailio-rr" in capsys.readouterr().err


def test_a_kamailio_policy_gets_its_own_deployment_and_keeps_its_name():
    plan = experiments.plan(["register-front"], ["chord"], [1], front_policies=("tlwl", "kamailio-rr"))
    policies = [experiments.front_policy(ms[0].routing) for system, _, ms in experiments.deployments(plan)
                if system == "chord"]
    assert policies == ["kamailio-rr", "tlwl"]


def test_a_relative_results_root_is_made_absolute(tmp_path, monkeypatch):
    # Kamailio's runtime folder below it was refused when the path stayed relative to bench/run's folder
    monkeypatch.chdir(tmp_path)
    args = cli.parser().parse_args(["--out", "results/mine"])
    assert args.out == tmp_path / "results" / "mine"
    assert Path(args.out).is_absolute()


def test_node_settings_reach_the_backends_nodes_and_not_the_ceiling():
    args = cli.parser().parse_args(["--set", "p2psip.admission.max-in-flight=500", "--set", "p2psip.bryan.peer-window=8"])
    settings = runner.Settings(timing=None, plan=None, node_settings=tuple(args.node_settings))
    assert runner.node_arguments(settings, "bryan") == ["--set", "p2psip.admission.max-in-flight=500",
                                                        "--set", "p2psip.bryan.peer-window=8"]
    assert runner.node_arguments(settings, experiments.CEILING) == []


def test_a_node_setting_without_a_key_and_value_is_refused(capsys):
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["--set", "p2psip.admission.max-in-flight"])
    assert "is not KEY=VALUE" in capsys.readouterr().err

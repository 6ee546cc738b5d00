"""The state experiment: its plan and deployments, what it asks deploy/p2psip up, the front's fraction read
from a recorded /metrics, the samples, the table, the ratios and verdicts pinned and unpinned, the figure's
data and the report's section (also through --report-only). No load runs here (test_state_run.py, matrix)."""
import csv
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sipbench import cli, experiments, paper, runner, scraper, search, statereport, summary
from sipbench.sipp import Timing

DATA = Path(__file__).resolve().parent / "data" / "state"
RUN = Path(__file__).resolve().parents[1] / "run"
META = {"mode": "full", "step_seconds": "120", "command": "bench/run --experiments state --precision 0.05"}


def rows():
    return summary.read_summary(DATA / "summary.csv")


def test_the_experiment_measures_calls_of_two_nodes_behind_tlwl_in_each_state_mode_for_each_backend():
    plan = experiments.plan(["state"], ["chord", "bamboo"], [1], front_policies=experiments.FRONT_POLICIES)
    assert [(m.workload, m.system, m.nodes, m.routing) for m in plan] == [
        ("call", system, 2, f"state-{mode}-tlwl") for system in ("bamboo", "chord")
        for mode in ("stateless", "stateful", "dynamic")]


def test_each_mode_is_a_deployment_of_its_own_and_apart_from_the_call_front_experiments():
    plan = experiments.plan(["state", "call-front"], ["chord"], [2], front_policies=("tlwl",))
    groups = [[m.routing for m in ms] for system, _, ms in experiments.deployments(plan) if system == "chord"]
    assert groups == [["front-tlwl"], ["state-stateless-tlwl"], ["state-stateful-tlwl"], ["state-dynamic-tlwl"]]
    call_front = summary.series([{"system": "chord", "workload": "call", "routing": r, "nodes": 2, "rate": 1}
                                 for group in groups for r in group], "call", experiments.FRONT)
    assert list(call_front) == ["chord (tlwl)"], "the state searches stay out of Fig. 10's table"


def test_a_routing_names_its_mode_and_the_front_policy_it_goes_through():
    assert experiments.state_mode("state-dynamic-tlwl") == "dynamic"
    assert experiments.front_of("state-dynamic-tlwl") == "tlwl" and experiments.front_policy("state-dynamic-tlwl") is None
    assert experiments.front_of("front-kamailio-rr") == "kamailio-rr" and experiments.state_mode("front-rr") is None
    assert experiments.state_mode("state-sideways-tlwl") is None


def test_the_policy_is_tlwl_when_chosen_else_the_first_of_src_fronts_and_none_for_kamailio_alone():
    assert experiments.state_policy(("rr", "tlwl")) == "tlwl"
    assert experiments.state_policy(("kamailio-rr", "hash")) == "hash"
    assert experiments.state_policy(("kamailio-rr",)) is None
    assert experiments.plan(["state"], ["chord"], [1], front_policies=("kamailio-rr",)) == []


def settings(state_cpus=""):
    return runner.Settings(timing=Timing(step_s=1), plan=search.Plan(), state_cpus=state_cpus)


def test_each_deployment_asks_deploy_for_its_mode_and_the_pinned_run_for_the_cpus():
    assert runner.state_arguments(settings(), "stateful") == ["--front-state", "stateful"]
    assert runner.state_arguments(settings("front=0,nodes=1"), "dynamic") == \
        ["--front-state", "dynamic", "--cpus", "front=0,nodes=1"]
    assert runner.state_arguments(settings("front=0,nodes=1"), None) == [], "other experiments stay unpinned"


def test_the_pinning_is_checked_on_the_command_line_before_anything_starts(capsys):
    args = cli.parser().parse_args(["--experiments", "state", "--state-cpus", "front=0, nodes=1"])
    assert args.experiments == ["state"] and args.state_cpus == "front=0,nodes=1"
    assert cli.parser().parse_args(["--experiments", "state"]).state_cpus is None
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["--state-cpus", "front=0,disks=1"])
    assert "unknown role 'disks'" in capsys.readouterr().err


def test_a_step_runner_says_what_it_offers_only_while_it_offers():
    seen = []

    class Steps:
        def run(self, workload, targets, rate, progress, seconds=None):
            seen.append(offering.rate)
            return "step"

    offering = runner.Offering(Steps())
    assert offering.run("call", [], 300, seconds=2) == "step"
    assert seen == [300] and offering.rate == 0


def test_the_fraction_and_the_stateful_calls_are_read_from_the_fronts_metrics():
    text = (DATA / "front-metrics.txt").read_text()
    assert scraper.state_fraction_in(text) == 0.4375
    assert scraper.stateful_calls_in(text) == 10521
    assert statereport.state_sample(text, 600) == {"offered_rate": 600, "fraction": "0.4375", "stateful_calls": 10521}


def test_a_front_without_state_modes_gives_empty_samples():
    text = "p2psip_front_requests_forwarded_total 12.0\np2psip_front_state_fraction NaN\n"
    assert scraper.state_fraction_in(text) is None and scraper.stateful_calls_in(text) is None
    assert statereport.state_sample(text, 0) == {"offered_rate": 0, "fraction": "", "stateful_calls": ""}


def test_samples_are_appended_per_search_and_read_back(tmp_path):
    statereport.append_samples(tmp_path, "chord", 2, "state-dynamic-tlwl", [{"t_s": 1.0, "offered_rate": 200,
                                                                              "fraction": "0.9", "stateful_calls": 5}])
    statereport.append_samples(tmp_path, "bamboo", 2, "state-dynamic-tlwl", [])
    (row,) = statereport.read_samples(tmp_path / statereport.SAMPLES_CSV)
    assert (row["system"], row["t_s"], row["offered_rate"], row["fraction"]) == ("chord", "1.0", "200", "0.9")


def test_the_figure_plots_each_sample_with_a_fraction_against_its_time_beside_the_offered_rate():
    data = statereport.fraction_series(statereport.read_samples(DATA / "state-samples.csv"))
    assert list(data) == ["chord", "bamboo"]
    assert data["chord"] == {"t_s": [1.0, 2.0, 3.0, 4.0, 5.0], "fraction": [1.0, 0.8, 0.6, 0.5, 0.46],
                             "offered_rate": [200.0, 200.0, 0.0, 600.0, 600.0]}


def test_the_papers_figure_4_shape_converges_to_about_half_at_each_of_two_servers():
    shape = paper.servartuka_fig4_shape()
    assert list(shape) == ["server 1", "server 2"]
    assert shape["server 1"][0][1] == 1.0 and shape["server 2"][0][1] == 0.0
    assert all(abs(points[-1][1] - paper.SERVARTUKA_OPTIMUM_SHARE) < 0.01 for points in shape.values())
    assert paper.SERVARTUKA_TWO_IN_SERIES["dynamic"] / paper.SERVARTUKA_TWO_IN_SERIES["static"] == pytest.approx(1.15)


def test_the_rates_per_mode_and_the_ratios_of_dynamic():
    chord = statereport.figures(rows(), "chord")
    assert (chord["stateless"], chord["stateful"], chord["dynamic"], chord["best_static"]) == (1000, 900, 1200, 1000)
    assert chord["over_best_static"] == pytest.approx(1.2) and chord["over_stateless"] == pytest.approx(1.2)
    bamboo = statereport.figures(rows(), "bamboo")
    assert bamboo["stateful"] is None and bamboo["best_static"] is None and bamboo["over_best_static"] is None
    assert bamboo["over_stateless"] == pytest.approx(1.05)


@pytest.mark.parametrize("pinned, expected", [
    (True, [("chord", "dynamic >= 1.15 x the better static mode", "met")]),
    (False, [("chord", "dynamic >= 1.15 x stateless", "met"),
             ("chord", "dynamic >= 0.95 x the better static mode", "met")]),
])
def test_the_targets_of_a_pinned_and_an_unpinned_run(pinned, expected):
    chord = statereport.figures(rows(), "chord")
    judged = [("chord", words, statereport.verdict(chord[key], bound, []))
              for words, key, bound in statereport.targets(pinned)]
    assert judged == expected


def test_a_gain_short_of_the_papers_is_not_met_and_a_missing_search_cannot_be_judged():
    assert statereport.verdict(1.10, 1.15, []) == "not met"
    assert statereport.verdict(0.96, 0.95, ["quick mode's search precision is 0.35"]) == \
        "met, indicative (quick mode's search precision is 0.35)"
    assert statereport.verdict(None, 1.15, []).startswith("not judged")


def test_the_section_has_the_table_the_targets_of_its_run_and_the_samples(tmp_path):
    shutil.copy(DATA / "state-samples.csv", tmp_path / statereport.SAMPLES_CSV)
    text = "\n".join(statereport.section(tmp_path, rows(), {**META, "state_cpus": "front=0,nodes=1"}, []))
    assert "## State split (experiment state)" in text and "pinned: `deploy/p2psip up --cpus front=0,nodes=1`" in text
    assert "| chord 2 nodes | tlwl | 1,000 | 900 | 1,200 | 1,000 | 1.20 | 1.20 |" in text
    assert "| bamboo 2 nodes | tlwl | 400 | not measured | 420 | not measured | n/a | 1.05 |" in text
    assert "| chord 2 nodes | dynamic >= 1.15 x the better static mode | 1.20 | met |" in text
    assert "| bamboo 2 nodes | dynamic >= 1.15 x the better static mode | n/a | not judged" in text
    assert "| chord | 5 | 0.46 | 0.67 | 0.46 | 0.69 |" in text   # under load: the steps' samples only
    assert "4,700" in text and "4,600" in text, "the paper's figures beside ours"
    unpinned = "\n".join(statereport.section(tmp_path, rows(), META, []))
    assert "unpinned: the front, the nodes and SIPp share every core" in unpinned
    assert "| bamboo 2 nodes | dynamic >= 1.15 x stateless | 1.05 | not met |" in unpinned


def test_a_run_without_state_searches_has_no_section(tmp_path):
    assert statereport.section(tmp_path, [r for r in rows() if r["system"] == "none"], META, []) == []
    assert statereport.write_plot(tmp_path, []) is None


def test_report_only_rebuilds_the_section_and_the_figure(tmp_path):
    for name in ("summary.csv", "state-samples.csv"):
        shutil.copy(DATA / name, tmp_path / name)
    (tmp_path / "run.tsv").write_text("mode\tquick\ncommand\tbench/run --quick --experiments state\n"
                                      "state_cpus\t\n-\ncores\t2\n")
    done = subprocess.run([sys.executable, str(RUN), "--report-only", str(tmp_path)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    report = (tmp_path / "report.md").read_text()
    assert "## State split (experiment state)" in report and "![state split](state.png)" in report
    assert "indicative (quick mode's search precision is 0.35" in report
    assert (tmp_path / statereport.PLOT).stat().st_size > 10_000

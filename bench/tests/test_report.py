"""report.md and the plots, from a summary in the bench's format (tests/data/summary.csv)."""
import shutil
import subprocess
import sys
from pathlib import Path

from sipbench import cli, experiments, modes, report, summary, tables, targets

DATA = Path(__file__).parent / "data"
RUN = Path(__file__).resolve().parents[1] / "run"


def rows():
    return summary.read_summary(DATA / "summary.csv")


def write(tmp_path):
    meta = {"date": "2026-11-22 12:00 UTC", "commit": "abc1234", "mode": "quick",
            "network": "loopback (one machine)", "command": "bench/run --quick"}
    return report.write_report(tmp_path, rows(), {"cores (nproc)": "2", "JDK": "openjdk 17"}, meta).read_text()


def test_each_figure_of_ours_is_given_as_a_ratio_to_both_references(tmp_path):
    text = write(tmp_path)
    # memory, 2 nodes spread: 3000 REGISTER/s against a ceiling of 4000 and Kamailio's 8000.
    assert "| memory | 2 | 3,000 | - | - | 2 | 50 | 12 | - | - | - | 0.75 | 0.38 |" in text
    # calls, one node: 400 against 800 and 1600.
    assert "| memory | 1 | 400 | - | - | 4 | 80 | 0 | - | - | - | 0.50 | 0.25 |" in text


def test_the_mean_hop_count_and_largest_range_the_nodes_reported_are_shown(tmp_path):
    assert "| chord | 4 | 2,000 | - | - | 3 | 40 | 0 | 1.62 | 0.412 | 600 of 4,000 (0.30) | 0.50 | 0.25 |" in write(tmp_path)


def test_past_the_limit_is_what_the_deepest_overload_completed_against_the_limit():
    assert tables.past_the_limit({"rate": 9500, "overload_rate": "16000", "overload_goodput": "2789"}) \
        == "2,789 of 16,000 (0.29)"
    assert tables.past_the_limit({"rate": 9500, "overload_rate": "", "overload_goodput": ""}) == "-"
    assert tables.past_the_limit({"rate": 9500}) == "-"  # a summary written before the column


def test_a_search_where_nothing_passed_shows_zero_and_why(tmp_path):
    assert "| memory | 2 | 0 | - | - | - | - | - | - | - | - | 0.00 | 0.00 | no step passed |" in write(tmp_path)


def test_table2_puts_ours_beside_the_papers_numbers(tmp_path):
    text = write(tmp_path)
    table = text[text.index("### Table 2"):]
    assert "paper: OpenChord" in table and "paper: Bamboo (RAMDISK)" in table
    single = next(line for line in table.splitlines() if line.startswith("| single server"))
    assert "3,000 (0.75, 0.38)" in single and "1,200 (0.30, 0.15)" in single
    assert single.endswith("| 270 | 100 | 690 |")
    distributed = next(line for line in table.splitlines() if line.startswith("| distributed"))
    assert "1,000 (0.25, 0.12)" in distributed and "not measured" in distributed


def test_each_row_has_the_papers_figure_beside_it_where_the_paper_measured_one(tmp_path):
    text = write(tmp_path)
    fig5 = text[text.index("### Registration, single server"):text.index("### Calls, single server")]
    # Chord is the paper's OpenChord: 1,050 with one node, 270 with two (Table 2, single server).
    assert "| chord | 1 | 1,000 | - | 1,050 | 5 | 90 |" in fig5
    assert "| chord | 2 | 1,200 | - | 270 | 6 | 95 |" in fig5
    # The paper had no four-node OpenChord figure, and no memory backend at all.
    assert "| chord | 4 | 2,000 | - | - |" in fig5
    assert "| memory | 2 | 3,000 | - | - |" in fig5


def test_the_papers_figures_follow_its_configurations():
    from sipbench import paper
    assert paper.beside("register", "bryan", 1) == "1,100"
    assert paper.beside("register-one", "bamboo-tmpfs", 2) == "730"  # Table 2, distributed
    assert paper.beside("register-front", "bamboo-tmpfs", 2) == "1,130"  # Table 2, load-balanced
    assert paper.beside("register", "bamboo", 4) == "40"
    assert paper.beside("call-one", "bamboo", 3) == "300-350"
    assert paper.beside("register", "bryan", 2) is None  # never deployed beyond one node
    assert paper.beside("call", "chord", 1) is None
    assert paper.beside("register", "hazelcast", 1) is None


def test_report_names_the_machine_the_network_and_the_command_to_rerun(tmp_path):
    text = write(tmp_path)
    assert "bench/run --quick" in text
    assert "loopback" in text
    assert "- cores (nproc): 2" in text and "- JDK: openjdk 17" in text
    assert "| ceiling | registration | at the start | 4,000 REGISTER/s |" in text
    assert "| kamailio | call | at the start | 1,600 calls/s |" in text


def test_ratios_without_a_reference_say_so():
    assert summary.ratio(100, None) == "n/a"
    assert summary.ratio(100, 400) == "0.25"


def test_series_uses_the_one_node_measurement_for_both_routings():
    spread = summary.series(rows(), "registration", "spread")
    assert [n for n, _ in spread["memory"]] == [1, 2]
    assert spread["memory"][0][1]["rate"] == 2000
    one = summary.series(rows(), "registration", "one")
    assert [r["rate"] for _, r in one["memory"]] == [2000, 1000]


def test_plan_shares_one_node_measurements_and_adds_both_references():
    plan = experiments.plan(["register", "register-one"], ["memory"], [1, 2])
    assert experiments.Measurement("registration", "memory", 1, "one") in plan
    assert experiments.Measurement("registration", "memory", 2, "spread") in plan
    assert experiments.Measurement("registration", "memory", 2, "one") in plan
    assert len(plan) == 5  # three of ours, two references
    assert plan[0].system in experiments.REFERENCES and plan[1].system in experiments.REFERENCES


def test_table2_asks_for_two_nodes_even_when_not_chosen():
    plan = experiments.plan(["table2"], ["chord"], [1])
    assert {(m.nodes, m.routing) for m in plan if m.system == "chord"} == {(2, "spread"), (2, "one")}


def test_report_only_rebuilds_the_report_and_one_plot_per_figure(tmp_path):
    shutil.copy(DATA / "summary.csv", tmp_path / "summary.csv")
    (tmp_path / "run.tsv").write_text("mode\tquick\ncommand\tbench/run --quick\n-\n")
    done = subprocess.run([sys.executable, str(RUN), "--report-only", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "report.md").is_file()
    for figure in ("register", "call", "register-one", "call-one"):
        png = tmp_path / f"{figure}.png"
        assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", figure
    assert not (tmp_path / "register-front.png").exists()  # nothing measured through a front
    # the targets are rebuilt too, judged in the quick mode the run's run.tsv records
    assert ("met, indicative (quick mode's search precision is 0.35; quick mode's search steps of 3 s are shorter than "
            "120 s: not sustained)") in (tmp_path / "report.md").read_text()


def test_references_measured_twice_are_averaged_and_a_drift_is_reported():
    twice = rows() + [{"workload": "registration", "system": "ceiling", "nodes": 1, "routing": "one",
                       "round": "2", "rate": 6000, "p50_ms": "1", "p99_ms": "9", "retransmissions": "0",
                       "steps": "8", "note": ""}]
    assert summary.reference(twice, "registration", "ceiling") == 5000
    warnings = tables.drift(twice)
    assert len(warnings) == 1 and "from 4,000 to 6,000" in warnings[0]
    assert tables.drift(rows()) == []


def test_references_again_adds_a_second_round_of_references_at_the_end():
    plan = experiments.plan(["register"], ["memory"], [1], references_again=True)
    assert [m.round for m in plan] == [1, 1, 1, 2, 2]
    assert {m.system for m in plan if m.round == 2} == set(experiments.REFERENCES)
    groups = experiments.deployments(plan)
    assert [(system, len(ms)) for system, _, ms in groups] == [
        ("ceiling", 1), ("kamailio", 1), ("memory", 1), ("ceiling", 1), ("kamailio", 1)]


def front_rows():
    extra = []
    for policy, rate in (("rr", 2400), ("tlwl", 2800)):
        extra.append({"workload": "registration", "system": "memory", "nodes": 2, "routing": f"front-{policy}",
                      "round": "1", "rate": rate, "p50_ms": "3", "p99_ms": "70", "retransmissions": "0",
                      "steps": "8", "note": ""})
    return rows() + extra


def test_front_results_are_one_line_per_backend_and_policy(tmp_path):
    lines = summary.series(front_rows(), "registration", "front")
    assert sorted(lines) == ["memory (rr)", "memory (tlwl)"]
    assert "front-rr" not in str(summary.series(front_rows(), "registration", "spread"))


def test_table2_load_balanced_is_the_best_front_policy_on_two_nodes():
    table = "\n".join(tables.table2(front_rows(), loopback=True))
    balanced = next(line for line in table.splitlines() if line.startswith("| load-balanced"))
    assert "2,800 (0.70, 0.35), front tlwl" in balanced
    assert balanced.endswith("| 590 | 180 | 1,130 |")


def test_front_measurements_get_their_own_deployment_per_policy():
    plan = experiments.plan(["register", "register-front"], ["memory"], [2], front_policies=("rr", "hash"))
    groups = [(system, nodes, [m.routing for m in ms]) for system, nodes, ms in experiments.deployments(plan)]
    assert groups[2:] == [("memory", 2, ["spread"]), ("memory", 2, ["front-hash"]), ("memory", 2, ["front-rr"])]
    assert experiments.plan(["register-front"], ["memory"], [2]) == []  # no front, nothing to measure


# The Targets section: ratios of two figures of the same run, judged against the issues' targets.

FULL = {"mode": "full", "command": "bench/run", "front": "rr, hash, cjsq, tjsq, tlwl"}
QUICK = {"mode": "quick", "command": "bench/run --quick", "front": "rr, hash, cjsq, tjsq, tlwl"}


def registration(system, nodes, routing, rate, note=""):
    return {"workload": "registration", "system": system, "nodes": nodes, "routing": routing, "round": "1",
            "rate": rate, "p50_ms": "2", "p99_ms": "40", "retransmissions": "0", "steps": "8", "hops": "",
            "note": note}


def target(lines, compared):
    return next(line for line in lines if line.startswith(f"| {compared} |"))


def write_full(tmp_path):
    return report.write_report(tmp_path, rows(), {}, FULL).read_text()


def test_a_met_target_gives_both_figures_their_ratio_and_the_target(tmp_path):
    text = write_full(tmp_path)
    section = text[text.index("## Targets"):text.index("## Results")]
    # chord: 2 nodes spread 1,200 against 1 node's 1,000.
    assert ("| chord 2 nodes (spread, single server) / chord 1 node | two nodes keep one's rate | 1,200 / 1,000 | 1.20 | >= 0.80 "
            "| met |") in section
    # the container: memory's 2,000 against the ceiling's 4,000, no target.
    assert "| memory 1 node / container ceiling | - | 2,000 / 4,000 | 0.50 | none | informative |" in section


def test_an_unmet_target_says_not_met():
    lines = targets.targets_section([registration("hazelcast", 1, "one", 1500),
                                    registration("memory", 1, "one", 2000)], FULL)
    assert target(lines, "hazelcast 1 node / memory backend 1 node") == (
        "| hazelcast 1 node / memory backend 1 node | a data grid costs little | 1,500 / 2,000 | 0.75 | >= 0.90 | not met |")


def test_the_target_is_met_exactly_at_its_threshold_and_not_below():
    at, below = ([registration("bamboo", 1, "one", rate), registration("bamboo-tmpfs", 1, "one", 1000)]
                 for rate in (700, 699))
    compared = "bamboo on disk, 1 node / bamboo on tmpfs, 1 node"
    assert target(targets.targets_section(at, FULL), compared).endswith("| >= 0.70 | met |")
    assert target(targets.targets_section(below, FULL), compared).endswith("| >= 0.70 | not met |")


def test_a_missing_measurement_names_the_options_that_measure_it():
    lines = targets.targets_section(rows(), FULL)  # no bamboo, no hazelcast, no front in the data
    assert target(lines, "bamboo 2 nodes (spread) / bamboo 1 node") == (
        "| bamboo 2 nodes (spread) / bamboo 1 node | two nodes keep one's rate | not measured in this run "
        "(needs: `bench/run --experiments register --backends bamboo --nodes 1,2`) | - | >= 0.80 | - |")
    assert ("needs: `bench/run --experiments register --backends hazelcast,memory --nodes 1`"
            in target(lines, "hazelcast 1 node / memory backend 1 node"))
    assert ("needs: `bench/run --experiments register,register-front --backends chord --nodes 1`)"
            in target(lines, "chord 1 node through the front / chord 1 node directly"))
    assert "needs: `bench/run --experiments register --backends chord --nodes 1,8`" in target(
        lines, "chord 8 nodes (spread) / chord 1 node")


def test_a_front_hint_says_when_deploy_cannot_start_a_front():
    no_front = {**FULL, "front": "not available (deploy/p2psip up has no --front)"}
    line = target(targets.targets_section(rows(), no_front), "chord 1 node through the front / chord 1 node directly")
    assert "with a deploy/p2psip whose `up` has --front" in line


def test_quick_mode_verdicts_are_indicative_and_name_the_precision_and_the_short_steps():
    lines = targets.targets_section(rows(), QUICK)
    assert target(lines, "chord 2 nodes (spread, single server) / chord 1 node").endswith(
        "| met, indicative (quick mode's search precision is 0.35; quick mode's search steps of 3 s are shorter than "
        "120 s: not sustained) |")
    finer = targets.targets_section(rows(), {**QUICK, "command": "bench/run --quick --precision 0.1"})
    assert "met, indicative (quick mode's search precision is 0.1; quick mode's search steps" in "\n".join(finer)
    assert target(targets.targets_section(rows(), FULL), "chord 2 nodes (spread, single server) / chord 1 node"
                  ).endswith("| met |")


def test_informative_node_counts_say_whether_their_search_ran_to_the_end():
    data = rows() + [registration("chord", 8, "spread", 0, "no step passed")]
    lines = targets.targets_section(data, FULL)
    assert target(lines, "chord 4 nodes (spread) / chord 1 node") == (
        "| chord 4 nodes (spread) / chord 1 node | - | 2,000 / 1,000 | 2.00 | none "
        "| informative; its search ran to the end |")
    assert target(lines, "chord 8 nodes (spread) / chord 1 node").endswith(
        "| 0.00 | none | informative; its search did not run to the end (chord 8 nodes (spread): no step passed) |")
    failed = rows() + [registration("chord", 8, "spread", 300, "deployment failed: node 5 did not answer")]
    assert "did not run to the end" in target(targets.targets_section(failed, FULL),
                                              "chord 8 nodes (spread) / chord 1 node")


def test_a_target_whose_reference_figure_passed_nothing_is_not_judged():
    data = [registration("hazelcast", 1, "one", 0, "no step passed"), registration("hazelcast", 2, "spread", 900)]
    assert target(targets.targets_section(data, FULL), "hazelcast 2 nodes (spread) / hazelcast 1 node").endswith(
        "| n/a | >= 0.80 | not judged: hazelcast 1 node: no step passed |")


def test_a_target_whose_measured_figure_no_confirmation_held_is_not_judged_but_one_that_passed_nothing_is_not_met():
    unheld = "not confirmed: 2,421/s failed a confirmation of 120 s (the search found 2,421/s in shorter steps)"
    data = [registration("chord", 1, "one", 8000), registration("chord", 2, "spread", 0, unheld)]
    assert target(targets.targets_section(data, FULL), "chord 2 nodes (spread, single server) / chord 1 node").endswith(
        f"| 0.00 | >= 0.80 | not judged: chord 2 nodes (spread, single server): {unheld} |")
    budget = [registration("chord", 1, "one", 8000), registration("chord", 2, "spread", 0, "over the hour: 57 minutes spent")]
    assert "| not judged: chord 2 nodes (spread, single server): over the hour" in target(
        targets.targets_section(budget, FULL), "chord 2 nodes (spread, single server) / chord 1 node")
    failed = [registration("chord", 1, "one", 8000), registration("chord", 2, "spread", 0, "no step passed")]
    assert "| 0.00 | >= 0.80 | not met (chord 2 nodes (spread, single server): no step passed) |" in target(
        targets.targets_section(failed, FULL), "chord 2 nodes (spread, single server) / chord 1 node") + " |"


def test_the_front_is_judged_per_policy_against_the_same_node_directly():
    data = rows() + [registration("chord", 1, "front-rr", 950), registration("chord", 1, "front-tlwl", 850),
                     registration("chord", 2, "front-rr", 2000)]
    lines = targets.targets_section(data, FULL)
    assert target(lines, "chord 1 node through the front (rr) / chord 1 node directly").endswith(
        "| the front costs little | 950 / 1,000 | 0.95 | >= 0.90 | met |")
    assert target(lines, "chord 1 node through the front (tlwl) / chord 1 node directly").endswith(
        "| 850 / 1,000 | 0.85 | >= 0.90 | not met |")
    assert "not measured" not in "\n".join(line for line in lines if "front" in line)


def test_response_times_show_in_whole_milliseconds():
    assert tables._ms("320.001") == "320"
    assert tables._ms("4") == "4"
    assert tables._ms("") == "-"


def test_the_papers_column_is_explained_once(tmp_path):
    text = write(tmp_path)
    assert text.count('The column "the paper\'s"') == 1
    assert text.index('The column "the paper\'s"') < text.index("## Results")


def test_the_capacity_within_a_100_ms_p99_stands_beside_the_rate(tmp_path):
    rows = [{"workload": "registration", "system": "chord", "nodes": "1", "routing": "one", "rate": "9000",
             "rate_p99_100ms": "7000", "p50_ms": "3", "p99_ms": "400", "note": ""}]
    assert tables.prompt_rate(rows[0]) == "7,000"
    assert tables.prompt_rate({"rate": "9000"}) == "-", "a run from before it was measured"


def test_a_generator_limited_reference_is_named_with_what_it_does_to_the_ratios(tmp_path):
    note = "generator-limited: SIPp offered 30,000/s of 40,000/s asked, so the limit is higher than measured"
    data = [row if row["system"] != "kamailio" or row["workload"] != "registration" else {**row, "note": note}
            for row in rows()]
    lines = tables.generator_limited(data)
    assert lines == [f"- Kamailio's registration figure, 8,000 REGISTER/s, is generator-limited: SIPp, sharing the "
                     f"machine, could not offer more, so the reference's limit is higher and every ratio to it "
                     f"overstates ours ({note})."]
    assert tables.generator_limited(rows()) == []
    text = report.write_report(tmp_path, data, {}, FULL).read_text()
    assert lines[0] in text[text.index("## References"):text.index("## Targets")]


def test_the_report_says_whether_its_steps_were_sustained():
    assert report.sustained_note(FULL) == "Each step held its rate 120 s: the limits are sustained rates."
    assert report.sustained_note(QUICK).startswith("This run's steps last 3 s, shorter than the 120 s")
    assert modes.step_seconds({**FULL, "command": "bench/run --step-seconds 30"}) == 30.0
    assert modes.step_seconds({**QUICK, "step_seconds": "20"}) == 20.0
    assert targets.caveat({**FULL, "command": "bench/run --step-seconds 30"}) == (
        ", indicative (this run's search steps of 30 s are shorter than 120 s: not sustained)")


def test_the_metrics_experiment_measures_one_node_twice_on_one_deployment():
    plan = experiments.plan(["metrics"], ["chord"], [4])
    ours = [m for m in plan if m.system == "chord"]
    assert ours == [experiments.Measurement("registration", "chord", 1, "one"),
                    experiments.Measurement("registration", "chord", 1, experiments.SCRAPED)]
    assert [(system, nodes) for system, nodes, _ in experiments.deployments(ours)] == [("chord", 1)]


def test_scraping_is_judged_against_the_same_node_unscraped():
    data = rows() + [registration("chord", 1, experiments.SCRAPED, 980)]
    lines = targets.targets_section(data, FULL)
    assert target(lines, "chord 1 node, /metrics scraped every second / chord 1 node unscraped").endswith(
        "| scraping /metrics costs little | 980 / 1,000 | 0.98 | >= 0.97 | met |")


EXAMPLE = Path(__file__).resolve().parents[1] / "results" / "example"


def test_the_example_report_is_what_the_report_code_makes_of_the_examples_raw_results(tmp_path):
    # regenerate it with `bench/run --report-only bench/results/example`, never by hand
    for name in ("run.tsv", "steps.csv", "summary.csv", "headline.txt", "overload.csv"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    meta, described = cli._read_meta(tmp_path)
    made = report.write_report(tmp_path, summary.read_summary(tmp_path / "summary.csv"), described, meta).read_text()
    kept = (EXAMPLE / "report.md").read_text()
    assert made == kept, "bench/results/example/report.md is stale: run bench/run --report-only bench/results/example"
    # a headline run: every target it lists has a verdict, each of the four kinds
    rows = [line for line in kept.split("## Headline targets", 1)[1].split("\n## ", 1)[0].splitlines()
            if line.startswith("| ") and not line.startswith("| target")]
    assert len(rows) >= 20, "the example's headline table lists its targets"
    for row in rows:
        verdict = row.rstrip(" |").rsplit(" | ", 1)[1]
        assert verdict in ("met", "not met", "informative") or verdict.startswith("not judged: "), row

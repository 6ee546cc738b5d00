"""The overload experiment: its steps at multiples of the clean rate, what a step counts (on SIPp
output recorded here, tests/data/README.md), generator-short steps, the targets at 2x and 3x, the
avalanche, overload.csv and avalanche.csv, the report's section and the figure."""
import shutil
import subprocess
import sys
from pathlib import Path

from sipbench import cli, experiments, modes, overload, overloadreport, report, search, sipp, stats, summary

DATA = Path(__file__).parent / "data"
RUN = Path(__file__).resolve().parents[1] / "run"


# Multiples of the recorded steps below: more than the default 2x and 3x, as --overload-multiples offers
MULTIPLES = (0.5, 1.0, 1.5, 2.0, 3.0, 4.0)
# The documented settings (modes.DOCUMENTED), as a run that used them records them
DOCUMENTED = {"precision": "0.05", "confirm_s": "120", "confirmations": "3", "max_p99_ms": "100",
              "max_call_p99_ms": "200", "overload_step_s": "120", "overload_multiples": "2,3,5",
              "good_within_ms": "500"}


def step(multiple, goodput_share, clean=1000, seconds=120.0, offered_share=1.0, system="chord", nodes=1,
         routing="one", p99=40.0, late=0):
    """A step at `multiple` x `clean` whose prompt 200s were `goodput_share` of the clean rate, `late` more
    200s came after 500 ms; the rest 503."""
    rate = round(multiple * clean)
    attempts = round(rate * seconds)
    ok = round(goodput_share * clean * seconds) + late
    return overload.OverloadStep(system, nodes, routing, clean, multiple, rate, offered_share * rate, seconds,
                                 attempts, ok, attempts - ok, 0, 0, 3, 2.0, p99, 3.0, p99 * 2,
                                 search.generator_short(rate, offered_share * rate), late)


def deployment(shares, **kwargs):
    return [step(m, share, **kwargs) for m, share in zip(MULTIPLES, shares)]


def test_steps_are_offered_at_2x_and_3x_the_clean_rate_or_the_multiples_given():
    assert overload.step_rates(1000) == [(2.0, 2000), (3.0, 3000)]
    assert overload.step_rates(1000, (2.0, 3.0, 5.0)) == [(2.0, 2000), (3.0, 3000), (5.0, 5000)]
    assert overload.step_rates(0, (0.5,)) == [(0.5, 1)], "never a step at 0/s"


def test_a_200_later_than_500_ms_is_no_goodput():
    counts = stats.Counts(created=100, successful=100)
    times_200 = [20.0] * 60 + [500.0] * 10 + [501.0] * 15 + [3000.0] * 5
    done = overload.summarize("chord", 1, "one", 40, 2.0, 80, 2.0, 100, counts, 80.0, times_200, [5.0] * 10)
    assert (done.ok, done.late, done.refused) == (90, 20, 10)
    assert done.goodput == 35.0, "70 200s within 500 ms (500 ms itself counts) over 2 s"
    assert done.late_per_s == 10.0
    late = step(2.0, 0.5, late=120000)
    assert overloadreport.goodput_ratio([late], 2.0) == 0.5, "a step answering late 200s keeps only its prompt ones"
    row = "\n".join(overloadreport.deployment_table("chord 1 node directly", [late]))
    assert "| 2 | 2,000 | 2,000 | 500 | 0.50 | 1,000 |" in row


def test_a_recorded_step_counts_200s_503s_and_what_was_neither_apart():
    folder = DATA / "register-503"
    counts = stats.final_counts(folder / "stat-0.stat.csv")
    rtt = folder / "register-503_rtt.csv"
    done = overload.summarize("chord", 1, "one", 40, 1.25, 50, 2.0, 100, counts, 50.0,
                              stats.read_response_times(rtt, sipp.RTD_200), stats.read_response_times(rtt, sipp.RTD_503))
    assert (done.ok, done.refused, done.other) == (70, 10, 20)
    assert (done.timeouts, done.unexpected) == (10, 10)   # silence, and the 500s
    assert done.goodput == 35.0 and done.refused_per_s == 5.0 and done.other_per_s == 10.0
    assert counts.successful == done.ok + done.refused, "SIPp counts a 503 as a successful call"
    assert done.p99_200_ms is not None and done.p99_ms is not None
    assert not done.generator_short


def test_response_times_of_one_timer_are_read_apart():
    rtt = DATA / "register-503" / "register-503_rtt.csv"
    assert len(stats.read_response_times(rtt)) == 80
    assert len(stats.read_response_times(rtt, 1)) == 70 and len(stats.read_response_times(rtt, 2)) == 10


def test_a_step_sipp_could_not_offer_is_generator_short_and_never_judged():
    steps = deployment([0.5, 1.0, 1.0, 0.95, 0.85, 0.5])
    short = step(4.0, 0.5, offered_share=0.9)
    assert short.generator_short and not steps[-1].generator_short
    steps = steps[:-1] + [short]
    assert overloadreport.goodput_ratio(steps, 4.0) is None
    cell = overloadreport.target_cell([step(2.0, 0.95, offered_share=0.5)], 2.0, 0.9)
    assert cell == "the generator offered 1,000/s of 2,000/s"
    assert overloadreport.verdict([step(2.0, 0.95, offered_share=0.5), step(3.0, 0.9)], []) == \
        "not judged: 2x: the generator offered 1,000/s of 2,000/s"
    table = "\n".join(overloadreport.deployment_table("chord 1 node directly", steps))
    row_4x = next(line for line in table.splitlines() if line.startswith("| 4 |"))
    assert row_4x.endswith("| generator short: SIPp did not offer the rate; not a server result |")
    assert "| 4,000 | 3,600 |" in row_4x


def test_the_targets_are_goodput_at_2x_and_3x_over_the_clean_rate():
    kept = deployment([0.5, 1.0, 1.0, 0.9, 0.8, 0.7])
    assert overloadreport.goodput_ratio(kept, 2.0) == 0.9 and overloadreport.goodput_ratio(kept, 3.0) == 0.8
    assert overloadreport.target_cell(kept, 2.0, 0.9) == "0.90" and overloadreport.target_cell(kept, 3.0, 0.8) == "0.80"
    assert overloadreport.verdict(kept, []) == "met"
    collapsed = deployment([0.5, 1.0, 0.9, 0.89, 0.3, 0.1])
    assert overloadreport.target_cell(collapsed, 2.0, 0.9) == "0.89"
    assert overloadreport.verdict(collapsed, []) == "not met"
    assert overloadreport.verdict(deployment([0.5, 1.0, 1.0, 0.95, 0.3]), []) == "not met", "3x alone fails it"
    assert overloadreport.target_cell(kept[:3], 2.0, 0.9) == "not measured"
    assert overloadreport.verdict(kept[:3], []) == "not judged: 2x not measured; 3x not measured"


def test_no_verdict_when_a_runs_settings_differ_from_the_documented_ones():
    assert modes.differences(DOCUMENTED) == []
    quick = {**DOCUMENTED, "precision": "0.35", "confirm_s": "none", "overload_step_s": "20"}
    differ = modes.differences(quick)
    assert differ == ["precision 0.35 (documented: at most 0.05)", "confirm_s none (documented: at least 120)",
                      "overload_step_s 20 (documented: at least 60)"]
    kept = deployment([0.5, 1.0, 1.0, 0.95, 0.85, 0.5])
    assert overloadreport.verdict(kept, differ) == "not judged: settings differ (" + "; ".join(differ) + ")"
    table = overloadreport.targets_table({"chord 1 node directly": kept}, differ)
    assert table[2] == ("| chord 1 node directly | 1,000 | 0.95 | 0.85 | not judged: settings differ (precision 0.35 "
                        "(documented: at most 0.05); confirm_s none (documented: at least 120); overload_step_s 20 "
                        "(documented: at least 60)) |")
    # steps shorter than documented, whatever the run recorded, named once
    short = deployment([0.5, 1.0, 1.0, 0.95, 0.85, 0.5], seconds=20.0)
    assert overloadreport.verdict(short, []) == \
        "not judged: settings differ (overload steps of 20 s (documented: at least 60))"
    assert overloadreport.verdict(short, differ) == "not judged: settings differ (" + "; ".join(differ) + ")"
    # a run that recorded nothing (older than the recording) differs in every setting but its precision, which
    # its mode then had (full: 0.05)
    assert len(modes.differences({"mode": "full"})) == len(modes.DOCUMENTED) - 1
    assert modes.differences({"mode": "quick"})[0] == "precision 0.35 (documented: at most 0.05)"
    assert modes.differences({**DOCUMENTED, "overload_multiples": "2,5"}) == \
        ["overload_multiples 2,5 (documented: including 2,3)"]
    stricter = {**DOCUMENTED, "precision": "0.03", "confirm_s": "300", "max_p99_ms": "50", "overload_step_s": "120"}
    assert modes.differences(stricter) == [], "stricter than documented is judged"


def test_steps_and_avalanches_survive_their_csv_files(tmp_path):
    steps = deployment([0.5, 1.0, 1.0, 0.95, 0.85, 0.5]) + [step(0.5, 0.5, system="kamailio")]
    for s in steps:
        overload.append(tmp_path / overload.STEPS_CSV, overload.STEP_FIELDS, overload.step_row(s))
    assert overload.read_steps(tmp_path / overload.STEPS_CSV) == steps
    header = (tmp_path / overload.STEPS_CSV).read_text().splitlines()[0].split(",")
    assert {"clean_rate", "multiple", "rate", "offered_rate", "goodput", "refused_per_s", "other_per_s", "p99_ms",
            "p99_200_ms", "generator_short"} <= set(header)
    runs = [overload.Avalanche("chord", 2, "front-tlwl", 20000, 2.0, 20000, 3224, 37.04, 0),
            overload.Avalanche("kamailio", 1, "one", 20000, 2.0, 19990, 0, 300.5, None)]
    for run in runs:
        overload.append(tmp_path / overload.AVALANCHE_CSV, overload.AVALANCHE_FIELDS, overload.avalanche_row(run))
    assert overload.read_avalanches(tmp_path / overload.AVALANCHE_CSV) == runs
    assert overload.read_steps(tmp_path / "absent.csv") == [] and overload.read_avalanches(tmp_path / "x") == []


def test_the_avalanche_counts_its_refusals_from_sipps_message_counts():
    assert stats.received(DATA / "avalanche" / "avalanche_counts.csv", "503") == 20
    assert stats.received(DATA / "avalanche" / "avalanche_counts.csv", "200") == 20
    assert stats.final_counts(DATA / "avalanche" / "avalanche.stat.csv").successful == 20
    assert stats.received(DATA / "register-503" / "register-503_counts.csv", "503") == 10
    assert stats.received(DATA / "absent_counts.csv", "503") == 0


def test_the_avalanche_table_gives_each_time_over_kamailios():
    runs = [overload.Avalanche("kamailio", 1, "one", 20000, 2.0, 20000, 0, 2.5, 0),
            overload.Avalanche("chord", 2, "front-tlwl", 20000, 2.0, 20000, 3224, 37.0, 0),
            overload.Avalanche("memory", 2, "front-tlwl", 20000, 2.0, 19000, 900, 300.2, 1)]
    table = overloadreport.avalanche_table(runs)
    assert "| Kamailio | 20,000 | 20,000 | 0 | 2.5 s | 1.00 |" in table
    assert "| chord 2 nodes behind the front (tlwl) | 20,000 | 20,000 | 3,224 | 37.0 s | 14.80 |" in table
    assert ("| memory 2 nodes behind the front (tlwl) | 20,000 | 19,000 | 900 | not all registered (SIPp ended "
            "after 300.2 s, exit code 1) | n/a |") in table
    alone = overloadreport.avalanche_table(runs[1:2])
    assert alone[-2].endswith("| 37.0 s | n/a |"), "no Kamailio time, no ratio"


def test_deployments_are_named_plainly():
    assert overload.deployment_label("chord", 1, "one") == "chord 1 node directly"
    assert overload.deployment_label("bryan", 2, "front-tlwl") == "bryan 2 nodes behind the front (tlwl)"
    assert overload.deployment_label("ceiling", 1, "one") == "container ceiling"
    assert overload.deployment_label("kamailio", 1, "one") == "Kamailio"


def write_run(folder: Path, mode="full", command="bench/run"):
    shutil.copy(DATA / "summary.csv", folder / "summary.csv")
    (folder / "run.tsv").write_text(f"mode\t{mode}\ncommand\t{command}\n-\n")
    steps = (deployment([0.5, 1.0, 1.0, 0.95, 0.85, 0.5])
             + deployment([0.5, 1.0, 1.0, 0.6, 0.3, 0.1], system="chord", nodes=2, routing="front-tlwl", clean=1500)
             + deployment([0.5, 1.0, 1.5, 2.0, 3.0, 3.0], system="kamailio", clean=8000, p99=2.0)[:5]
             + [step(4.0, 3.0, clean=8000, system="kamailio", offered_share=0.8, p99=2.0)])
    for s in steps:
        overload.append(folder / overload.STEPS_CSV, overload.STEP_FIELDS, overload.step_row(s))
    for run in (overload.Avalanche("chord", 2, "front-tlwl", 20000, 2.0, 20000, 3224, 37.0, 0),
                overload.Avalanche("kamailio", 1, "one", 20000, 2.0, 20000, 0, 2.5, 0)):
        overload.append(folder / overload.AVALANCHE_CSV, overload.AVALANCHE_FIELDS, overload.avalanche_row(run))


def test_the_report_has_an_overload_section_with_a_targets_row_per_deployment(tmp_path):
    write_run(tmp_path)
    meta = {"mode": "full", "command": "bench/run", **DOCUMENTED}
    text = report.write_report(tmp_path, summary.read_summary(tmp_path / "summary.csv"), {}, meta).read_text()
    section = text[text.index("## Overload"):]
    assert "| chord 1 node directly | 1,000 | 0.95 | 0.85 | met |" in section
    assert "| chord 2 nodes behind the front (tlwl) | 1,500 | 0.60 | 0.30 | not met |" in section
    assert "| Kamailio | 8,000 | 2.00 | 3.00 | met |" in section
    assert "#### chord 1 node directly: clean rate 1,000 REGISTER/s" in section
    assert "| 2 | 2,000 | 2,000 | 950 | 0.95 | 0 | 1,050 | 0 |" in section
    assert "generator short: SIPp did not offer the rate; not a server result" in section
    assert "| chord 2 nodes behind the front (tlwl) | 20,000 | 20,000 | 3,224 | 37.0 s | 14.80 |" in section
    assert "judged per deployment in the section Overload" in text[text.index("## Targets"):text.index("## Results")]


def test_report_only_draws_the_overload_figure_and_marks_a_quick_runs_verdicts(tmp_path):
    write_run(tmp_path, mode="quick", command="bench/run --quick --experiments overload")
    done = subprocess.run([sys.executable, str(RUN), "--report-only", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    png = tmp_path / overloadreport.PLOT
    assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = (tmp_path / "report.md").read_text()
    assert f"![goodput and p99 against offered load]({overloadreport.PLOT})" in text
    assert ("| chord 1 node directly | 1,000 | 0.95 | 0.85 | not judged: settings differ (precision 0.35 "
            "(documented: at most 0.05); confirm_s not recorded (documented: at least 120);") in text
    assert "This run's steps last 3 s, shorter than the 120 s" in text


def test_no_overload_measured_means_no_section_and_no_figure(tmp_path):
    assert overloadreport.section([], [], []) == []
    assert overloadreport.write_plot(tmp_path, []) is None


# What the experiment measures, and on which deployments

def test_overload_follows_the_register_search_of_each_deployment_it_needs():
    wanted = experiments.overloaded(["overload"], ["chord", "memory"], ("rr", "tlwl"))
    assert set(wanted) == {experiments.Measurement("registration", "ceiling", 1, "one"),
                           experiments.Measurement("registration", "kamailio", 1, "one"),
                           experiments.Measurement("registration", "chord", 1, "one"),
                           experiments.Measurement("registration", "chord", 2, "front-tlwl"),
                           experiments.Measurement("registration", "memory", 1, "one"),
                           experiments.Measurement("registration", "memory", 2, "front-tlwl")}
    plan = experiments.plan(["register", "overload"], ["chord"], [1], front_policies=("rr", "tlwl"))
    assert len([m for m in plan if m == experiments.Measurement("registration", "chord", 1, "one")]) == 1, \
        "the register experiment's one-node search is the overload's clean rate too"
    assert experiments.overloaded(["register"], ["chord"], ("tlwl",)) == []


def test_the_fronts_policy_is_tlwl_when_chosen_else_the_first_and_none_without_a_front():
    assert experiments.overload_policy(("rr", "hash", "cjsq", "tjsq", "tlwl")) == "tlwl"
    assert experiments.overload_policy(("hash", "rr")) == "hash"
    assert experiments.overload_policy(()) is None
    no_front = experiments.overloaded(["overload"], ["chord"], ())
    assert [m.routing for m in no_front if m.system == "chord"] == ["one"]


def test_the_avalanche_goes_to_the_front_and_to_kamailio():
    assert experiments.avalanche_after(experiments.Measurement("registration", "chord", 2, "front-tlwl"))
    assert experiments.avalanche_after(experiments.Measurement("registration", "kamailio", 1, "one"))
    assert not experiments.avalanche_after(experiments.Measurement("registration", "chord", 1, "one"))
    assert not experiments.avalanche_after(experiments.Measurement("registration", "ceiling", 1, "one"))


def test_overload_is_part_of_the_full_run_and_runnable_in_quick_mode():
    assert "overload" in modes.FULL["experiments"] and "overload" not in modes.QUICK["experiments"]
    args = cli.parser().parse_args(["--quick", "--experiments", "overload", "--overload-step-seconds", "30",
                                    "--avalanche-users", "100"])
    assert args.experiments == ["overload"] and args.overload_step_seconds == 30 and args.avalanche_users == 100
    assert (modes.QUICK["overload_step"], modes.QUICK["avalanche_users"]) == (20.0, 5000)
    assert (modes.FULL["overload_step"], modes.FULL["avalanche_users"], modes.FULL["step"]) == (120.0, 20000, 120.0)
    assert modes.FULL["overload_multiples"] == (2.0, 3.0, 5.0) and modes.HEADLINE["overload_multiples"] == (2.0, 3.0)


def test_the_overload_steps_go_on_round_the_deployments_pool_with_its_contact(tmp_path):
    pool = sipp.Pool(size=4)
    search_workload = sipp.Registration(pool)
    overload_workload = sipp.Registration(pool, sipp.REGISTER_503)
    search_workload.options(tmp_path / "a", 0, 3)
    options = overload_workload.options(tmp_path / "b", 0, 2)
    first = (tmp_path / "a" / "users-0.csv").read_text().splitlines()[1:]
    then = (tmp_path / "b" / "users-0.csv").read_text().splitlines()[1:]
    assert [line.split(";")[0] for line in first + then] == [f"user{n:07d}" for n in (0, 1, 2, 3, 0)]
    assert overload_workload.scenario() == sipp.REGISTER_503 and search_workload.scenario() == sipp.REGISTER_POOL
    assert options[options.index("contact") + 1] == sipp.POOL_CONTACT
    assert "Contact: <sip:[field0]@[contact];transport=udp>" in sipp.REGISTER_503.read_text()


def test_the_benchs_own_scenario_is_given_to_sipp_by_its_path():
    command = sipp.base_command(sipp.Target("127.0.0.1", 5060), sipp.REGISTER_503, sipp.Timing(), 10)
    assert command[command.index("-sf") + 1] == str(sipp.REGISTER_503)
    command = sipp.base_command(sipp.Target("127.0.0.1", 5060), sipp.REGISTER, sipp.Timing(), 10)
    assert command[command.index("-sf") + 1] == str(sipp.REGISTER)


def test_the_estimate_counts_the_overload_steps():
    timing = sipp.Timing(step_s=120.0, recv_timeout_ms=8000)
    settings = cli.Settings(timing=timing, plan=search.Plan(max_steps=10), cooldown_s=15.0, warmup_s=60.0,
                            overload_step_s=120.0, overload_multiples=MULTIPLES)
    plan = experiments.plan(["overload"], ["chord"], [1], front_policies=("tlwl",))
    without = cli.worst_minutes(plan, frozenset(), settings)
    with_steps = cli.worst_minutes(plan, frozenset(experiments.overloaded(["overload"], ["chord"], ("tlwl",))), settings)
    # four deployments of six steps of 120 s + 8 s + 15 s, and two avalanches of about a minute
    assert round((with_steps - without) * 60) == 4 * 6 * 143 + 2 * 60


def test_a_deployment_that_got_no_step_still_has_its_targets_row(tmp_path):
    write_run(tmp_path)
    meta = {"mode": "full", "command": "bench/run",
            "overload": "chord 1 node directly; memory 2 nodes behind the front (tlwl); Kamailio"}
    text = report.write_report(tmp_path, summary.read_summary(tmp_path / "summary.csv"), {}, meta).read_text()
    assert ("| memory 2 nodes behind the front (tlwl) | none: no rate of its search passed (or was confirmed), or "
            "the run ended first | not measured | not measured | not judged: no clean rate |") in text
    assert text.count("| chord 1 node directly | 1,000 |") == 1

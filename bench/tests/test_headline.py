"""The headline profile (bench/run --profile headline): its plan, its time estimate within the hour, the
settings it records, its one line per target, the registrations' pool of AORs and the first registrations
measured against them."""
from pathlib import Path

import pytest

from sipbench import budget, cli, experiments, headline, modes, overload, report, search, sipp, stats
from sipbench.experiments import Measurement

BACKENDS = ["bamboo", "bryan", "chord", "hazelcast", "memory"]
# The documented settings, as a headline run records them (cli.recorded_settings)
RECORDED = {"precision": "0.05", "confirmations": "4", "confirm_s": "120", "max_p99_ms": "100",
            "max_call_p99_ms": "200", "overload_step_s": "60", "overload_multiples": "2,3", "good_within_ms": "500"}


def headline_settings() -> cli.Settings:
    mode = modes.HEADLINE
    args = cli.parser().parse_args(["--profile", "headline"])
    return cli.Settings(timing=sipp.Timing(step_s=mode["step"], recv_timeout_ms=mode["recv_timeout_ms"]),
                        plan=cli.plan_of(args, mode), cooldown_s=mode["cooldown"], warmup_s=mode["warmup"],
                        overload_step_s=mode["overload_step"], avalanche_users=mode["avalanche_users"],
                        overload_multiples=mode["overload_multiples"])


def test_the_headline_plan_measures_each_backend_the_references_chord_scaling_and_first_registrations():
    measured, overloaded = experiments.headline_plan(BACKENDS)
    for system in (*BACKENDS, "ceiling", "kamailio"):
        assert Measurement("registration", system, 1, "one") in measured
        assert Measurement("call", system, 1, "one") in measured
    assert {m.nodes for m in measured if m.system == "chord" and m.workload == "registration"} == {1, 2, 4}
    assert Measurement("first", "chord", 1, "one") in measured
    assert set(overloaded) == {Measurement("registration", s, 1, "one") for s in ("ceiling", "kamailio", "chord")}
    assert len(measured) == 17
    # the first registrations follow the registrations round the pool on the same deployment: the bindings
    # they create stay
    chord = next(ms for system, nodes, ms in experiments.deployments(measured) if (system, nodes) == ("chord", 1))
    assert [m.workload for m in chord] == ["call", "registration", "first"]


def test_first_registrations_bring_the_registrations_round_the_pool_into_any_plan():
    plan = experiments.plan(["register-refresh"], ["chord"], [1])
    assert Measurement("registration", "chord", 1, "one") in plan
    group = next(ms for system, _, ms in experiments.deployments(plan) if system == "chord")
    assert [m.workload for m in group] == ["registration", "first"]


def test_the_headline_estimate_of_its_required_rows_leaves_18_minutes_of_the_hour():
    settings = headline_settings()
    measured, overloaded = experiments.headline_plan(BACKENDS)
    overloaded = frozenset(overloaded)
    rows = budget.rows(budget.order(measured, overloaded), overloaded, settings)
    required = [row for row in rows if row.required]
    assert {row.measurement.label for row in rows if not row.required} == {
        *(f"call {b} 1 node one" for b in BACKENDS), "registration bamboo 1 node one",
        "registration bryan 1 node one", "registration chord 4 nodes spread"}
    # the arithmetic of bench/README.md, "Headline": 9 rows, 4 of them references, 6 deployments
    ours, references = 5 * 9 * (2 + 3 + 0.5), 4 * 11 * (2 + 3 + 0.5)
    confirmations = 9 * (120 + 3 + 0.5)
    rests = 9 * 1
    cold_warmups = 1 * 30   # the ceiling's calls start on cold code
    overload_steps = 3 * 2 * (60 + 4 + 1)
    startups = 6 * budget.STARTUP_S
    seconds = ours + references + confirmations + rests + cold_warmups + overload_steps + startups
    assert sum(row.seconds for row in required) == pytest.approx(seconds)
    assert seconds / 60 <= 42
    minutes = cli.worst_minutes(measured, overloaded, settings, confirmations=1)
    assert minutes > 60, "every row with its first confirmation: the budget leaves optional ones out"
    assert cli.worst_minutes(measured, overloaded, settings) > minutes, "every confirmation failing"


def test_required_rows_go_first_and_optional_ones_run_only_while_the_required_left_fit():
    settings = headline_settings()
    measured, overloaded = experiments.headline_plan(BACKENDS)
    overloaded = frozenset(overloaded)
    ordered = budget.order(measured, overloaded)
    rows = budget.rows(ordered, overloaded, settings)
    seen_optional_only = False
    for system, nodes, group in experiments.deployments(ordered):
        has_required = any(budget.required(m, overloaded, ordered) for m in group)
        assert not (has_required and seen_optional_only), "a deployment with a required row after optional ones"
        seen_optional_only |= not has_required
    now = [0.0]
    limit = budget.Budget(3600, rows, settings, clock=lambda: now[0])
    limit.start()
    chord_call = Measurement("call", "chord", 1, "one")
    ceiling = Measurement("registration", "ceiling", 1, "one")
    assert limit.fits(chord_call)
    now[0] = 3000.0   # late: the required rows left no longer leave room for it
    assert not limit.fits(chord_call) and limit.fits(ceiling)
    assert limit.why_not(chord_call).startswith("over the hour: 50 minutes spent")
    assert not limit.affordable(ceiling)
    for m in ordered:
        limit.finished(m)
    # with nothing left, a confirmation (and its rest, and the row's overload steps) fits until the hour is spent
    assert limit.affordable(ceiling)
    now[0] = 3400.0
    assert not limit.affordable(ceiling) and budget.Budget(None, rows, settings).affordable(ceiling)


def test_the_profiles_search_to_5_percent_and_only_headline_and_full_confirm():
    for mode in (modes.QUICK, modes.HEADLINE, modes.FULL):
        assert mode["precision"] == 0.05
    assert modes.QUICK["confirmations"] == 0
    assert modes.HEADLINE["confirmations"] >= 1 and modes.FULL["confirmations"] >= 1
    assert modes.HEADLINE["confirm_s"] == modes.FULL["confirm_s"] == 120
    quick = cli.plan_of(cli.parser().parse_args(["--quick"]), modes.QUICK)
    assert quick.max_steps == search.steps_needed(quick) == 12   # 200 to 20,000 by 3x, then 5%


def test_profile_and_quick_choose_the_same_mode_and_contradictions_stop():
    assert cli.profile_of(cli.parser().parse_args(["--quick"])) == "quick"
    assert cli.profile_of(cli.parser().parse_args(["--profile", "headline"])) == "headline"
    assert cli.profile_of(cli.parser().parse_args([])) == "full"
    with pytest.raises(cli.BenchError):
        cli.profile_of(cli.parser().parse_args(["--quick", "--profile", "full"]))


def test_a_run_records_the_settings_its_verdicts_need():
    recorded = cli.recorded_settings(headline_settings())
    assert {k: recorded[k] for k in RECORDED} == RECORDED
    assert modes.differences(recorded) == []
    quick = cli.Settings(timing=sipp.Timing(), plan=search.Plan(precision=0.05), overload_step_s=20.0,
                         overload_multiples=(2.0, 3.0))
    assert modes.differences(cli.recorded_settings(quick)) == [
        "confirm_s none (documented: at least 120)", "overload_step_s 20 (documented: at least 60)"]


def test_the_registration_pool_is_an_option_with_its_default_and_recorded():
    assert cli.parser().parse_args([]).register_pool == sipp.REGISTRATION_POOL == 100_000
    assert cli.parser().parse_args(["--register-pool", "5000"]).register_pool == 5000
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["--register-pool", "0"])
    recorded = cli.recorded_settings(headline_settings())
    assert recorded["register_pool"] == "100000"
    assert (recorded["ceiling_young"], recorded["ceiling_pause_ms"]) == ("128m", "50")


def row(workload, system, rate, nodes=1, routing="one", note="", seconds="240"):
    return {"workload": workload, "system": system, "nodes": nodes, "routing": routing, "round": "1", "rate": rate,
            "note": note, "seconds": seconds}


ROWS = [row("registration", "ceiling", 10000), row("registration", "kamailio", 20000),
        row("call", "ceiling", 1500), row("call", "kamailio", 4000),
        row("registration", "chord", 5000), row("call", "chord", 800), row("first", "chord", 5500),
        row("registration", "chord", 4200, 2, "spread"), row("registration", "chord", 0, 4, "spread",
                                                             "not confirmed: 900/s, 855/s failed a confirmation of 120 s"),
        row("registration", "memory", 8000), row("registration", "hazelcast", 6000)]


def overload_steps(shares, clean, system="chord"):
    return [overload.OverloadStep(system, 1, "one", clean, m, round(m * clean), m * clean, 60.0, round(m * clean * 60),
                                  round(share * clean * 60), 0, 0, 0, 0, 1.0, 2.0, 1.0, 2.0, False)
            for m, share in zip((2.0, 3.0), shares)]


def test_one_line_per_target_with_its_figure_verdict_and_run_folder():
    steps = overload_steps((0.95, 0.85), 5000) + overload_steps((0.5, 0.2), 20000, "kamailio")
    meta = {**RECORDED, "mode": "headline", "overload": "container ceiling; Kamailio; chord 1 node directly"}
    lines = headline.lines(ROWS, steps, meta, Path("/results/run"))
    assert all(line.startswith("headline: ") and line.endswith(" | /results/run") for line in lines)
    text = "\n".join(lines)
    assert "headline: chord 1 node, REGISTER/s | 5,000 REGISTER/s (0.50 of the ceiling, 0.25 of Kamailio) | informative |" in text
    assert "headline: chord 2 nodes (spread, single server) / chord 1 node >= 0.80 | 4,200 / 5,000 = 0.84 | met |" in text
    assert ("headline: chord 4 nodes (spread) / chord 1 node | 0 / 5,000 = 0.00 | not judged: chord 4 nodes (spread): "
            "not confirmed: 900/s, 855/s failed a confirmation of 120 s |") in text
    assert "headline: hazelcast 1 node / memory backend 1 node >= 0.90 | 6,000 / 8,000 = 0.75 | not met |" in text
    assert "headline: chord 1 node, first registrations | 5,500 REGISTER/s | informative |" in text
    assert ("headline: chord 1 node refreshes (REGISTER/s round the pool) / first registrations >= 0.80 | "
            "5,000 / 5,500 = 0.91 | met |") in text
    assert "headline: chord 1 node directly overload goodput / clean rate >= 0.9 at 2x and 0.8 at 3x | 0.95 at 2x, 0.85 at 3x of 5,000/s | met |" in text
    assert "headline: Kamailio overload goodput / clean rate >= 0.9 at 2x and 0.8 at 3x | 0.50 at 2x, 0.20 at 3x of 20,000/s | not met |" in text
    assert ("headline: container ceiling overload goodput / clean rate >= 0.9 at 2x and 0.8 at 3x | - | not judged: no "
            "clean rate") in text


def test_a_headline_report_opens_with_the_same_targets_as_a_table():
    steps = overload_steps((0.95, 0.85), 5000)
    meta = {**RECORDED, "mode": "headline", "overload": "chord 1 node directly"}
    section = report.headline_section(ROWS, steps, meta)
    assert section[:4] == ["## Headline targets", "", "| target | figure | time | verdict |", "|---|---|---|---|"]
    assert len(section) == 5 + len(headline.lines(ROWS, steps, meta, Path("/r")))
    assert "| chord 2 nodes (spread, single server) / chord 1 node >= 0.80 | 4,200 / 5,000 = 0.84 | - | met |" in section
    # what each target cost: its search's seconds, its overload steps' length
    assert any(line.startswith("| chord 1 node, REGISTER/s | 5,000 REGISTER/s") and "| 4.0 min | informative |" in line
               for line in section)
    assert any(line.startswith("| chord 1 node directly overload goodput") and "| 2.0 min | met |" in line
               for line in section)
    assert report.headline_section(ROWS, steps, {**meta, "mode": "quick"}) == []


def test_a_row_the_budget_left_out_reads_not_judged_over_the_hour():
    left_out = row("registration", "chord", 0, 4, "spread", "over the hour: 52 minutes spent, its estimate 249 s and "
                   "the required rows' 0 s would pass 60 minutes")
    rows = [r for r in ROWS if r["nodes"] != 4] + [left_out, row("call", "bamboo", 0, note=left_out["note"])]
    meta = {**RECORDED, "mode": "headline", "overload": ""}
    lines = headline.lines(rows, [], meta, Path("/r"))
    assert "headline: chord 4 nodes (spread) / chord 1 node | 0 / 5,000 = 0.00 | not judged: over the hour | /r" in lines
    assert "headline: bamboo 1 node, calls/s | 0 calls/s | not judged: over the hour | /r" in lines


def test_no_headline_verdict_from_a_run_whose_settings_differ():
    meta = {**RECORDED, "mode": "headline", "confirm_s": "none", "overload_step_s": "20",
            "overload": "chord 1 node directly"}
    lines = headline.lines(ROWS, overload_steps((0.95, 0.85), 5000), meta, Path("/r"))
    ratio = next(line for line in lines if "chord 2 nodes" in line)
    assert ratio.endswith("| not judged: settings differ (confirm_s none (documented: at least 120)) | /r")
    overloaded = next(line for line in lines if "overload goodput" in line)
    assert overloaded.endswith("| not judged: settings differ (confirm_s none (documented: at least 120); "
                               "overload_step_s 20 (documented: at least 60)) | /r")


def test_registrations_go_round_the_deployments_pool_with_one_contact(tmp_path):
    pool = sipp.Pool(size=5)
    registration = sipp.Registration(pool)
    options = registration.options(tmp_path / "a", 0, 3)
    assert options[options.index("-key", options.index("expires")) + 1:][:2] == ["contact", sipp.POOL_CONTACT]
    registration.options(tmp_path / "b", 0, 4)
    first = (tmp_path / "a" / "users-0.csv").read_text().splitlines()
    second = (tmp_path / "b" / "users-0.csv").read_text().splitlines()
    assert first[0] == "SEQUENTIAL" and [line.split(";")[0] for line in first[1:]] == [f"user{n:07d}" for n in (0, 1, 2)]
    assert [line.split(";")[0] for line in second[1:]] == [f"user{n:07d}" for n in (3, 4, 0, 1)]
    registration.options(tmp_path / "c", 0, 12)   # more than the pool: SIPp goes round the file
    assert len((tmp_path / "c" / "users-0.csv").read_text().splitlines()) == 1 + 5
    assert registration.scenario() == sipp.REGISTER_POOL and sipp.REGISTER_POOL.is_file()
    assert "Contact: <sip:[field0]@[contact];transport=udp>" in sipp.REGISTER_POOL.read_text()


def test_a_search_of_any_length_registers_no_more_aors_than_the_pool(tmp_path):
    # a step function at 7,300/s, searched in 2 s steps and confirmed in 120 s: nearly a million REGISTERs
    pool = sipp.Pool(size=sipp.REGISTRATION_POOL)
    registration = sipp.Registration(pool)
    plan = search.Plan(start=1000, growth=2.0, precision=0.05, max_steps=9, confirmations=3, confirm_s=120)
    seen = set()

    def measure(rate, seconds=None):
        count = round(rate * (seconds or 2.0))
        registration.options(tmp_path, 0, count)
        seen.update((tmp_path / "users-0.csv").read_text().splitlines()[1:])
        return search.Step(rate, count, stats.Counts(successful=count) if rate <= 7300 else stats.Counts(),
                           rate, 1.0, 2.0, rate <= 7300, "" if rate <= 7300 else "failed")

    outcome = search.run(plan, measure, lambda step: None)
    assert outcome.best is not None and pool.sent > 3 * sipp.REGISTRATION_POOL
    assert len(seen) == sipp.REGISTRATION_POOL


def test_first_registrations_and_the_avalanches_phones_are_never_sent_twice_and_never_the_pools(tmp_path):
    first = sipp.Registration(sipp.Pool(sipp.FIRST_PREFIX), name="first")
    for folder in ("a", "b"):
        first.options(tmp_path / folder, 0, 3)
    users = [line.split(";")[0] for folder in ("a", "b")
             for line in (tmp_path / folder / "users-0.csv").read_text().splitlines()[1:]]
    assert users == [f"first{n:07d}" for n in range(6)] and first.name == "first"
    phones = sipp.Pool(sipp.AVALANCHE_PREFIX).write(tmp_path / "avalanche.csv", 4).read_text().splitlines()[1:]
    assert [line.split(";")[0] for line in phones] == [f"avalanche{n:07d}" for n in range(4)]


def test_a_headline_run_prints_its_estimate_records_its_settings_and_prints_a_line_per_target(tmp_path, monkeypatch,
                                                                                             capsys):
    # everything that would start a process or touch the machine is replaced: the run's plumbing only
    from sipbench import deploy, machine, network, report, runner, tools
    monkeypatch.setattr(report, "write_plots", lambda out, rows: [])   # the figures are test_report's
    monkeypatch.setattr(tools, "require", lambda name: None)
    monkeypatch.setattr(deploy, "available", lambda: True)
    monkeypatch.setattr(deploy, "front_available", lambda: True)
    monkeypatch.setattr(deploy, "backends", lambda: [*BACKENDS, "bamboo-tmpfs"])
    monkeypatch.setattr(network, "netns_unavailable_reason", lambda: "not in this test")
    monkeypatch.setattr(machine, "describe", lambda: {"cores (nproc)": "2"})
    monkeypatch.setattr(cli, "_commit", lambda: "abc1234")
    ran = []
    monkeypatch.setattr(runner.Runner, "run", lambda self, measurements, overloaded: ran.append(
        (measurements, overloaded)) or [])
    assert cli.run(cli.parser().parse_args(["--profile", "headline", "--out", str(tmp_path)]), None,
                   ["--profile", "headline"]) == 0
    measurements, overloaded = ran[0]
    assert len(measurements) == 17 and "bamboo-tmpfs" not in {m.system for m in measurements}
    printed = capsys.readouterr()
    err = printed.err
    assert "profile headline; 17 rate searches, 9 steps each at most, each rate found confirmed in 120 s" in err
    assert "start-ups of 9 deployments included" in err
    plan = err.split("the plan, each row's estimate with one confirmation:")[1].splitlines()
    assert plan[1].startswith("  call ceiling 1 node one: required, about ")
    assert sum(" optional, " in line for line in plan) == 8
    assert "  budget 60 minutes: optional rows run while they and the required rows left fit in it" in plan
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    meta, _ = cli._read_meta(run)
    assert meta["mode"] == "headline" and modes.differences(meta) == []
    lines = (run / cli.HEADLINE_FILE).read_text().splitlines()
    assert lines and all(line.startswith("headline: ") and line.endswith(f" | {run}") for line in lines)
    assert "headline: Kamailio overload goodput" in "\n".join(lines)
    assert printed.out.splitlines() == lines


def test_a_headline_runs_short_steps_confirmed_in_120_s_are_sustained_and_its_targets_not_indicative():
    from sipbench import report, targets
    meta = {**RECORDED, "mode": "headline", "step_seconds": "2", "command": "bench/run --profile headline"}
    assert modes.sustained(meta) and targets.caveat_reasons(meta) == []
    assert report.sustained_note(meta) == ("This run's search steps last 2 s; each rate was then held 120 s in its "
                                           "confirmation: the limits are sustained rates.")
    assert report.indicative_note(meta) == []
    quick = {**meta, "mode": "quick", "step_seconds": "3", "confirmations": "0", "confirm_s": "none"}
    assert not modes.sustained(quick)
    assert targets.caveat_reasons(quick) == ["quick mode's search steps of 3 s are shorter than 120 s: not sustained"]
    assert report.indicative_note(quick)[0].startswith("**Indicative figures.** This is a quick run: its searches "
                                                       "did not confirm their rates in sustained steps")


def test_a_row_left_out_is_recorded_in_the_summary_with_why(tmp_path):
    from sipbench import runner, summary
    settings = headline_settings()
    measured, overloaded = experiments.headline_plan(BACKENDS)
    overloaded = frozenset(overloaded)
    now = [3000.0]
    limit = budget.Budget(3600, budget.rows(measured, overloaded, settings), settings, clock=lambda: now[0])
    limit.began = 0.0
    run = runner.Runner(settings, tmp_path, tmp_path / "work", None, limit)
    left = Measurement("call", "bryan", 1, "one")
    assert not run._fits(left)
    run._left_out(left)
    (recorded,) = summary.read_summary(tmp_path / "summary.csv")
    assert recorded["rate"] == 0 and recorded["note"].startswith("over the hour: 50 minutes spent")
    assert headline.figure_lines([recorded], [])[0][2] == "not judged: over the hour"

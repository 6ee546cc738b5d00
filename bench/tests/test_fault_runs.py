"""The faults experiment: its runs (kinds, namespaces, seeds), the command it gives deploy/p2psip,
what a recorded run printed read into its rows, faults.csv and fault-kinds.csv, the targets'
verdicts, the report's section (also as a rebuilt report holds it) and the options."""
from pathlib import Path

from sipbench import cli, experiments, faultreport, faultruns
from sipbench import report as report_module
from sipbench.faultruns import Run, Settings

DATA = Path(__file__).parent / "data" / "faults"
META = {"fault_runs": "10", "fault_minutes": "10", "fault_left_out": ""}


def test_on_loopback_every_run_has_the_kinds_that_need_no_namespaces_and_a_seed_of_its_own():
    runs = faultruns.plan(["chord", "bamboo"], Settings(runs=3, first_seed=7))
    assert [(r.backend, r.number, r.seed, r.netns) for r in runs] == [
        ("chord", 1, 7, False), ("chord", 2, 8, False), ("chord", 3, 9, False),
        ("bamboo", 1, 7, False), ("bamboo", 2, 8, False), ("bamboo", 3, 9, False)]
    assert all(r.kinds == faultruns.ON_LOOPBACK for r in runs)
    assert set(faultruns.left_out(Settings())) == {faultruns.PARTITION, faultruns.SLOW}


def test_with_namespaces_every_second_run_partitions_and_slows_and_the_others_add():
    runs = faultruns.plan(["chord"], Settings(runs=4, netns=True, starve=False))
    assert [r.netns for r in runs] == [False, True, False, True]
    assert runs[1].kinds == (faultruns.KILL, faultruns.PAUSE, faultruns.PARTITION, faultruns.SLOW,
                             faultruns.REMOVE, faultruns.ROLLING)
    assert runs[0].kinds == (faultruns.KILL, faultruns.PAUSE, faultruns.ADD, faultruns.REMOVE, faultruns.ROLLING)
    assert faultruns.left_out(Settings(runs=4, netns=True, starve=False)) == {
        faultruns.STARVE: "needs the cgroup v1 cpu controller, writable (root)"}
    assert set(faultruns.left_out(Settings(runs=1, netns=True))) == {faultruns.PARTITION, faultruns.SLOW}


def test_the_command_keeps_every_port_within_three_hundred_above_the_base_port(tmp_path):
    run = Run("bamboo", 2, 5, (faultruns.KILL, faultruns.PARTITION), True)
    command = faultruns.command(run, Settings(minutes=2, base_port=33000), tmp_path)
    assert command[2:] == ["faults", "--backend", "bamboo", "--nodes", "4", "--minutes", "2", "--seed", "5",
                           "--faults", "kill,partition", "--base-port", "33000", "--http-offset", "100",
                           "--overlay-offset", "200", "--timeout", "600", "--netns", "--run-dir", str(tmp_path)]
    assert "--netns" not in faultruns.command(Run("chord", 1, 1, (faultruns.KILL,), False), Settings(), tmp_path)


def test_a_recorded_run_is_read_into_its_row_and_a_row_per_kind():
    run = Run("standin", 1, 3, (faultruns.PAUSE,), False)
    row, kinds = faultruns.parse(run, 0.5, 0, (DATA / "standin-pause.txt").read_text())
    assert (row.operations, row.acknowledged, row.lost, row.stale, row.failed) == (623, 623, 0, 0, 0)
    assert row.planned_requests is None and row.planned_failed is None   # no planned change in it
    assert row.folder.endswith("-seed3")
    assert [(k.kind, k.faults, k.requests, k.failed, k.recovered_s) for k in kinds] == [("pause", 1, 10, 0, 0.0)]


def test_lines_of_every_kind_and_a_change_not_done_are_read():
    output = ("during faults: kill 2 requests 130 failed 4 recovered 6.1 s, pause 1 requests 80 failed 0 recovered 0.0 s\n"
              "planned: add requests 590 failed 0, rolling requests 400 failed 2 (not done)\n"
              "faults: backend hazelcast operations 3412 acknowledged 3110 lost 1 stale 2 failed 302\n")
    row, kinds = faultruns.parse(Run("hazelcast", 3, 9, faultruns.ON_LOOPBACK, False), 10.0, 1, output)
    assert (row.operations, row.acknowledged, row.lost, row.stale, row.failed) == (3412, 3110, 1, 2, 302)
    assert (row.planned_requests, row.planned_failed, row.planned_not_done) == (990, 2, "rolling")
    assert [(k.kind, k.faults, k.requests, k.failed, k.recovered_s) for k in kinds] == [
        ("kill", 2, 130, 4, 6.1), ("pause", 1, 80, 0, 0.0), ("add", 1, 590, 0, None), ("rolling", 1, 400, 2, None)]


def test_a_run_that_printed_no_summary_has_no_counts_and_judges_nothing(tmp_path):
    row, kinds = faultruns.parse(Run("bryan", 1, 1, faultruns.ON_LOOPBACK, False), 10.0, None, "up failed\n")
    assert row.operations is None and kinds == []
    faultruns.append_rows(tmp_path / faultruns.FAULTS_CSV, [row])
    rows = faultruns.read_rows(tmp_path / faultruns.FAULTS_CSV)
    assert faultreport.targets(rows, META) == {"lost": "not judged: no run printed its summary",
                                               "stale": "not judged: no run printed its summary",
                                               "planned": "not judged: no run made a planned change"}
    text = "\n".join(faultreport.section(tmp_path, META))
    assert "| bryan | 1 (0) | - | - | not judged: no run printed its summary |" in text
    assert "No run reached its faults." in text and "`work/faults-BACKEND-RUN.log`" in text


def written(tmp_path, *outputs):
    for number, (backend, output) in enumerate(outputs, start=1):
        row, kinds = faultruns.parse(Run(backend, number, number, faultruns.ON_LOOPBACK, False), 10.0, 0, output)
        faultruns.append_rows(tmp_path / faultruns.FAULTS_CSV, [row])
        faultruns.append_rows(tmp_path / faultruns.KINDS_CSV, kinds)


CLEAN = ("during faults: kill 1 requests 100 failed 3 recovered 12.5 s\n"
         "planned: add requests 50 failed 0, remove requests 40 failed 0\n"
         "faults: backend chord operations 1000 acknowledged 900 lost 0 stale 0 failed 100\n")
LOSSY = ("during faults: kill 1 requests 100 failed 9 recovered 30.0 s\n"
         "faults: backend bamboo operations 1000 acknowledged 950 lost 2 stale 0 failed 50\n")


def test_the_targets_are_met_not_met_or_not_judged_and_a_short_run_says_it_is_indicative(tmp_path):
    written(tmp_path, ("chord", CLEAN), ("chord", CLEAN), ("bamboo", LOSSY))
    rows = faultruns.read_rows(tmp_path / faultruns.FAULTS_CSV)
    chord = [r for r in rows if r["backend"] == "chord"]
    assert faultreport.targets(chord, META) == {"lost": "met", "stale": "met", "planned": "met"}
    bamboo = [r for r in rows if r["backend"] == "bamboo"]
    assert faultreport.targets(bamboo, META) == {"lost": "not met", "stale": "met",
                                                 "planned": "not judged: no run made a planned change"}
    short = faultreport.targets(chord, {"fault_runs": "1", "fault_minutes": "2"})
    assert short["lost"] == "met (indicative: 1 run(s) of 2 min, the documented figure is 10 of 10)"


def test_the_section_has_a_row_per_backend_a_row_per_kind_and_every_run_with_its_seed(tmp_path):
    written(tmp_path, ("chord", CLEAN), ("chord", CLEAN), ("bamboo", LOSSY))
    text = "\n".join(faultreport.section(tmp_path, {**META, "fault_left_out": "partition needs namespaces"}))
    expected = ["| chord | 2 (2) | 2,000 | 1,800 | 0: met | 0: met | 0 of 180: met |",   # per backend
                "| bamboo | 1 (1) | 1,000 | 950 | 2: not met | 0: met |",
                "| chord | kill | 2 | 200 | 6 | 12.5 s | 12.5 s |", "| chord | add | 2 | 100 | 0 | - | - |",   # per kind
                "Not injected here: partition needs namespaces.", "| bamboo | 3 | 3 | 10.0 |"]   # every run
    assert [line for line in expected if line not in text] == []
    assert faultreport.section(tmp_path / "none", META) == []


def test_the_report_of_a_run_of_the_faults_experiment_alone_has_its_section_from_the_recorded_settings(tmp_path):
    written(tmp_path, ("chord", CLEAN))
    cli._write_meta(tmp_path, META, {"cores (nproc)": "2"})
    meta, described = cli._read_meta(tmp_path)
    report = report_module.write_report(tmp_path, [], described, meta).read_text()
    assert "## Faults" in report and "0: met" in report and "`faults.csv`" in report


def test_the_options_their_defaults_in_each_mode_and_the_backends_it_runs(monkeypatch):
    assert experiments.FAULTS in experiments.ALL
    quick = cli.fault_settings_of(cli.parser().parse_args(["--quick", "--experiments", "faults"]), "loopback")
    assert (quick.runs, quick.minutes, quick.first_seed, quick.netns) == (1, 2.0, 1, False)
    args = cli.parser().parse_args(["--fault-runs", "3", "--fault-minutes", "5", "--fault-seed", "40",
                                    "--base-port", "33000"])
    args.quick = False
    given = cli.fault_settings_of(args, "netns")
    assert (given.runs, given.minutes, given.first_seed, given.base_port, given.netns) == (3, 5.0, 40, 33000, True)
    args = cli.parser().parse_args([])
    args.quick = False
    assert (cli.fault_settings_of(args, "loopback").runs, cli.fault_settings_of(args, "loopback").minutes) == (10, 10.0)
    monkeypatch.setattr(cli.deploy, "registered", lambda: {"chord": frozenset(), "memory": frozenset({"alone"}),
                                                           "bamboo": frozenset({"on-disk"})})
    assert cli.faulted_backends(["chord", "memory", "bamboo", "bamboo-tmpfs"]) == ["chord", "bamboo"]
    assert faultruns.minutes(Settings(runs=10, minutes=10), 4) == 4 * 10 * (10 + faultruns.OVERHEAD_MINUTES)
    assert cli.fault_meta(quick)["fault_left_out"].startswith("partition needs network namespaces")

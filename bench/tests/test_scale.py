"""The scale experiment: its plan (which deployments, each node a host with which quota), the CPU of a
step read from a faked /proc and per REGISTER of the step a search keeps, the efficiency and verdicts on
scripted rows, the report's section and figure (through --report-only), the start-up estimate and the
run's plumbing with nothing started. No load runs here."""
import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sipbench import budget, cli, cpuuse, experiments, modes, runner, scalereport, search, sipp
from sipbench.experiments import Measurement
from sipbench.stats import Counts

QUICK = {"mode": "quick", "precision": "0.05", "step_seconds": "3", "confirmations": "0", "confirm_s": "none",
         "scale_quota": "0.2", "command": "bench/run --quick --experiments scale"}
FULL = {"mode": "full", "precision": "0.05", "step_seconds": "120", "confirmations": "3", "confirm_s": "120",
        "scale_quota": "0.2", "command": "bench/run --experiments scale"}
MACHINE = {"cores (nproc)": "2"}
RUN = Path(__file__).resolve().parents[1] / "run"


def test_each_backend_is_measured_at_each_node_count_as_small_hosts():
    plan = experiments.plan(["scale"], ["chord", "bamboo"], [1], scale_nodes=(1, 2, 4, 8))
    assert plan == [Measurement("registration", system, n, "scale") for system in ("bamboo", "chord")
                    for n in (1, 2, 4, 8)]
    assert experiments.plan(["scale"], ["chord"], [1]) == experiments.scale_measurements(["chord"])


def test_the_small_hosts_are_deployments_of_their_own_after_the_others():
    plan = experiments.plan(["register", "scale"], ["chord"], [1, 2], scale_nodes=(1, 2))
    groups = [(system, nodes, [m.routing for m in ms]) for system, nodes, ms in experiments.deployments(plan)
              if system == "chord"]
    assert groups == [("chord", 1, ["one"]), ("chord", 2, ["spread"]), ("chord", 1, ["scale"]), ("chord", 2, ["scale"])]


class FakeDeployment:
    """Records what the runner asks of deploy/p2psip; two nodes in namespaces, started at once."""
    made = []

    def __init__(self, run_dir, log, dht, nodes, base_port, app, t1_ms, heap, extra, more_ports, netns, **kw):
        self.nodes, self.extra, self.netns, self.network = nodes, extra, netns, {}
        FakeDeployment.made.append(self)

    def start(self):
        pass

    local_address = "10.128.0.1"

    def addresses(self, role="node"):
        return [(f"10.128.0.{10 + i}", 25070 + i) for i in range(self.nodes)] if role == "node" else []

    def stop(self):
        pass


def test_each_node_of_a_scale_deployment_gets_the_quota_in_its_namespace_and_load_is_spread(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "Deployment", FakeDeployment)
    settings = runner.Settings(timing=sipp.Timing(step_s=1), plan=search.Plan(), netns=True, scale_quota=0.25)
    bench = runner.Runner(settings, tmp_path, tmp_path / "work", processes=None)
    measurement = Measurement("registration", "chord", 2, "scale")
    targets, _ = bench._start("chord", 2, [measurement])
    made = FakeDeployment.made[-1]
    assert made.netns and made.extra[-4:] == ["--cpu-quota", "0.25", "--timeout", "1200"]
    assert runner._chosen(measurement, targets) == targets and len(targets) == 2, "one SIPp per node, as spread"
    bench._start("chord", 2, [Measurement("registration", "chord", 2, "spread")])
    assert "--cpu-quota" not in FakeDeployment.made[-1].extra, "only the scale experiment's nodes are small hosts"
    assert runner.scale_arguments(runner.Settings(timing=None, plan=None, scale_quota=2.0), True)[-1] == "300"


def stat_line(pid: int, utime: int, stime: int) -> str:
    # the command may hold spaces and parentheses: fields count from the last ')'
    fields = ["S"] + ["0"] * 10 + [str(utime), str(stime)] + ["0"] * 30
    return f"{pid} (java (x)) " + " ".join(fields) + "\n"


def fake_proc(root: Path, ticks: dict[int, tuple[int, int]]) -> None:
    for pid, (utime, stime) in ticks.items():
        (root / str(pid)).mkdir(parents=True, exist_ok=True)
        (root / str(pid) / "stat").write_text(stat_line(pid, utime, stime))


def test_a_steps_cpu_is_every_processes_utime_and_stime_across_it(tmp_path):
    hz = os.sysconf("SC_CLK_TCK")
    fake_proc(tmp_path, {11: (100, 20), 12: (50, 5)})
    meter = cpuuse.CpuMeter([("node-0", 11), ("node-1", 12)], tmp_path)
    before = meter.read()
    fake_proc(tmp_path, {11: (100 + 3 * hz, 20 + hz), 12: (50 + 2 * hz, 5)})
    use = meter.add(before, meter.read())
    assert use == cpuuse.Use(6.0) and meter.of(0) is use
    assert cpuuse.ms_per_request(use, 3000) == pytest.approx(2.0)
    assert cpuuse.ms_per_request(use, 0) is None


def test_a_process_gone_or_restarted_across_a_step_leaves_it_without_a_figure(tmp_path):
    fake_proc(tmp_path, {11: (100, 20), 12: (50, 5)})
    meter = cpuuse.CpuMeter([("node-0", 11), ("node-1", 12)], tmp_path)
    before = meter.read()
    (tmp_path / "12" / "stat").unlink()
    use = meter.add(before, meter.read())
    assert use.missing == ("node-1",) and cpuuse.ms_per_request(use, 1000) is None
    fake_proc(tmp_path, {12: (1, 1)})   # the PID again, a process started since: less CPU than before
    assert meter.add({"node-1": 0.55}, meter.read()).missing == ("node-1",)


def step(rate, passed=True, confirmation=False, successful=None):
    counts = Counts(created=rate, successful=rate if successful is None else successful)
    return search.Step(rate, rate, counts, rate, 1.0, 2.0, passed, "ok" if passed else "no", confirmation=confirmation)


def test_the_cpu_per_register_is_the_kept_steps_its_confirmation_when_it_confirmed():
    outcome = search.Outcome([step(1000), step(2000, passed=False), step(1500), step(1500, confirmation=True,
                                                                                       successful=180_000)])
    meter = cpuuse.CpuMeter([("node-0", 1)])
    meter.steps = [cpuuse.Use(1.0), cpuuse.Use(9.0), cpuuse.Use(2.0), cpuuse.Use(36.0)]
    assert runner.cpu_ms_per_request(meter, outcome) == pytest.approx(0.2)
    assert runner.cpu_note(meter, outcome) == "CPU 36.0 s of node-0 in the confirmation kept"
    unconfirmed = search.Outcome(outcome.steps[:3])
    assert runner.cpu_ms_per_request(meter, unconfirmed) == pytest.approx(2.0 * 1000 / 1500), "its best step"
    assert runner.cpu_ms_per_request(None, outcome) is None and runner.cpu_note(None, outcome) == ""
    assert runner.cpu_ms_per_request(meter, search.Outcome([step(1000, passed=False)])) is None


def row(system, nodes, rate, note="", cpu="0.200"):
    return {"workload": "registration", "system": system, "nodes": nodes, "routing": "scale", "round": "1",
            "rate": rate, "rate_p99_100ms": rate, "p50_ms": "2", "p99_ms": "9", "retransmissions": "0", "steps": "9",
            "hops": "", "largest_range": "", "overload_rate": "", "overload_goodput": "", "cpu_ms_per_request": cpu,
            "note": note}


LIMITED = "generator-limited: SIPp offered 900/s of 1,000/s asked, so the limit is higher than measured"
ROWS = [row("chord", 1, 1000), row("chord", 2, 1800), row("chord", 4, 3000),
        row("bamboo", 1, 800), row("bamboo", 2, 1000, LIMITED), row("bamboo", 4, 0, "no step passed"),
        # another experiment's rows stay out of the section
        {**row("chord", 2, 5000), "routing": "spread"}]


def test_efficiency_is_r_of_n_over_n_times_r_of_one():
    found = scalereport.by_nodes(ROWS, "chord")
    assert sorted(found) == [1, 2, 4] and found[2]["rate"] == 1800
    assert scalereport.efficiency(found[2], found[1]) == pytest.approx(0.9)
    assert scalereport.efficiency(found[4], found[1]) == pytest.approx(0.75)
    assert scalereport.efficiency(found[1], found[1]) == 1.0
    assert scalereport.efficiency(None, found[1]) is None and scalereport.efficiency(found[2], None) is None
    assert scalereport.efficiency(scalereport.by_nodes(ROWS, "bamboo")[4], found[1]) is None, "no step passed"
    assert scalereport.systems(ROWS) == ["chord", "bamboo"]


@pytest.mark.parametrize("system, nodes, meta, cores, says", [
    ("chord", 2, FULL, 2, "met"),
    ("chord", 4, FULL, 2, "not met"),
    ("chord", 2, QUICK, 2, "met, indicative (quick mode's search steps of 3 s are shorter than 120 s: not sustained)"),
    ("chord", 8, FULL, 2, "not judged: 8 nodes not measured (`bench/run --experiments scale --scale-nodes 1,8`)"),
    ("chord", 4, {**FULL, "scale_quota": "0.6"}, 2, "not judged: 4 x 0.6 = 2.4 cores of quota exceed the machine's 2: "
                                                   "the nodes share the machine, not their quotas"),
    ("chord", 4, FULL, None, "not met"),
    ("bamboo", 2, FULL, 2, "not judged: 2 nodes' rate is SIPp's limit, not theirs (generator-limited: SIPp offered "
                           "900/s of 1,000/s asked, so the limit is higher than measured)"),
    ("bamboo", 4, FULL, 2, "not judged: 4 nodes' search has no rate (no step passed)"),
])
def test_the_target_per_node_count_is_judged_or_says_why_not(system, nodes, meta, cores, says):
    assert scalereport.verdict(ROWS, system, nodes, meta, cores) == says


def test_a_generator_limited_rate_that_meets_the_target_meets_it():
    rows = [row("chord", 1, 1000), row("chord", 2, 1900, "generator-limited: SIPp offered 1,800/s of 1,900/s asked")]
    assert scalereport.verdict(rows, "chord", 2, FULL, 2) == "met", "the nodes carried at least this much"


def test_one_node_without_a_rate_leaves_every_count_unjudged():
    rows = [row("chord", 1, 0, "no step passed"), row("chord", 2, 1800)]
    assert scalereport.verdict(rows, "chord", 2, FULL, 2) == "not judged: 1 node's search has no rate (no step passed)"


def test_the_section_gives_each_count_its_rate_efficiency_and_cpu_and_a_target_row_per_2_4_8():
    lines = scalereport.section(ROWS, FULL, MACHINE)
    assert lines[0] == "## Scale (experiment scale)"
    text = "\n".join(lines)
    assert "`deploy/p2psip up --netns --cpu-quota 0.2`" in text
    assert "| chord | 2 | 0.4 | 1,800 | 0.90 | 0.200 | 2 | 9 |  |" in lines
    assert "| bamboo | 4 | 0.8 | 0 | n/a | 0.200 | 2 | 9 | no step passed |" in lines
    targets = [line for line in lines if line.startswith("| chord | ") and "efficiency >= 0.8" in line]
    assert targets == ["| chord | 2 | efficiency >= 0.8 | 0.90 | met |",
                       "| chord | 4 | efficiency >= 0.8 | 0.75 | not met |",
                       "| chord | 8 | efficiency >= 0.8 | n/a | not judged: 8 nodes not measured (`bench/run "
                       "--experiments scale --scale-nodes 1,8`) |"]
    assert "| chord | 2 | 5,000 |" not in text, "register's spread row is not a small host's"
    assert scalereport.section([r for r in ROWS if r["routing"] != "scale"], FULL, MACHINE) == []


def test_report_only_rebuilds_the_section_and_draws_the_figure(tmp_path):
    with open(tmp_path / "summary.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=runner.SUMMARY_FIELDS)
        writer.writeheader()
        writer.writerows(ROWS)
    cli._write_meta(tmp_path, {**FULL, "date": "d", "commit": "c"}, MACHINE)
    # bench/run brings matplotlib (bench/.venv) when this interpreter lacks it
    subprocess.run([sys.executable, str(RUN), "--report-only", str(tmp_path)], check=True, capture_output=True, timeout=300)
    report = (tmp_path / "report.md").read_text()
    assert "## Scale (experiment scale)" in report and "| chord | 4 | efficiency >= 0.8 | 0.75 | not met |" in report
    assert "judged in the section Scale" in report
    assert (tmp_path / scalereport.PLOT).stat().st_size > 10_000


def test_the_quota_is_checked_on_the_command_line(capsys):
    args = cli.parser().parse_args(["--experiments", "scale", "--scale-nodes", "2,1"])
    assert args.scale_quota == experiments.SCALE_QUOTA == 0.2 and cli.scale_nodes_of(args) == (1, 2)
    assert cli.scale_nodes_of(cli.parser().parse_args([])) == (1, 2, 4, 8)
    for bad, says in (("0", "a quota is at least 0.01 cores"), ("fifth", "not a number of cores")):
        with pytest.raises(SystemExit):
            cli.parser().parse_args(["--scale-quota", bad])
        assert says in capsys.readouterr().err


def quick_settings() -> runner.Settings:
    mode = modes.QUICK
    args = cli.parser().parse_args(["--quick"])
    return runner.Settings(timing=sipp.Timing(step_s=mode["step"], recv_timeout_ms=mode["recv_timeout_ms"]),
                           plan=cli.plan_of(args, mode), cooldown_s=mode["cooldown"], warmup_s=mode["warmup"])


def test_the_estimate_counts_each_scale_search_with_its_warm_up_per_node():
    settings = quick_settings()
    without = cli.worst_minutes(experiments.plan(["register"], ["chord"], [1]), frozenset(), settings)
    with_scale = cli.worst_minutes(experiments.plan(["register", "scale"], ["chord"], [1], scale_nodes=(1, 2)),
                                   frozenset(), settings)
    step_cost = settings.timing.step_s + 3 + settings.cooldown_s / 2
    one_search = settings.plan.max_steps * step_cost + settings.cooldown_s
    added = 2 * one_search + settings.warmup_s * (1 + 2) + 2 * budget.STARTUP_S   # two deployments more
    assert with_scale - without == pytest.approx(added / 60)


@pytest.fixture
def nothing_starts(monkeypatch):
    from sipbench import deploy, machine, network, report, tools
    monkeypatch.setattr(report, "write_plots", lambda out, rows: [])
    monkeypatch.setattr(tools, "require", lambda name: None)
    monkeypatch.setattr(deploy, "available", lambda: True)
    monkeypatch.setattr(deploy, "front_available", lambda: True)
    monkeypatch.setattr(deploy, "backends", lambda: ["chord"])
    monkeypatch.setattr(network, "netns_unavailable_reason", lambda: "")
    monkeypatch.setattr(cli.cgroups, "unavailable", lambda root=None: "")
    monkeypatch.setattr(machine, "describe", lambda: dict(MACHINE))
    monkeypatch.setattr(cli, "_commit", lambda: "abc1234")
    ran = []
    monkeypatch.setattr(runner.Runner, "run", lambda self, measurements, overloaded: ran.append(
        (self.settings, measurements)) or [])
    return ran


def test_a_quick_scale_run_plans_its_small_hosts_says_so_and_records_the_quota(tmp_path, capsys, nothing_starts):
    argv = ["--quick", "--experiments", "scale", "--backends", "chord", "--scale-nodes", "1,2", "--out", str(tmp_path)]
    assert cli.run(cli.parser().parse_args(argv), None, argv) == 0
    ((settings, measurements),) = nothing_starts
    assert settings.netns and settings.scale_quota == 0.2
    scaled = [(m.system, m.nodes, m.routing) for m in measurements if m.system not in experiments.REFERENCES]
    assert scaled == [("chord", 1, "scale"), ("chord", 2, "scale")]
    err = capsys.readouterr().err
    assert "the scale experiment's 2 of them on nodes of 0.2 cores each (up to 2 nodes)" in err
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    meta, _ = cli._read_meta(run)
    assert (meta["scale_quota"], meta["scale_nodes"]) == ("0.2", "1,2")


def test_without_namespaces_or_a_cpu_controller_a_scale_run_stops_and_a_full_run_goes_on_without_it(
        tmp_path, capsys, nothing_starts, monkeypatch):
    argv = ["--quick", "--experiments", "scale", "--network", "loopback", "--out", str(tmp_path)]
    with pytest.raises(cli.BenchError, match="needs --network netns"):
        cli.run(cli.parser().parse_args(argv), None, argv)
    monkeypatch.setattr(cli.cgroups, "unavailable", lambda root=None: "no cgroup v1 cpu controller at /x")
    argv = ["--quick", "--experiments", "scale", "--out", str(tmp_path)]
    with pytest.raises(cli.BenchError, match="CPU quota .*: no cgroup v1 cpu controller at /x"):
        cli.run(cli.parser().parse_args(argv), None, argv)
    from sipbench import deploy, sipload

    class Elsewhere:   # the full matrix's tcp, capacity and faults experiments, which start their own deployments
        def __init__(self, *args):
            self.runner = self

        networks: dict = {}

        def run(self):
            pass
    monkeypatch.setattr(cli, "TcpRunner", Elsewhere)
    monkeypatch.setattr(cli, "CapacityRunner", Elsewhere)
    monkeypatch.setattr(cli, "FaultRunner", Elsewhere)
    monkeypatch.setattr(sipload, "ensure_built", lambda: None)
    monkeypatch.setattr(deploy, "front_state_available", lambda: True)
    argv = ["--out", str(tmp_path), "--backends", "chord", "--nodes", "1"]
    assert cli.run(cli.parser().parse_args(argv), None, argv) == 0
    assert "the scale experiment is skipped: the scale experiment gives each node a CPU quota" in capsys.readouterr().err
    assert not any(m.routing == "scale" for m in nothing_starts[-1][1])

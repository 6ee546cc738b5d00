"""The tcp experiment: its plan, the holders and sipload command lines, a summary as a step, the
ladder, memory from /proc, Kamailio's TCP settings, the CSV files, the report's section and the
figure. No server runs here."""
import csv
import subprocess
import sys
from pathlib import Path

from sipbench import cli, experiments, kamailio, memory, search, sipload, tcp, tcpload, tcpreport

RUN = Path(__file__).resolve().parents[1] / "run"
CLIENT = tcp.Client("sipload.jar", "127.0.0.1:32040", 500, 4000)
SUMMARY = ("sipload mode=plain algorithm=SHA-256 target=127.0.0.1:32040 rate=2000 seconds=3.000 attempts=6000 "
           "started=6000 not_started=0 offered_rate=1999.1 completed=6000 completed_per_s=1999.0 failed=0 "
           "timeouts=0 unexpected=0 statuses= stale_answered=0 unchallenged=0 retransmissions=0 strays=0 "
           "p50_ms=0.910 p99_ms=12.300 primed=0 transport=tcp connection=persistent connection_failures=0 "
           "connections_opened=2000 connections_open=2000 connections_refused=0 closed_by_server=0 "
           "keepalive_pings=0 keepalive_pongs=0 keepalive_pongs_due=0 outbound_required=0 flow_timers= calls_answered=0 phones_called=0 "
           "held_s= rss_kib=201234")


def test_the_experiment_and_its_options_are_on_the_command_line():
    args = cli.parser().parse_args(["--experiments", "tcp", "--tcp-idle", "0,10000,50000,100000",
                                    "--tcp-front-processes", "6", "--tcp-rates", "1000,500"])
    assert args.experiments == ["tcp"] and args.tcp_idle == [0, 10000, 50000, 100000]
    assert args.tcp_front_processes == 6 and args.tcp_rates == [500, 1000]
    assert experiments.TCP in experiments.ALL


def test_quick_holds_a_few_thousand_on_one_front_and_full_100000_on_six():
    quick = cli.tcp_settings_of(cli.parser().parse_args(["--quick", "--experiments", "tcp"]), ["chord"])
    assert quick.idle == (0, 2000, 5000) and quick.idle_front_processes == 1 and quick.backend == "chord"
    full = cli.tcp_settings_of(cli.parser().parse_args(["--experiments", "tcp"]), ["bamboo", "chord"])
    assert full.idle == (0, 10000, 50000, 100000) and full.idle_front_processes == 6 and full.backend == "chord"
    assert full.rates == tcp.FULL_RATES
    without_zero = cli.tcp_settings_of(cli.parser().parse_args(["--experiments", "tcp", "--tcp-idle", "3000"]),
                                       ["memory"])
    assert without_zero.idle == (0, 3000) and without_zero.backend == "memory"


def test_one_front_process_runs_both_parts_on_one_deployment_else_the_idle_part_gets_its_own():
    assert [(d.system, d.front_processes, d.parts) for d in tcp.plan("chord", 1)] == [
        ("chord", 1, ("rate", "idle")), ("kamailio", 0, ("rate", "idle"))]
    assert [(d.system, d.front_processes, d.parts) for d in tcp.plan("chord", 6)] == [
        ("chord", 1, ("rate",)), ("chord", 6, ("idle",)), ("kamailio", 0, ("rate", "idle"))]
    assert tcp.plan("chord", 6)[1].label == "chord 2 nodes behind the front (rr, 6 front processes)"


def test_holders_add_disjoint_users_and_addresses_level_by_level_at_most_17000_each():
    added = tcp.holders_for((0, 10000, 50000, 100000))
    assert [len(level) for level in added] == [0, 1, 3, 3]
    every = [h for level in added for h in level]
    assert [h.index for h in every] == list(range(7))
    assert every[0] == tcp.Holder(0, 0, 10000)
    assert [(h.offset, h.count) for h in added[2]] == [(10000, 13333), (23333, 13333), (36666, 13334)]
    assert sum(h.count for h in every) == 100000 and max(h.count for h in every) <= tcp.PER_HOLDER
    assert all(a.offset + a.count == b.offset for a, b in zip(every, every[1:]))
    assert [h.sources for h in every[:2]] == ["127.0.1.1-127.0.1.40", "127.0.2.1-127.0.2.40"]
    assert tcp.front_processes_for((0, 10000, 50000, 100000)) == 6 and tcp.front_processes_for((0, 5000)) == 1


def test_a_holder_registers_its_users_over_a_connection_each_and_holds_until_sigterm():
    text = " ".join(tcp.holder_command(CLIENT, "held.csv", tcp.Holder(2, 34000, 17000), 333))
    assert "--target 127.0.0.1:32040 --users held.csv --mode plain --transport tcp --connection persistent" in text
    assert "--sources 127.0.3.1-127.0.3.40 --offset 34000 --limit 17000 --rate 333" in text
    assert "--expires 7200 --hold 0 --quiet" in text and "-Xmx1g" in text


def test_the_measuring_step_sends_over_each_transport_from_addresses_of_its_own():
    udp = " ".join(tcp.measuring_command(CLIENT, "u.csv", tcp.UDP, 2000, 3.0))
    assert "--rate 2000 --duration 3 --t1-ms 500 --timeout-ms 4000" in udp
    assert "--transport udp --bind 127.0.0.1:0" in udp and "--sources" not in udp
    persistent = " ".join(tcp.measuring_command(CLIENT, "u.csv", tcp.PERSISTENT, 2000, 3.0))
    assert "--transport tcp --connection persistent --sources 127.0.200.1-127.0.200.40" in persistent
    per = " ".join(tcp.measuring_command(CLIENT, "u.csv", tcp.PER_TRANSACTION, 2000, 3.0))
    assert "--connection per-transaction" in per
    assert tcp.measuring_users(2000) == 2000 and tcp.measuring_users(10) == 100 and tcp.measuring_users(90000) == 17000


def test_a_step_users_file_holds_fresh_aors(tmp_path):
    path = tcpload.write_users(tmp_path / "u.csv", "tcprates3x", 2)
    assert path.read_text().splitlines() == ["tcprates3x0000000,p2psip.test,-", "tcprates3x0000001,p2psip.test,-"]


def test_a_summary_becomes_a_judged_step_and_a_holder_line_its_counts(tmp_path):
    step = tcpload.step_of("rate", "chord", tcp.PERSISTENT, 0, 2000, 3.0, sipload.Summary.parse(SUMMARY),
                           search.Criteria())
    assert step.passed and (step.completed, step.connections_opened, step.p99_ms) == (6000, 2000, 12.3)
    short = tcpload.step_of("rate", "chord", tcp.UDP, 0, 4000, 3.0, sipload.Summary.parse(SUMMARY), search.Criteria())
    assert not short.passed and "offered only" in short.reason
    log = tmp_path / "holder-0.log"
    assert tcpload.registered(log) is None
    log.write_text("some JVM line\nsipload registered ok=16990 failed=10\n")
    assert tcpload.registered(log) == (16990, 10)


def test_the_idle_levels_climb_from_two_rungs_below_the_rate_sustained_with_none_held():
    assert tcp.from_rate((500, 1000, 2000, 4000, 8000), 4000, below=2) == (1000, 2000, 4000, 8000)
    assert tcp.from_rate((500, 1000), 500, below=2) == (500, 1000)
    assert tcp.from_rate((500, 1000), 700, below=2) == (500, 1000)


def test_memory_is_read_from_proc_and_children_found_by_their_parent(tmp_path):
    for pid, parent in ((10, 1), (11, 10), (12, 10), (13, 11), (14, 2)):
        (tmp_path / str(pid)).mkdir()
        (tmp_path / str(pid) / "stat").write_text(f"{pid} (kamailio x) S {parent} 1 1 0")
    (tmp_path / "10" / "status").write_text("Name:\tkamailio\nVmRSS:\t  20480 kB\n")
    (tmp_path / "10" / "smaps_rollup").write_text("Rss: 20480 kB\nPss:   5120 kB\n")
    (tmp_path / "self").mkdir()
    assert memory.children(10, tmp_path) == [11, 12, 13]
    assert memory.rss_kib(10, tmp_path) == 20480 and memory.pss_kib(10, tmp_path) == 5120
    assert memory.rss_kib(99, tmp_path) == 0


def test_kamailio_gets_the_connections_open_files_and_lifetime_asked():
    limits = kamailio.TcpLimits(max_connections=117200, open_files=117400)
    command = " ".join(kamailio.Kamailio(None, Path("/tmp/k"), 32050, tcp=limits).command("kamailio"))
    assert "-A TCP_MAX_CONNECTIONS=117200 -A OPEN_FILES_LIMIT=117400 -A TCP_LIFETIME_S=7200" in command
    assert "-A TCP_WORKERS=2" in command and "tcp:127.0.0.1:32050" in command
    config = kamailio.CONFIG.read_text()
    for line in ("tcp_max_connections=TCP_MAX_CONNECTIONS", "open_files_limit=OPEN_FILES_LIMIT",
                 "tcp_connection_lifetime=TCP_LIFETIME_S"):
        assert line in config
    assert "TCP_MAX_CONNECTIONS" not in " ".join(kamailio.Kamailio(None, Path("/tmp/k"), 32050).command("kamailio"))


def _step(system, transport, rate, passed, p99=5.0, part="rate", held=0, reason="ok"):
    return tcp.RateStep(part, system, transport, held, rate, float(rate), rate * 3, rate * 3 if passed else 0, 0, 0,
                        1.0, p99, 0, passed, reason)


def _level(system, asked, held, rate, p99_at_base, front, nodes, kamailio_kib=0):
    if system == experiments.KAMAILIO:
        used = (tcp.Memory("kamailio-main", 1, kamailio_kib, kamailio_kib // 2),
                tcp.Memory("kamailio-2", 2, kamailio_kib, kamailio_kib // 2))
    else:
        used = (tcp.Memory("node-0", 1, nodes, nodes), tcp.Memory("node-1", 2, nodes, nodes),
                tcp.Memory("front-0", 3, front, front))
    return tcp.IdleLevel(system, asked, held, asked - held, rate, 1.0, p99_at_base, p99_at_base, used, 1000)


def _write_run(out: Path) -> None:
    rates = {("chord", tcp.UDP): 4000, ("chord", tcp.PERSISTENT): 3000, ("chord", tcp.PER_TRANSACTION): 1000,
             ("kamailio", tcp.UDP): 16000, ("kamailio", tcp.PERSISTENT): 16000, ("kamailio", tcp.PER_TRANSACTION): 4000}
    ladder = (1000, 2000, 3000, 4000, 8000, 16000)
    for (system, transport), top in rates.items():
        steps = [_step(system, transport, r, r <= top) for r in ladder if r <= top] + \
                [_step(system, transport, r, False, reason="99.00% completed") for r in ladder if r > top][:1]
        for step in steps:
            tcpreport.append(out / tcpreport.STEPS_CSV, tcpreport.STEP_FIELDS, tcpreport.step_row(step))
        tcpreport.append(out / tcpreport.RATE_CSV, tcpreport.RATE_FIELDS,
                         tcpreport.rate_row(system, transport, steps, ladder))
    for level in (_level("chord", 0, 0, 3000, 10.0, 200_000, 900_000), _level("chord", 5000, 5000, 3000, 12.0,
                                                                              240_000, 950_000),
                  _level("kamailio", 0, 0, 16000, 2.0, 0, 0, 100_000),
                  _level("kamailio", 5000, 5000, 8000, 4.0, 0, 0, 150_000)):
        tcpreport.append(out / tcpreport.IDLE_CSV, tcpreport.IDLE_FIELDS, tcpreport.idle_row(level))
    tcpreport.append_note(out, "Kamailio did not start with open_files_limit=117400: the hard limit is 20000")


def test_the_csvs_hold_each_transports_rate_and_each_levels_memory(tmp_path):
    _write_run(tmp_path)
    rates = tcpreport.read(tmp_path / tcpreport.RATE_CSV)
    assert [(r["system"], r["transport"], r["rate"]) for r in rates][:3] == [
        ("chord", "udp", "4000"), ("chord", "tcp-persistent", "3000"), ("chord", "tcp-per-transaction", "1000")]
    assert rates[0]["note"] == "failed at 8,000/s: 99.00% completed"
    assert rates[4]["note"] == "every rate passed up to the ladder's top, 16,000/s: the limit is higher"
    idle = tcpreport.read(tmp_path / tcpreport.IDLE_CSV)
    assert idle[1]["front_rss_kib"] == "240000" and idle[1]["nodes_rss_kib"] == "1900000"
    assert idle[1]["processes"] == "node-0=950000;node-1=950000;front-0=240000"
    assert idle[3]["server_rss_kib"] == "300000" and idle[3]["server_pss_kib"] == "150000"
    assert tcpreport.per_connection_kib(idle, "chord", "front_rss_kib") == 8.0
    assert tcpreport.per_connection_kib(idle, "kamailio", "server_pss_kib") == 10.0
    steps = list(csv.DictReader((tmp_path / tcpreport.STEPS_CSV).open()))
    assert steps[0]["part"] == "rate" and steps[0]["passed"] == "1"


def test_the_section_judges_the_targets_and_gives_both_tables(tmp_path):
    _write_run(tmp_path)
    text = "\n".join(tcpreport.section(tmp_path, []))
    assert "## TCP (experiment tcp)" in text and "Kamailio did not start with open_files_limit" in text
    assert "| chord (2 nodes, front) | REGISTER/s tcp-persistent / udp | 3,000 / 4,000 | 0.75 | >= 0.70 | met |" in text
    assert "| chord (2 nodes, front) | REGISTER/s tcp-per-transaction / udp | 1,000 / 4,000 | 0.25 | none " \
           "| informative |" in text
    assert "| chord (2 nodes, front) | REGISTER/s with 5,000 held / none | 3,000 / 3,000 | 1.00 | >= 0.90 | met |" in text
    assert "| chord (2 nodes, front) | p99 at 3,000/s with 5,000 held / none | 12 / 10 ms | 1.20 | <= 1.5 | met |" in text
    assert "| Kamailio | REGISTER/s with 5,000 held / none | 8,000 / 16,000 | 0.50 | >= 0.90 | informative |" in text
    assert "the front 8.0 KiB per idle connection" in text and "Kamailio: 20.0 KiB" in text and "10.0 KiB by" in text
    assert "| chord (2 nodes, front) | 5,000 (5,000) | 0 | 3,000 | 1 | 12 | 12 | 234 | 1,855 | 2,090 | 2,090 | 1 |" in text
    indicative = "\n".join(tcpreport.section(tmp_path, ["steps of 3 s"]))
    assert "| met, indicative (steps of 3 s) |" in indicative
    assert tcpreport.section(tmp_path / "none", []) == []


def test_the_report_holds_the_section_and_the_figure_without_any_rate_search(tmp_path):
    _write_run(tmp_path)
    (tmp_path / "run.tsv").write_text("mode\tquick\nstep_seconds\t3\ncommand\tbench/run --quick --experiments tcp\n"
                                      "-\ncores (nproc)\t2\n")
    # bench/run brings matplotlib (bench/.venv) when this interpreter lacks it
    subprocess.run([sys.executable, str(RUN), "--report-only", str(tmp_path)], check=True)
    assert (tmp_path / tcpreport.PLOT).is_file()
    text = (tmp_path / "report.md").read_text()
    assert "## TCP (experiment tcp)" in text and "![tcp](tcp.png)" in text and "tcp-idle.csv" in text

"""The capacity experiment's pure parts: the users and their Call-IDs, the injection files, the pace,
SIPp's logs, the memory read from jcmd, kamcmd and /metrics, the arithmetic per binding, the targets'
verdicts, the report's section (also through --report-only) and the options."""
import random
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from sipbench import capacity, capacityreport, cli, experiments, memory, modes, scraper, targets
from sipbench.capacity import NodeMemory, Pace, Population, Result
from sipbench.capacityrun import QUERY, REGISTER, rate_args
from sipbench.kamailio import shmmem_used_kib
from sipbench.overload import append

DATA = Path(__file__).resolve().parent / "data" / "capacity"
RUN = Path(__file__).resolve().parents[1] / "run"


def test_each_user_keeps_the_call_id_that_a_run_over_its_bucket_makes_from_the_run_s_cid_str():
    population = Population(1200, token="t0", size=500)
    assert population.buckets == 3
    assert population.call_id(0) == "1-b0.t0@p2psip.bench"
    assert population.call_id(501) == "2-b1.t0@p2psip.bench"
    # SIPp's %u is the call's number in the run, the line of the injection file
    assert population.cid_str(1).replace("%u", "2") == population.call_id(501)
    assert len({population.call_id(i) for i in range(1200)}) == 1200


def test_an_injection_file_sends_its_users_with_a_higher_cseq_each_time_and_skips_the_others_up_to_the_last():
    population = Population(10, token="t", size=5)
    text, sent = population.injection(0, range(0, 5))
    lines = text.splitlines()
    assert lines[0] == "SEQUENTIAL" and sent == 5
    assert lines[1] == "cap00000000;1-b0.t@p2psip.bench;1;0;"
    text, sent = population.injection(0, {1, 3})
    assert sent == 2
    assert text.splitlines()[1:] == ["cap00000000;1-b0.t@p2psip.bench;1;1;",   # skipped: CSeq kept
                                     "cap00000001;2-b0.t@p2psip.bench;2;0;",   # sent again: CSeq + 1
                                     "cap00000002;3-b0.t@p2psip.bench;1;1;",
                                     "cap00000003;4-b0.t@p2psip.bench;2;0;"]   # ends at the last one sent
    assert population.injection(1, set()) == ("SEQUENTIAL\n", 0)


def test_the_recorded_injection_file_is_what_the_bench_writes():
    population = Population(4, token="rec", size=4)
    text, _ = population.injection(0, {0, 2, 3})
    assert text == (DATA / "register-injection.csv").read_text()


def test_runs_group_users_by_bucket_and_prefixes_go_round_the_population():
    population = Population(1100, token="t", size=500)
    assert [(b, sorted(s)) for b, s in capacity.runs_of(population, [501, 3, 1099, 4])] == \
        [(0, [3, 4]), (1, [501]), (2, [1099])]
    assert capacity.runs_of(population, range(1100)) == [(0, range(0, 500)), (1, range(500, 1000)),
                                                          (2, range(1000, 1100))]
    assert capacity.runs_of(population, range(0)) == []
    runs, following = capacity.prefixes(population, 0, 700)
    assert runs == [(0, range(0, 500)), (1, range(500, 700))] and following == 2
    runs, following = capacity.prefixes(population, 2, 300)
    assert runs == [(2, range(1000, 1100)), (0, range(0, 200))] and following == 1


def test_the_population_is_written_with_each_user_s_call_id_cseq_and_whether_it_is_registered(tmp_path):
    population = Population(3, token="t", size=3)
    population.injection(0, {0, 1, 2})
    population.mark({"cap00000001"})
    lines = population.write(tmp_path / "users.csv").read_text().splitlines()
    assert lines == ["user;call_id;cseq;registered", "cap00000000;1-b0.t@p2psip.bench;1;0",
                     "cap00000001;2-b0.t@p2psip.bench;1;1", "cap00000002;3-b0.t@p2psip.bench;1;0"]
    assert population.unregistered() == [0, 2]


def test_buckets_and_kamailio_s_memory_are_sized_from_the_users():
    assert capacity.bucket_size(500) == 500
    assert capacity.bucket_size(20_000) == 1000
    assert capacity.bucket_size(10_000_000) == 100_000
    assert capacity.kamailio_shm_mib(20_000) == 320
    assert capacity.kamailio_shm_mib(10_000_000) == 19_840
    assert capacity.usrloc_hash_bits(500) == 10 and capacity.usrloc_hash_bits(10_000_000) == 16


def test_the_steady_state_refreshes_each_user_once_per_expiry_and_kills_the_last_node():
    settings = capacity.Settings(users=20_000, nodes=4, expiry_s=3600, steady_s=60)
    assert settings.refreshes() == 333
    assert settings.victim() == 3
    assert capacity.Settings(users=500, nodes=1).victim() is None


def test_the_pace_grows_after_a_clean_chunk_and_backs_off_after_failures_or_time_outs():
    pace = Pace(rate=1000, minimum=50, maximum=2000)
    assert pace.after(1000, 1000, 0) and pace.rate == 1500
    assert pace.after(1000, 1000, 0) and pace.rate == 2000      # bounded above
    assert not pace.after(1000, 990, 0) and pace.rate == 1000   # 99.0% answered: not clean
    assert not pace.after(1000, 1000, 1) and pace.rate == 500   # a time-out: not clean
    for _ in range(10):
        pace.after(10, 0, 10)
    assert pace.rate == 50                                      # bounded below


def test_a_run_that_skips_goes_through_its_lines_faster_so_that_the_users_sent_keep_the_rate():
    assert capacity.run_rate(500, 1000, 1000) == 500
    assert capacity.run_rate(500, 1000, 100) == 5000
    assert capacity.run_rate(500, 100_000, 3) == capacity.SKIP_RATE


def test_sipp_rates_below_one_a_second_get_a_longer_period():
    assert rate_args(2000) == ["-r", "2000", "-rp", "1000"]
    assert rate_args(5.55) == ["-r", "56", "-rp", "10000"]
    assert rate_args(0.1) == ["-r", "1", "-rp", "10000"]


def test_the_register_log_names_the_users_answered_200():
    # cap00000001 was a skipped line: no REGISTER, no log line
    assert capacity.ok_users((DATA / "register-log.txt").read_text()) == {"cap00000000", "cap00000002", "cap00000003"}


def test_the_query_log_counts_each_user_s_bindings_none_one_or_two():
    counts = capacity.bindings((DATA / "query-log.txt").read_text())
    assert counts == {"cap00000000": 1, "cap00000001": 0, "cap00000002": 1, "cap00000003": 2}
    tally = capacity.Tally(5)
    tally.add({int(user[3:]): n for user, n in counts.items()})
    queried = tally.queried()
    assert (queried.users, queried.answered, queried.unanswered, queried.lost, queried.duplicates) == (5, 4, 1, 1, 1)
    assert tally.empty() == [1]


def test_callees_are_drawn_among_the_registered_users_only():
    registered = bytearray([0, 1, 0, 1, 0])
    drawn = capacity.callees(registered, 50, random.Random(1))
    assert len(drawn) == 50 and set(drawn) == {1, 3}
    assert capacity.callees(bytearray(3), 5, random.Random(1)) == []


def test_memory_is_read_from_jcmd_kamcmd_and_the_records_gauge_of_metrics():
    assert memory.heap_used_kib((DATA / "heap-info.txt").read_text()) == 32825
    assert memory.heap_used_kib("no heap here") is None
    assert shmmem_used_kib((DATA / "shmmem.txt").read_text()) == 2914280 // 1024   # real_used
    assert shmmem_used_kib("{\n\tused: 2048\n}") == 2
    assert scraper.records_in((DATA / "metrics.txt").read_text()) == 163
    assert scraper.records_in("p2psip_ready 1.0\n") is None   # a backend without the gauge (bamboo)
    assert scraper.shedding_in("p2psip_intake_shedding 1.0\n") is True
    assert scraper.shedding_in((DATA / "metrics.txt").read_text() + "p2psip_intake_shedding 0.0\n") is False
    assert scraper.shedding_in("p2psip_ready 1.0\n") is None


def test_memory_per_binding_is_the_growth_summed_over_the_nodes_over_the_users():
    before = [NodeMemory("node-0", 1, 100, 40_000, 500_000), NodeMemory("node-1", 2, 90, 38_000, 480_000)]
    after = [NodeMemory("node-0", 1, 10_100, 45_000, 520_000), NodeMemory("node-1", 2, 10_090, 43_000, 510_000)]
    heap_before, heap_after = capacity.total([m.heap_kib for m in before]), capacity.total([m.heap_kib for m in after])
    assert (heap_before, heap_after) == (78_000, 88_000)
    assert capacity.per_item(heap_after, heap_before, 10_000) == 1024.0          # 10,000 KiB over 10,000 bindings
    assert capacity.per_item_absolute(heap_after, 10_000) == 88_000 * 1024 / 10_000
    assert capacity.total([1, None]) is None and capacity.per_item(None, 1, 10) is None
    assert capacity.per_item(5, 1, 0) is None


def kamailio_row(**values):
    return {"system": "kamailio", "nodes": "1", "users": "20000", "heap_per_binding_b": "1200.0", **values}


def chord_row(**values):
    row = {"system": "chord", "nodes": "4", "users": "20000", "load_s": "40.0", "load_rate": "500.0",
           "heap_before_kib": "160000", "heap_after_kib": "180000",
           "load_rounds": "2", "not_loaded": "0", "refresh_sent": "333", "refresh_ok": "333",
           "refresh_p50_ms": "3.0", "refresh_p99_ms": "40.0", "calls_sent": "12000", "calls_ok": "11990",
           "call_p50_ms": "8.0", "call_p99_ms": "250.0", "killed": "node 3 killed, restarted in 70 s",
           "queried": "20000", "unanswered": "0", "lost": "0", "duplicates": "0", "heap_per_binding_b": "500.0",
           "refresh_rate": "1800", "first_rate": "2000"}
    return {**row, **values}


def verdicts(row, kamailio=None):
    return [(j.holds, j.why) for j in targets.capacity_targets(row, kamailio or kamailio_row())]


def test_the_capacity_targets_judge_p99_lost_duplicates_memory_and_the_refresh_ratio():
    assert [holds for holds, _ in verdicts(chord_row())] == [True, False, True, True, True, True]
    assert [holds for holds, _ in verdicts(chord_row(lost="3", duplicates="1", heap_per_binding_b="700.0",
                                                     refresh_rate="1500"))] == [True, False, False, False, False, False]


def test_a_target_without_its_figures_cannot_be_judged_and_says_why():
    judged = verdicts(chord_row(refresh_p99_ms="", first_rate="0"), kamailio_row(heap_per_binding_b=""))
    assert judged[0] == (None, "not measured")
    assert judged[4][0] is None and "Kamailio" in judged[4][1]
    assert judged[5][0] is None
    # users whose query was never answered are not known to be kept
    assert verdicts(chord_row(unanswered="2"))[2] == (False, "2 users' queries never answered 200")
    # a heap that did not grow, or grew less than a tenth of what it held, says nothing of a binding's size
    assert verdicts(chord_row(heap_per_binding_b="-2212.0", heap_after_kib="150000"))[4][0] is None
    holds, why = verdicts(chord_row(heap_per_binding_b="217.0", heap_before_kib="200000", heap_after_kib="204000"))[4]
    assert holds is None and "grew 3.9 MiB over the load, less than 10% of the 195.3 MiB" in why


def write_run(folder: Path) -> None:
    rows = [capacity.row_of(Result("kamailio", 1, 20000, 5.0, 4000.0, 1, 0, shm_before_kib=2600, shm_after_kib=26_000,
                                   heap_per_binding_b=1198.1)),
            capacity.row_of(Result("chord", 4, 20000, 40.0, 500.0, 2, 0, refresh_sent=333, refresh_ok=333,
                                   refresh_p50_ms=3.0, refresh_p99_ms=40.0, calls_sent=12000, calls_ok=11990,
                                   call_p50_ms=8.0, call_p99_ms=250.0, killed="node 3 killed, restarted in 70 s",
                                   queried=20000, unanswered=0, absent=3, lost=0, duplicates=0, records_before=600,
                                   records_after=60_600, heap_before_kib=160_000, heap_after_kib=180_000,
                                   heap_per_binding_b=512.0, refresh_rate=1800, first_rate=2000, note="heap 1024m per node"))]
    for row in rows:
        append(folder / capacity.CSV_FILE, capacity.FIELDS, row)
    for row in capacity.node_rows("chord", "before", [NodeMemory("node-0", 11, 150, 40_000, 500_000)]) + \
            capacity.node_rows("chord", "after", [NodeMemory("node-0", 11, 15_150, 42_500, 520_000)]):
        append(folder / capacity.NODES_CSV, capacity.NODE_FIELDS, row)


META = {"mode": "quick", "command": "bench/run --quick --experiments capacity", "capacity_users": "20,000",
        "capacity_nodes": "4", "capacity_expiry": "3600", "capacity_seconds": "60", "capacity_call_rate": "200"}


def test_the_report_section_has_the_targets_a_table_per_backend_each_node_and_kamailio(tmp_path):
    write_run(tmp_path)
    text = "\n".join(capacityreport.section(tmp_path, META))
    assert text.startswith("## Capacity (experiment capacity)")
    assert "This run: 20,000 users, 4 nodes, 3600 s expiry, 60 s of steady state, 200 calls/s." in text
    assert "| chord 4 node(s) | refreshes' p99 through the steady state | 40 ms | < 200 ms | met, indicative |" in text
    assert "| chord 4 node(s) | calls' p99 (INVITE to 200) through the steady state | 250 ms | < 200 ms | not met" in text
    assert "512 B / 1,198 B = 0.43 | <= 0.50 | met" in text
    assert "1,800 / 2,000 = 0.90 | >= 0.80 | met" in text
    assert ("Indicative: 20,000 users, where full mode holds 10,000,000; a steady state of 60 s, full mode's 600 s; "
            "quick mode's search precision is 0.35") in text
    assert "| steady state: calls completed | 99.92% (11,990/12,000) |" in text
    assert "| node killed midway | node 3 killed, restarted in 70 s |" in text
    assert "| after: users without a binding at the first query | 3 |" in text
    assert "| after: records lost (still without one when asked again) | 0 |" in text
    assert "| node-0 | 150 | 15,150 | 39.1 MiB | 41.5 MiB |" in text
    assert "### Kamailio" in text and "| memory per contact, shared memory: growth / N, whole / N | 1,198 B" in text


def test_no_section_without_the_experiment_and_a_note_without_kamailio(tmp_path):
    assert capacityreport.section(tmp_path, META) == []
    append(tmp_path / capacity.CSV_FILE, capacity.FIELDS, capacity.row_of(Result("chord", 1, 500, 1.0, 500.0, 1, 0)))
    assert "Kamailio was not measured in this run" in "\n".join(capacityreport.section(tmp_path, META))


def test_report_only_rebuilds_the_section_of_a_run_of_the_capacity_experiment_alone(tmp_path):
    write_run(tmp_path)
    cli._write_meta(tmp_path, META, {"cores (nproc)": "2"})
    subprocess.run([sys.executable, str(RUN), "--report-only", str(tmp_path)], check=True, capture_output=True)
    report = (tmp_path / "report.md").read_text()
    assert "## Capacity (experiment capacity)" in report and "`capacity.csv`" in report


def test_the_options_and_their_defaults_in_each_mode():
    args = cli.parser().parse_args(["--quick", "--experiments", "capacity"])
    quick = cli.capacity_settings_of(args, modes.QUICK)
    assert (quick.users, quick.nodes, quick.expiry_s, quick.steady_s, quick.call_rate) == (20_000, 4, 3600, 60, 200)
    full = cli.capacity_settings_of(cli.parser().parse_args([]), modes.FULL)
    assert (full.users, full.steady_s) == (10_000_000, 600)
    given = cli.capacity_settings_of(cli.parser().parse_args(
        ["--capacity-users", "500", "--capacity-nodes", "1", "--capacity-seconds", "10", "--capacity-expiry", "120",
         "--capacity-call-rate", "20"]), modes.QUICK)
    assert (given.users, given.nodes, given.steady_s, given.expiry_s, given.call_rate) == (500, 1, 10, 120, 20)
    assert experiments.CAPACITY in experiments.ALL and experiments.CAPACITY_BACKENDS == ("chord", "bamboo")
    assert cli.capacity_meta(quick)["capacity_users"] == "20,000"


def test_the_scenarios_are_well_formed_and_use_the_injection_file_s_fields():
    register, query = REGISTER.read_text(), QUERY.read_text()
    for text in (register, query):
        ElementTree.fromstring(text[text.index("<scenario"):])   # after SIPp's DOCTYPE
    assert "CSeq: [field2] REGISTER" in register and "Call-ID: [call_id]" in register
    assert '<log message="ok [field0]"/>' in register
    assert "Contact:" not in query.split("<![CDATA[")[1].split("]]>")[0]
    assert '<log message="bindings [field0] [$contacts]"/>' in query

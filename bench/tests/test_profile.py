"""bench/profile's parsing and aggregation: /proc stat lines, jstat, collapsed stacks, `jfr print`
output, self/total counts, groups, comparison and the flame graph."""
import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from sipbench import profile

STAT = ("5847 (java (x) y) S 1 5847 5847 0 -1 4194560 98765 0 12 0 "
        "1500 250 3 4 20 0 120 0 4242 6000000000 90000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0")


def test_stat_utime_and_stime_counted_from_the_last_parenthesis():
    assert profile.parse_stat(STAT) == (1500, 250)


def test_cpu_seconds_of_this_process_grow():
    import os
    before = profile.cpu_seconds(os.getpid())
    sum(i * i for i in range(300_000))
    assert profile.cpu_seconds(os.getpid()) >= before


JSTAT_BEFORE = """ S0C    S1C    S0U    S1U      EC       EU        OC         OU       MC     MU    CCSC   CCSU   YGC     YGCT    FGC    FGCT     CGC    CGCT     GCT
   0.0    0.0    0.0    0.0 524288.0 100000.0  524288.0   60000.0  80000.0 78000.0 9000.0 8500.0     10    0.100   0      0.000   2      0.010    0.110
"""
JSTAT_AFTER = JSTAT_BEFORE.splitlines()[0] + """
   0.0    0.0    0.0    0.0 524288.0 200000.0  524288.0   70000.0  80000.0 78000.0 9000.0 8500.0     12    0.140   0      0.000   2      0.010    0.150
"""


def test_jstat_gc_delta_counts_collections_and_allocation():
    before, after = profile.parse_jstat_gc(JSTAT_BEFORE), profile.parse_jstat_gc(JSTAT_AFTER)
    assert before["YGC"] == 10 and after["EU"] == 200000.0
    delta = profile.gc_delta(before, after)
    assert delta["young_gcs"] == 2
    assert delta["young_gc_s"] == pytest.approx(0.04)
    # two full edens and the growth of the eden in use
    assert delta["allocated_mb"] == pytest.approx((2 * 524288 + 100000) / 1024, abs=0.1)


def test_jstat_refuses_what_is_not_its_output():
    with pytest.raises(ValueError):
        profile.parse_jstat_gc("5847 not found")


def test_collapsed_lines_summed_and_written_back_heaviest_first():
    text = "a;b;c 3\na;b 2\n\na;b;c 4\nbroken line\nx;with space 1\n"
    stacks = profile.parse_collapsed(text)
    assert stacks == Counter({"a;b;c": 7, "a;b": 2, "x;with space": 1})
    assert profile.format_collapsed(stacks).splitlines()[0] == "a;b;c 7"
    assert profile.parse_collapsed(profile.format_collapsed(stacks)) == stacks


JFR = """jdk.ExecutionSample {
  startTime = 14:50:01.123 (2026-11-28)
  sampledThread = "SIP-Intake" (javaThreadId = 41)
  state = "STATE_RUNNABLE"
  stackTrace = [
    org.p2psip.intake.Screen.check(byte[], int) line: 88
    org.p2psip.intake.Intake.run() line: 120
    java.lang.Thread.run() line: 833
  ]
}

jdk.ExecutionSample {
  startTime = 14:50:01.133 (2026-11-28)
  sampledThread = "SIP-Intake" (javaThreadId = 41)
  state = "STATE_RUNNABLE"
  stackTrace = [
    org.p2psip.intake.Screen.check(byte[], int) line: 90
    org.p2psip.intake.Intake.run() line: 120
    java.lang.Thread.run() line: 833
  ]
}

jdk.ExecutionSample {
  startTime = 14:50:01.143 (2026-11-28)
  sampledThread = "x" (javaThreadId = 42)
  state = "STATE_RUNNABLE"
  stackTrace = [
    java.util.HashMap.get(Object) line: 556
    ...
  ]
}
"""

JFR_ALLOC = """jdk.ObjectAllocationSample {
  startTime = 14:50:01.123 (2026-11-28)
  objectClass = byte[] (classLoader = null)
  weight = 1.5 kB
  eventThread = "SIP-Intake" (javaThreadId = 41)
  stackTrace = [
    java.util.Arrays.copyOf(byte[], int) line: 3537
    org.p2psip.codec.RegisterCodec.encode(Record) line: 40
  ]
}

jdk.ObjectAllocationSample {
  startTime = 14:50:01.124 (2026-11-28)
  objectClass = java.lang.String (classLoader = null)
  weight = 2 MB
  stackTrace = [
    java.lang.String.<init>(byte[]) line: 10
    org.p2psip.codec.RegisterCodec.encode(Record) line: 41
  ]
}
"""


def test_jfr_execution_samples_become_root_first_stacks():
    stacks = profile.parse_jfr_print(JFR)
    assert stacks == Counter({
        "java.lang.Thread.run;org.p2psip.intake.Intake.run;org.p2psip.intake.Screen.check": 2,
        "java.util.HashMap.get": 1,   # cut at the depth: the frames printed stay
    })


def test_jfr_allocation_samples_weighted_by_bytes():
    stacks = profile.parse_jfr_print(JFR_ALLOC, weight="weight")
    assert stacks["org.p2psip.codec.RegisterCodec.encode;java.util.Arrays.copyOf"] == 1536
    assert stacks["org.p2psip.codec.RegisterCodec.encode;java.lang.String.<init>"] == 2 * 1024 * 1024


@pytest.mark.parametrize("text, value", [("123 bytes", 123), ("15.5 kB", 15872), ("1 MB", 1048576), ("7", 7)])
def test_sizes_of_jfr_print(text, value):
    assert profile.parse_size(text) == value


def test_self_and_total_count_recursion_once():
    stacks = Counter({"main;f;f;g": 3, "main;f": 2, "main;h": 1})
    own, total = profile.self_and_total(stacks)
    assert own == Counter({"g": 3, "f": 2, "h": 1})
    assert total["f"] == 5 and total["main"] == 6 and total["g"] == 3


def test_async_profiler_frames_named_as_jfr_names_them():
    stacks = Counter({"java/lang/Thread.run;org/p2psip/A.b_[j];Foo::bar;[unknown] 1".rsplit(" ", 1)[0]: 1})
    assert list(profile.normalise(stacks)) == ["java.lang.Thread.run;org.p2psip.A.b;Foo::bar;[unknown]"]


def test_summary_lists_self_and_total_with_shares_and_scale():
    text = profile.summary(Counter({"main;f;g": 3, "main;f": 1}), top=5, scale=0.5, scale_unit="ms/REG")
    assert text.startswith("4 samples in 2 distinct stacks")
    by_self = text.split("Top 5 by self:")[1].split("Top 5 by total:")[0]
    assert by_self.splitlines()[2].split() == ["3", "75.00%", "1.5000", "g"]
    by_total = text.split("Top 5 by total:")[1]
    assert "100.00%" in by_total.splitlines()[2]


def test_groups_take_each_stack_by_its_leaf_most_matching_frame():
    groups = [profile.Group("codec", r"Codec\."), profile.Group("intake", r"^intake\.")]
    stacks = Counter({"intake.Run;RegisterCodec.encode;java.util.Arrays.copyOf": 2,
                      "RegisterCodec.encode;intake.Run;Screen.check": 3, "gc;memset": 4})
    assert profile.grouped(stacks, groups) == Counter({"codec": 2, "intake": 3, "other": 4})


def test_inclusive_groups_keep_what_their_frame_called():
    groups = [profile.Group("places", r"^Places\.", inclusive=True), profile.Group("ids", r"^Id\.")]
    stacks = Counter({"Loop.run;Places.startingPlace;Id.distanceTo;BigInteger.mod": 4, "Loop.run;Id.hash": 1})
    assert profile.grouped(stacks, groups) == Counter({"places": 4, "ids": 1})


def test_node_groups_give_kernel_time_to_the_java_caller():
    stacks = Counter({
        "java/lang/Thread.run;org/p2psip/intake/IntakeQueue.take_[j];jdk/internal/misc/Unsafe.park;futex_wait_[k]": 5,
        "java/lang/Thread.run;org/p2psip/servlet/TimedDht.update_[j];org/p2psip/dht/chord/ChordDht.update_[j]": 2,
        "java/lang/Thread.run;org/p2psip/servlet/TimedDht.update_[j];java/lang/System.nanoTime": 1,
        "start_thread;GangWorker::loop;G1ParEvacuateFollowersClosure::do_void": 3,
        "org/p2psip/dht/ring/store/PackedRecords.get;org/p2psip/dht/ring/Id.bytes;java/math/BigInteger.toByteArray": 2,
        "org/p2psip/dht/ring/store/Store.write;org/p2psip/dht/ring/store/PackedRecord.pack;java/nio/ByteBuffer.allocate": 1,
    })
    got = profile.grouped(stacks, profile.NODE_GROUPS)
    assert got == Counter({"intake (queue, socket)": 5, "chord/overlay": 2, "TimedDht": 1, "gc": 3,
                           "store table (PackedRecords)": 2, "codecs": 1})
    assert profile.kernel_share(stacks) == pytest.approx(5 / 14)


def test_groups_table_has_a_difference_column_for_two_profiles():
    table = profile.groups_table([("a", Counter({"gc": 10, "codecs": 5}), 0.01),
                                  ("b", Counter({"gc": 10, "codecs": 20}), 0.01)])
    rows = {line.split("  ")[0].strip(): line.split() for line in table.splitlines()[1:]}
    assert rows["codecs"][-1] == "+0.1500" and rows["gc"][-1] == "+0.0000"
    assert rows["total"][-3:] == ["0.1500", "0.3000", "+0.1500"]


def test_compare_orders_by_the_growth_in_common_units():
    a = Counter({"main;f": 10, "main;g": 10})
    b = Counter({"main;f": 10, "main;g": 40})
    lines = profile.compare(a, b, scale_a=0.1, scale_b=0.1).splitlines()
    assert [line.split()[-1] for line in lines[1:3]] == ["g", "main"]   # equal growth: by name
    assert lines[1].split()[2] == "+3.0000"
    assert lines[-1].split()[-1] == "f" and float(lines[-1].split()[2]) == 0
    fall = profile.compare(b, a, scale_a=0.1, scale_b=0.1).splitlines()
    assert [line.split()[2] for line in fall[1:3]] == ["-3.0000", "-3.0000"]   # a fall counts as much


def test_per_register_scale_spreads_cpu_over_samples_and_registers():
    assert profile.per_register_scale({"cpu_s": 10.0, "samples": 1000, "registers_200": 5000}) == pytest.approx(0.002)
    assert profile.per_register_scale({"cpu_s": 10.0, "samples": 0, "registers_200": 5000}) is None


def test_flamegraph_is_one_svg_with_a_box_per_frame_and_shares():
    stacks = Counter({"main;f;g": 3, "main;h<x>&y": 1})
    svg = profile.flamegraph_svg(stacks, title="a & b")
    root = ET.fromstring(svg.split("?>", 1)[1])   # well-formed: names with <, > and & escaped
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
    assert "all (4 samples, 100.00%)" in titles
    assert "g (3 samples, 75.00%)" in titles
    assert "h<x>&y (1 samples, 25.00%)" in titles
    assert "<script" not in svg and "http://" not in svg.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_flamegraph_leaves_out_frames_too_narrow_to_see():
    stacks = Counter({"main;big": 100_000, "main;tiny": 1})
    svg = profile.flamegraph_svg(stacks, width=1000, min_width=0.5)
    assert "tiny" not in svg and "big" in svg


def test_sipp_command_is_the_bench_register_step(tmp_path):
    command = profile.sipp_register_command("127.0.0.1:27170", "127.0.0.1", 2000, 40000,
                                            tmp_path / "users.csv", tmp_path, 20)
    assert any(part.endswith("register/register.xml") for part in command)
    for option in (["-r", "2000"], ["-m", "40000"], ["-t", "u1"], ["-l", "80000"], ["-fd", "1"]):
        i = command.index(option[0])
        assert command[i + 1] == option[1]
    assert "127.0.0.1:27170" in command
    for option in ("-p", "-mp"):   # SIPp's ports stay out of 5060-5090 and 25000-26999
        assert int(command[command.index(option) + 1]) in profile.SIPP_PORTS


def test_successful_registers_come_from_sipps_statistics(tmp_path):
    header = "StartTime;LastResetTime;CurrentTime;TotalCallCreated;SuccessfulCall(C);FailedCall(C);"
    row = lambda now, created, ok: f"2026-11-28\t14:50:00.000000\t100.0;x;2026-11-28\t14:50:{now:02d}.0\t{100 + now}.0;{created};{ok};0;"
    (tmp_path / "sipp.stat.csv").write_text("\n".join([header, row(1, 2000, 1990), row(2, 4000, 3999)]) + "\n")
    assert profile.successful(tmp_path / "sipp.stat.csv") == 3999


def test_thread_cpu_adds_up_per_family_and_counts_new_threads_from_zero():
    before = {1: ("SIP-Thread-1", 100), 2: ("SIP-Thread-2", 50), 3: ("GC Thread#0", 10)}
    after = {1: ("SIP-Thread-1", 300), 2: ("SIP-Thread-2", 150), 3: ("GC Thread#0", 10), 4: ("chord-loop-1", 400)}
    assert profile.thread_family("SIP-Thread-12") == "SIP-Thread-#"
    assert profile.threads_delta(before, after, 100) == [("chord-loop-#", 1, 4.0), ("SIP-Thread-#", 2, 3.0)]


def test_thread_ticks_of_this_process_name_its_threads():
    import os
    ticks = profile.thread_ticks(os.getpid())
    assert os.getpid() in ticks and all(isinstance(name, str) and cpu >= 0 for name, cpu in ticks.values())


def test_table_row_per_register_figures():
    measured = {"rate": 2000, "cpu_ms_per_register": 0.18, "registers_200": 40000, "offered": 40000,
                "gc": {"allocated_mb": 4000.0, "young_gcs": 9.0}, "threads": [["SIP-Thread-#", 8, 3.0], ["nioEventLoopGro", 1, 2.4]],
                "profiler": "none", "load_before": [2.5, 2, 1], "load_after": [2.1, 2, 1]}
    cells = [c.strip() for c in profile.table_row("run-a", measured).split("|")[1:-1]]
    assert cells == ["run-a", "2000", "0.18", "40000/40000", "102", "9.0", "SIP-Thread-# 0.075", "0.060", "none",
                     "2.5 / 2.1"]
    assert profile.TABLE_HEADER.count("|---") == len(cells)


def test_tidy_keeps_percentiles_of_the_response_times_and_the_head_of_the_error_log(tmp_path):
    (tmp_path / "register_1_rtt.csv").write_text("Date_ms;response_time_ms;rtd_no\n"
                                                 + "".join(f"1;{ms};1\n" for ms in range(1, 101)))
    (tmp_path / "sipp.errors.log").write_text("".join(f"error {i}\n" for i in range(500)))
    times = profile.tidy(tmp_path, keep_lines=10)
    assert times["timed"] == 100 and 49 <= times["p50_ms"] <= 51 and 98 <= times["p99_ms"] <= 100
    assert not list(tmp_path.glob("*_rtt.csv"))
    lines = (tmp_path / "sipp.errors.log").read_text().splitlines()
    assert len(lines) == 11 and lines[-1] == "... 490 more lines cut"


def test_a_result_names_paths_relative_to_the_checkout():
    text = f'["{profile.REPO}/sipp-scenarios/register/register.xml", "/usr/bin/sipp"]'
    assert profile.within_repository(text) == '["sipp-scenarios/register/register.xml", "/usr/bin/sipp"]'

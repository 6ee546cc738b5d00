"""The load generator's own limits: a step's rate split over several SIPp processes where one cannot offer
it (each its share, its own AORs), and a failed step during which a SIPp process was busy named as the
generator's, not the server's."""
import subprocess
import sys
import time

from sipbench import search, sipp, stats
from sipbench.sipp import Offered, Target

NODE = Target("10.0.0.10", 5060)


def test_a_share_above_one_process_is_split_over_two_or_three_each_its_part():
    register = sipp.Registration(sipp.Pool(size=100_000)).per_process
    assert sipp._instances([NODE], 16_000, register) == [(NODE, 16_000)]
    assert sipp._instances([NODE], 32_000, register) == [(NODE, 16_000), (NODE, 16_000)]
    assert sipp._instances([NODE], 41_800, register) == [(NODE, 13_934), (NODE, 13_933), (NODE, 13_933)]
    # never more than three per target, whatever the rate: each takes CPU from the server's two cores
    assert [r for _, r in sipp._instances([NODE], 62_700, register)] == [20_900, 20_900, 20_900]
    two = Target("10.0.0.11", 5060)
    assert sipp._instances([NODE, two], 40_000, register) == [(NODE, 10_000), (NODE, 10_000), (two, 10_000),
                                                              (two, 10_000)]
    # calls: a second caller above 2,000/s
    assert [r for _, r in sipp._instances([NODE], 3_750, sipp.Call().per_process)] == [1_875, 1_875]


def test_each_process_of_a_step_registers_its_own_aors_from_the_pool(tmp_path):
    workload = sipp.Registration(sipp.Pool(size=100_000))
    for i, (_, rate) in enumerate(sipp._instances([NODE], 32_000, workload.per_process)):
        workload.options(tmp_path, i, rate * 2)
    first, second = ([line.split(";")[0] for line in (tmp_path / f"users-{i}.csv").read_text().splitlines()[1:]]
                     for i in (0, 1))
    assert len(first) == len(second) == 32_000 and not set(first) & set(second)
    assert first[0] == "user0000000" and second[0] == "user0032000"


def offered(busy):
    return Offered(sipp.REPO, 1000, stats.Counts(created=1000, successful=290), 1000.0, busy)


def failed_step():
    return search.judge(1000, 1000, stats.Counts(created=1000, successful=290, failed=710), 1000.0, 400.0, 4000.0)


def test_a_failed_step_with_a_busy_sipp_names_it_and_counts_as_the_generators():
    step = sipp.generator_bound(failed_step(), offered((("SIPp call #0", 0.97), ("SIPp callee", 0.55))))
    assert step.generator_short and not step.passed
    assert step.generator_cpu == (("SIPp call #0", 0.97), ("SIPp callee", 0.55))
    assert step.reason.endswith("; SIPp call #0 at 97% of a core: the generator's side saturated")
    callee = sipp.generator_bound(failed_step(), offered((("SIPp call #0", 0.6), ("SIPp callee", 0.99))))
    assert "SIPp callee at 99% of a core" in callee.reason and "call #0" not in callee.reason
    # a server that failed while SIPp had room is the server's limit; a passing step stays as it was
    assert not sipp.generator_bound(failed_step(), offered((("SIPp call #0", 0.5),))).generator_short
    passed = search.judge(1000, 1000, stats.Counts(created=1000, successful=1000), 1000.0, 1.0, 2.0)
    kept = sipp.generator_bound(passed, offered((("SIPp call #0", 0.99),)))
    assert kept.passed and kept.reason == "ok" and kept.generator_cpu == (("SIPp call #0", 0.99),)


def test_a_search_bounded_by_a_busy_caller_says_so_in_its_note():
    from sipbench import runner
    plan = search.Plan(start=500, max_steps=4)
    busy = sipp.generator_bound(failed_step(), offered((("SIPp call #0", 0.97),)))

    def measure(rate, seconds=None):
        if rate >= 1000:
            return busy
        return search.judge(rate, rate, stats.Counts(created=rate, successful=rate), float(rate), 1.0, 2.0)
    note = runner.search_note(search.run(plan, measure), plan)
    assert note == ("generator-limited: at 1,000/s SIPp call #0 at 97% of a core: the generator's side saturated, "
                    "so the limit may be higher")


def test_the_cpu_of_a_busy_process_is_read_from_proc():
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        meter = sipp.CpuShares([("spinner", spinner.pid), ("sleeper", sleeper.pid)])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            time.sleep(0.5)
            meter.read()
            shares = dict(meter.shares())
            if len(shares) == 2 and shares["spinner"] > 10 * shares["sleeper"] + 0.01:
                break
        shares = dict(meter.shares())
        # the spinner takes whatever a loaded (or throttled) machine gives it, far more than the sleeper
        assert shares["spinner"] > 10 * shares["sleeper"] + 0.01 and shares["sleeper"] < 0.05, shares
    finally:
        for process in (spinner, sleeper):
            process.kill()
            process.wait()

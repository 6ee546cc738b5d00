"""The rate search: the verdict of one step and the sequence of rates, on recorded and synthetic steps."""
from pathlib import Path

from sipbench import runner, search, stats

DATA = Path(__file__).parent / "data"


def recorded(folder: str, rate: int, attempts: int) -> search.Step:
    counts = stats.final_counts(DATA / folder / "stat-0.stat.csv")
    times = [t for p in (DATA / folder).glob("*rtt.csv") for t in stats.read_response_times(p)]
    return search.judge(rate, attempts, counts, float(rate), stats.percentile(times, 50), stats.percentile(times, 99))


def test_a_step_where_every_attempt_completed_passes():
    step = recorded("register-pass", 500, 1500)
    assert step.passed, step.reason
    assert step.p50_ms is not None and step.p99_ms >= step.p50_ms


def test_a_step_below_99_9_percent_fails_and_says_how_many_completed():
    step = recorded("call-overload", 600, 3000)
    assert not step.passed
    assert "2756/3000" in step.reason


def test_retransmission_timeouts_fail_a_step_and_are_named():
    step = recorded("register-dead", 20, 40)
    assert not step.passed
    assert "40 retransmission timeouts" in step.reason


def test_exactly_99_9_percent_passes_and_one_less_fails():
    ok = stats.Counts(created=10000, successful=9990, failed=10)
    assert search.judge(1000, 10000, ok, 1000.0, None, None).passed
    short = stats.Counts(created=10000, successful=9989, failed=11)
    assert not search.judge(1000, 10000, short, 1000.0, None, None).passed


def test_calls_never_created_count_as_failures():
    counts = stats.Counts(created=900, successful=900)
    step = search.judge(100, 1000, counts, 100.0, None, None)
    assert not step.passed


def test_a_single_retransmission_timeout_fails_even_at_99_9_percent():
    counts = stats.Counts(created=10000, successful=9999, failed=1, max_udp_retrans=1)
    assert not search.judge(1000, 10000, counts, 1000.0, None, None).passed


def test_a_rate_sipp_could_not_offer_fails():
    counts = stats.Counts(created=1000, successful=1000)
    step = search.judge(1000, 1000, counts, 700.0, None, None)
    assert not step.passed and "offered only 700/s" in step.reason


def simulated(capacity: int):
    """A server that completes everything up to `capacity` per second and loses calls above it."""
    def measure(rate: int) -> search.Step:
        attempts = rate * 10
        ok = attempts if rate <= capacity else int(attempts * capacity / rate)
        counts = stats.Counts(created=attempts, successful=ok, failed=attempts - ok)
        return search.judge(rate, attempts, counts, float(rate), 1.0, 2.0)
    return measure


def test_search_doubles_then_bisects_to_within_the_precision():
    plan = search.Plan(start=100, max_rate=100000, precision=0.05, max_steps=30)
    outcome = search.run(plan, simulated(1234))
    rates = [s.rate for s in outcome.steps]
    assert rates[:5] == [100, 200, 400, 800, 1600]
    best = outcome.best.rate
    assert best <= 1234
    assert best >= 1234 / 1.05
    lowest_failure = min(s.rate for s in outcome.steps if not s.passed)
    assert lowest_failure - best <= 0.05 * best


def test_search_goes_below_the_start_when_the_first_step_fails():
    outcome = search.run(search.Plan(start=1000, precision=0.1, max_steps=30), simulated(130))
    assert outcome.steps[0].rate == 1000 and not outcome.steps[0].passed
    assert 130 / 1.1 <= outcome.best.rate <= 130


def test_search_stops_at_the_maximum_rate():
    outcome = search.run(search.Plan(start=100, max_rate=1000, max_steps=30), simulated(10**6))
    assert outcome.best.rate == 1000
    assert [s.rate for s in outcome.steps] == [100, 200, 400, 800, 1000]


def test_search_respects_the_step_budget():
    outcome = search.run(search.Plan(start=100, precision=0.001, max_steps=4), simulated(5000))
    assert len(outcome.steps) == 4


def test_nothing_passes_means_no_best_rate():
    outcome = search.run(search.Plan(start=8, max_steps=30), simulated(0))
    assert outcome.best is None
    assert outcome.steps[-1].rate == 1


def test_the_between_hook_sees_every_step():
    seen = []
    search.run(search.Plan(start=100, max_steps=3), simulated(150), seen.append)
    assert [s.rate for s in seen] == [100, 200, 150]


def test_a_larger_growth_reaches_high_rates_in_fewer_steps():
    outcome = search.run(search.Plan(start=200, growth=3.0, precision=0.35, max_steps=5), simulated(2000))
    assert [s.rate for s in outcome.steps][:3] == [200, 600, 1800]
    assert outcome.best.rate >= 1800


def test_a_server_that_queues_fails_on_its_p99_though_it_answered_everything():
    counts = stats.Counts(created=1000, successful=1000)
    assert search.judge(100, 1000, counts, 100.0, 40.0, 900.0).passed
    step = search.judge(100, 1000, counts, 100.0, 240.0, 7516.0)
    assert not step.passed and "p99 7516 ms above 1500 ms" in step.reason
    bounded = search.Criteria(max_p99_ms=500)
    step = search.judge(100, 1000, counts, 100.0, 40.0, 900.0, bounded)
    assert not step.passed and "p99 900 ms above 500 ms" in step.reason
    assert search.judge(100, 1000, counts, 100.0, 240.0, 7516.0, search.Criteria(max_p99_ms=None)).passed


def flaky_once(capacity: int, flaky_rate: int):
    """simulated(capacity), but the first step at `flaky_rate` fails (a noisy step)."""
    steady = simulated(capacity)
    seen = set()
    def measure(rate: int) -> search.Step:
        if rate == flaky_rate and rate not in seen:
            seen.add(rate)
            attempts = rate * 10
            counts = stats.Counts(created=attempts, successful=attempts - attempts // 100, failed=attempts // 100)
            return search.judge(rate, attempts, counts, float(rate), 1.0, 2.0)
        return steady(rate)
    return measure


def test_a_noisy_failure_settles_the_search_below_it_without_confirmation():
    plan = search.Plan(start=1000, precision=0.05, max_steps=30)
    assert search.run(plan, flaky_once(1500, 1000)).best.rate < 1000


def test_a_confirmed_search_repeats_a_failed_step_and_passes_it_when_the_repeat_passes():
    plan = search.Plan(start=1000, precision=0.05, max_steps=30, confirm_failures=True)
    outcome = search.run(plan, flaky_once(1500, 1000))
    assert [(s.rate, s.passed) for s in outcome.steps[:2]] == [(1000, False), (1000, True)]
    assert 1500 / 1.05 <= outcome.best.rate <= 1500


def test_a_confirmed_failure_still_bounds_the_search():
    plan = search.Plan(start=100, precision=0.05, max_steps=40, confirm_failures=True)
    outcome = search.run(plan, simulated(1234))
    best = outcome.best.rate
    assert 1234 / 1.05 <= best <= 1234
    for failed in (s for s in outcome.steps if not s.passed):
        assert sum(1 for s in outcome.steps if s.rate == failed.rate) == 2   # each failure measured twice


def test_a_confirmation_stays_within_the_step_budget():
    plan = search.Plan(start=100, precision=0.001, max_steps=5, confirm_failures=True)
    assert len(search.run(plan, simulated(150)).steps) <= 5


def _step(rate: int, successful: int, seconds: int = 5) -> search.Step:
    attempts = rate * seconds
    counts = stats.Counts(created=attempts, successful=successful, failed=attempts - successful)
    return search.judge(rate, attempts, counts, float(rate), 2.0, 40.0)


def test_the_overload_is_the_highest_failed_step_above_the_limit_and_its_goodput_what_it_completed():
    outcome = search.Outcome([_step(4000, 20000), _step(8000, 40000), _step(16000, 14000), _step(12000, 48000),
                              _step(10000, 50000), _step(11000, 54000)])
    assert outcome.best.rate == 10000
    assert outcome.overload.rate == 16000
    assert search.goodput(outcome.overload) == 2800   # 14,000 of 80,000 attempts at 16,000/s


def test_a_search_that_never_failed_above_its_limit_has_no_overload():
    assert search.Outcome([_step(4000, 20000), _step(8000, 40000)]).overload is None
    assert search.Outcome([_step(4000, 20000), _step(2000, 9000)]).overload is None  # failed below the limit


def test_the_capacity_within_a_100_ms_p99_is_the_highest_pass_whose_p99_stayed_under_it():
    counts = stats.Counts(created=1000, successful=1000)
    outcome = search.Outcome([search.judge(1000, 1000, counts, 1000.0, 2.0, 40.0),
                              search.judge(2000, 1000, counts, 2000.0, 9.0, 100.0),
                              search.judge(3000, 1000, counts, 3000.0, 60.0, 900.0),
                              search.judge(4000, 1000, stats.Counts(created=1000, successful=500), 4000.0, 5.0, 50.0)])
    assert outcome.best.rate == 3000, "the search's own bound is 1,500 ms"
    assert outcome.best_within(search.PROMPT_P99_MS).rate == 2000, "a failed step never counts, however fast"
    assert search.Outcome([search.judge(1000, 1000, counts, 1000.0, 60.0, 900.0)]).best_within(100.0) is None


# The references measured to their limit: past --max-rate, until a failure or until SIPp cannot offer the rate.

def generator_bound(capacity: int, generator: int):
    """simulated(capacity) behind a load generator that creates at most `generator` calls per second:
    above it SIPp still creates every call of the step, late, so that it offers less than asked."""
    server = simulated(capacity)
    def measure(rate: int) -> search.Step:
        step = server(rate)
        return search.judge(rate, step.attempts, step.counts, float(min(rate, generator)), 1.0, 2.0)
    return measure


def test_a_references_plan_reaches_four_times_the_maximum_with_the_steps_to_get_there():
    plan = search.Plan(start=200, max_rate=20000, max_steps=10, growth=2.0)
    reference = search.for_reference(plan)
    assert (reference.max_rate, reference.max_steps) == (80000, 12)
    assert search.for_reference(search.Plan(max_steps=5, growth=3.0)).max_steps == 7


def test_a_reference_passing_at_the_maximum_keeps_growing_until_it_fails():
    plan = search.Plan(start=5000, max_rate=20000, precision=0.05, max_steps=10)
    capped = search.run(plan, simulated(50000))
    assert capped.best.rate == 20000 and capped.overload is None
    outcome = search.run(search.for_reference(plan), simulated(50000))
    assert [s.rate for s in outcome.steps][:4] == [5000, 10000, 20000, 40000]
    assert 50000 / 1.05 <= outcome.best.rate <= 50000
    assert outcome.generator_limit is None
    assert runner.search_note(outcome, search.for_reference(plan)) == ""


def test_a_reference_that_outruns_the_load_generator_is_reported_generator_limited():
    plan = search.for_reference(search.Plan(start=5000, max_rate=20000, precision=0.05, max_steps=10))
    outcome = search.run(plan, generator_bound(10**6, 30000))
    assert 30000 <= outcome.best.rate <= 30000 / 0.95   # SIPp may fall 5% short of a passing rate
    limit = outcome.generator_limit
    assert limit is not None and limit.generator_short and limit.rate > outcome.best.rate
    note = runner.search_note(outcome, plan)
    assert note.startswith("generator-limited: SIPp offered 30,000/s of ") and "higher than measured" in note


def test_a_server_failing_below_the_generators_limit_is_not_generator_limited():
    plan = search.for_reference(search.Plan(start=5000, max_rate=20000, precision=0.05, max_steps=12))
    outcome = search.run(plan, generator_bound(25000, 30000))
    assert 25000 / 1.05 <= outcome.best.rate <= 25000
    assert outcome.generator_limit is None   # the lowest failure above the limit lost calls, SIPp offered it


def test_only_the_references_search_past_the_maximum():
    plan = search.Plan(max_rate=20000)
    assert runner.plan_for(plan, "kamailio").max_rate == 80000
    assert runner.plan_for(plan, "ceiling").max_rate == 80000
    assert runner.plan_for(plan, "chord") is plan


def test_the_note_says_why_a_limit_lies_higher_than_measured():
    plan = search.Plan(start=100, max_rate=1000, max_steps=30)
    assert runner.search_note(search.run(plan, simulated(10**6)), plan) == "reached the search's maximum rate"
    assert runner.search_note(search.run(search.Plan(start=8, max_steps=30), simulated(0)), plan) == "no step passed"
    budget = search.Plan(start=100, max_steps=2)
    assert runner.search_note(search.run(budget, simulated(10**6)), budget).startswith("every step passed")


def test_a_generator_short_step_is_marked_as_such_and_a_lossy_one_is_not():
    counts = stats.Counts(created=1000, successful=1000)
    assert search.judge(1000, 1000, counts, 940.0, None, None).generator_short
    assert not search.judge(1000, 1000, stats.Counts(created=1000, successful=500), 1000.0, None, None).generator_short
    assert search.generator_short(1000, 949.0) and not search.generator_short(1000, 950.0)

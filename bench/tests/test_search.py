"""The rate search: the verdict of one step and the sequence of rates, on recorded and synthetic steps."""
import dataclasses
from dataclasses import replace
import math
import random
from pathlib import Path

import pytest

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


def test_a_clean_step_completes_every_attempt_and_one_failure_fails_it():
    ok = stats.Counts(created=10000, successful=10000)
    assert search.judge(1000, 10000, ok, 1000.0, None, None).passed
    short = stats.Counts(created=10000, successful=9999, failed=1)
    step = search.judge(1000, 10000, short, 1000.0, None, None)
    assert not step.passed and "9999/10000" in step.reason


def test_calls_never_created_count_as_failures():
    counts = stats.Counts(created=900, successful=900)
    step = search.judge(100, 1000, counts, 100.0, None, None)
    assert not step.passed


def test_a_single_retransmission_timeout_fails_a_step():
    counts = stats.Counts(created=10000, successful=9999, failed=1, max_udp_retrans=1)
    step = search.judge(1000, 10000, counts, 1000.0, None, None, search.Criteria(min_success=0.999))
    assert not step.passed and "1 retransmission timeouts" in step.reason


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
    assert search.judge(100, 1000, counts, 100.0, 4.0, 100.0).passed
    step = search.judge(100, 1000, counts, 100.0, 40.0, 101.0)
    assert not step.passed and "p99 101 ms above 100 ms" in step.reason
    calls = search.criteria_for("call")
    assert search.judge(100, 1000, counts, 100.0, 40.0, 180.0, calls).passed
    step = search.judge(100, 1000, counts, 100.0, 40.0, 250.0, calls)
    assert not step.passed and "p99 250 ms above 200 ms" in step.reason
    assert search.criteria_for("registration").max_p99_ms == 100.0
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
    unbounded = search.Criteria(max_p99_ms=None)
    outcome = search.Outcome([search.judge(1000, 1000, counts, 1000.0, 2.0, 40.0),
                              search.judge(2000, 1000, counts, 2000.0, 9.0, 100.0),
                              search.judge(3000, 1000, counts, 3000.0, 60.0, 900.0, unbounded),
                              search.judge(4000, 1000, stats.Counts(created=1000, successful=500), 4000.0, 5.0, 50.0)])
    assert outcome.best.rate == 3000, "without a bound of its own the search passes a p99 of 900 ms"
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


# Finding the limit: grow until the first failure, bisect to 5%, then confirm with a sustained step.

def step_function(limit: int, log: list | None = None):
    """A system clean up to `limit` per second and losing calls above it, whatever the step's length;
    each (rate, seconds) measured is appended to `log`."""
    server = simulated(limit)
    def measure(rate: int, seconds: float | None = None) -> search.Step:
        if log is not None:
            log.append((rate, seconds))
        return server(rate)
    return measure


@pytest.mark.parametrize("start", [200, 1000, 9000, 20000])
@pytest.mark.parametrize("growth", [2.0, 3.0])
def test_a_step_function_at_7300_is_found_within_5_percent_from_any_start(start, growth):
    plan = search.Plan(start=start, growth=growth, precision=0.05, max_rate=20000)
    plan = dataclasses.replace(plan, max_steps=search.steps_needed(plan))
    outcome = search.run(plan, step_function(7300))
    assert 7300 / 1.05 <= outcome.best.rate <= 7300, [s.rate for s in outcome.steps]


def test_quick_modes_growth_no_longer_stops_at_a_coarse_grid():
    # growing 3x from 200 passes 5,400 and fails 16,200: the limit between them is bisected to 5%
    plan = search.Plan(start=200, growth=3.0, precision=0.05, max_rate=20000)
    plan = dataclasses.replace(plan, max_steps=search.steps_needed(plan))
    outcome = search.run(plan, step_function(12000))
    assert [s.rate for s in outcome.steps][:5] == [200, 600, 1800, 5400, 16200]
    assert 12000 / 1.05 <= outcome.best.rate <= 12000


def test_the_rate_found_is_confirmed_with_one_sustained_step():
    log = []
    plan = search.Plan(start=1000, precision=0.05, max_steps=20, confirmations=3, confirm_s=120.0)
    outcome = search.run(plan, step_function(7300, log))
    found = outcome.found.rate
    assert log[-1] == (found, 120.0) and all(seconds is None for _, seconds in log[:-1])
    assert outcome.best.confirmation and outcome.best.rate == found
    assert outcome.refused == []
    assert outcome.best_within(search.PROMPT_P99_MS) is outcome.best, "only a confirmed rate counts there too"


def sustained_limit(short_limit: int, long_limit: int):
    """A system that passes short steps up to `short_limit` but holds only `long_limit` for 120 s."""
    def measure(rate: int, seconds: float | None = None) -> search.Step:
        return simulated(long_limit if seconds else short_limit)(rate)
    return measure


def late_when_long(short_limit: int):
    """A system that passes short steps up to `short_limit` and completes every long step, but late."""
    def measure(rate: int, seconds: float | None = None) -> search.Step:
        if not seconds:
            return simulated(short_limit)(rate)
        attempts = int(rate * seconds)
        counts = stats.Counts(created=attempts, successful=attempts)
        return search.judge(rate, attempts, counts, float(rate), 1.0, 150.0)
    return measure


def test_a_failed_confirmation_steps_down_to_what_the_system_completed():
    plan = search.Plan(start=1000, precision=0.05, max_steps=20, confirmations=2)
    outcome = search.run(plan, sustained_limit(8000, 5000))
    confirmations = [s for s in outcome.steps if s.confirmation]
    found = outcome.found.rate
    assert confirmations[0].rate == found and not confirmations[0].passed
    # it completed 5000/found of its calls: the next confirmation offers 5% below that
    assert confirmations[1].rate == search.after_refusal(confirmations[0])
    assert 0.95 * 5000 - 1 <= confirmations[1].rate <= 0.95 * 5000 and confirmations[1].passed
    assert outcome.best is confirmations[1]
    assert len(outcome.refused) == 1


def test_failed_confirmations_that_completed_everything_step_down_10_then_20_percent():
    plan = search.Plan(start=1000, precision=0.05, max_steps=20, confirmations=3)
    outcome = search.run(plan, late_when_long(8000))
    confirmations = [s for s in outcome.steps if s.confirmation]
    found = outcome.found.rate
    assert [s.rate for s in confirmations] == [found, math.floor(found * 0.9), math.floor(math.floor(found * 0.9) * 0.8)]


def late_above(short_limit: int, long_limit: int):
    """A system that passes short steps up to `short_limit` and completes every long step, but whose p99
    crosses the bound just (104 ms) above `long_limit`: one Chord node's confirmations in the example run."""
    def measure(rate: int, seconds: float | None = None) -> search.Step:
        if not seconds:
            return simulated(short_limit)(rate)
        attempts = int(rate * seconds)
        counts = stats.Counts(created=attempts, successful=attempts)
        return search.judge(rate, attempts, counts, float(rate), 4.0, 104.0 if rate > long_limit else 60.0)
    return measure


@pytest.mark.parametrize("below", [0.10, 0.15, 0.20, 0.25])
def test_a_sustained_limit_10_to_25_percent_below_the_short_steps_is_confirmed_within_15_percent(below):
    plan = search.Plan(start=1000, precision=0.05, max_steps=20, confirmations=4)
    sustained = int(7300 * (1 - below))
    for system in (late_above(7300, sustained), sustained_limit(7300, sustained)):
        outcome = search.run(plan, system)
        confirmations = [s.rate for s in outcome.steps if s.confirmation]
        assert outcome.best is not None and outcome.best.confirmation, confirmations
        assert 0.85 * sustained <= outcome.best.rate <= sustained, confirmations
        assert len(confirmations) <= 4


def test_a_sustained_limit_30_percent_below_is_still_confirmed_below_it():
    plan = search.Plan(start=1000, precision=0.05, max_steps=20, confirmations=4)
    outcome = search.run(plan, late_above(7300, int(7300 * 0.7)))
    assert outcome.best is not None and outcome.best.rate <= int(7300 * 0.7)


def test_once_a_confirmation_holds_the_next_bisect_towards_the_lowest_refusal():
    plan = search.Plan(start=1000, precision=0.05, max_steps=20, confirmations=6)
    outcome = search.run(plan, late_above(10000, 8000))
    rates = [s.rate for s in outcome.steps if s.confirmation]
    held = [s.rate for s in outcome.steps if s.confirmation and s.passed]
    refused = [s.rate for s in outcome.refused]
    # down until one holds, then halfway up each time, until within the precision
    assert rates[:3] == [10000, 9000, 7200] and rates[3] == (7200 + 9000) // 2
    assert min(r for r in refused if r > max(held)) - max(held) <= 0.05 * max(held)
    assert outcome.best.rate == max(held) <= 8000


def test_the_budget_ends_the_confirmations_early_and_keeps_what_held():
    plan = search.Plan(start=1000, precision=0.05, max_steps=20, confirmations=6)
    asked = []

    def more(confirmations):
        asked.append(len(confirmations))
        return len(confirmations) < 3

    outcome = search.run(plan, late_above(10000, 8000), more=more)
    assert [s.rate for s in outcome.steps if s.confirmation] == [10000, 9000, 7200]
    assert asked == [1, 2, 3] and outcome.best.rate == 7200


def test_a_rate_that_no_confirmation_holds_is_no_result():
    plan = search.Plan(start=1000, precision=0.05, max_steps=20, confirmations=2)
    outcome = search.run(plan, late_when_long(8000))
    assert outcome.found is not None and outcome.best is None
    assert len(outcome.refused) == 2
    assert runner.search_note(outcome, plan).startswith("not confirmed:")


def noisy(limit: int, p: float, seed: int):
    """A system clean below 95% of `limit`, losing what it cannot carry above `limit`, and between them
    passing a step with probability `p` and otherwise losing 2% (a noisy system near its limit), seeded."""
    rng = random.Random(seed)
    server = simulated(10**9)
    overloaded = simulated(limit)

    def failing(rate: int) -> search.Step:
        attempts = rate * 10
        counts = stats.Counts(created=attempts, successful=int(attempts * 0.98), failed=attempts - int(attempts * 0.98))
        return search.judge(rate, attempts, counts, float(rate), 1.0, 2.0)

    def measure(rate: int, seconds: float | None = None) -> search.Step:
        if rate <= 0.95 * limit:
            return server(rate)
        if rate > limit:
            return overloaded(rate)
        return server(rate) if rng.random() < p else failing(rate)
    return measure


@pytest.mark.parametrize("seed", range(20))
def test_a_noisy_system_is_confirmed_near_its_limit_or_refused(seed):
    plan = search.Plan(start=1000, precision=0.05, max_steps=20, confirmations=3)
    outcome = search.run(plan, noisy(7300, 0.5, seed))
    best = outcome.best
    if best is None:   # refused: every confirmation failed, and the note says so
        assert len(outcome.refused) == 3
    else:              # confirmed: a rate held by a confirmation, never above the limit
        assert best.confirmation and best.rate <= 7300
        assert best.rate >= 0.95 * 7300 * (0.98 * 0.95) ** 2
    assert all(s.rate <= outcome.found.rate for s in outcome.steps if s.confirmation)


def test_a_noisy_system_that_always_passes_near_its_limit_is_confirmed_at_once():
    outcome = search.run(search.Plan(start=1000, precision=0.05, max_steps=20, confirmations=3), noisy(7300, 1.0, 0))
    assert [s.passed for s in outcome.steps if s.confirmation] == [True]
    assert 7300 / 1.05 <= outcome.best.rate <= 7300


def test_a_noisy_system_that_never_holds_near_its_limit_is_confirmed_below_the_noise():
    outcome = search.run(search.Plan(start=1000, precision=0.05, max_steps=20, confirmations=3), noisy(7300, 0.0, 0))
    assert outcome.best is not None and outcome.best.rate <= 0.95 * 7300


def test_after_refusal_follows_the_share_completed_but_never_below_half():
    def failed(rate, successful):
        attempts = rate * 120
        return search.Step(rate, attempts, stats.Counts(created=attempts, successful=int(attempts * successful)),
                           float(rate), 1.0, 150.0, False, "failed", confirmation=True)
    assert search.after_refusal(failed(1625, 0.59)) == math.floor(1625 * 0.59 * 0.95)
    assert search.after_refusal(failed(10000, 1.0)) == 9000            # late, not lost: 10% lower
    assert search.after_refusal(failed(10000, 1.0), 2) == 8000         # then 20%
    assert search.after_refusal(failed(10000, 1.0), 3) == 6000         # then 40%
    assert search.after_refusal(failed(10000, 1.0), 5) == 5000         # never more than half
    assert search.after_refusal(failed(10000, 0.0)) == 4750            # stalled: half, 5% lower
    retransmitted = dataclasses.replace(failed(968, 0.99), p99_ms=3544.0)
    assert search.after_refusal(retransmitted) == math.floor(968 * 0.80)   # lost and retransmitted: 20% lower


def cold_then_warm(limit: int):
    """A system whose very first step meets cold code and fails; warm, it carries `limit`."""
    calls = {"n": 0}

    def measure(rate: int, seconds: float | None = None) -> search.Step:
        calls["n"] += 1
        return simulated(0 if calls["n"] == 1 else limit)(rate)
    return measure


def test_the_first_failure_is_measured_again_and_a_passing_repeat_lifts_the_search_above_it():
    plan = search.Plan(start=1000, precision=0.05, max_steps=12, retry_first_failure=True)
    outcome = search.run(plan, cold_then_warm(7300))
    assert [s.rate for s in outcome.steps[:2]] == [1000, 1000] and not outcome.steps[0].passed
    assert 7300 / 1.05 <= outcome.best.rate <= 7300
    # without the repeat the search settles below its cold first step for good
    assert search.run(replace(plan, retry_first_failure=False), cold_then_warm(7300)).best.rate < 1000
    # only the first failure is measured again
    failed = [s.rate for s in search.run(plan, simulated(3000)).steps if not s.passed]
    assert len(failed) == len(set(failed)) + 1

"""Reading SIPp's statistics and response-time files, on files recorded here (tests/data/README.md)."""
from pathlib import Path

import pytest

from sipbench import stats

DATA = Path(__file__).parent / "data"


def test_cumulative_counters_of_a_passing_registration_step_are_read_from_the_last_row():
    counts = stats.final_counts(DATA / "register-pass" / "stat-0.stat.csv")
    assert (counts.created, counts.successful, counts.failed) == (1500, 1500, 0)
    assert counts.max_udp_retrans == 0
    assert 2.5 < counts.elapsed_s < 4.5


def test_failures_by_receive_timeout_and_retransmissions_are_counted_apart():
    counts = stats.final_counts(DATA / "call-overload" / "stat-0.stat.csv")
    assert (counts.created, counts.successful, counts.failed) == (3000, 2756, 244)
    assert counts.timeout_on_recv == 244
    assert counts.max_udp_retrans == 0
    assert counts.retransmissions == 727


def test_a_dead_target_shows_as_retransmission_timeouts():
    counts = stats.final_counts(DATA / "register-dead" / "stat-0.stat.csv")
    assert counts.successful == 0
    assert counts.max_udp_retrans == counts.created == 40


def test_creation_time_is_the_first_dump_where_every_call_exists():
    seconds = stats.creation_seconds(DATA / "register-pass" / "stat-0.stat.csv", 1500)
    assert seconds is not None and 2.5 < seconds < 4.5
    assert stats.creation_seconds(DATA / "register-pass" / "stat-0.stat.csv", 1501) is None


def test_a_half_written_last_row_is_ignored(tmp_path):
    text = (DATA / "register-pass" / "stat-0.stat.csv").read_text(encoding="latin-1")
    lines = text.splitlines()
    partial = tmp_path / "partial.csv"
    partial.write_text("\n".join(lines[:2]) + "\n" + lines[-1][:40], encoding="latin-1")
    rows = stats.read_rows(partial)
    assert len(rows) == 1
    assert stats.final_counts(partial).created < 1500


def test_missing_or_empty_files_read_as_nothing(tmp_path):
    assert stats.final_counts(tmp_path / "absent.csv") == stats.Counts()
    (tmp_path / "empty.csv").write_text("")
    assert stats.read_rows(tmp_path / "empty.csv") == []
    assert stats.read_response_times(tmp_path / "absent_rtt.csv") == []


def test_response_times_are_read_in_milliseconds():
    times = stats.read_response_times(DATA / "register-pass" / "register_rtt.csv")
    assert len(times) == 1500
    assert all(t >= 0 for t in times)
    overload = stats.read_response_times(DATA / "call-overload" / "uac_rtt.csv")
    assert max(overload) > 1000  # calls waited for retransmissions


@pytest.mark.parametrize("p,expected", [(50, 50), (99, 99), (100, 100), (1, 1), (0, 1)])
def test_percentile_is_nearest_rank(p, expected):
    assert stats.percentile([float(v) for v in range(100, 0, -1)], p) == expected


def test_percentile_of_nothing_is_none():
    assert stats.percentile([], 50) is None


def test_sipp_durations_and_dates():
    assert stats.duration_seconds("00:01:02") == 62
    assert stats.duration_seconds("01:00:00:500000") == 3600.5
    assert stats.epoch_seconds("2026-11-22\t21:39:13.210451\t1795383553.210451") == pytest.approx(1795383553.210451)
    with pytest.raises(ValueError):
        stats.duration_seconds("12")

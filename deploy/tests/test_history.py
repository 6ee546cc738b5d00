"""The history checker on hand-made histories: each kind of violation, and the legal histories
that look like one (concurrent writes, operations without an answer, expiry)."""
import pytest

from p2psip_deploy import history
from p2psip_deploy.history import ADD, QUERY, REMOVE, REMOVE_ALL, Operation

AOR = "sip:alice@p2psip.test"
A, B = "sip:alice@10.0.0.1:5060", "sip:alice@10.0.0.2:5060"


class Ops:
    """Builds a history: each call one operation, ids in order."""

    def __init__(self):
        self.ops = []

    def op(self, kind, start, end, contact=None, expires=None, listed=None, status=200, reason="OK", node="n0"):
        if end is None:
            status, reason = None, ""
        listed = None if status != 200 else {c: 3600 for c in (listed or [])}
        op = Operation(id=len(self.ops) + 1, client="c1", node=node, aor=AOR, kind=kind, invoked=start,
                       contact=contact, expires=expires, completed=end, status=status, reason=reason, listed=listed)
        self.ops.append(op)
        return op

    def add(self, contact, start, end, listed, expires=3600, **kw):
        return self.op(ADD, start, end, contact, expires, listed, **kw)

    def remove(self, contact, start, end, listed=(), **kw):
        return self.op(REMOVE, start, end, contact, None, listed, **kw)

    def query(self, start, end, listed, **kw):
        return self.op(QUERY, start, end, listed=listed, **kw)

    def check(self):
        return history.check(self.ops)


def kinds(verdict):
    return [v.kind for v in verdict.violations]


def test_an_acknowledged_add_missing_from_a_later_read_is_a_lost_write():
    h = Ops()
    w = h.add(A, 0, 1, [A])
    r = h.query(2, 3, [])
    verdict = h.check()
    assert kinds(verdict) == [history.LOST]
    assert verdict.violations[0].read is r and verdict.violations[0].witnesses == [w]
    assert verdict.lost == 1 and verdict.stale == 0


def test_a_removal_concurrent_with_the_add_explains_its_absence():
    h = Ops()
    h.add(A, 0, 2, [A])
    h.remove(A, 1, 3)
    h.query(4, 5, [])
    assert kinds(h.check()) == []


def test_a_removal_without_an_answer_explains_its_absence_even_invoked_later():
    h = Ops()
    h.add(A, 0, 1, [A])
    h.remove(A, 1.5, None)
    h.query(4, 5, [])
    assert kinds(h.check()) == []


def test_a_refused_removal_explains_nothing():
    h = Ops()
    h.add(A, 0, 1, [A])
    h.remove(A, 1.5, 1.6, status=503, reason="Not Ready")
    h.query(4, 5, [])
    assert kinds(h.check()) == [history.LOST]


def test_a_503_after_the_dht_was_late_may_have_written():
    h = Ops()
    h.add(A, 0, 1, [A])
    h.remove(A, 1.5, 3.6, status=503, reason="DHT Timeout")
    h.query(4, 5, [])
    assert kinds(h.check()) == []


def test_a_removal_before_the_add_explains_nothing():
    h = Ops()
    h.remove(A, 0, 1)
    h.add(A, 2, 3, [A])
    h.query(4, 5, [])
    assert kinds(h.check()) == [history.LOST]


def test_an_add_after_a_removal_is_lost_when_a_later_read_misses_it():
    h = Ops()
    h.add(A, 0, 1, [A])
    h.remove(A, 2, 3)
    again = h.add(A, 4, 5, [A])
    h.query(6, 7, [])
    verdict = h.check()
    assert kinds(verdict) == [history.LOST] and verdict.violations[0].witnesses == [again]


def test_a_removal_concurrent_with_the_last_of_two_adds_explains_the_absence():
    h = Ops()
    h.add(A, 0, 1, [A])
    h.add(A, 2, 3, [A])
    h.remove(A, 2.5, 3.5)
    h.query(6, 7, [])
    assert kinds(h.check()) == []


def test_remove_all_clears_every_contact():
    h = Ops()
    h.add(A, 0, 1, [A])
    h.add(B, 1, 2, [A, B])
    h.op(REMOVE_ALL, 3, 4, listed=[])
    h.query(5, 6, [])
    assert kinds(h.check()) == []


def test_an_expired_binding_may_be_missing():
    h = Ops()
    h.add(A, 0, 1, [A], expires=60)
    h.query(61, 62, [])
    assert kinds(h.check()) == []


def test_a_shorter_refresh_that_expired_explains_the_absence():
    h = Ops()
    h.add(A, 0, 1, [A], expires=3600)
    h.add(A, 2, 3, [A], expires=60)
    h.query(70, 71, [])
    assert kinds(h.check()) == []


def test_a_read_concurrent_with_the_add_may_miss_it():
    h = Ops()
    h.add(A, 0, 2, [A])
    h.query(1, 3, [])
    assert kinds(h.check()) == []


def test_an_acknowledged_add_whose_own_answer_omits_its_contact_is_lost():
    h = Ops()
    h.add(A, 0, 1, [])
    assert kinds(h.check()) == [history.LOST]


def test_a_removed_contact_that_a_later_read_lists_came_back():
    h = Ops()
    h.add(A, 0, 1, [A])
    d = h.remove(A, 2, 3)
    h.query(4, 5, [A])
    verdict = h.check()
    assert kinds(verdict) == [history.STALE]
    assert d in verdict.violations[0].witnesses
    assert verdict.stale == 1 and verdict.lost == 0


def test_an_add_concurrent_with_the_removal_explains_the_contact():
    h = Ops()
    h.add(A, 0, 1, [A])
    h.remove(A, 2, 4)
    h.add(A, 3, 5, [A])
    h.query(6, 7, [A])
    assert kinds(h.check()) == []


def test_an_add_without_an_answer_may_land_long_after_the_removal():
    h = Ops()
    h.add(A, 0, None, None)
    h.remove(A, 2, 3)
    h.query(40, 41, [A])
    assert kinds(h.check()) == []


def test_a_late_add_of_another_contact_explains_that_contact_not_the_removed_one():
    """The kept fault run's shape: B removed by an acknowledged `Contact: *` while an add of A
    timed out (503 DHT Timeout: it may land any time later). A read listing A is explained by the
    late add; one listing B too is stale, since the add named A only: had it landed on the record
    as the store held it after the removal, B would be gone."""
    h = Ops()
    h.add(B, 0, 1, [B])
    h.add(A, 2, 4, None, status=503, reason="DHT Timeout")
    h.op(REMOVE_ALL, 3, 3.5, listed=[])
    h.query(6, 7, [A])
    assert kinds(h.check()) == []
    stale = h.query(8, 9, [A, B])
    verdict = h.check()
    assert kinds(verdict) == [history.STALE]
    assert verdict.violations[0].read is stale and verdict.violations[0].contact == B


def test_a_refused_add_explains_nothing():
    h = Ops()
    h.add(A, 0, 1, [A])
    h.remove(A, 2, 3)
    h.add(A, 3.5, 3.6, None, status=500, reason="Out of Order Request")
    h.query(4, 5, [A])
    assert kinds(h.check()) == [history.STALE]


def test_a_binding_listed_after_it_surely_expired_is_stale():
    h = Ops()
    h.add(A, 0, 1, [A], expires=60)
    h.query(70, 71, [A])
    assert kinds(h.check()) == [history.STALE]


def test_a_binding_listed_while_it_may_still_live_is_fine():
    h = Ops()
    h.add(A, 0, 1, [A], expires=60)
    h.query(60.5, 61, [A])
    assert kinds(h.check()) == []


def test_a_removal_whose_own_answer_lists_the_contact_is_stale():
    h = Ops()
    h.add(A, 0, 1, [A])
    h.remove(A, 2, 3, [A])
    assert kinds(h.check()) == [history.STALE]


def test_a_contact_no_add_ever_named_was_never_written():
    h = Ops()
    h.add(A, 0, 1, [A])
    h.query(2, 3, [A, B])
    assert kinds(h.check()) == [history.NEVER_WRITTEN]


def test_a_contact_whose_only_add_was_refused_was_never_written():
    h = Ops()
    h.add(A, 0, 1, None, status=403, reason="Too Many Registered Contacts")
    h.query(2, 3, [A])
    assert kinds(h.check()) == [history.NEVER_WRITTEN]


def test_a_contact_whose_add_was_invoked_after_the_read_was_never_written_for_it():
    h = Ops()
    h.query(0, 1, [B])
    h.add(B, 2, 3, [B])
    assert kinds(h.check()) == [history.NEVER_WRITTEN]


def test_a_read_through_another_node_counts_the_same():
    h = Ops()
    h.add(A, 0, 1, [A], node="n0")
    h.query(2, 3, [], node="n3")
    assert kinds(h.check()) == [history.LOST]


def test_aors_are_checked_apart():
    h = Ops()
    h.add(A, 0, 1, [A])
    other = h.query(2, 3, [])
    other.aor = "sip:bob@p2psip.test"
    assert kinds(h.check()) == []


def test_failures_are_counted_by_kind_and_answer():
    h = Ops()
    h.add(A, 0, 1, None, status=503, reason="Not Ready")
    h.add(A, 1, 2, None, status=503, reason="Not Ready")
    h.query(2, None, None)
    verdict = h.check()
    assert verdict.failures == {(ADD, "503 Not Ready"): 2, (QUERY, "no answer"): 1}
    assert (verdict.acknowledged, verdict.failed, verdict.unknown) == (0, 2, 1)
    assert "503 Not Ready" in verdict.report()


def test_the_report_lists_each_violation_with_its_operations():
    h = Ops()
    h.add(A, 0, 1, [A])
    h.query(2, 3, [])
    report = h.check().report()
    assert "lost-write: sip:alice@p2psip.test contact sip:alice@10.0.0.1:5060, read by operation 2" in report
    assert '"id": 1' in report and '"id": 2' in report


def test_a_history_file_round_trips(tmp_path):
    h = Ops()
    h.add(A, 0, 1, [A])
    h.query(2, None, None)
    path = tmp_path / "history.jsonl"
    path.write_text("".join(op.to_json() + "\n" for op in h.ops))
    assert history.read_history(path) == h.ops


@pytest.mark.parametrize("fields, message", [
    ({"kind": "update"}, "kind"),
    ({"kind": ADD, "contact": None}, "names no contact"),
    ({"kind": ADD, "contact": A, "expires": 0}, "expires > 0"),
    ({"kind": QUERY, "completed": 1.0}, "completion"),
    ({"kind": QUERY, "completed": -1.0, "status": 200}, "before it was invoked"),
])
def test_a_malformed_operation_is_refused_with_the_reason(fields, message):
    with pytest.raises(ValueError, match=message):
        Operation(**{"id": 1, "client": "c", "node": "n", "aor": AOR, "invoked": 0.0, **fields})


def test_a_bad_history_line_names_its_line(tmp_path):
    path = tmp_path / "history.jsonl"
    path.write_text('{"id": 1}\n')
    with pytest.raises(ValueError, match="history.jsonl:1"):
        history.read_history(path)

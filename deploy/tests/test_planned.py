"""The requests of a fault run during its planned changes: the windows from the fault log, and a
request (an operation and its retries) failed when its last transaction got no 200."""
from p2psip_deploy import faults, planned
from p2psip_deploy.history import ADD, QUERY, Operation


def op(id, invoked, status, retry_of=None, kind=QUERY):
    completed = None if status is None else invoked + 0.5
    return Operation(id=id, client="c", node="node-0", aor="sip:a@p2psip.test", kind=kind, invoked=invoked,
                     contact="sip:a@192.0.2.1:5060" if kind == ADD else None, expires=60 if kind == ADD else None,
                     completed=completed, status=status, reason="", listed={} if status == 200 else None,
                     retry_of=retry_of)


def event(kind, name, time, at=10.0):
    return {"time": time, "event": name, "at": at, "kind": kind, "node": 0, "hold": 0}


def test_a_planned_change_lasts_from_its_start_to_its_end_and_faults_are_no_planned_change():
    events = [event(faults.PAUSE, "start", 5), event(faults.PAUSE, "healed", 9),
              event(faults.ADD, "start", 10), event(faults.ADD, "done", 40),
              event(faults.REMOVE, "start", 50, at=60.0), event(faults.REMOVE, "failed", 55, at=60.0),
              event(faults.ROLLING, "start", 70, at=80.0)]
    found = planned.windows(events, faults.PLANNED)
    assert [(w.kind, w.start, w.end, w.done) for w in found] == [
        (faults.ADD, 10, 40, True), (faults.REMOVE, 50, 55, False), (faults.ROLLING, 70, 70, False)]
    tally = planned.tally([op(1, 52, 200)], found)
    assert tally.unfinished == [faults.REMOVE, faults.ROLLING]
    assert tally.line() == "planned: add requests 0 failed 0, remove requests 1 failed 0 (not done), " \
                           "rolling requests 0 failed 0 (not done)"


def test_a_request_retried_to_a_200_succeeded_and_one_whose_last_try_failed_is_counted_with_its_change():
    during = [planned.Window(faults.ADD, 10, 20), planned.Window(faults.REMOVE, 30, 40)]
    operations = [op(1, 12, 503), op(2, 25, 200, retry_of=1),      # sent during add, retried after it: ok
                  op(3, 15, 503), op(4, 17, 503, retry_of=3),      # its last try refused: failed
                  op(5, 31, None),                                  # no answer during remove: failed
                  op(6, 35, 200, kind=ADD),                         # ok
                  op(7, 45, 503)]                                   # after every change: not counted
    tally = planned.tally(operations, during)
    assert tally.requests == {faults.ADD: 2, faults.REMOVE: 2}
    assert tally.failed == {faults.ADD: [4], faults.REMOVE: [5]}
    assert tally.failed_count == 2
    assert tally.line() == "planned: add requests 2 failed 1, remove requests 2 failed 1"


def test_a_run_without_planned_changes_has_no_line():
    assert planned.tally([op(1, 1, 200)], []).line() == ""


def test_each_kind_of_fault_counts_the_requests_sent_while_it_held_and_how_long_after_its_heal_they_failed():
    from p2psip_deploy import recovery
    events = [event(faults.PAUSE, "start", 10), event(faults.PAUSE, "healed", 20),
              event(faults.ADD, "start", 30, at=30.0), event(faults.ADD, "done", 60, at=30.0),
              event(faults.KILL, "start", 70, at=70.0), event(faults.KILL, "healed", 90, at=70.0)]
    operations = [op(1, 5, 503),                                 # before any fault: not counted
                  op(2, 12, 503), op(3, 24, 503, retry_of=2),     # sent during the pause, its retry failed at 24.5
                  op(4, 15, 200),                                 # during the pause, ok
                  op(5, 22, None),                                # after the heal, before the add: unanswered
                  op(6, 75, 200), op(7, 80, 503), op(8, 86, 200, retry_of=7),   # kill: retried to a 200
                  op(9, 95, 200)]
    found = recovery.tally(operations, events, (faults.KILL, faults.PAUSE))
    assert found.kinds[faults.PAUSE] == recovery.Kind(faults=1, requests=2, failed=1, recovered_s=4.5)
    assert found.kinds[faults.KILL] == recovery.Kind(faults=1, requests=2, failed=0, recovered_s=0.0)
    assert faults.ADD not in found.kinds
    assert found.line() == "during faults: pause 1 requests 2 failed 1 recovered 4.5 s, " \
                           "kill 1 requests 2 failed 0 recovered 0.0 s"
    assert recovery.tally(operations, [], (faults.KILL,)).line() == ""

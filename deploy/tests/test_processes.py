"""Process records: only the recorded process is signalled, and stop ends it."""
import os

from p2psip_deploy import processes


def record_of(pid, ticks, tmp_path):
    return processes.Process("node", "memory", "127.0.0.1", 1, pid, ticks, str(tmp_path))


def test_a_pid_whose_start_time_changed_is_not_ours(tmp_path):
    me = record_of(os.getpid(), processes.start_ticks(os.getpid()) + 1, tmp_path)
    assert not processes.alive(me)
    assert processes.stop([me], grace_seconds=1) == []   # and it is left alone: we are still here


def test_stop_ends_a_launched_process_and_records_survive_a_reload(tmp_path):
    pid, ticks = processes.launch(["sleep", "60"], tmp_path / "sleep.log", tmp_path)
    processes.record(tmp_path, record_of(pid, ticks, tmp_path))
    recorded = processes.load(tmp_path)
    assert [p.pid for p in recorded] == [pid] and processes.alive(recorded[0])
    assert processes.stop(recorded, grace_seconds=5) == []
    assert not processes.alive(recorded[0])


def test_a_bound_port_is_not_free(tmp_path):
    import socket
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as taken:
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
        assert not processes.port_free("127.0.0.1", port)


def test_kill_ends_a_process_at_once_and_keeps_its_record(tmp_path):
    # sleep ignores nothing, but a TERM handler would not matter: KILL cannot be caught
    pid, ticks = processes.launch(["sh", "-c", "trap '' TERM; sleep 60"], tmp_path / "sh.log", tmp_path)
    processes.record(tmp_path, record_of(pid, ticks, tmp_path))
    assert processes.kill(processes.load(tmp_path)[0])
    assert not processes.alive(processes.load(tmp_path)[0])
    assert [p.pid for p in processes.load(tmp_path)] == [pid]

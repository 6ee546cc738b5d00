"""What the bench does after a failed confirmation, before the next: the rest, then Kamailio started
afresh with the callee registered again, or each JVM of a deployment collected in full."""
from sipbench import runner, search
from sipbench.sipp import Timing


class Recorder:
    def __init__(self, calls, name, pids=()):
        self.calls, self.name, self._pids = calls, name, list(pids)

    def stop(self):
        self.calls.append((self.name, "stop"))

    def start(self):
        self.calls.append((self.name, "start"))

    def register(self, registrars):
        self.calls.append((self.name, "register", [(t.host, t.port) for t in registrars]))

    def pids(self):
        return self._pids


def bench_runner(tmp_path):
    settings = runner.Settings(timing=Timing(step_s=1), plan=search.Plan())
    return runner.Runner(settings, tmp_path / "out", tmp_path / "work", processes=None)


def test_kamailio_starts_afresh_and_the_callee_registers_with_it_again(tmp_path):
    calls = []
    bench = bench_runner(tmp_path)
    bench._kamailio, bench._callee = Recorder(calls, "kamailio"), Recorder(calls, "callee")
    bench._settle()
    assert calls == [("kamailio", "stop"), ("kamailio", "start"),
                     ("callee", "register", [("127.0.0.1", bench.settings.kamailio_port)])]


def test_each_jvm_of_a_deployment_is_collected_in_full_and_nothing_restarts(tmp_path, monkeypatch):
    collected, calls = [], []
    monkeypatch.setattr(runner, "full_collection", collected.append)
    bench = bench_runner(tmp_path)
    bench._deployment, bench._callee = Recorder(calls, "deployment", pids=[101, 102]), Recorder(calls, "callee")
    bench._settle()
    assert collected == [101, 102]
    assert calls == [], "the nodes keep running and the callee keeps its binding"


def test_a_jvm_gone_is_no_error():
    runner.full_collection(2 ** 22 + 12345)   # no such process: jcmd fails, the bench goes on

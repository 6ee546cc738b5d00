"""bench/simulate's report mode: it reads the simulator's summary line and writes one row per run."""
import importlib.machinery
import importlib.util
from pathlib import Path

LAUNCHER = Path(__file__).resolve().parents[1] / "simulate"


def load():
    loader = importlib.machinery.SourceFileLoader("simulate_launcher", str(LAUNCHER))
    spec = importlib.util.spec_from_loader("simulate_launcher", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_the_summary_line_is_read_as_the_simulator_prints_it() -> None:
    launcher = load()
    m = launcher.SUMMARY.match("simulate: backend chord nodes 1000 correct 99.87% hops-median 5 hops-p99 8 "
                               "maintenance-bytes-per-node-s 512 lost 0")
    assert m and m[1] == "chord" and m[2] == "1000" and m[3] == "99.87" and m[6] == "512" and m[7] == "0"


def test_the_report_has_a_row_per_run_with_chords_bound(tmp_path: Path, monkeypatch) -> None:
    launcher = load()
    runs = []

    def fake(args):
        runs.append(args)
        nodes = args[args.index("--nodes") + 1]
        backend = args[args.index("--backend") + 1]
        if backend == "bryan":
            return 1, ""
        return 0, (f"simulate: backend {backend} nodes {nodes} correct 100.00% hops-median 3 hops-p99 6 "
                   "maintenance-bytes-per-node-s 480 lost 0")

    monkeypatch.setattr(launcher, "simulate", fake)
    code = launcher.report(["--duration", "1", "--seed", "1", "--backends", "chord,bryan", "--sizes", "100",
                            "--session-times", "0,10"], tmp_path)
    table = (tmp_path / "report.md").read_text()
    assert code == 1 and len(runs) == 4
    assert "| chord | 100 | 10 | 100.00% | 3 | 4.3 | 6 | 480 | 0 |" in table
    assert "| bryan | 100 | 0 | failed (exit 1) |" in table

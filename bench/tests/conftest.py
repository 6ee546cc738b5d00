"""Makes bench/sipbench, sipp-scenarios/sipphelp and deploy/p2psip_deploy importable from the tests,
wherever pytest is started, as bench/run does."""
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO / "bench"), str(REPO / "sipp-scenarios"), str(REPO / "deploy")]

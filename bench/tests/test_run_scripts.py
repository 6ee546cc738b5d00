"""Every program of sipp-scenarios/ imports sipphelp, the package beside the scenario folders, from
any working directory (as the integration tests and deploy/p2psip start them); --help needs no SIPp."""
import subprocess
from pathlib import Path

import pytest

SCENARIOS = Path(__file__).resolve().parents[2] / "sipp-scenarios"
PROGRAMS = sorted([*SCENARIOS.glob("*/run"), SCENARIOS / "register" / "make-users"])


def test_every_scenario_folder_is_found():
    assert {p.parent.name for p in PROGRAMS} >= {"auth", "avalanche", "call", "options", "register"}


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: str(p.relative_to(SCENARIOS)))
def test_a_program_starts_from_elsewhere(program, tmp_path):
    done = subprocess.run([str(program), "--help"], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout

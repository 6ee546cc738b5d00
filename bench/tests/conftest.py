"""Makes bench/sipbench, sipp-scenarios/sipphelp and deploy/p2psip_deploy importable from the tests,
wherever pytest is started, as bench/run does; and keeps the tests marked `matrix` (real runs of a
minute or more) out of the default run, as deploy/tests does: `pytest bench/tests --matrix` runs them."""
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO / "bench"), str(REPO / "sipp-scenarios"), str(REPO / "deploy")]


def pytest_addoption(parser):
    try:
        parser.addoption("--matrix", action="store_true",
                         help="also the tests marked matrix (real runs too long for the default run's budget)")
    except ValueError:
        pass   # deploy/tests' conftest, collected in the same run, added it already


def pytest_configure(config):
    config.addinivalue_line("markers", "matrix: the matrix run's only (pytest bench/tests --matrix): real runs "
                                       "too long for the default run's budget")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--matrix"):
        return
    skip = pytest.mark.skip(reason="matrix run only: pytest bench/tests --matrix")
    for item in items:
        if "matrix" in item.keywords:
            item.add_marker(skip)

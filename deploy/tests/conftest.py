import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def pytest_addoption(parser):
    parser.addoption("--matrix", action="store_true",
                     help="also the tests marked matrix (deploy/p2psip test --matrix passes it)")


def pytest_configure(config):
    config.addinivalue_line("markers", "matrix: the matrix run's only (deploy/p2psip test --matrix): "
                                       "slower deployments, kept out of the default run's budget")
    config.addinivalue_line("markers", "faults: the fault runs of four Chord nodes (about four and a half "
                                       "minutes; the longer variant also marked matrix)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--matrix"):
        return
    skip = pytest.mark.skip(reason="matrix run only: deploy/p2psip test --matrix")
    for item in items:
        if "matrix" in item.keywords:
            item.add_marker(skip)

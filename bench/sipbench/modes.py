"""The bench's two modes: the defaults of every setting a run is not given on its command line.

Quick mode is a first look (about four minutes): one node, registration and calls, short steps and
a coarse search. Full mode is the whole matrix: every experiment, 1, 2, 4 and 8 nodes, sustained
steps (120 s) and a finer search. A finished run's settings are read back from its run.tsv (its
mode and command line), since its report can be rebuilt later without the options it ran with.

Immutable data and pure functions.
"""
from __future__ import annotations

import shlex

from . import capacity, experiments

QUICK = dict(experiments=["register", "call"], nodes=[1], step=3.0, start=200, precision=0.35, max_steps=5,
             cooldown=3.0, warmup=15.0, growth=3.0, recv_timeout_ms=4000, overload_step=20.0, avalanche_users=5000,
             capacity_users=capacity.QUICK_USERS, capacity_seconds=capacity.QUICK_SECONDS)
# Full mode's steps are sustained (search.SUSTAINED_S): a rate passes only when held 120 s.
FULL = dict(experiments=list(experiments.ALL), nodes=[1, 2, 4, 8], step=120.0, start=200, precision=0.05,
            max_steps=10, cooldown=15.0, warmup=60.0, growth=2.0, recv_timeout_ms=8000, overload_step=120.0,
            avalanche_users=20000, capacity_users=capacity.FULL_USERS, capacity_seconds=capacity.FULL_SECONDS)
BY_NAME = {"quick": QUICK, "full": FULL}


def search_precision(meta: dict[str, str]) -> float | None:
    """The run's --precision: from its command line, else its mode's default; None when not recorded."""
    return run_setting(meta, "--precision", "precision")


def step_seconds(meta: dict[str, str]) -> float | None:
    """The length of the run's search steps: recorded, else its --step-seconds, else its mode's default."""
    if meta.get("step_seconds"):
        return float(meta["step_seconds"])
    return run_setting(meta, "--step-seconds", "step")


def run_setting(meta: dict[str, str], option: str, mode_key: str) -> float | None:
    """A number option of the run: from its command line, else its mode's default; None when not recorded."""
    words = shlex.split(meta.get("command", ""))
    for index, word in enumerate(words):
        if word == option and index + 1 < len(words):
            return float(words[index + 1])
        if word.startswith(option + "="):
            return float(word.partition("=")[2])
    return BY_NAME.get(meta.get("mode", ""), {}).get(mode_key)

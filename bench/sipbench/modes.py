"""The bench's modes (profiles): the defaults of every setting a run is not given on its command line,
and the settings a verdict needs (`DOCUMENTED`), compared with those a run recorded.

Quick mode is a first look (minutes): one node, registration and calls, short steps, no confirmation.
Headline mode decides the project's headline figures within an hour on a 2-core machine (its plan is
experiments.headline_plan): short search steps, each rate found confirmed in one sustained step.
Full mode is the whole matrix: every experiment, 1, 2, 4 and 8 nodes, sustained steps (120 s) and a
confirmation after each search. All three search to 5% of the limit. A finished run's settings are
read back from its run.tsv (its mode, its recorded settings and its command line), since its report
can be rebuilt later without the options it ran with.

Immutable data and pure functions.
"""
from __future__ import annotations

import shlex

from . import capacity, experiments, search

# max_steps None: as many as a limit anywhere up to --max-rate needs (search.steps_needed); a quick
# search is as fine as a full one (5%), only its steps are shorter and nothing is confirmed.
QUICK = dict(experiments=["register", "call"], nodes=[1], step=3.0, start=200, precision=0.05, max_steps=None,
             cooldown=3.0, warmup=15.0, growth=3.0, recv_timeout_ms=4000, overload_step=20.0, avalanche_users=5000,
             capacity_users=capacity.QUICK_USERS, capacity_seconds=capacity.QUICK_SECONDS, confirmations=0,
             confirm_s=search.SUSTAINED_S, overload_multiples=(2.0, 3.0), retry_first_failure=False,
             budget_minutes=None, start_known=False)
# Full mode's steps are sustained (search.SUSTAINED_S): a rate passes only when held 120 s, and once
# more in its confirmation.
FULL = dict(experiments=list(experiments.ALL), nodes=[1, 2, 4, 8], step=120.0, start=200, precision=0.05,
            max_steps=None, cooldown=15.0, warmup=60.0, growth=2.0, recv_timeout_ms=8000, overload_step=120.0,
            avalanche_users=20000, capacity_users=capacity.FULL_USERS, capacity_seconds=capacity.FULL_SECONDS,
            confirmations=3, confirm_s=search.SUSTAINED_S, overload_multiples=(2.0, 3.0, 5.0),
            retry_first_failure=True, budget_minutes=None, start_known=False)
# Headline mode: 2 s steps only locate the limit, one 120 s step decides it (four confirmations at most:
# down until one holds, then bisecting, search.next_confirmation).
# Nine steps: from 1,000/s a limit up to 8,000/s is reached in 4 and bisected to 5% in 5 more (the
# references' searches get 2 more, to 32,000/s). No warm-up of the bench's own: a node opens warm
# (p2psip.warmup), and the 17 confirmations of 2 minutes leave the steps little room. Its experiments and
# systems are experiments.headline_plan's; its length is cli.worst_minutes' (bench/README.md, "Headline").
# Its budget: optional rows run while they and the required rows left fit in it (budget.py); each search
# starts at the rate the last of its unit found (runner.Settings.start_known).
HEADLINE_MINUTES = 60.0
HEADLINE = dict(experiments=list(experiments.HEADLINE_EXPERIMENTS), nodes=[1], step=2.0, start=1000,
                precision=0.05, max_steps=9, cooldown=1.0, warmup=0.0, growth=2.0, recv_timeout_ms=4000,
                overload_step=60.0, avalanche_users=0, capacity_users=capacity.QUICK_USERS,
                capacity_seconds=capacity.QUICK_SECONDS, confirmations=4, confirm_s=search.SUSTAINED_S,
                overload_multiples=(2.0, 3.0), retry_first_failure=True, budget_minutes=HEADLINE_MINUTES,
                start_known=True)
BY_NAME = {"quick": QUICK, "full": FULL, "headline": HEADLINE}
# The heap of each JVM the rate searches start (nodes and the ceiling app), in every profile: the bench
# finds what the CPU carries, and a call keeps about 12 KB in the container for the 32 s of its
# transactions, so that a node's default 1 GiB (half of it young) holds about 800 calls/s before its
# heap guard refuses (measured: the ceiling app's 120 s confirmation at 843 calls/s failed, 52%
# completed, with 300-360 MB live after each full collection). What a heap holds is deploy's
# business (`up` prints it; deploy/README.md).
RATE_HEAP = "4g"
# Their young generation: a default 1 GiB node's, so that collector pauses stay as short as a default
# node's (they grow with what survives a young collection: with half of 4 GiB young, the ceiling app
# paused 300-600 ms under 1,600 calls/s and no call step held its p99), the old one holding the rest.
RATE_YOUNG = "512m"
# The container ceiling's young generation and G1 pause goal (bench/run's --young is the nodes'): sized so
# that a collection ends before its UDP socket's receive buffer (2 MiB asked, about 3,000 REGISTERs in the
# kernel's accounting) overflows at the 15,000 REGISTER/s and more the ceiling carries for seconds. Each
# REGISTER's transaction lives Timer J, 32 s, in the container, so a young collection copies about every
# transaction begun since the last one: its pause grows with the young generation. With 512 MiB the
# ceiling paused 100-215 ms at 12,000 to 16,000/s and failed three 120 s confirmations there (98.99% at
# 16,000/s, p99 104 ms); a quarter of it collects four times as often and copies a quarter as much, 25-55
# ms, at most a quarter of the 200 ms the buffer holds at 15,000/s. The pause goal (G1's default 200 ms) bounds the mixed
# collections that free the old generation of the transactions that ended, which a fixed young generation
# leaves it. Our nodes keep their RATE_YOUNG: at the 5,000 REGISTER/s and less they carry, the same buffer
# holds 0.6 s, several times their longest pauses.
CEILING_YOUNG = "128m"
CEILING_PAUSE_MS = 50

# What a verdict needs of a run's settings: (recorded key, the documented value, how a run's value may
# differ and still be judged, in words). A search as fine as 5% and a rate confirmed in 120 s; overload
# steps of 60 s at least (past Timer J, 32 s, so the step's second half runs with the transactions of
# its first seconds gone) at 2x and 3x; the clean rate's p99 bounds; a 200 counted as goodput within
# 500 ms (T1, when its client would have retransmitted).
AT_MOST, AT_LEAST, INCLUDES = "at most", "at least", "including"
DOCUMENTED = (("precision", 0.05, AT_MOST), ("confirm_s", search.SUSTAINED_S, AT_LEAST),
              ("max_p99_ms", search.REGISTER_P99_MS, AT_MOST), ("max_call_p99_ms", search.CALL_P99_MS, AT_MOST),
              ("overload_step_s", 60.0, AT_LEAST), ("overload_multiples", (2.0, 3.0), INCLUDES),
              ("good_within_ms", 500.0, AT_MOST))
# The settings the search's verdicts need (the overload experiment's need all of DOCUMENTED).
SEARCH_SETTINGS = ("precision", "confirm_s", "max_p99_ms", "max_call_p99_ms")


def multiples_text(multiples) -> str:
    return ",".join(f"{m:g}" for m in multiples)


def differences(meta: dict[str, str], keys: tuple[str, ...] | None = None) -> list[str]:
    """How the run's recorded settings fall short of the documented ones (of `keys`, all when None), in
    words; empty when every one is as documented or stricter. A setting the run did not record differs."""
    found = []
    for key, documented, how in DOCUMENTED:
        if keys is not None and key not in keys:
            continue
        text = meta.get(key, "")
        if key == "precision" and not text and search_precision(meta) is not None:
            text = f"{search_precision(meta):g}"   # an older run's: its command line, else its mode's then
        wanted = multiples_text(documented) if how == INCLUDES else f"{documented:g}"
        if text in ("", "none"):
            found.append(f"{key} {'none' if text == 'none' else 'not recorded'} (documented: {how} {wanted})")
            continue
        try:
            if how == INCLUDES:
                ok = set(documented) <= {float(x) for x in text.split(",") if x}
            else:
                value = float(text)
                ok = value <= documented if how == AT_MOST else value >= documented
        except ValueError:
            ok = False
        if not ok:
            found.append(f"{key} {text} (documented: {how} {wanted})")
    return found


# The defaults of runs from before run.tsv recorded each setting, by mode: quick mode's search then
# stopped within 35%. A run's report is rebuilt from what it ran with, not from today's defaults.
UNRECORDED = {"quick": dict(precision=0.35, step=3.0), "full": dict(precision=0.05, step=120.0)}


def search_precision(meta: dict[str, str]) -> float | None:
    """The run's search precision: recorded, else its --precision, else its mode's default then; None
    when not known."""
    if meta.get("precision"):
        return float(meta["precision"])
    return run_setting(meta, "--precision", "precision")


def step_seconds(meta: dict[str, str]) -> float | None:
    """The length of the run's search steps: recorded, else its --step-seconds, else its mode's default."""
    if meta.get("step_seconds"):
        return float(meta["step_seconds"])
    return run_setting(meta, "--step-seconds", "step")


def confirmed_s(meta: dict[str, str]) -> float | None:
    """How long the run's confirmation steps held each rate; None when it confirmed none."""
    if int(meta.get("confirmations") or 0) <= 0 or meta.get("confirm_s", "none") in ("", "none"):
        return None
    return float(meta["confirm_s"])


def sustained(meta: dict[str, str]) -> bool:
    """Whether the run's rates were held a sustained step's length: its search steps, or its confirmations."""
    held = max(step_seconds(meta) or 0.0, confirmed_s(meta) or 0.0)
    return held >= search.SUSTAINED_S


def run_setting(meta: dict[str, str], option: str, mode_key: str) -> float | None:
    """A number option of the run: from its command line, else its mode's default; None when not recorded."""
    words = shlex.split(meta.get("command", ""))
    for index, word in enumerate(words):
        if word == option and index + 1 < len(words):
            return float(words[index + 1])
        if word.startswith(option + "="):
            return float(word.partition("=")[2])
    return UNRECORDED.get(meta.get("mode", ""), {}).get(mode_key)

"""The overload experiment's part of the report: its targets, its section of report.md (a table of
targets, one table of steps per deployment, the avalanches) and its figure overload.png.

The targets: goodput (200s within 500 ms) at 2x the clean rate at least 0.9 of the clean rate, at 3x
at least 0.8. Each deployment's verdict reads "met", "not met", or "not judged: <why>": a step not
measured or not offered (generator short), or a run whose settings fall short of the documented
ones (modes.DOCUMENTED: a confirmed clean rate, steps of 60 s at least, ...).

Pure functions of overload.csv's and avalanche.csv's records, apart from writing the figure; safe
from one thread at a time.
"""
from __future__ import annotations

from pathlib import Path

from . import modes, plots
from .experiments import KAMAILIO
from .overload import GOOD_WITHIN_MS, Avalanche, OverloadStep

# (multiple of the clean rate, the goodput there as a share of the clean rate that a deployment keeps)
TARGETS = ((2.0, 0.9), (3.0, 0.8))
PLOT = "overload.png"


def by_deployment(steps: list[OverloadStep]) -> dict[str, list[OverloadStep]]:
    """Steps grouped by deployment (in the order measured), each sorted by multiple."""
    groups: dict[str, list[OverloadStep]] = {}
    for step in steps:
        groups.setdefault(step.deployment, []).append(step)
    return {k: sorted(v, key=lambda s: s.multiple) for k, v in groups.items()}


def goodput_ratio(steps: list[OverloadStep], multiple: float) -> float | None:
    """Goodput at `multiple` as a share of the clean rate; None when that step was not measured or
    SIPp could not offer it (then it is no server result)."""
    step = next((s for s in steps if s.multiple == multiple), None)
    if step is None or step.generator_short or step.clean_rate <= 0:
        return None
    return step.goodput / step.clean_rate


def shorter_steps(steps: list[OverloadStep]) -> str:
    """Steps shorter than the documented overload step, in words; "" when none."""
    documented = dict((key, value) for key, value, _ in modes.DOCUMENTED)["overload_step_s"]
    short = sorted({s.seconds for s in steps if s.seconds < documented})
    if not short:
        return ""
    return f"overload steps of {', '.join(f'{s:g}' for s in short)} s (documented: at least {documented:g})"


def target_cell(steps: list[OverloadStep], multiple: float, minimum: float) -> str:
    """The goodput at `multiple` over the clean rate ('0.93'), or why there is none."""
    step = next((s for s in steps if s.multiple == multiple), None)
    if step is None:
        return "not measured"
    if step.generator_short:
        return f"the generator offered {step.offered_rate:,.0f}/s of {step.rate:,}/s"
    return f"{goodput_ratio(steps, multiple):.2f}"


def verdict(steps: list[OverloadStep], differ: list[str]) -> str:
    """"met" (every target), "not met" (one at least), or "not judged: <why>": a target's step not measured
    or generator short, or the run's settings short of the documented ones (`differ`, modes.differences)."""
    why = []
    # the steps' own length, when the run did not record it as too short already
    short = "" if any(d.startswith("overload_step_s ") for d in differ) else shorter_steps(steps)
    if differ or short:
        why.append("settings differ (" + "; ".join([*differ, *filter(None, [short])]) + ")")
    for multiple, _ in TARGETS:
        step = next((s for s in steps if s.multiple == multiple), None)
        if step is None:
            why.append(f"{multiple:g}x not measured")
        elif step.generator_short:
            why.append(f"{multiple:g}x: the generator offered {step.offered_rate:,.0f}/s of {step.rate:,}/s")
    if why:
        return "not judged: " + "; ".join(why)
    met = all(goodput_ratio(steps, multiple) >= minimum for multiple, minimum in TARGETS)
    return "met" if met else "not met"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def deployment_table(name: str, steps: list[OverloadStep]) -> list[str]:
    clean = steps[0].clean_rate
    lines = [f"#### {name}: clean rate {clean:,} REGISTER/s", "",
             f"| x clean | asked /s | offered /s | goodput (200/s within {GOOD_WITHIN_MS:g} ms) | goodput / clean "
             f"| later 200/s | 503/s | neither /s | p50 ms | p99 ms | p50 ms of 200s | p99 ms of 200s | retransmissions "
             "| note |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in steps:
        note = "generator short: SIPp did not offer the rate; not a server result" if s.generator_short else ""
        lines.append(f"| {s.multiple:g} | {s.rate:,} | {s.offered_rate:,.0f} | {s.goodput:,.0f} "
                     f"| {s.goodput / clean:.2f} | {s.late_per_s:,.0f} | {s.refused_per_s:,.0f} | {s.other_per_s:,.0f} "
                     f"| {_ms(s.p50_ms)} | {_ms(s.p99_ms)} | {_ms(s.p50_200_ms)} | {_ms(s.p99_200_ms)} "
                     f"| {s.retransmissions:,} | {note} |")
    return lines + [""]


def targets_table(groups: dict[str, list[OverloadStep]], differ: list[str], planned: list[str] = ()) -> list[str]:
    """One row per deployment measured, and per deployment `planned` that got no step (no clean rate)."""
    heads = " | ".join(f"goodput at {m:g}x / clean >= {minimum:g}" for m, minimum in TARGETS)
    lines = [f"| deployment | clean rate | {heads} | verdict |", "|---|---|" + "---|" * len(TARGETS) + "---|"]
    for name, steps in groups.items():
        cells = " | ".join(target_cell(steps, m, minimum) for m, minimum in TARGETS)
        lines.append(f"| {name} | {steps[0].clean_rate:,} | {cells} | {verdict(steps, differ)} |")
    for name in (p for p in planned if p not in groups):
        cells = " | ".join("not measured" for _ in TARGETS)
        lines.append(f"| {name} | none: no rate of its search passed (or was confirmed), or the run ended first "
                     f"| {cells} | not judged: no clean rate |")
    return lines + [""]


def avalanche_table(avalanches: list[Avalanche]) -> list[str]:
    kamailio = next((a for a in avalanches if a.system == KAMAILIO and a.all_registered), None)
    lines = ["| deployment | phones | registered | 503s on the way | time to all registered | / Kamailio's |",
             "|---|---|---|---|---|---|"]
    for a in avalanches:
        if a.all_registered:
            took = f"{a.seconds:.1f} s"
            versus = f"{a.seconds / kamailio.seconds:.2f}" if kamailio and kamailio.seconds > 0 else "n/a"
        else:
            took = f"not all registered (SIPp ended after {a.seconds:.1f} s, exit code {a.exit_code})"
            versus = "n/a"
        lines.append(f"| {a.deployment} | {a.users:,} | {a.registered:,} | {a.refusals:,} | {took} | {versus} |")
    return lines + [""]


def section(steps: list[OverloadStep], avalanches: list[Avalanche], differ: list[str],
            planned: list[str] = ()) -> list[str]:
    """report.md's "Overload" section; `differ` says how the run's settings fall short of the documented
    ones (modes.differences), empty when they do not; `planned` names every deployment the experiment
    was to measure (run.tsv), so that one without steps shows too."""
    if not steps and not avalanches and not planned:
        return []
    lines = ["## Overload", ""]
    if steps or planned:
        seconds = ", ".join(f"{s:g}" for s in sorted({s.seconds for s in steps}))
        multiples = sorted({s.multiple for s in steps})
        lines += ["Each deployment was offered REGISTERs open loop at "
                  + ", ".join(f"{m:g}" for m in multiples)
                  + f" times its own clean rate (the highest rate its registration search passed, and confirmed "
                  f"when the run confirms), {seconds} s each. A 503 is a final answer there and the phone does not "
                  f"try again. Goodput: REGISTERs answered 200 within {GOOD_WITHIN_MS:g} ms per second over the step "
                  "(SIPp's time of each REGISTER to its 200, -trace_rtt); a later 200 comes after its client would "
                  "have retransmitted and does not count. \"Neither\": attempts answered neither 200 nor 503 "
                  "(timeouts, other statuses, REGISTERs SIPp never sent). p50 and p99 are of every timed final "
                  "answer (200 and 503), then of the 200s alone; an attempt with no answer or another status has "
                  "no response time. A step SIPp could not offer at 95% of its rate is \"generator short\": the "
                  "load generator, sharing the machine, was measured, not the server.", "",
                  f"![goodput and p99 against offered load]({PLOT})", "",
                  "### Targets under overload", ""]
        groups = by_deployment(steps)
        lines += targets_table(groups, differ, planned)
        for name, group in groups.items():
            lines += deployment_table(name, group)
    if avalanches:
        window = ", ".join(f"{w:g}" for w in sorted({a.window_s for a in avalanches}))
        lines += ["### The registration avalanche", "",
                  f"All phones start registering within {window} s, each obeying the Retry-After of a 503 "
                  "(sipp-scenarios/avalanche's scenario), after the overload steps on the same deployment. "
                  "The time runs from SIPp's start until the last phone was registered; the last column is "
                  "it over Kamailio's in this run.", ""]
        lines += avalanche_table(avalanches)
    return lines


def write_plot(out: Path, steps: list[OverloadStep]) -> Path | None:
    """overload.png: goodput and p99 of the 200s against the offered multiple of the clean rate,
    one line per deployment; steps SIPp could not offer as hollow markers off the lines."""
    if not steps:
        return None
    plt = plots.pyplot()
    from matplotlib.ticker import FuncFormatter, LogFormatter

    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4))
    multiples = sorted({s.multiple for s in steps})
    highest = max(multiples)
    left.plot([0, 1, highest], [0, 1, 1], linestyle=":", color="black", label="ideal: y = x up to the clean rate, then flat")
    left.plot([m for m, _ in TARGETS], [minimum for _, minimum in TARGETS], linestyle="none", marker="_",
              markersize=22, markeredgewidth=2.5, color="red", label="targets (0.9 at 2x, 0.8 at 3x)")
    short_labelled = False
    for index, (name, group) in enumerate(by_deployment(steps).items()):
        color = f"C{index}"
        counted = [s for s in group if not s.generator_short]
        short = [s for s in group if s.generator_short]
        clean = group[0].clean_rate or 1
        left.plot([s.offered_rate / clean for s in counted], [s.goodput / clean for s in counted], marker="o",
                  color=color, label=name)
        timed = [s for s in counted if s.p99_200_ms is not None]
        right.plot([s.multiple for s in timed], [max(s.p99_200_ms, 1) for s in timed], marker="o", color=color,
                   label=name)
        if short:
            label = None if short_labelled else "generator short (not a server result)"
            short_labelled = True
            left.plot([s.offered_rate / clean for s in short], [s.goodput / clean for s in short], marker="o",
                      linestyle="none", markerfacecolor="none", color=color, label=label)
    left.set_xlabel("offered load (x the deployment's clean rate, as SIPp offered it)")
    left.set_ylabel("goodput: 200s per second (x the clean rate)")
    left.set_xlim(0, highest + 0.3)
    left.set_ylim(bottom=0)
    left.set_title("goodput against offered load", fontsize=9)
    right.set_xlabel("offered load (x the deployment's clean rate, as asked)")
    right.set_ylabel("p99 response time of the 200s (ms, log)")
    right.set_yscale("log")
    # 60, not 6 x 10^1; minor ticks labelled only while the axis spans few decades
    right.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    right.yaxis.set_minor_formatter(LogFormatter(labelOnlyBase=False, minor_thresholds=(1.5, 0.5)))
    right.set_xticks(multiples)
    right.set_title("p99 of the 200s against offered load", fontsize=9)
    for axis in (left, right):
        axis.grid(alpha=0.3)
        axis.legend(fontsize=7, loc="best", framealpha=0.8)
    return plots.save(figure, out / PLOT)

"""Turn run outcomes into the result JSON, the console table and the plot.

The JSON that other tools read is exactly::

    {"scenario", "seeds", "config",
     "methods": {NAME: {"phases": {"acquisition" | "reversal":
                                   {"success", "ci95": [lo, hi], "episodes"}},
                        "mpi", "transition_cost", "curve": [...]}},
     "comparisons": [{"a", "b", "phase", "diff", "p_value"}]}

``seeds`` is the number of seeds; ``episodes`` the episodes of the phase in one seed (all
tasks); ``curve`` the mean success by per-task episode index over both phases (the reversal
starts at ``config["boundary"]``); ``mpi`` is ``null`` when ``no-memory`` was not run.

Example:
    >>> import numpy as np
    >>> from tepa_bench.runner import RunOutcome
    >>> outs = [RunOutcome(m, s, np.ones((2, 6), bool), 3, 0.0)
    ...         for m in ("no-memory", "tepa-rev") for s in range(3)]
    >>> result = build_result("drift", {"tasks": 2}, outs)
    >>> result["methods"]["tepa-rev"]["phases"]["reversal"]["success"]
    1.0
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench.regret import attach_regret, failures_and_trials, format_regret
from tepa_bench.runner import RunOutcome
from tepa_bench.stats import (
    adaptation_curve,
    bootstrap_ci,
    change_costs,
    memory_pollution_index,
    paired_permutation_test,
    transition_cost,
)
from tepa_bench.world import PHASES

__all__ = [
    "COLUMNS",
    "PAPER_REVERSAL",
    "TEPA_METHODS",
    "build_result",
    "fill_mpi",
    "format_p",
    "format_table",
    "line_style",
    "p_values_supported",
    "paired_comparisons",
    "phase_summary",
    "plot_result",
    "trailing_mean",
    "write_result",
]

TEPA_METHODS: tuple[str, ...] = ("tepa-rev", "tepa-full", "tepa-full-trials")
"""Methods tested against every other method (when they were run)."""

PAPER_REVERSAL: dict[str, dict[str, float]] = {
    "drift": {"no-memory": 0.309, "append-only": 0.210, "tepa-rev": 0.950},
    "filedrift": {"no-memory": 0.298, "append-only": 0.203, "tepa-rev": 0.950},
}
"""The paper's reversal-phase success rates (controlled / executable drift)."""


def _group(outcomes: Sequence[RunOutcome]) -> dict[str, list[RunOutcome]]:
    groups: dict[str, list[RunOutcome]] = {}
    for o in outcomes:
        groups.setdefault(o.method, []).append(o)
    for runs in groups.values():
        runs.sort(key=lambda o: o.seed)
    return groups


def phase_summary(values: np.ndarray, episodes: int, *, bootstrap_seed: int = 0) -> dict[str, Any]:
    """``{"success", "ci95", "episodes"}`` of one method and phase (``values``: one per seed)."""
    lo, hi = bootstrap_ci(values, seed=bootstrap_seed)
    return {
        "success": round(float(values.mean()), 4),
        "ci95": [round(lo, 4), round(hi, 4)],
        "episodes": int(episodes),
    }


def fill_mpi(
    methods: dict[str, Any], per_seed: dict[str, dict[str, np.ndarray]], phase: str
) -> None:
    """Set each method's ``mpi`` in ``phase`` against ``no-memory`` (left ``None`` without it)."""
    if "no-memory" not in per_seed:
        return
    base = float(per_seed["no-memory"][phase].mean())
    for name in methods:
        s = float(per_seed[name][phase].mean())
        methods[name]["mpi"] = round(memory_pollution_index(s, base), 4) if base > 0 else None


def paired_comparisons(
    per_seed: dict[str, dict[str, np.ndarray]],
    phases: Sequence[str],
    *,
    tepa_methods: Sequence[str] = TEPA_METHODS,
    bootstrap_seed: int = 0,
) -> list[dict[str, Any]]:
    """Paired permutation tests of each TEPA method against every other method, per phase.

    Each unordered pair is tested once, with the first of ``tepa_methods`` that was run as ``a``.
    """
    comparisons = []
    done: set[frozenset[str]] = set()
    for a in tepa_methods:
        if a not in per_seed:
            continue
        for b in per_seed:
            if b == a or frozenset((a, b)) in done:
                continue
            done.add(frozenset((a, b)))
            for ph in phases:
                x, y = per_seed[a][ph], per_seed[b][ph]
                comparisons.append(
                    {
                        "a": a,
                        "b": b,
                        "phase": ph,
                        "diff": round(float(x.mean() - y.mean()), 4),
                        "p_value": float(
                            f"{paired_permutation_test(x, y, seed=bootstrap_seed):.3g}"
                        ),
                    }
                )
    return comparisons


def build_result(
    scenario: str,
    config: dict[str, Any],
    outcomes: Sequence[RunOutcome],
    *,
    bootstrap_seed: int = 0,
) -> dict[str, Any]:
    """The result JSON of one benchmark (see the module docstring).

    Args:
        scenario: Scenario name.
        config: Everything that describes the run (it is copied into ``config``).
        outcomes: One outcome per (method, seed); every method needs the same seeds.
        bootstrap_seed: Seed of the bootstrap and Monte Carlo draws.

    Raises:
        InvalidArgumentError: If no outcome is given or methods were run on different seeds.
    """
    if not outcomes:
        raise InvalidArgumentError("no run outcomes to summarise")
    groups = _group(outcomes)
    seed_lists = {m: [o.seed for o in runs] for m, runs in groups.items()}
    first = next(iter(seed_lists.values()))
    if any(s != first for s in seed_lists.values()):
        raise InvalidArgumentError("every method must be run on the same seeds to be paired")
    boundary = outcomes[0].boundary
    per_seed: dict[str, dict[str, np.ndarray]] = {}
    methods: dict[str, Any] = {}
    censored: dict[str, float] = {}
    for name, runs in groups.items():
        stack = np.stack([o.successes for o in runs])  # seeds, tasks, steps
        parts = {"acquisition": stack[:, :, :boundary], "reversal": stack[:, :, boundary:]}
        per_seed[name] = {ph: parts[ph].mean(axis=(1, 2)) for ph in PHASES}
        phases = {
            ph: phase_summary(
                per_seed[name][ph],
                parts[ph].shape[1] * parts[ph].shape[2],
                bootstrap_seed=bootstrap_seed,
            )
            for ph in PHASES
        }
        if all(o.correct is not None for o in runs):  # scored runs: per-change costs
            cost, share = change_costs([c for o in runs for c in o.costs])
        else:  # outcomes built by hand: three successes in a row after the boundary
            cost, share = transition_cost(parts["reversal"], 3)
        censored[name] = round(share, 4)
        methods[name] = {
            "phases": phases,
            "mpi": None,
            "transition_cost": cost,
            "false_revocations": round(float(np.mean([o.false_revocations for o in runs])), 2),
            "revocations": round(float(np.mean([o.revocations for o in runs])), 2),
            "interactions": round(float(np.mean([o.interactions for o in runs])), 1),
            "trials": round(
                float(np.mean([0 if o.trials is None else int(o.trials.sum()) for o in runs])), 1
            ),
            "curve": adaptation_curve(stack),
        }
    fill_mpi(methods, per_seed, "reversal")
    comparisons = paired_comparisons(per_seed, PHASES, bootstrap_seed=bootstrap_seed)
    cfg = dict(config)
    cfg.setdefault("boundary", boundary)
    cfg["transition_cost_censored_share"] = censored
    cfg["explorations_per_seed"] = {
        m: round(float(np.mean([o.explorations for o in runs])), 1) for m, runs in groups.items()
    }
    cfg["seconds_per_run"] = {
        m: round(float(np.mean([o.seconds for o in runs])), 3) for m, runs in groups.items()
    }
    extras = {
        m: {
            name: round(float(np.mean([o.extras.get(name, 0) for o in runs])), 1)
            for name in runs[0].extras
        }
        for m, runs in groups.items()
        if runs[0].extras
    }
    if extras:
        cfg["extras_per_seed"] = extras
    result = {
        "scenario": scenario,
        "seeds": len(first),
        "config": cfg,
        "methods": methods,
        "comparisons": comparisons,
    }
    counts = {m: [failures_and_trials(o) for o in runs] for m, runs in groups.items()}
    attach_regret(
        result,
        {m: (np.array([f for f, _ in c]), np.array([t for _, t in c])) for m, c in counts.items()},
    )
    return result


def _fmt_ci(phase: dict[str, Any]) -> str:
    lo, hi = phase["ci95"]
    return f"{phase['success']:.3f} [{lo:.3f}, {hi:.3f}]"


def format_p(p: float) -> str:
    """A p-value for a table (scientific below 0.001).

    Example:
        >>> format_p(0.0123), format_p(1.9e-6)
        ('0.012', '1.9e-06')
    """
    return f"{p:.1e}" if p < 0.001 else f"{p:.3f}"


def p_values_supported(seeds: int, alpha: float = 0.05) -> bool:
    """Whether a paired sign-flip test over ``seeds`` can reach ``alpha`` at all.

    With ``n`` seeds the smallest possible two-sided p-value is ``2 / 2**n`` (0.25 for 3 seeds,
    0.0625 for 5, 0.03 for 6): below that count a p-value says nothing, so tables leave it out.

    Example:
        >>> p_values_supported(3), p_values_supported(6)
        (False, True)
    """
    return 2.0 / 2.0**seeds <= alpha


COLUMNS = (
    "acquisition / reversal: success before / after the change over every interaction (trials "
    "of tepa-full included), mean over seeds [95% bootstrap CI]",
    "MPI: 1 - reversal success / no-memory's (above 0: the memory makes the agent worse)",
    "cost: median steps from the change until 3 correct actions in a row (>=L: most never)",
    "FR: false revocations per seed (an Active value revoked while it was the working action)",
    "inter.: interactions per seed (of which trials); every method has the same budget",
)
"""What the columns of :func:`format_table` mean (printed under its header)."""


def format_table(result: dict[str, Any], *, paper: bool = True) -> str:
    """A plain-text table of a result (one row per method), its columns explained.

    Columns: success with 95% CI per phase, MPI, transition cost, false revocations,
    interactions (trials), the paper's reversal figure where there is one (``paper=False``
    leaves it out: a run of other lengths is another experiment), and the paired p-value of
    the reversal-phase difference against ``tepa-rev`` when the seeds can support one.
    """
    cfg = result["config"]
    paper_fig = PAPER_REVERSAL.get(result["scenario"], {}) if paper else {}
    ref = "tepa-rev" if "tepa-rev" in result["methods"] else None
    show_p = ref is not None and p_values_supported(result["seeds"])
    pvals = {
        c["b"] if c["a"] == ref else c["a"]: c["p_value"]
        for c in result["comparisons"]
        if ref in (c["a"], c["b"]) and c["phase"] == "reversal"
    }
    per_task = int(cfg.get("reversal") or 0)
    head = (
        f"{result['scenario']}: {result['seeds']} seeds, {cfg.get('tasks')} tasks, "
        f"{cfg.get('acquisition')} + {cfg.get('reversal')} interactions per task "
        f"(acquisition + reversal), storage {cfg.get('storage')}, agent {cfg.get('agent')}"
    )
    lines = [head, *(f"  {c}" for c in COLUMNS)]
    if cfg.get("tuned"):
        from tepa_bench.scenarios import tuned_note

        lines.append(tuned_note(cfg["tuned"]))
    if paper_fig:
        lines.append("  paper: the paper's reversal success (same protocol, its own agent)")
    if ref is not None and not show_p:
        lines.append(
            f"  no p-values: with {result['seeds']} seeds the smallest possible paired p is "
            f"{2 / 2 ** result['seeds']:.2f}"
        )
    cols = (
        f"{'method':<17} {'acquisition [95% CI]':<24} {'reversal [95% CI]':<24} "
        f"{'MPI':>7} {'cost':>6} {'FR':>6} {'inter. (trials)':>16}"
        + (f" {'paper':>6}" if paper_fig else "")
        + (f" {'p vs tepa-rev':>13}" if show_p else "")
    )
    lines += [cols, "-" * len(cols)]
    for name, m in result["methods"].items():
        mpi = "" if m["mpi"] is None else f"{m['mpi']:+.3f}"
        cens = cfg.get("transition_cost_censored_share", {}).get(name, 0.0)
        cost = m["transition_cost"]
        cost_s = f">={per_task}" if cens >= 0.5 else ("" if cost is None else f"{cost:g}")
        inter = f"{m.get('interactions', 0):g} ({m.get('trials', 0):g})"
        row = (
            f"{name:<17} {_fmt_ci(m['phases']['acquisition']):<24} "
            f"{_fmt_ci(m['phases']['reversal']):<24} {mpi:>7} {cost_s:>6} "
            f"{m.get('false_revocations', 0):>6g} {inter:>16}"
        )
        if paper_fig:
            row += f" {(f'{paper_fig[name]:.3f}' if name in paper_fig else ''):>6}"
        if show_p:
            row += f" {(format_p(pvals[name]) if name in pvals else ''):>13}"
        lines.append(row)
    regret = format_regret(result)
    return "\n".join([*lines, regret] if regret else lines)


def write_result(result: dict[str, Any], out: Path) -> Path:
    """Write ``out/<scenario>.json`` and return its path."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{result['scenario']}.json"
    path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return path


def trailing_mean(values: Sequence[float], width: int) -> np.ndarray:
    """Trailing moving average: point ``i`` is the mean of points ``i - width + 1 .. i``.

    It never looks ahead, so a drop after a change is not smeared before it (the first points
    average what there is so far).

    Example:
        >>> trailing_mean([0, 0, 1, 1], 2).tolist()
        [0.0, 0.0, 0.5, 1.0]
    """
    arr = np.asarray(values, dtype=float)
    if width <= 1 or arr.size == 0:
        return arr
    sums = np.cumsum(np.insert(arr, 0, 0.0))
    idx = np.arange(1, arr.size + 1)
    lo = np.maximum(0, idx - width)
    return np.asarray((sums[idx] - sums[lo]) / (idx - lo))


_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*", "h", "p", "d")
_STYLES = ("-", "--", "-.", ":")


def line_style(index: int, name: str) -> tuple[str, str]:
    """``(marker, linestyle)`` of the ``index``-th method of a plot: every line distinct.

    Example:
        >>> line_style(0, "tepa-rev")
        ('o', '-')
    """
    style = "-" if name.startswith("tepa") else _STYLES[1 + index % 3]
    return _MARKERS[index % len(_MARKERS)], style


def pyplot_or_warn() -> Any:
    """``matplotlib.pyplot`` on the Agg backend, or ``None`` with a warning when not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        warnings.warn(
            "matplotlib is not installed, so the plot was skipped; "
            "install the extra: pip install 'langchain-tepa[plot]'",
            stacklevel=3,
        )
        return None
    return plt


def plot_result(result: dict[str, Any], path: Path, *, smooth: int = 5) -> Path | None:
    """Adaptation curves and per-phase bars as a PNG; ``None`` (with a warning) without matplotlib.

    Every method has its own marker and line style, so overlapping lines stay visible.

    Args:
        result: A result from :func:`build_result`.
        path: Where to write the PNG.
        smooth: Width of the trailing moving average of the curves (1: raw).
    """
    plt = pyplot_or_warn()
    if plt is None:
        return None
    methods = result["methods"]
    boundary = result["config"].get("boundary", 0)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(15, 5.4), gridspec_kw={"width_ratios": [3, 2]})
    cmap = plt.get_cmap("tab20")
    for i, (name, m) in enumerate(methods.items()):
        width = 2.2 if name in TEPA_METHODS else 1.3
        marker, style = line_style(i, name)
        curve = trailing_mean(m["curve"], smooth)
        step = max(1, len(curve) // 10)
        ax1.plot(
            curve,
            label=name,
            color=cmap(i % 20),
            linewidth=width,
            linestyle=style,
            marker=marker,
            markersize=5,
            markevery=(i * max(1, step // len(methods)) % step, step),
        )
    ax1.axvline(boundary - 0.5, color="black", linestyle="--", linewidth=1)
    ax1.text(boundary, 1.02, " change", va="bottom", fontsize=9)
    ax1.set_ylim(-0.02, 1.08)
    ax1.set_xlabel("step (interactions per task, trials included)")
    ax1.set_ylabel(f"success (mean over seeds and tasks, trailing mean of {smooth})")
    ax1.set_title(
        f"{result['scenario']}: adaptation curves ({result['seeds']} seeds); identical runs "
        "overlap, their markers are staggered",
        fontsize=9,
    )
    ax1.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    names = list(methods)
    x = np.arange(len(names))
    for j, ph in enumerate(("acquisition", "reversal")):
        means = [methods[n]["phases"][ph]["success"] for n in names]
        lows = [means[k] - methods[n]["phases"][ph]["ci95"][0] for k, n in enumerate(names)]
        highs = [methods[n]["phases"][ph]["ci95"][1] - means[k] for k, n in enumerate(names)]
        ax2.bar(
            x + (j - 0.5) * 0.4,
            means,
            0.4,
            yerr=[lows, highs],
            capsize=2,
            label=ph,
            color=("#9ecae1", "#08519c")[j],
        )
    ax2.set_xticks(x)
    ax2.set_xticklabels(names, rotation=40, ha="right", fontsize=8)
    ax2.set_ylim(0, 1.05)
    ax2.set_ylabel("success (95% bootstrap CI)")
    ax2.set_title("per-phase success")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path

"""Trials that pay for themselves: regret over a cost axis, and the break-even trial cost.

Until issue 28 the benchmarks charged a TEPA-Full trial exactly like a failure in front of the
user: one interaction of the budget, its outcome in the score. A sandboxed dry run is not a
wrong action in front of the user, so each world now **declares** what a trial costs relative to
a user-facing failure (:data:`TRIAL_COST`, with the reason), and the reports give

``regret(c) = user-facing failures + c x trials``

per seed, at every cost of :data:`COST_AXIS` and at the world's declared cost. Trials still come
out of the same interaction budget (a trial is an interaction the method does not spend in front
of the user); user-facing failures are the failed interactions that were not trials. A method
without trials has ``regret = failures`` at every cost. The **break-even cost** of a method with
trials against a rival is the largest ``c`` at which its mean regret is at most the rival's:
``(F_rival - F_method) / T_method`` (``None`` when it has no trials; negative when it loses even
with free trials). "better" and "worse" use the paired sign-flip test of
:func:`~tepa_bench.stats.paired_permutation_test` on the per-seed regrets, as every
other verdict of the benchmarks.

Example:
    >>> import numpy as np
    >>> from tepa_bench.runner import RunOutcome
    >>> ok = np.array([[True, False, True, True]])
    >>> tried = np.array([[False, True, False, False]])
    >>> out = RunOutcome("tepa-full", 0, ok, 2, 0.0, trials=tried)
    >>> failures_and_trials(out)
    (0, 1)
    >>> break_even(np.array([0.0, 1.0]), np.array([1.0, 1.0]), np.array([2.0, 3.0]))
    2.0
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tepa_bench.stats import paired_permutation_test

__all__ = [
    "COST_AXIS",
    "TRIAL_COST",
    "arm_regret",
    "attach_regret",
    "break_even",
    "break_even_side",
    "failures_and_trials",
    "format_regret",
    "is_baseline",
    "regret_block",
    "regret_verdicts",
    "verdict_lines",
]

COST_AXIS: tuple[float, ...] = (0.1, 0.25, 0.5, 1.0)
"""Trial costs reported, relative to one user-facing failure."""

TRIAL_COST: dict[str, tuple[float, str]] = {
    "drift": (
        0.25,
        "a trial is the tool call run in a sandbox (a dry-run export to a scratch file): it "
        "costs compute and a quarter of an interaction's time, and nobody sees it fail",
    ),
    "filedrift": (
        0.25,
        "a trial parses a sample of the file in a scratch folder: no consumer sees it fail",
    ),
    "preferences": (
        0.5,
        "a trial serves the value to the user to see whether it satisfies them: the user sees "
        "it, but as a question (did you mean...?), which costs less than a wrong answer",
    ),
    "contested": (
        0.25,
        "a trial is a dry run of the delivery booking to the candidate address in the "
        "carrier's sandbox: it costs a quarter of an interaction and nobody sees it fail; a "
        "wrong address served sends a real parcel astray",
    ),
    "attack": (
        0.1,
        "a trial is a test payment to the candidate endpoint in the bank's sandbox: no money "
        "moves; a wrong endpoint served to the user sends a real payment astray",
    ),
}
"""What a trial costs in each world relative to a user-facing failure, and why."""


def failures_and_trials(outcome: Any) -> tuple[int, int]:
    """``(user-facing failures, trials)`` of one run (a :class:`RunOutcome`)."""
    ok = np.asarray(outcome.successes, dtype=bool)
    tried = np.zeros_like(ok) if outcome.trials is None else np.asarray(outcome.trials, dtype=bool)
    return int(np.count_nonzero(~ok & ~tried)), int(np.count_nonzero(tried))


def break_even(
    failures: np.ndarray,
    trials: np.ndarray,
    rival_failures: np.ndarray,
    rival_trials: np.ndarray | None = None,
) -> float | None:
    """The trial cost at which the mean regrets are equal.

    With more trials than the rival, the method's regret is at most the rival's at every cost
    up to it; with fewer, from it on (:func:`break_even_side`). ``None`` when both have as
    many trials (no cost changes the order).
    """
    t = float(np.mean(trials)) - (0.0 if rival_trials is None else float(np.mean(rival_trials)))
    if abs(t) < 1e-12:
        return None
    return round((float(np.mean(rival_failures)) - float(np.mean(failures))) / t, 4)


def break_even_side(trials: np.ndarray, rival_trials: np.ndarray) -> str | None:
    """On which side of the break-even cost the method is ahead.

    ``"below"``: at costs up to it (it runs more trials); ``"above"``: from it on (it runs
    fewer); ``None``: as many trials.
    """
    d = float(np.mean(trials)) - float(np.mean(rival_trials))
    if abs(d) < 1e-12:
        return None
    return "below" if d > 0 else "above"


def regret_block(
    per_seed: Mapping[str, tuple[np.ndarray, np.ndarray]],
    scenario: str,
    *,
    costs: Sequence[float] = COST_AXIS,
) -> dict[str, Any]:
    """The ``regret`` entry of a result JSON: per method, failures, trials and regret by cost.

    ``per_seed`` maps a method to its per-seed ``(failures, trials)`` arrays.
    """
    declared, why = TRIAL_COST.get(scenario, (1.0, "no cost declared: a trial counts as a failure"))
    axis = sorted({*costs, declared})
    methods = {}
    for name, (f, t) in per_seed.items():
        methods[name] = {
            "failures": round(float(np.mean(f)), 3),
            "trials": round(float(np.mean(t)), 3),
            "by_cost": {f"{c:g}": round(float(np.mean(f + c * t)), 3) for c in axis},
            "per_seed_failures": [int(x) for x in f],
            "per_seed_trials": [int(x) for x in t],
        }
    return {"declared_cost": declared, "why": why, "costs": axis, "methods": methods}


def regret_verdicts(
    block: Mapping[str, Any],
    candidates: Sequence[str],
    baselines: Sequence[str],
    *,
    alpha: float = 0.01,
) -> list[dict[str, Any]]:
    """Each candidate against the best baselines and every trial-gated one, per cost.

    The rivals (issue 39): the best baseline (lowest regret at the declared cost, trial-gated
    ones included), the best baseline without trials (the rival before issue 39), and every
    trial-gated baseline (:func:`~tepa_bench.gated.is_gated`). Per cost: the regret
    difference, its paired p-value and the verdict; and the break-even cost with its side.
    """
    from tepa_bench.gated import is_gated

    methods = block["methods"]
    pool = [b for b in baselines if b in methods]
    if not pool:
        return []
    declared = f"{block['declared_cost']:g}"

    def rank(b: str) -> tuple[float, float]:
        return (methods[b]["by_cost"][declared], methods[b]["failures"])

    rivals: list[tuple[str, str]] = [(min(pool, key=rank), "best")]
    untried = [b for b in pool if not any(methods[b]["per_seed_trials"])]
    if untried and min(untried, key=rank) != rivals[0][0]:
        rivals.append((min(untried, key=rank), "best without trials"))
    rivals += [(b, "trial-gated") for b in pool if is_gated(b.rstrip("*")) and b != rivals[0][0]]
    out = []
    for name in candidates:
        if name not in methods:
            continue
        f = np.asarray(methods[name]["per_seed_failures"], dtype=float)
        t = np.asarray(methods[name]["per_seed_trials"], dtype=float)
        for rival, role in rivals:
            bf = np.asarray(methods[rival]["per_seed_failures"], dtype=float)
            bt = np.asarray(methods[rival]["per_seed_trials"], dtype=float)
            rows = {}
            for c in block["costs"]:
                mine, theirs = f + c * t, bf + c * bt
                p = paired_permutation_test(mine, theirs) if len(f) > 1 else 1.0
                diff = float(np.mean(mine - theirs))
                verdict = "within"
                if p < alpha:
                    verdict = "better" if diff < 0 else "worse"
                rows[f"{c:g}"] = {"diff": round(diff, 3), "p": p, "verdict": verdict}
            out.append(
                {
                    "method": name,
                    "baseline": rival,
                    "role": role,
                    "break_even": break_even(f, t, bf, bt),
                    "break_even_side": break_even_side(t, bt),
                    "by_cost": rows,
                }
            )
    return out


def is_baseline(name: str) -> bool:
    """A deployable baseline: not TEPA, not an oracle, not no-memory."""
    base = name.rstrip("*").split("/")[0]
    return not base.startswith(("tepa", "oracle", "no-memory"))


def attach_regret(
    result: dict[str, Any], per_seed: Mapping[str, tuple[np.ndarray, np.ndarray]]
) -> None:
    """Add ``regret`` and ``regret_verdicts`` (:func:`arm_regret`) to a result."""
    out = arm_regret(per_seed, result["scenario"])
    result["regret"] = out["regret"]
    result["regret_verdicts"] = out["regret_verdicts"]


def arm_regret(
    per_seed: Mapping[str, tuple[np.ndarray, np.ndarray]], scenario: str
) -> dict[str, Any]:
    """``{"regret", "regret_verdicts"}`` of one arm.

    The regret block, and TEPA-Full's presets against the best baselines and every
    trial-gated one (:func:`regret_verdicts`).
    """
    block = regret_block(per_seed, scenario)
    full = [m for m in per_seed if m.startswith("tepa-full")]
    return {
        "regret": block,
        "regret_verdicts": regret_verdicts(block, full, [m for m in per_seed if is_baseline(m)]),
    }


def format_regret(result: Mapping[str, Any]) -> str:
    """Regret by trial cost per method, and TEPA-Full's verdicts against the best baseline."""
    block = result.get("regret")
    if not block:
        return ""
    costs = block["costs"]
    head = "  ".join(f"c={c:g}".rjust(8) for c in costs)
    lines = [
        f"regret = user-facing failures + c x trials, per seed (declared trial cost "
        f"{block['declared_cost']:g}: {block['why']})",
        f"{'method':<20} {'failures':>9} {'trials':>7}  {head}",
    ]
    for name, m in block["methods"].items():
        vals = "  ".join(f"{m['by_cost'][f'{c:g}']:>8.2f}" for c in costs)
        lines.append(f"{name:<20} {m['failures']:>9.2f} {m['trials']:>7.2f}  {vals}")
    lines += verdict_lines(result.get("regret_verdicts", []))
    return "\n".join(lines)


def verdict_lines(verdicts: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per verdict: the rival, the break-even cost and its side, each cost's verdict."""
    lines = []
    for v in verdicts:
        be = "none (as many trials)" if v["break_even"] is None else f"{v['break_even']:g}"
        side, c = v.get("break_even_side"), v["break_even"]
        if side == "above":
            be += " (ahead at every cost)" if c <= 0 else " (ahead at costs from it)"
        elif side == "below":
            be += " (behind at every cost)" if c < 0 else " (ahead at costs up to it)"
        shown = ", ".join(
            f"c={cost}: {r['verdict']} ({r['diff']:+.2f}, p={r['p']:.2g})"
            for cost, r in v["by_cost"].items()
        )
        role = v.get("role", "best")
        lines.append(
            f"{v['method']} vs {role} baseline {v['baseline']}: break-even cost {be}; {shown}"
        )
    return lines

"""``tepa-bench grid``: every method, tuned, on a grid of drift worlds (not a single point).

**Worlds.** The controlled drift world (:mod:`tepa_bench.drift`) with 4 tasks, 3
actions and 160 interactions per task; the first change comes at step 40. Three panels:

- *uniform noise*: every task succeeds with ``p_right`` (0.99 to 0.6) for the working action and
  ``1 - p_right`` (0.01 to 0.4) for the others; one change, or a change every 60, 40 or 20 steps;
- *noise that differs across keys*: ``M1`` alternates precise (0.99/0.01) and noisy (0.7/0.3)
  tasks, ``M2`` spreads 0.99, 0.9, 0.8, 0.6; same change frequencies;
- *glitch bursts*: a precise world (0.98/0.02) whose working action fails for 2, 3 or 4 steps in
  a row now and then (every 30 or 60 steps on average) without any change; one change, or a
  change every 40 steps.

**Tuning.** Each method with free parameters (``temporal``: its window; ``reactive``: failures
in a row before revoking; ``tepa-rev``: its recent-window rule; ``tepa-cd``: its hazard;
``tepa-key``: the posterior odds at which its key test revokes) gets
the same budget: six candidate settings, each run on the tuning configurations (other noise
levels, mixes, burst shapes and change frequencies than the evaluation cells) and the tuning
seeds 0-7; the setting with the highest mean success wins. Evaluation uses seeds 1000-1019 and
the cells above, none of which was used for tuning. ``oracle-rev`` takes ``tepa-rev``'s
setting; the methods without free parameters are run as they are. ``tepa-full`` runs with the
library's trial settings (its trials are charged interactions, see
:mod:`tepa_bench.trials`).

**Per cell and method:** success over all interactions, success after the first change (the
*reversal* success), the transition cost (median over changes of the steps until three correct
actions in a row), false revocations per task (Active values revoked while they were the
working action), revocations and interactions per seed. The comparison of a cell takes the
best TEPA preset and the best deployable tuned baseline (oracles excluded: they are told the
change points) by mean success and tests their paired difference over seeds (sign-flip
permutation test; bootstrap interval of the difference); the same comparison is made for each
TEPA preset alone (``presets`` per cell, ``preset_verdicts`` over the grid), which is how the
presets are compared with each other.

Example:
    >>> cells = evaluation_cells()
    >>> len(cells), cells[0].name
    (34, 'uniform 0.99/0.01, one change')
    >>> set(EVALUATION_SEEDS) & set(TUNING_SEEDS)
    set()
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.policy import POLICY_NAMES
from tepa_bench.gated import GATE_CANDIDATES, GATED, GateSetting
from tepa_bench.registry import CommandEntry, register_command
from tepa_bench.runner import RunOutcome, RunSpec, run_many
from tepa_bench.stats import bootstrap_ci, change_costs, paired_permutation_test

__all__ = [
    "BASE",
    "BASELINES",
    "CANDIDATES",
    "CURVE_CELLS",
    "EVALUATION_SEEDS",
    "REFERENCES",
    "TEPA_PRESETS",
    "TUNING_SEEDS",
    "Cell",
    "GridOptions",
    "check_replay",
    "choose",
    "compare_cell",
    "evaluate",
    "evaluation_cells",
    "merge_grids",
    "operating_curves",
    "run_grid",
    "settings",
    "summarise_cell",
    "tune",
    "tuning_cells",
]

BASE: dict[str, Any] = {"tasks": 4, "actions": 3, "acquisition": 40, "reversal": 120}
"""World size of every cell: 4 tasks x 160 interactions, first change at step 40."""

TUNING_SEEDS: tuple[int, ...] = tuple(range(8))
EVALUATION_SEEDS: tuple[int, ...] = tuple(range(1000, 1020))

CANDIDATES: dict[str, list[dict[str, Any]]] = {
    "temporal": [{"temporal_window": w} for w in (2, 3, 4, 6, 8, 12)],
    "reactive": [{"reactive_failures": k, "window": max(3, k)} for k in range(1, 7)],
    "tepa-rev": [
        {"window": 3, "w_min": 3, "theta_rec": 0.34},
        {"window": 1, "w_min": 1, "theta_rec": 0.5},
        {"window": 2, "w_min": 2, "theta_rec": 0.5},
        {"window": 4, "w_min": 4, "theta_rec": 0.26},
        {"window": 5, "w_min": 5, "theta_rec": 0.21},
        {"window": 6, "w_min": 5, "theta_rec": 0.34},
    ],
    "tepa-cd": [{"change_hazard": h} for h in (0.01, 0.02, 0.05, 0.1, 0.2, 0.3)],
    "tepa-key": [{"keyed_odds": o} for o in (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)],
    "trial-gated": [g.to_dict() for g in GATE_CANDIDATES],
}
"""Six candidate settings per tuned method (the same budget for every one); the
trial-gated baseline's are its gates (:data:`~tepa_bench.gated.GATE_CANDIDATES`)."""

DERIVED: dict[str, str] = {"oracle-rev": "tepa-rev"}
"""Methods that take the tuned setting of another."""

TEPA_PRESETS: tuple[str, ...] = ("tepa-rev", "tepa-cd", "tepa-key", "tepa-full")
REFERENCES: tuple[str, ...] = ("oracle-reset", "oracle-rev")
"""Told the change points: upper references, not competitors."""
GATED_METHODS: tuple[str, ...] = ("lww+trial", "trial-gated")
"""The trial-gated baselines (issue 39): the executor in a baseline's hands, charged as
TEPA-Full's trials are (:mod:`tepa_bench.gated`); ``trial-gated`` is tuned like every tuned
method (its six gates)."""
BASELINES: tuple[str, ...] = (
    *(m for m in POLICY_NAMES if not m.startswith("tepa") and m not in REFERENCES),
    *GATED_METHODS,
)
"""Deployable baselines (the heatmap compares TEPA with the best of these per cell)."""


@dataclass(frozen=True)
class Cell:
    """One world configuration of the grid.

    Attributes:
        name: Readable name.
        panel: ``uniform``, ``mixed`` or ``bursts``.
        row: Heatmap row label (noise level, mix or burst shape).
        col: Heatmap column label (change frequency).
        config: :class:`~tepa_bench.drift.DriftConfig` fields (on top of :data:`BASE`).

    Example:
        >>> evaluation_cells()[-1].config["burst_length"]
        4
    """

    name: str
    panel: str
    row: str
    col: str
    config: dict[str, Any] = field(default_factory=dict)


_CHANGES = ((0, "one change"), (60, "every 60"), (40, "every 40"), (20, "every 20"))
_MIXES = {
    "M1 0.99|0.7": [[0.99, 0.01], [0.7, 0.3]],
    "M2 0.99|0.9|0.8|0.6": [[0.99, 0.01], [0.9, 0.1], [0.8, 0.2], [0.6, 0.4]],
}


def _cell(panel: str, row: str, every: int, label: str, **config: Any) -> Cell:
    change = "one change" if every == 0 else f"change every {every}"
    return Cell(f"{panel} {row}, {change}", panel, row, label, {**config, "change_every": every})


def evaluation_cells() -> list[Cell]:
    """The 34 evaluation cells (never used for tuning)."""
    cells = []
    for p in (0.99, 0.9, 0.8, 0.7, 0.6):
        wrong = round(1 - p, 2)
        for every, label in _CHANGES:
            cells.append(_cell("uniform", f"{p}/{wrong}", every, label, p_right=p, p_wrong=wrong))
    for row, mix in _MIXES.items():
        for every, label in _CHANGES:
            cells.append(_cell("mixed", row, every, label, noise_mix=mix))
    for length, every_burst in ((2, 30), (3, 60), (4, 30)):
        for every, label in ((0, "one change"), (40, "every 40")):
            cells.append(
                _cell(
                    "bursts",
                    f"burst {length} / {every_burst}",
                    every,
                    label,
                    p_right=0.98,
                    p_wrong=0.02,
                    burst_every=every_burst,
                    burst_length=length,
                )
            )
    return cells


def tuning_cells() -> list[Cell]:
    """The 12 tuning configurations (other noise levels, mixes, bursts and frequencies)."""
    cells = []
    for p in (0.95, 0.85, 0.65):
        wrong = round(1 - p, 2)
        for every in (80, 30):
            cells.append(
                _cell("uniform", f"{p}/{wrong}", every, f"every {every}", p_right=p, p_wrong=wrong)
            )
    for every in (0, 30):
        cells.append(
            _cell(
                "mixed", "M3 0.95|0.75", every, str(every), noise_mix=[[0.95, 0.05], [0.75, 0.25]]
            )
        )
    for length, every_burst, p in ((3, 40, 0.95), (2, 50, 0.9)):
        for every in (0, 30):
            cells.append(
                _cell(
                    "bursts",
                    f"burst {length} / {every_burst}",
                    every,
                    str(every),
                    p_right=p,
                    p_wrong=round(1 - p, 2),
                    burst_every=every_burst,
                    burst_length=length,
                )
            )
    return cells


@dataclass(frozen=True)
class GridOptions:
    """Sizes of a grid run.

    Attributes:
        evaluation_seeds: Seeds reported.
        tuning_seeds: Seeds used for tuning (disjoint from the evaluation seeds).
        methods: Methods evaluated (default: every preset).
        workers: Worker processes.
        progress: Show progress bars.
        cells: Evaluation cells (default: :func:`evaluation_cells`).
        tuning: Tuning configurations (default: :func:`tuning_cells`).
        base: World size of every cell (default :data:`BASE`).

    Raises:
        InvalidArgumentError: If the two seed sets overlap.

    Example:
        >>> options = GridOptions(evaluation_seeds=(1000, 1001), tuning_seeds=(0,))
        >>> len(options.cells), len(options.tuning)
        (34, 12)
    """

    evaluation_seeds: tuple[int, ...] = EVALUATION_SEEDS
    tuning_seeds: tuple[int, ...] = TUNING_SEEDS
    methods: tuple[str, ...] = (*BASELINES, *REFERENCES, "tepa-norev", *TEPA_PRESETS)
    workers: int = 1
    progress: bool = True
    cells: tuple[Cell, ...] = ()
    tuning: tuple[Cell, ...] = ()
    base: dict[str, Any] = field(default_factory=lambda: dict(BASE))

    def __post_init__(self) -> None:
        overlap = set(self.evaluation_seeds) & set(self.tuning_seeds)
        if overlap:
            raise InvalidArgumentError(
                f"tuning and evaluation seeds overlap ({sorted(overlap)[:5]}); use disjoint sets"
            )
        if not self.cells:
            object.__setattr__(self, "cells", tuple(evaluation_cells()))
        if not self.tuning:
            object.__setattr__(self, "tuning", tuple(tuning_cells()))
        names = {c.name for c in self.tuning}
        reused = [c.name for c in self.cells if c.name in names]
        if reused:
            raise InvalidArgumentError(f"evaluation cells used for tuning: {reused}")


def _spec(
    options: GridOptions, cell: Cell, method: str, seed: int, overrides: dict[str, Any]
) -> RunSpec:
    config = {**options.base, **cell.config}
    gate = None
    if method in GATED_METHODS:
        gate = GATED["lww+trial"] if method == "lww+trial" else _gate(overrides)
    return RunSpec("drift", config, method, seed, overrides=dict(overrides), gate=gate)


def _gate(overrides: dict[str, Any]) -> GateSetting:
    """The gate of a ``trial-gated`` candidate (its overrides are the gate's fields)."""
    if not overrides:
        raise InvalidArgumentError("trial-gated needs a tuned gate; tune it first")
    return GateSetting(**{k: v for k, v in overrides.items() if k != "label"})


def tune(options: GridOptions) -> dict[str, Any]:
    """Run every candidate of every tuned method on the tuning cells and seeds; pick the best.

    Returns:
        ``{method: {"chosen": overrides, "candidates": [{"overrides", "success"}]}}``.
    """
    specs = [
        _spec(options, cell, method, seed, cand)
        for method, cands in CANDIDATES.items()
        if method in options.methods or any(DERIVED.get(m) == method for m in options.methods)
        for cand in cands
        for cell in options.tuning
        for seed in options.tuning_seeds
    ]
    outs = run_many(specs, workers=options.workers, progress=options.progress, description="tune")
    scores: dict[tuple[str, str], list[float]] = {}
    for spec, out in zip(specs, outs, strict=True):
        key = (spec.method, json.dumps(spec.overrides, sort_keys=True))
        scores.setdefault(key, []).append(float(out.successes.mean()))
    result: dict[str, Any] = {}
    for method, cands in CANDIDATES.items():
        rows: list[dict[str, Any]] = []
        for cand in cands:
            found = scores.get((method, json.dumps(cand, sort_keys=True)))
            if found:
                rows.append({"overrides": cand, "success": round(float(np.mean(found)), 4)})
        if rows:
            best = max(rows, key=lambda r: float(r["success"]))  # first of equals: listed order
            result[method] = {"chosen": best["overrides"], "candidates": rows}
    return result


def settings(tuned: dict[str, Any], method: str) -> dict[str, Any]:
    """The overrides a method runs with after tuning (``{}`` when it has none)."""
    base = DERIVED.get(method, method)
    return dict(tuned.get(base, {}).get("chosen", {}))


def choose(options: GridOptions, tuned: dict[str, Any]) -> dict[str, Any]:
    """One entrant per side, chosen on the tuning cells and seeds only (issue 28).

    Each TEPA preset (at its tuned setting) and each deployable baseline (at its tuned
    setting) is scored by its mean success on the tuning cells and seeds; the best TEPA preset
    is *the* TEPA method of every evaluation cell, and the best baseline the baseline it is
    compared with on equal terms (the best baseline per cell, picked on the evaluation seeds,
    stays as a harder comparison). Before issue 28 the best of four TEPA presets was picked per
    cell on the evaluation seeds, a selection no baseline had.

    Returns:
        ``{"tepa": name, "baseline": name, "tuning_success": {method: success}}``.
    """
    entrants = [m for m in (*TEPA_PRESETS, *BASELINES) if m in options.methods]
    scores: dict[str, float] = {}
    missing = []
    for method in entrants:
        rows = tuned.get(method, {}).get("candidates", [])
        chosen = settings(tuned, method)
        hit = [r["success"] for r in rows if r["overrides"] == chosen]
        if hit:
            scores[method] = float(hit[0])
        else:
            missing.append(method)
    specs = [
        _spec(options, cell, method, seed, settings(tuned, method))
        for method in missing
        for cell in options.tuning
        for seed in options.tuning_seeds
    ]
    outs = run_many(specs, workers=options.workers, progress=options.progress, description="choose")
    found: dict[str, list[float]] = {}
    for spec, out in zip(specs, outs, strict=True):
        found.setdefault(spec.method, []).append(float(out.successes.mean()))
    scores.update({m: round(float(np.mean(v)), 4) for m, v in found.items()})
    tepa = [m for m in TEPA_PRESETS if m in scores]
    base = [m for m in BASELINES if m in scores]
    return {
        "tepa": max(tepa, key=lambda m: scores[m]) if tepa else None,
        "baseline": max(base, key=lambda m: scores[m]) if base else None,
        "tuning_success": scores,
    }


def evaluate(options: GridOptions, tuned: dict[str, Any]) -> dict[str, dict[str, list[RunOutcome]]]:
    """Every method with its tuned setting on every evaluation cell and seed."""
    specs = [
        _spec(options, cell, method, seed, settings(tuned, method))
        for cell in options.cells
        for method in options.methods
        for seed in options.evaluation_seeds
    ]
    outs = run_many(
        specs, workers=options.workers, progress=options.progress, description="evaluate"
    )
    runs: dict[str, dict[str, list[RunOutcome]]] = {}
    for spec, out, cell in zip(
        specs,
        outs,
        [c for c in options.cells for _ in options.methods for _ in options.evaluation_seeds],
        strict=True,
    ):
        runs.setdefault(cell.name, {}).setdefault(spec.method, []).append(out)
    return runs


def _method_summary(runs: Sequence[RunOutcome], seed: int = 0) -> dict[str, Any]:
    success = np.array([o.successes.mean() for o in runs])
    reversal = np.array([o.successes[:, o.boundary :].mean() for o in runs])
    cost, censored = change_costs([c for o in runs for c in o.costs])
    mean_cost = float(np.mean([c for o in runs for c, _ in o.costs])) if runs[0].costs else None
    tasks = runs[0].successes.shape[0]
    return {
        "success": round(float(success.mean()), 4),
        "ci95": [round(x, 4) for x in bootstrap_ci(success, seed=seed)],
        "reversal": round(float(reversal.mean()), 4),
        "transition_cost": cost,
        "transition_cost_mean": None if mean_cost is None else round(mean_cost, 2),
        "censored": round(censored, 4),
        "false_revocations_per_task": round(
            float(np.mean([o.false_revocations for o in runs])) / tasks, 3
        ),
        "revocations_per_task": round(float(np.mean([o.revocations for o in runs])) / tasks, 3),
        "interactions_per_seed": round(float(np.mean([o.interactions for o in runs])), 1),
        "trials_per_seed": round(
            float(np.mean([0 if o.trials is None else int(o.trials.sum()) for o in runs])), 1
        ),
        "per_seed": [round(float(x), 5) for x in success],
    }


def summarise_cell(
    methods: dict[str, list[RunOutcome]], seed: int = 0, choice: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Per-method figures of one cell, and TEPA against the best baseline.

    The comparison takes the best deployable tuned baseline and tests the paired difference
    over seeds; with ``choice`` (:func:`choose`) TEPA is the one preset chosen on the tuning
    cells, and it is also compared with the one baseline chosen there (``comparison_chosen``).
    """
    summary = {m: _method_summary(runs, seed) for m, runs in methods.items()}
    return compare_cell(summary, seed, choice)


def compare_cell(
    summary: dict[str, dict[str, Any]], seed: int = 0, choice: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The comparisons of one cell from its per-method summaries (see :func:`summarise_cell`).

    Without ``choice`` (grids before issue 28) TEPA is the best preset of the cell, picked on
    the evaluation seeds.
    """
    tepa = [m for m in TEPA_PRESETS if m in summary]
    base = [m for m in BASELINES if m in summary]
    comparison: dict[str, Any] = {}
    presets: dict[str, dict[str, Any]] = {}
    out: dict[str, Any] = {}
    if tepa and base:
        best_b = max(base, key=lambda m: summary[m]["success"])
        presets = {m: _compare(summary[m], summary[best_b], seed) for m in tepa}
        entrant = (choice or {}).get("tepa")
        if entrant not in summary:
            entrant = max(tepa, key=lambda m: summary[m]["success"])
        comparison = {"tepa": entrant, "baseline": best_b, **presets[entrant]}
        chosen_b = (choice or {}).get("baseline")
        if choice and chosen_b in summary:
            out["comparison_chosen"] = {
                "tepa": entrant,
                "baseline": chosen_b,
                **_compare(summary[entrant], summary[chosen_b], seed),
            }
    return {"methods": summary, "comparison": comparison, "presets": presets, **out}


def _compare(tepa: dict[str, Any], base: dict[str, Any], seed: int) -> dict[str, Any]:
    """One TEPA preset's paired difference from a baseline over seeds, and its verdict."""
    x = np.array(tepa["per_seed"])
    y = np.array(base["per_seed"])
    diff = x - y
    p = paired_permutation_test(x, y, seed=seed)
    # issue 28: "better" and "loses" use the same paired test (before, "loses" meant below the
    # baseline's 95% CI, a different test from "better"'s)
    verdict = "within"
    if diff.mean() > 0 and p < 0.01:
        verdict = "better"
    elif diff.mean() < 0 and p < 0.01:
        verdict = "loses"
    return {
        "diff": round(float(diff.mean()), 4),
        "diff_ci95": [round(v, 4) for v in bootstrap_ci(diff, seed=seed)],
        "p_value": float(f"{p:.3g}"),
        "verdict": verdict,
    }


CURVE_CELLS: tuple[str, ...] = (
    "uniform 0.9/0.1, change every 40",
    "uniform 0.7/0.3, one change",
    "mixed M1 0.99|0.7, change every 40",
    "bursts burst 2 / 30, change every 40",
)
"""Evaluation cells on which every candidate setting is run (the operating curves)."""


def operating_curves(options: GridOptions) -> dict[str, Any]:
    """Transition cost against false revocations for every candidate of every tuned method.

    Run on the evaluation seeds of :data:`CURVE_CELLS` (those present in ``options.cells``),
    pooled: one point per candidate setting. This is what "fewer false revocations at equal
    transition cost" is read from.
    """
    cells = [c for c in options.cells if c.name in CURVE_CELLS]
    if not cells:
        return {}
    specs = [
        _spec(options, cell, method, seed, cand)
        for method, cands in CANDIDATES.items()
        if method in options.methods
        for cand in cands
        for cell in cells
        for seed in options.evaluation_seeds
    ]
    outs = run_many(specs, workers=options.workers, progress=options.progress, description="curves")
    groups: dict[tuple[str, str], list[RunOutcome]] = {}
    for spec, out in zip(specs, outs, strict=True):
        groups.setdefault((spec.method, json.dumps(spec.overrides, sort_keys=True)), []).append(out)
    curves: dict[str, list[dict[str, Any]]] = {}
    for (method, key), runs in groups.items():
        tasks = runs[0].successes.shape[0]
        curves.setdefault(method, []).append(
            {
                "overrides": json.loads(key),
                "transition_cost_mean": round(
                    float(np.mean([c for o in runs for c, _ in o.costs])), 3
                ),
                "false_revocations_per_task": round(
                    float(np.mean([o.false_revocations for o in runs])) / tasks, 4
                ),
                "success": round(float(np.mean([o.successes.mean() for o in runs])), 4),
            }
        )
    return {"cells": [c.name for c in cells], "curves": curves}


def _verdict_counts(cells: Sequence[dict[str, Any]]) -> dict[str, Any]:
    verdicts = [c["comparison"]["verdict"] for c in cells if c["comparison"]]
    chosen = [c["comparison_chosen"]["verdict"] for c in cells if c.get("comparison_chosen")]
    by_preset: dict[str, dict[str, int]] = {}
    for c in cells:
        for m, cmp_ in c["presets"].items():
            counts = by_preset.setdefault(m, {"better": 0, "within": 0, "loses": 0})
            counts[cmp_["verdict"]] += 1
    out: dict[str, Any] = {
        "verdicts": {v: verdicts.count(v) for v in ("better", "within", "loses")},
        "preset_verdicts": by_preset,
    }
    if chosen:
        out["chosen_verdicts"] = {v: chosen.count(v) for v in ("better", "within", "loses")}
    return out


def run_grid(options: GridOptions, *, curves: bool = True) -> dict[str, Any]:
    """Tune, evaluate and summarise; the result JSON of ``tepa-bench grid``."""
    start = time.perf_counter()
    tuned = tune(options)
    choice = choose(options, tuned)
    tuned_s = time.perf_counter() - start
    runs = evaluate(options, tuned)
    cells = []
    for cell in options.cells:
        cells.append({**asdict(cell), **summarise_cell(runs[cell.name], choice=choice)})
    curve_data = operating_curves(options) if curves else {}
    return {
        "scenario": "grid",
        "config": {
            "base": options.base,
            "evaluation_seeds": list(options.evaluation_seeds),
            "tuning_seeds": list(options.tuning_seeds),
            "tuning_cells": [asdict(c) for c in options.tuning],
            "methods": list(options.methods),
            "tepa_presets": list(TEPA_PRESETS),
            "baselines": list(BASELINES),
            "references": list(REFERENCES),
            "storage": "in-process (TEPAMemory.in_memory), offline agent, retrieval k=4",
            "tuning_objective": "mean success over all interactions, tuning cells x seeds",
            "seconds_tuning": round(tuned_s, 1),
            "choice": choice,
            "seconds": round(time.perf_counter() - start, 1),
            "workers": options.workers,
        },
        "tuning": tuned,
        "cells": cells,
        "operating_curves": curve_data,
        **_verdict_counts(cells),
    }


_SAME = ("base", "evaluation_seeds", "tuning_seeds", "tuning_cells")


def check_replay(full: dict[str, Any], options: GridOptions) -> str:
    """Re-run the first cell's best baseline of a full run and require the same per-seed success.

    A merge is exact only if the full run's results are what the current code gives on the
    same seeds (every run is deterministic per seed: worlds, round orders, outcome draws and
    exploration come from the seed). This checks one method on one cell.

    Returns:
        The method and cell checked.

    Raises:
        InvalidArgumentError: If the re-run differs (the full run was made by other code).
    """
    cell = next((c for c in options.cells if c.name == full["cells"][0]["name"]), None)
    if cell is None:
        raise InvalidArgumentError(
            "cannot merge: the two grid runs have different cells; use the same --cells"
        )
    method = full["cells"][0]["comparison"].get("baseline") or next(
        iter(full["cells"][0]["methods"])
    )
    specs = [
        _spec(options, cell, method, seed, settings(full["tuning"], method))
        for seed in options.evaluation_seeds
    ]
    outs = run_many(specs, workers=options.workers, progress=False, description="replay")
    again = [round(float(o.successes.mean()), 5) for o in outs]
    if again != full["cells"][0]["methods"][method]["per_seed"]:
        raise InvalidArgumentError(
            f"cannot merge: {method} on {cell.name!r} gives other per-seed results than the "
            "full run's file (it was made by other code); re-run the full grid"
        )
    return f"{method} on {cell.name}"


def merge_grids(full: dict[str, Any], part: dict[str, Any]) -> dict[str, Any]:
    """Add the methods of a partial grid run (``--methods``) to a full run's result.

    Both runs must have the same world size, evaluation and tuning seeds, tuning
    configurations and cells (same names and configs): then every method met the same worlds
    and outcome draws, and the part's methods had the same tuning budget. The part's methods
    replace the full run's of the same name in every cell, tuning entry and operating curve;
    each cell's comparisons and the verdict counts are recomputed.

    Raises:
        InvalidArgumentError: If the two runs are not of the same grid.

    Example:
        >>> try:
        ...     merge_grids({"config": {"base": 1}}, {"config": {"base": 2}})
        ... except InvalidArgumentError as exc:
        ...     print(str(exc)[:46])
        cannot merge: the two grid runs differ in base
    """
    a, b = full["config"], part["config"]
    for name in _SAME:
        if a.get(name) != b.get(name):
            raise InvalidArgumentError(
                f"cannot merge: the two grid runs differ in {name}; run the part with the full "
                "run's --seeds, --tuning-seeds and --cells"
            )
    parts = {c["name"]: c for c in part["cells"]}
    mine = [(c["name"], c["config"]) for c in full["cells"]]
    if [(n, parts[n]["config"]) for n, _ in mine if n in parts] != mine:
        raise InvalidArgumentError(
            "cannot merge: the two grid runs have different cells; use the same --cells"
        )
    cells = []
    for c in full["cells"]:
        summary = {**c["methods"], **parts[c["name"]]["methods"]}
        cells.append({**c, **compare_cell(summary, choice=a.get("choice"))})
    methods = list(a["methods"]) + [m for m in b["methods"] if m not in a["methods"]]
    curves = dict(full.get("operating_curves") or {})
    extra = (part.get("operating_curves") or {}).get("curves", {})
    if extra:
        curves = {
            "cells": curves.get("cells") or part["operating_curves"]["cells"],
            "curves": {**curves.get("curves", {}), **extra},
        }
    return {
        **full,
        "config": {
            **a,
            "methods": methods,
            "tepa_presets": list(TEPA_PRESETS),
            "merged": {"methods": list(b["methods"]), "seconds": b.get("seconds")},
        },
        "tuning": {**full["tuning"], **part["tuning"]},
        "cells": cells,
        "operating_curves": curves,
        **_verdict_counts(cells),
    }


# ---------------------------------------------------------------------- CLI
def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", type=Path, default=Path("bench-results"), help="output folder")
    p.add_argument(
        "--seeds",
        type=int,
        default=len(EVALUATION_SEEDS),
        help="evaluation seeds (from 1000; default 20)",
    )
    p.add_argument(
        "--tuning-seeds",
        type=int,
        default=len(TUNING_SEEDS),
        help="tuning seeds (from 0; default 8)",
    )
    p.add_argument("--workers", type=int, default=1, help="worker processes (at most 2 here)")
    p.add_argument(
        "--cells",
        default=None,
        help="comma-separated panels to run (uniform, mixed, bursts; default all)",
    )
    p.add_argument(
        "--methods",
        default=None,
        help="comma-separated methods to run (default every method of the grid); tuned ones "
        "get the same budget of six candidates",
    )
    p.add_argument(
        "--merge",
        type=Path,
        default=None,
        help="a full run's grid.json: add this run's methods to it (same seeds and cells; "
        "one of its baselines is re-run to check that its results are reproduced exactly)",
    )
    p.add_argument("--no-progress", action="store_true", help="hide the progress bars")


def _methods(arg: str | None) -> tuple[str, ...]:
    if not arg:
        return GridOptions.methods
    methods = tuple(dict.fromkeys(m.strip() for m in arg.split(",") if m.strip()))
    known = (*POLICY_NAMES, *GATED_METHODS)
    unknown = [m for m in methods if m not in known]
    if unknown or not methods:
        raise InvalidArgumentError(
            f"--methods: unknown {unknown or arg!r}; choose from {', '.join(known)}"
        )
    return methods


def _handle(args: argparse.Namespace) -> int:
    from tepa_bench.grid_report import format_grid, plot_grid

    if args.seeds < 1 or args.tuning_seeds < 1 or args.workers < 1:
        raise InvalidArgumentError("--seeds, --tuning-seeds and --workers must be >= 1")
    cells = tuple(evaluation_cells())
    if args.cells:
        panels = {p.strip() for p in args.cells.split(",")}
        cells = tuple(c for c in cells if c.panel in panels)
        if not cells:
            raise InvalidArgumentError("--cells names no panel; use uniform, mixed or bursts")
    full = None
    if args.merge is not None:
        try:
            full = json.loads(args.merge.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InvalidArgumentError(f"--merge: cannot read {args.merge}: {exc}") from exc
    options = GridOptions(
        evaluation_seeds=tuple(range(1000, 1000 + args.seeds)),
        tuning_seeds=tuple(range(args.tuning_seeds)),
        methods=_methods(args.methods),
        workers=args.workers,
        progress=not args.no_progress,
        cells=cells,
    )
    replayed = check_replay(full, options) if full is not None else ""  # before the long run
    result = run_grid(options)
    if full is not None:
        result = merge_grids(full, result)
        print(f"merged into {args.merge}; replayed exactly: {replayed}")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "grid.json"
    path.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(format_grid(result))
    plots = plot_grid(result, args.out)
    print(f"wrote {path}" + "".join(f", {p}" for p in plots))
    return 0


register_command(
    CommandEntry(
        "grid",
        "every method, tuned on tuning seeds/configs, on a grid of drift worlds",
        _configure,
        _handle,
    )
)

"""Design runs for a revocation rule: tuning cells and tuning seeds 0-7 only.

Runs each ``[method, overrides]`` pair given as JSON on the grid's tuning cells and tuning
seeds (never an evaluation seed) and prints its mean success, false revocations per task,
mean transition cost, success per panel and per cell. Used for the key-level burst memory
recorded in docs/benchmarks.md ("A new rule, tried and not kept"); its figures are in
``burst_memory_tuning.txt`` beside this script.

Usage::

    python docs/results/burst_memory_tuning.py \
        '[["reactive", {"reactive_failures": 3, "window": 3}]]'
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import numpy as np

from tepa_bench.grid import BASE, TUNING_SEEDS, _method_summary, tuning_cells
from tepa_bench.runner import RunSpec, run_many


def main(argv: list[str]) -> None:
    """Run every configuration of ``argv[1]`` and print one line per configuration."""
    configs = json.loads(argv[1])  # [[method, overrides], ...]
    cells = tuning_cells()
    if any(seed >= 1000 for seed in TUNING_SEEDS):
        raise SystemExit("tuning seeds must stay below the evaluation seeds (1000 and up)")
    specs: list[RunSpec] = []
    keys: list[tuple[str, str, str, str]] = []
    for method, overrides in configs:
        for cell in cells:
            for seed in TUNING_SEEDS:
                config = {**BASE, **cell.config}
                specs.append(RunSpec("drift", config, method, seed, overrides=dict(overrides)))
                keys.append((method, json.dumps(overrides, sort_keys=True), cell.name, cell.panel))
    start = time.time()
    outs = run_many(specs, workers=2, progress=False, description="design runs")
    groups: dict[tuple[str, str], dict[tuple[str, str], list[Any]]] = {}
    for key, out in zip(keys, outs, strict=True):
        groups.setdefault(key[:2], {}).setdefault((key[2], key[3]), []).append(out)
    for (method, overrides), by_cell in groups.items():
        success: list[float] = []
        false_revocations: list[float] = []
        cost: list[float] = []
        panels: dict[str, list[float]] = {}
        for (_name, panel), runs in by_cell.items():
            summary = _method_summary(runs)
            success.append(summary["success"])
            false_revocations.append(summary["false_revocations_per_task"])
            cost.append(summary["transition_cost_mean"])
            panels.setdefault(panel, []).append(summary["success"])
        per_panel = " ".join(f"{p} {np.mean(v):.4f}" for p, v in panels.items())
        per_cell = " ".join(f"{x:.3f}" for x in success)
        print(  # noqa: T201
            f"{method} {overrides}: success {np.mean(success):.4f} FR "
            f"{np.mean(false_revocations):.3f} cost {np.mean(cost):.2f} | {per_panel} | "
            f"cells {per_cell}",
            flush=True,
        )
    print("seconds", round(time.time() - start, 1), flush=True)  # noqa: T201


if __name__ == "__main__":
    main(sys.argv)

"""The built-in ``tepa-bench`` scenarios: ``drift`` (controlled) and ``filedrift`` (executable).

Importing this module registers both (see :mod:`tepa_bench.registry`).

Example:
    >>> from tepa_bench.registry import get_scenario
    >>> get_scenario("filedrift").demo
    True
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.policy import POLICY_NAMES
from tepa_bench.registry import RunOptions, ScenarioEntry, register_scenario
from tepa_bench.report import build_result
from tepa_bench.runner import (
    RunSpec,
    available_methods,
    make_world,
    run_many,
    scenario_config,
    specs_for,
    tepa_full_available,
    uses_trials,
)

__all__ = [
    "FULL_SEEDS",
    "QUICK_SEEDS",
    "resolve_methods",
    "run_drift_scenario",
    "tuned_label",
    "tuned_note",
    "tuned_settings",
]

FULL_SEEDS = 20
QUICK_SEEDS = 6
"""Seeds of ``--quick`` runs and ``make demo``: full-length phases, fewer seeds (6 is the
fewest for which a paired sign-flip test can reach p < 0.05)."""
RETRIEVE_K = 4

AGENT_RULE = (
    "Follow the retrieved precedent of the task's mechanism that is active, names a possible "
    "action and has validity >= 0.50, taking the highest validity (ties: more support, then the "
    "first listed); with none, explore uniformly among the task's actions."
)


def tuned_settings(path: str | Path | None) -> dict[str, dict[str, Any]]:
    """The settings ``tepa-bench grid`` chose per tuned method, read from its ``grid.json``.

    ``oracle-rev`` takes ``tepa-rev``'s. ``None``: no tuned variants.

    Raises:
        InvalidArgumentError: If the file is missing or is not a grid result.
    """
    if path is None:
        return {}
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        tuning = {m: dict(t["chosen"]) for m, t in data["tuning"].items()}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InvalidArgumentError(
            f"--tuned needs the grid.json written by tepa-bench grid; could not read {path}: {exc}"
        ) from exc
    if "tepa-rev" in tuning:
        tuning["oracle-rev"] = tuning["tepa-rev"]
    return tuning


def tuned_label(method: str) -> str:
    """The report name of a tuned variant (its setting is in the result's ``config.tuned``).

    Example:
        >>> tuned_label("temporal")
        'temporal*'
    """
    return f"{method}*"


def tuned_note(tuned: dict[str, dict[str, Any]]) -> str:
    """One line naming the tuned variants of a table and their settings."""
    shown = "; ".join(
        f"{label} {', '.join(f'{k}={v}' for k, v in o.items())}" for label, o in tuned.items()
    )
    return f"  *: tuned by tepa-bench grid (tuning seeds and configurations): {shown}"


def resolve_methods(methods: list[str] | None) -> list[str]:
    """The methods to run, checked (``None``: every available method).

    Raises:
        InvalidArgumentError: For an unknown method, or a trial method (``tepa-full``,
            ``tepa-full-trials``) without its graph module.
    """
    if not methods:
        return available_methods()
    out = []
    for m in methods:
        if m not in POLICY_NAMES:
            raise InvalidArgumentError(
                f"unknown method {m!r}; choose from {', '.join(POLICY_NAMES)}"
            )
        if uses_trials(m) and not tepa_full_available():
            raise InvalidArgumentError(
                f"{m} needs langchain_tepa.graph.run_trials, which is not installed here; "
                "leave it out of --methods"
            )
        if m not in out:
            out.append(m)
    return out


def run_drift_scenario(name: str, options: RunOptions) -> dict[str, Any]:
    """Run a drift scenario for every method and seed and summarise it (the result JSON)."""
    methods = resolve_methods(options.methods)
    seeds = options.seeds or (QUICK_SEEDS if options.quick else FULL_SEEDS)
    if seeds < 1:
        raise InvalidArgumentError(f"--seeds must be >= 1, got {seeds}")
    storage = options.storage or "memory"
    if storage not in ("memory", "chroma"):
        raise InvalidArgumentError(f"--storage must be 'memory' or 'chroma', got {storage!r}")
    config = scenario_config(name, quick=options.quick, **options.overrides)
    config_dict = config.to_dict()
    world = make_world(name, config_dict, 0)
    try:
        described = world.describe()
    finally:
        world.close()
    workers = 1 if options.agent == "openai" else options.workers
    common: dict[str, Any] = {
        "storage": storage,
        "agent": options.agent,
        "model": options.model,
        "base_url": options.base_url,
        "k": RETRIEVE_K,
    }
    specs = specs_for(name, config_dict, methods, range(seeds), **common)
    tuned = tuned_settings(getattr(options.args, "tuned", None))
    for method, overrides in tuned.items():
        if method in methods:
            specs += [
                RunSpec(
                    name,
                    dict(config_dict),
                    method,
                    s,
                    overrides=overrides,
                    label=tuned_label(method),
                    **common,
                )
                for s in range(seeds)
            ]
    start = time.perf_counter()
    outcomes = run_many(specs, workers=workers, progress=options.progress, description=name)
    elapsed = time.perf_counter() - start
    cfg: dict[str, Any] = {
        **described,
        "quick": options.quick,
        "methods": methods,
        "seed_list": list(range(seeds)),
        "interactions": (
            "each task has acquisition + reversal interactions with the world; TEPA-Full's "
            "trials are interactions too (charged: they use the budget and count in the score)"
        ),
        "oracle": "oracle-reset and oracle-rev are told each change (a boundary record); no "
        "other method gets one",
        "storage": storage,
        "storage_note": (
            "embedded persistent Chroma (TEPAMemory.from_path) in a temporary folder per run"
            if storage == "chroma"
            else "in-process storage (TEPAMemory.in_memory), same fold and policies"
        ),
        "embeddings": "HashingEmbeddings (offline)",
        "agent": options.agent,
        "agent_rule": AGENT_RULE if options.agent == "offline" else "chat model, same prompt",
        "retrieve_k": RETRIEVE_K,
        "boundary": config.acquisition,
        "episodes_per_task": config.acquisition + config.reversal,
        "transition_cost_definition": (
            "median over (seed, task) of the steps after the change before the first run of "
            "three consecutive correct actions (the scorer knows the working action); a task "
            "that never gets one counts as the reversal length"
        ),
        "false_revocations_definition": (
            "Active values revoked while they were the working action, per seed (all tasks)"
        ),
        "paired_test": "two-sided sign-flip permutation test over seeds (exact up to 20 seeds)",
        "ci": "95% percentile bootstrap over seeds (10,000 resamples)",
        "tuned": {tuned_label(m): o for m, o in tuned.items() if m in methods},
        "tepa_full": "run"
        if "tepa-full" in methods
        else ("available but not selected" if tepa_full_available() else "not available"),
        "workers": workers,
        "seconds": round(elapsed, 1),
    }
    if options.agent == "openai":
        cfg["model"] = options.model
    return build_result(name, cfg, outcomes)


def _drift(options: RunOptions) -> dict[str, Any]:
    return run_drift_scenario("drift", options)


def _filedrift(options: RunOptions) -> dict[str, Any]:
    return run_drift_scenario("filedrift", options)


register_scenario(
    ScenarioEntry(
        "drift",
        "controlled hidden-mechanism drift (simulated noisy outcomes, reversal mid-run)",
        _drift,
    )
)
register_scenario(
    ScenarioEntry(
        "filedrift",
        "executable file-backed drift (real exports in a temp folder, checked by reading back)",
        _filedrift,
    )
)

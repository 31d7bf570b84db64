"""The drift protocol end to end on tiny sizes (in-process storage and embedded Chroma)."""

from __future__ import annotations

import numpy as np
import pytest

from langchain_tepa.bench.drift import DriftConfig, DriftWorld
from langchain_tepa.bench.runner import (
    RunSpec,
    available_methods,
    run_many,
    run_one,
)
from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.policy import POLICY_NAMES

CLEAN = {"tasks": 3, "acquisition": 8, "reversal": 12, "p_right": 1.0, "p_wrong": 0.0}


def test_drift_world_noise_and_common_draws() -> None:
    cfg = DriftConfig(tasks=2, acquisition=200, reversal=200, p_right=0.9, p_wrong=0.1)
    world = DriftWorld(cfg, seed=1)
    right = world.correct_action(0, "acquisition")
    wrong = next(a for a in world.tasks[0].actions if a != right)
    hits = [world.execute(0, right, "acquisition", e) for e in range(200)]
    misses = [world.execute(0, wrong, "acquisition", e) for e in range(200)]
    assert 0.8 < np.mean(hits) < 0.97
    assert 0.03 < np.mean(misses) < 0.2
    again = DriftWorld(cfg, seed=1)
    assert [again.execute(0, right, "acquisition", e) for e in range(200)] == hits


def test_run_one_records_every_episode() -> None:
    out = run_one(RunSpec("drift", CLEAN, "tepa-rev", seed=0))
    assert out.successes.shape == (3, 20)
    assert out.boundary == 8
    assert out.evidence >= 60  # one outcome per episode, plus boundary notes
    again = run_one(RunSpec("drift", CLEAN, "tepa-rev", seed=0))
    assert np.array_equal(out.successes, again.successes)


@pytest.mark.parametrize("method", [m for m in POLICY_NAMES if m != "tepa-full"])
def test_every_method_runs_on_the_file_world(method: str) -> None:
    out = run_one(RunSpec("filedrift", {"tasks": 2, "acquisition": 4, "reversal": 6}, method, 1))
    assert out.successes.shape == (2, 10)
    assert out.method == method


def test_noise_free_drift_separates_the_policies() -> None:
    """Without noise the mechanics are exact: append-only is stuck, TEPA and oracle recover."""
    rev = {}
    for method in ("no-memory", "append-only", "oracle-reset", "tepa-rev"):
        runs = [run_one(RunSpec("drift", CLEAN, method, s)) for s in range(3)]
        rev[method] = float(np.mean([r.successes[:, r.boundary :].mean() for r in runs]))
    assert rev["append-only"] == 0.0  # it keeps following the old action, which now always fails
    assert rev["tepa-rev"] > 0.6
    assert rev["oracle-reset"] > 0.6
    assert 0.0 < rev["no-memory"] < 0.7


def test_chroma_storage_gives_the_same_trajectory_as_memory() -> None:
    small = {"tasks": 2, "acquisition": 3, "reversal": 5}
    a = run_one(RunSpec("drift", small, "tepa-rev", 2, storage="memory"))
    b = run_one(RunSpec("drift", small, "tepa-rev", 2, storage="chroma"))
    assert np.array_equal(a.successes, b.successes)


def test_run_many_keeps_the_order_of_specs() -> None:
    specs = [
        RunSpec("drift", {"tasks": 1, "acquisition": 2, "reversal": 3}, m, 0)
        for m in ("lww", "reactive")
    ]
    outs = run_many(specs, workers=1, progress=False)
    assert [o.method for o in outs] == ["lww", "reactive"]


def test_bad_specs_are_rejected() -> None:
    with pytest.raises(InvalidArgumentError):
        run_one(RunSpec("drift", {}, "no-such-method", 0))
    with pytest.raises(InvalidArgumentError):
        run_one(RunSpec("nowhere", {}, "tepa-rev", 0))
    with pytest.raises(InvalidArgumentError):
        run_one(
            RunSpec(
                "drift",
                {"tasks": 1, "acquisition": 1, "reversal": 3},
                "tepa-rev",
                0,
                storage="disk",
            )
        )  # type: ignore[arg-type]


def test_tepa_full_runs_trials() -> None:
    assert "tepa-full" in available_methods()
    out = run_one(
        RunSpec("filedrift", {"tasks": 2, "acquisition": 5, "reversal": 8}, "tepa-full", 0)
    )
    assert out.extras["trials"] > 0
    assert out.successes[:, out.boundary :].mean() > 0.3

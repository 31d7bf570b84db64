"""The drift protocol end to end on tiny sizes (in-process storage and embedded Chroma)."""

from __future__ import annotations

import numpy as np
import pytest

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.policy import POLICY_NAMES
from tepa_bench.drift import DriftConfig, DriftWorld, drift_schedule
from tepa_bench.runner import (
    RunSpec,
    available_methods,
    run_many,
    run_one,
)

CLEAN = {"tasks": 3, "acquisition": 8, "reversal": 12, "p_right": 1.0, "p_wrong": 0.0}


def test_drift_world_noise_and_common_draws() -> None:
    cfg = DriftConfig(tasks=2, acquisition=200, reversal=200, p_right=0.9, p_wrong=0.1)
    schedule, draws = drift_schedule(cfg, seed=1)
    right = schedule.right_action(0, 0)
    wrong = next(a for a in DriftWorld(cfg, 1).tasks[0].actions if a != right)
    hits_world, misses_world = DriftWorld(cfg, seed=1), DriftWorld(cfg, seed=1)
    hits = [hits_world.execute(0, right) for _ in range(200)]
    misses = [misses_world.execute(0, wrong) for _ in range(200)]
    assert 0.8 < np.mean(hits) < 0.97
    assert 0.03 < np.mean(misses) < 0.2
    # common random numbers: the draw of a step decides, whoever acts
    assert hits == [d < 0.9 for d in draws[0][:200]]
    again = DriftWorld(cfg, seed=1)
    assert [again.execute(0, right) for _ in range(200)] == hits


def test_schedule_changes_noise_mix_and_bursts() -> None:
    cfg = DriftConfig(
        tasks=2,
        acquisition=20,
        reversal=100,
        change_every=20,
        noise_mix=[[1.0, 0.0], [0.7, 0.3]],
        burst_every=10,
        burst_length=2,
    )
    schedule, _ = drift_schedule(cfg, seed=3)
    assert schedule.change_points(0) == (20, 40, 60, 80, 100)
    for i in range(2):
        for t in schedule.change_points(i):
            assert schedule.right_action(i, t) != schedule.right_action(i, t - 1)
        bursts = schedule.bursts[i]
        assert bursts and all(b - a == 2 for a, b in bursts)
        for a, _ in bursts:  # bursts stay clear of the change points
            assert all(abs(a - c) >= 3 for c in schedule.change_points(i))
    assert cfg.noise(0) == (1.0, 0.0) and cfg.noise(1) == (0.7, 0.3)
    world = DriftWorld(cfg, seed=3)
    a, b = schedule.bursts[0][0]
    outcomes = []
    for t in range(b + 1):
        outcomes.append(world.execute(0, schedule.right_action(0, t)))
    assert not any(outcomes[a:b])  # the working action fails inside a burst (p_right = 1.0)
    assert outcomes[b] and all(outcomes[:a])  # and works around it
    legacy = DriftConfig(tasks=3)  # one change: the original two-phase worlds
    assert drift_schedule(legacy, 0)[0].change_points(0) == (50,)


def test_run_one_records_every_episode() -> None:
    out = run_one(RunSpec("drift", CLEAN, "tepa-rev", seed=0))
    assert out.successes.shape == (3, 20)
    assert out.boundary == 8
    assert out.evidence >= 60  # one outcome per episode, plus boundary notes
    again = run_one(RunSpec("drift", CLEAN, "tepa-rev", seed=0))
    assert np.array_equal(out.successes, again.successes)


@pytest.mark.parametrize("method", [m for m in POLICY_NAMES if not m.startswith("tepa-full")])
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


def test_tepa_full_trials_are_charged_interactions(monkeypatch: pytest.MonkeyPatch) -> None:
    from tepa_bench import trials as bench_trials

    # values that worked are promoted without trials (issue 15), so no Hypothesis is a contender
    # in this world: test every Hypothesis to make trials run
    monkeypatch.setattr(bench_trials, "CONTENDERS_ONLY", False)
    assert "tepa-full" in available_methods()
    cfg = {"tasks": 2, "acquisition": 5, "reversal": 8}
    out = run_one(RunSpec("filedrift", cfg, "tepa-full", 0))
    assert out.extras["trials"] > 0
    assert out.trials is not None and int(out.trials.sum()) == out.extras["trials"]
    # the same budget as every other method: trials use it up, they do not add to it
    assert (
        out.interactions == 2 * 13 == run_one(RunSpec("filedrift", cfg, "tepa-rev", 0)).interactions
    )


@pytest.mark.parametrize("scenario", ["drift", "filedrift"])
def test_the_papers_tepa_full_runs_charged_trials_by_default(scenario: str) -> None:
    """``tepa-full-trials`` promotes only through trials, so trials run without any patching."""
    assert "tepa-full-trials" in available_methods()
    cfg = {"tasks": 2, "acquisition": 6, "reversal": 10}
    out = run_one(RunSpec(scenario, cfg, "tepa-full-trials", 0))
    assert out.extras["trials"] > 0
    assert out.trials is not None and int(out.trials.sum()) == out.extras["trials"]
    # a trial is an interaction of the budget, and its outcome is in the scored successes
    rev = run_one(RunSpec(scenario, cfg, "tepa-rev", 0))
    assert out.interactions == rev.interactions == 2 * 16
    assert out.successes.shape == rev.successes.shape
    # tepa-full (issue 15) promotes values that worked on their outcomes: no trial here (an
    # emptied key's last answer is tried only when someone claimed it, issue 28)
    assert run_one(RunSpec(scenario, cfg, "tepa-full", 0)).extras["trials"] == 0


def test_only_the_oracles_are_told_the_changes() -> None:
    from tepa_bench import runner as R  # noqa: N812

    calls: list[str] = []
    real = R.TEPAMemory.mark_boundary

    def spy(self: object, **kw: object) -> object:
        calls.append(self.policy.name)  # type: ignore[attr-defined]
        return real(self, **kw)  # type: ignore[arg-type]

    cfg = {"tasks": 2, "acquisition": 3, "reversal": 9, "change_every": 3}
    try:
        R.TEPAMemory.mark_boundary = spy  # type: ignore[method-assign]
        for method in ("temporal", "tepa-rev", "oracle-reset", "oracle-rev"):
            run_one(RunSpec("drift", cfg, method, 0))
    finally:
        R.TEPAMemory.mark_boundary = real  # type: ignore[method-assign]
    # 4 changes per task (steps 3, 6, 9, 12... within 12 steps: 3, 6, 9), 2 tasks, 2 oracles
    assert sorted(set(calls)) == ["oracle-reset", "oracle-rev"]
    assert calls.count("oracle-rev") == 2 * 3


def test_false_revocations_are_scored_against_the_working_action() -> None:
    """Reactive forgetting revokes the working action at its first noisy failure."""
    noisy = {"tasks": 2, "acquisition": 60, "reversal": 3, "p_right": 0.8, "p_wrong": 0.0}
    reactive = run_one(RunSpec("drift", noisy, "reactive", 0))
    append = run_one(RunSpec("drift", noisy, "append-only", 0))
    assert reactive.false_revocations > 2
    assert reactive.false_revocations <= reactive.revocations
    assert append.revocations == append.false_revocations == 0
    clean = run_one(RunSpec("drift", CLEAN, "tepa-rev", 0))
    assert clean.false_revocations == 0 and clean.revocations >= 1  # only stale values revoked
    assert clean.correct is not None and clean.correct[:, -3:].all()


def test_policy_overrides_and_labels() -> None:
    spec = RunSpec("drift", CLEAN, "reactive", 0, overrides={"reactive_failures": 2}, label="r2")
    assert spec.policy().reactive_failures == 2
    assert run_one(spec).method == "r2"

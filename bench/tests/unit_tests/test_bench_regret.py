"""Issue 28: trials charged at a declared cost; regret over a cost axis; break-even cost."""

from __future__ import annotations

import numpy as np
import pytest

from tepa_bench.regret import (
    COST_AXIS,
    TRIAL_COST,
    break_even,
    failures_and_trials,
    format_regret,
    is_baseline,
    regret_block,
    regret_verdicts,
)
from tepa_bench.report import build_result
from tepa_bench.runner import RunOutcome, RunSpec, run_one


def test_every_world_declares_a_trial_cost_and_why() -> None:
    assert COST_AXIS == (0.1, 0.25, 0.5, 1.0)
    for world in ("drift", "filedrift", "preferences", "attack", "contested"):
        cost, why = TRIAL_COST[world]
        assert 0 < cost <= 1 and len(why) > 40


def test_failures_exclude_trials_and_regret_charges_them() -> None:
    ok = np.array([[True, False, False, True]])
    tried = np.array([[False, True, False, False]])
    out = RunOutcome("tepa-full", 0, ok, 2, 0.0, trials=tried)
    assert failures_and_trials(out) == (1, 1)  # the failed trial is charged, not a failure
    block = regret_block({"tepa-full": (np.array([1]), np.array([1]))}, "drift")
    assert block["methods"]["tepa-full"]["by_cost"]["0.25"] == pytest.approx(1.25)
    assert block["declared_cost"] == 0.25


def test_break_even_and_verdicts_use_the_paired_test() -> None:
    f_full, t_full = np.array([2.0] * 8), np.array([4.0] * 8)
    f_base = np.array([4.0] * 8)
    assert break_even(f_full, t_full, f_base) == 0.5
    assert break_even(f_full, np.zeros(8), f_base) is None
    block = regret_block(
        {"tepa-full": (f_full, t_full), "reactive*": (f_base, np.zeros(8))}, "drift"
    )
    (v,) = regret_verdicts(block, ["tepa-full"], ["reactive*"])
    assert v["baseline"] == "reactive*" and v["break_even"] == 0.5
    assert v["by_cost"]["0.1"]["verdict"] == "better"  # 2.4 against 4 on every seed
    assert v["by_cost"]["1"]["verdict"] == "worse"  # 6 against 4
    assert "break-even cost 0.5" in format_regret({"regret": block, "regret_verdicts": [v]})


def test_baselines_are_the_deployable_ones() -> None:
    assert [
        is_baseline(m) for m in ("reactive*", "lww", "tepa-key", "oracle-rev", "no-memory")
    ] == [
        True,
        True,
        False,
        False,
        False,
    ]


def test_a_run_reports_regret_with_the_trials_of_the_papers_tepa_full() -> None:
    config = {"tasks": 2, "acquisition": 6, "reversal": 10, "change_every": 5}
    outs = [
        run_one(RunSpec("drift", config, m, s))
        for m in ("tepa-full-trials", "reactive")
        for s in range(2)
    ]
    result = build_result("drift", config, outs)
    full = result["regret"]["methods"]["tepa-full-trials"]
    assert full["trials"] > 0
    assert full["by_cost"]["1"] > full["by_cost"]["0.1"]
    (verdict,) = result["regret_verdicts"]
    assert verdict["method"] == "tepa-full-trials" and verdict["baseline"] == "reactive"

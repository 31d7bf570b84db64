"""The attack matrix scenario (``tepa-bench run attack``), at small sizes."""

from __future__ import annotations

from pathlib import Path

import pytest

from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench import attack as A  # noqa: N812 - short in tables of calls
from tepa_bench.cli import main
from tepa_bench.registry import get_scenario

SMALL = A.AttackConfig(sizes=(1, 40), reads=10, change_budget=15)


@pytest.mark.parametrize("policy", ["tepa-rev", "tepa-full", "tepa-cd", "tepa-norev", "oracle-rev"])
@pytest.mark.parametrize("executor", [True, False])
def test_one_untrusted_source_neither_poisons_nor_erases(policy: str, executor: bool) -> None:
    cell = A.run_cell(policy, 40, "one", executor=executor, seed=1000, config=SMALL)
    assert (cell["poisoned"], cell["unavailable"]) == (0.0, 0.0)


def test_last_write_wins_and_the_paper_counting_are_poisoned() -> None:
    lww = A.run_cell("lww", 40, "one", executor=False, seed=1000, config=SMALL)
    assert lww["poisoned"] == 1.0
    paper = A.run_cell(A.NO_TRUST, 40, "one", executor=False, seed=1000, config=SMALL)
    assert paper["poisoned"] > 0.5


def test_a_genuine_change_is_adopted_by_executions_or_by_a_correction() -> None:
    with_exec = A.run_cell("tepa-rev", 5, "one", executor=True, seed=1000, config=SMALL)
    assert not with_exec["censored"] and with_exec["change_cost"] <= 8
    without = A.run_cell("tepa-rev", 5, "one", executor=False, seed=1000, config=SMALL)
    assert without["censored"]  # plain statements of one user never outweigh 5 outcomes
    corrected = A.run_cell(
        "tepa-rev", 5, "one", executor=False, seed=1000, config=SMALL, correction=True
    )
    assert corrected["change_cost"] == 1


def test_run_attack_summarises_every_cell_and_the_table_shows_them() -> None:
    config = A.AttackConfig(sizes=(1, 5), modes=("one", "spoof"), reads=5, change_budget=5)
    result = A.run_attack(["tepa-rev", "lww"], 2, config, progress=False)
    assert len(result["cells"]) == 2 * 2 * 2 * 2
    assert all(c["seeds"] == 2 for c in result["cells"])
    assert result["config"]["seed_range"] == [1000, 1001]
    table = A.format_attack_table(result)
    assert table.count("\ntepa-rev ") == 4 and table.count("\nlww ") == 4
    assert "poisoned n=1/5" in table


@pytest.mark.parametrize(
    "kwargs",
    [{"sizes": ()}, {"sizes": (0,)}, {"modes": ("many",)}, {"reads": 0}, {"p_right": 2.0}],
)
def test_config_is_validated(kwargs: dict) -> None:
    with pytest.raises(InvalidArgumentError):
        A.AttackConfig(**kwargs)


def test_registered_and_runs_through_the_cli(tmp_path: Path) -> None:
    assert get_scenario("attack").demo is False
    assert A.NO_TRUST in A.attack_policies()
    code = main(
        [
            "run",
            "attack",
            "--methods",
            "tepa-rev,lww",
            "--seeds",
            "1",
            "--quick",
            "--set",
            "reads=4",
            "--set",
            "sizes=1,5",
            "--out",
            str(tmp_path),
            "--no-progress",
            "--workers",
            "1",
        ]
    )
    assert code == 0
    assert (tmp_path / "attack.json").exists()
    assert A._setting("executors", "true,no") == (True, False)
    assert A._setting("modes", "one,spoof") == ("one", "spoof")
    with pytest.raises(InvalidArgumentError, match="unknown attack settings"):
        A._scenario(
            type("O", (), {"methods": None, "seeds": 1, "quick": True, "overrides": {"x": 1}})()
        )


# ---------------------------------------------------------------------- issue 28
@pytest.mark.parametrize("mode", ["flood-bot", "flood-agent", "flood-tool"])
def test_a_look_alike_key_flood_buries_the_fact_only_without_budgets(mode: str) -> None:
    from tepa_bench.attack import AttackConfig, run_cell

    config = AttackConfig(reads=5, change_budget=5)
    kept = run_cell("tepa-key", 40, mode, executor=False, seed=0, config=config)
    buried = run_cell("tepa-rev", 40, mode, executor=False, seed=0, config=config)
    assert kept["poisoned"] == 0.0
    assert buried["poisoned"] >= 0.6


def test_the_frontier_is_the_pareto_set_per_arm() -> None:
    from tepa_bench.attack_frontier import frontier, pareto

    assert pareto({"fast": (1, 0.5), "safe": (9, 0.0), "both": (2, 0.0), "bad": (9, 0.5)}) == [
        "fast",
        "both",
    ]
    cells = [
        {"policy": p, "executor": e, "change_cost": c, "poisoned": x}
        for p, c, x in (("lww", 1, 0.6), ("tepa-key", 2, 0.0), ("tepa-rev", 30, 0.0))
        for e in (True, False)
    ]
    result = {"config": {"policies": ["lww", "tepa-key", "tepa-rev"]}, "cells": cells}
    assert frontier(result)["no-executor"]["frontier"] == ["lww", "tepa-key"]

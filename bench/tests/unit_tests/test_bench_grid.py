"""``tepa-bench grid``: tuning on tuning seeds and configurations, evaluation on others."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench import cli
from tepa_bench import grid as G  # noqa: N812
from tepa_bench.grid_report import false_revocation_ratios, format_grid, plot_grid
from tepa_bench.runner import RunOutcome

SMALL = {"tasks": 2, "actions": 3, "acquisition": 6, "reversal": 12}


def test_tuning_and_evaluation_seeds_and_cells_are_disjoint() -> None:
    assert not set(G.TUNING_SEEDS) & set(G.EVALUATION_SEEDS)
    assert len(G.EVALUATION_SEEDS) >= 20
    options = G.GridOptions()
    assert not {c.name for c in options.cells} & {c.name for c in options.tuning}
    assert not {json.dumps(c.config, sort_keys=True) for c in options.cells} & {
        json.dumps(c.config, sort_keys=True) for c in options.tuning
    }
    with pytest.raises(InvalidArgumentError, match="overlap"):
        G.GridOptions(evaluation_seeds=(0, 1), tuning_seeds=(1, 2))
    with pytest.raises(InvalidArgumentError, match="used for tuning"):
        G.GridOptions(cells=(G.tuning_cells()[0],))


def test_every_tuned_method_gets_the_same_budget() -> None:
    assert {len(c) for c in G.CANDIDATES.values()} == {6}
    assert set(G.CANDIDATES) == {
        "temporal",
        "reactive",
        "tepa-rev",
        "tepa-cd",
        "tepa-key",
        "trial-gated",  # issue 39: its six gates
    }
    cells = G.evaluation_cells()
    assert {c.panel for c in cells} == {"uniform", "mixed", "bursts"}
    noise = [c.config.get("p_right") for c in cells if c.panel == "uniform"]
    assert min(noise) == 0.6 and max(noise) == 0.99
    assert {c.config["change_every"] for c in cells} == {0, 20, 40, 60}


def _outcome(method: str, seed: int, rate: float) -> RunOutcome:
    succ = np.zeros((2, 10), dtype=bool)
    succ[:, : int(rate * 10)] = True
    return RunOutcome(method, seed, succ, 5, 0.0, costs=[(2, False)], correct=succ)


def test_cell_verdicts() -> None:
    seeds = range(8)
    better = G.summarise_cell(
        {
            "tepa-rev": [_outcome("tepa-rev", s, 0.9) for s in seeds],
            "reactive": [_outcome("reactive", s, 0.5 + 0.01 * s) for s in seeds],
        }
    )["comparison"]
    assert (better["tepa"], better["baseline"], better["verdict"]) == (
        "tepa-rev",
        "reactive",
        "better",
    )
    assert better["p_value"] < 0.01 and better["diff"] > 0
    loses = G.summarise_cell(
        {
            "tepa-rev": [_outcome("tepa-rev", s, 0.3) for s in seeds],
            "temporal": [_outcome("temporal", s, 0.8) for s in seeds],
        }
    )["comparison"]
    assert loses["verdict"] == "loses"
    tie = G.summarise_cell(
        {
            "tepa-cd": [_outcome("tepa-cd", s, 0.7) for s in seeds],
            "reactive": [_outcome("reactive", s, 0.7) for s in seeds],
        }
    )["comparison"]
    assert tie["verdict"] == "within" and tie["p_value"] == 1.0


def test_each_preset_gets_its_own_verdict() -> None:
    seeds = range(8)
    cell = G.summarise_cell(
        {
            "tepa-rev": [_outcome("tepa-rev", s, 0.3) for s in seeds],
            "tepa-key": [_outcome("tepa-key", s, 0.9) for s in seeds],
            "reactive": [_outcome("reactive", s, 0.5 + 0.01 * s) for s in seeds],
        }
    )
    assert cell["comparison"]["tepa"] == "tepa-key"
    assert cell["presets"]["tepa-key"]["verdict"] == "better"
    assert cell["presets"]["tepa-rev"]["verdict"] == "loses"
    assert cell["presets"]["tepa-rev"]["diff"] < 0
    assert cell["comparison"]["verdict"] == cell["presets"]["tepa-key"]["verdict"]


def test_a_small_grid_end_to_end(tmp_path: Path) -> None:
    cells = tuple(c for c in G.evaluation_cells() if c.name in G.CURVE_CELLS[:2])
    options = G.GridOptions(
        evaluation_seeds=(1000, 1001),
        tuning_seeds=(0,),
        methods=("no-memory", "reactive", "tepa-rev", "oracle-rev"),
        cells=cells,
        tuning=(G.tuning_cells()[0],),
        base=SMALL,
        progress=False,
    )
    result = G.run_grid(options)
    json.dumps(result)
    assert set(result["tuning"]) == {"reactive", "tepa-rev"}  # oracle-rev takes tepa-rev's
    for t in result["tuning"].values():
        best = max(c["success"] for c in t["candidates"])
        assert next(c for c in t["candidates"] if c["overrides"] == t["chosen"])["success"] == best
    assert len(result["cells"]) == 2
    for cell in result["cells"]:
        assert set(cell["methods"]) == set(options.methods)
        assert cell["comparison"]["baseline"] in G.BASELINES  # never an oracle
        m = cell["methods"]["tepa-rev"]
        assert m["interactions_per_seed"] == 2 * 18
        assert len(m["per_seed"]) == 2
    assert sum(result["verdicts"].values()) == 2
    assert sum(result["preset_verdicts"]["tepa-rev"].values()) == 2
    assert set(result["operating_curves"]["curves"]) == {"reactive", "tepa-rev"}
    text = format_grid(result)
    assert "tuning" in text and "verdicts:" in text
    assert false_revocation_ratios(result, "tepa-rev")["method"] == "tepa-rev"
    written = plot_grid(result, tmp_path)
    assert [p.name for p in written] == ["grid_heatmap.png", "grid_tradeoff.png"]
    # the tuned settings feed the drift and preference runs (--tuned grid.json)
    (tmp_path / "grid.json").write_text(json.dumps(result))
    args = [
        "--tuned",
        str(tmp_path / "grid.json"),
        "--seeds",
        "2",
        "--no-progress",
        "--workers",
        "1",
        "--out",
        str(tmp_path),
    ]
    small = ["--set", "tasks=1", "--set", "acquisition=3", "--set", "reversal=4"]
    assert cli.main(["run", "drift", "--methods", "reactive,tepa-rev", *small, *args]) == 0
    drift = json.loads((tmp_path / "drift.json").read_text())
    assert list(drift["methods"]) == ["reactive", "tepa-rev", "reactive*", "tepa-rev*"]
    assert drift["config"]["tuned"]["reactive*"] == result["tuning"]["reactive"]["chosen"]
    pref = ["--set", "users=1", "--set", "sessions=40"]
    assert cli.main(["run", "preferences", "--methods", "reactive", *pref, *args]) == 0
    assert "reactive*" in json.loads((tmp_path / "preferences.json").read_text())["methods"]
    assert cli.main(["run", "drift", "--tuned", str(tmp_path / "nothing.json"), *small]) == 2


def test_grid_command_is_registered(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["list"]) == 0
    assert "grid" in capsys.readouterr().out
    assert cli.main(["grid", "--seeds", "0"]) == 2


def _small_options(methods: tuple[str, ...]) -> G.GridOptions:
    return G.GridOptions(
        evaluation_seeds=(1000, 1001, 1002),
        tuning_seeds=(0,),
        methods=methods,
        cells=tuple(c for c in G.evaluation_cells() if c.name in G.CURVE_CELLS[:2]),
        tuning=(G.tuning_cells()[0],),
        base=SMALL,
        progress=False,
    )


def test_a_method_run_alone_merges_exactly_into_a_full_run() -> None:
    """``--methods`` + ``--merge``: the same figures as running every method together."""
    together = G.run_grid(_small_options(("reactive", "tepa-rev", "tepa-key")))
    full = G.run_grid(_small_options(("reactive", "tepa-rev")))
    part = G.run_grid(_small_options(("tepa-key",)))
    assert set(part["tuning"]) == {"tepa-key"}  # its own tuning budget, six candidates
    assert len(part["tuning"]["tepa-key"]["candidates"]) == 6
    merged = G.merge_grids(full, part)
    assert merged["tuning"] == together["tuning"]
    for a, b in zip(merged["cells"], together["cells"], strict=True):
        assert a["methods"] == b["methods"]  # per-seed success, CIs, costs: all identical
        assert a["comparison"] == b["comparison"] and a["presets"] == b["presets"]
    assert merged["verdicts"] == together["verdicts"]
    assert merged["preset_verdicts"] == together["preset_verdicts"]
    assert merged["operating_curves"]["curves"] == together["operating_curves"]["curves"]
    assert merged["config"]["merged"]["methods"] == ["tepa-key"]
    # the baselines are deterministic per seed: a replay reproduces the full run's file
    assert G.check_replay(full, _small_options(("reactive", "tepa-rev"))).startswith("reactive")
    assert "nothing to compare" in format_grid(G.run_grid(_small_options(("no-memory",))))
    tampered = json.loads(json.dumps(full))
    tampered["cells"][0]["methods"]["reactive"]["per_seed"][0] += 0.01
    with pytest.raises(InvalidArgumentError, match="other code"):
        G.check_replay(tampered, _small_options(("reactive",)))
    with pytest.raises(InvalidArgumentError, match="different cells"):
        G.check_replay(full, G.GridOptions(cells=(G.evaluation_cells()[-1],), progress=False))
    other = {**part, "config": {**part["config"], "evaluation_seeds": [1000]}}
    with pytest.raises(InvalidArgumentError, match="evaluation_seeds"):
        G.merge_grids(full, other)


def test_grid_methods_option_is_checked() -> None:
    assert cli.main(["grid", "--methods", "tepa-nothing"]) == 2
    assert cli.main(["grid", "--merge", "/nonexistent/grid.json", "--methods", "tepa-key"]) == 2


def test_tepa_enters_every_cell_with_the_one_preset_chosen_on_tuning() -> None:
    """Issue 28: no per-cell pick of the best TEPA preset on the evaluation seeds."""
    seeds = range(8)
    runs = {
        "tepa-rev": [_outcome("tepa-rev", s, 0.3) for s in seeds],
        "tepa-key": [_outcome("tepa-key", s, 0.9) for s in seeds],
        "reactive": [_outcome("reactive", s, 0.5 + 0.01 * s) for s in seeds],
        "lww": [_outcome("lww", s, 0.2) for s in seeds],
    }
    choice = {"tepa": "tepa-rev", "baseline": "lww", "tuning_success": {}}
    cell = G.summarise_cell(runs, choice=choice)
    assert cell["comparison"]["tepa"] == "tepa-rev"  # chosen on tuning, though it loses here
    assert cell["comparison"]["verdict"] == "loses"
    assert cell["comparison_chosen"]["baseline"] == "lww"
    assert cell["comparison_chosen"]["verdict"] == "better"


def test_better_and_loses_use_the_same_paired_test() -> None:
    seeds = range(8)
    noisy = G.summarise_cell(  # below on average, but not by the paired test: within
        {
            "tepa-rev": [_outcome("tepa-rev", s, 0.5 + (0.3 if s % 2 else -0.3)) for s in seeds],
            "reactive": [_outcome("reactive", s, 0.6) for s in seeds],
        }
    )["comparison"]
    assert noisy["diff"] < 0 and noisy["p_value"] >= 0.01
    assert noisy["verdict"] == "within"

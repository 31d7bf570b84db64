"""The result JSON contract, the table and the plot."""

from __future__ import annotations

import builtins
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench.report import build_result, format_table, plot_result, write_result
from tepa_bench.runner import RunOutcome, RunSpec, run_one

PHASE_KEYS = {"success", "ci95", "episodes"}
METHOD_KEYS = {
    "phases",
    "mpi",
    "transition_cost",
    "false_revocations",
    "revocations",
    "interactions",
    "trials",
    "curve",
}
COMPARISON_KEYS = {"a", "b", "phase", "diff", "p_value"}


def check_contract(result: dict[str, Any]) -> None:
    """The exact shape other tools read."""
    required = {"scenario", "seeds", "config", "methods", "comparisons"}
    assert required <= set(result) <= required | {"regret", "regret_verdicts"}  # issue 28
    if "regret" in result:
        assert set(result["regret"]) == {"declared_cost", "why", "costs", "methods"}
        assert set(result["regret"]["methods"]) == set(result["methods"])
    assert isinstance(result["scenario"], str)
    assert isinstance(result["seeds"], int)
    assert isinstance(result["config"], dict)
    for m in result["methods"].values():
        assert set(m) == METHOD_KEYS
        assert set(m["phases"]) == {"acquisition", "reversal"}
        for ph in m["phases"].values():
            assert set(ph) == PHASE_KEYS
            lo, hi = ph["ci95"]
            assert 0.0 <= lo <= ph["success"] <= hi <= 1.0
            assert isinstance(ph["episodes"], int)
        assert m["mpi"] is None or isinstance(m["mpi"], float)
        assert isinstance(m["transition_cost"], float)
        assert m["false_revocations"] <= m["revocations"]
        assert m["trials"] <= m["interactions"]
        assert all(0.0 <= x <= 1.0 for x in m["curve"])
    for c in result["comparisons"]:
        assert set(c) == COMPARISON_KEYS
        assert 0.0 < c["p_value"] <= 1.0
    json.dumps(result)  # serialisable


def outcome(method: str, seed: int, acq: float, rev: float) -> RunOutcome:
    arr = np.zeros((2, 10), dtype=bool)
    arr[:, : int(4 * acq)] = True
    arr[:, 4 : 4 + int(6 * rev)] = True
    return RunOutcome(method, seed, arr, boundary=4, seconds=0.1)


def test_build_result_on_known_outcomes() -> None:
    outs = [outcome("no-memory", s, 0.5, 0.5) for s in range(4)]
    outs += [outcome("append-only", s, 1.0, 0.0) for s in range(4)]
    outs += [outcome("tepa-rev", s, 1.0, 1.0) for s in range(4)]
    result = build_result("drift", {"tasks": 2, "acquisition": 4, "reversal": 6}, outs)
    check_contract(result)
    methods = result["methods"]
    assert result["seeds"] == 4
    assert methods["tepa-rev"]["phases"]["reversal"] == {
        "success": 1.0,
        "ci95": [1.0, 1.0],
        "episodes": 12,
    }
    assert methods["append-only"]["mpi"] == 1.0
    assert methods["tepa-rev"]["mpi"] == -1.0
    assert methods["no-memory"]["mpi"] == 0.0
    assert methods["tepa-rev"]["transition_cost"] == 0.0
    assert methods["append-only"]["transition_cost"] == 6.0  # censored at the phase length
    assert result["config"]["transition_cost_censored_share"]["append-only"] == 1.0
    assert len(methods["tepa-rev"]["curve"]) == 10
    comp = {(c["b"], c["phase"]): c for c in result["comparisons"]}
    assert set(comp) == {
        (b, ph) for b in ("no-memory", "append-only") for ph in ("acquisition", "reversal")
    }
    assert comp[("append-only", "reversal")]["diff"] == 1.0
    assert comp[("append-only", "reversal")]["p_value"] == pytest.approx(2 / 16)
    assert comp[("append-only", "acquisition")]["p_value"] == 1.0
    table = format_table(result)
    for name in methods:
        assert name in table
    assert "0.210" in table  # the paper's append-only figure for drift
    assert "FR: false revocations" in table  # the columns are explained
    assert "no p-values: with 4 seeds" in table and "p vs tepa-rev" not in table
    assert "0.210" not in format_table(result, paper=False)


def test_mpi_is_null_without_no_memory() -> None:
    result = build_result("drift", {}, [outcome("tepa-rev", 0, 1, 1), outcome("lww", 0, 1, 0)])
    check_contract(result)
    assert result["methods"]["lww"]["mpi"] is None


def test_unpaired_seeds_are_rejected() -> None:
    with pytest.raises(InvalidArgumentError):
        build_result("drift", {}, [outcome("tepa-rev", 0, 1, 1), outcome("lww", 1, 1, 0)])
    with pytest.raises(InvalidArgumentError):
        build_result("drift", {}, [])


def test_real_runs_write_json_and_png(tmp_path: Path) -> None:
    cfg = {"tasks": 2, "acquisition": 4, "reversal": 6}
    outs = [
        run_one(RunSpec("drift", cfg, m, s)) for m in ("no-memory", "tepa-rev") for s in range(2)
    ]
    result = build_result("drift", cfg, outs)
    check_contract(result)
    path = write_result(result, tmp_path)
    assert json.loads(path.read_text()) == result
    png = plot_result(result, tmp_path / "drift.png")
    assert png is not None
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "p vs tepa-rev" not in format_table(result)  # 2 seeds cannot support a p-value


def test_trailing_mean_never_looks_ahead() -> None:
    from tepa_bench.report import trailing_mean

    values = [0.0] * 5 + [1.0] * 5
    smooth = trailing_mean(values, 3)
    assert smooth[:5].tolist() == [0.0] * 5  # the change does not leak into earlier points
    assert smooth[5:8].tolist() == pytest.approx([1 / 3, 2 / 3, 1.0])


def test_p_values_only_where_seeds_support_them() -> None:
    from tepa_bench.report import p_values_supported

    assert [n for n in range(1, 9) if p_values_supported(n)] == [6, 7, 8]


def test_plot_is_skipped_with_a_warning_without_matplotlib(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_import = builtins.__import__

    def fake_import(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError("no matplotlib here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    result = build_result("drift", {}, [outcome("tepa-rev", 0, 1, 1)])
    with pytest.warns(UserWarning, match="matplotlib"):
        assert plot_result(result, tmp_path / "x.png") is None
    assert not (tmp_path / "x.png").exists()

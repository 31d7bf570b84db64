"""TEPA-Full's trial gate in the benchmark worlds (issue 28): the attack matrix's spoofed `user`
and the contested-change world, with the isolation tripwire on the world's hidden address.

The gate's own rules are tested in the library's ``tests/unit_tests/test_contest.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

from langchain_tepa import LifecyclePolicy
from langchain_tepa.core.changes import CHANGE_SOURCES

NO_GATE = LifecyclePolicy.preset(
    "tepa-full", trial_gate=False, revise_own=True, change_sources=CHANGE_SOURCES
)
"""TEPA-Full with the default's change rules and no gate (as in test_contest.py)."""


@pytest.mark.parametrize("mode", ["spoof", "spoof-correction"])
@pytest.mark.parametrize("gate", [True, False], ids=["gate", "gate_off"])
def test_a_spoofed_user_with_an_executor_poisons_no_read(mode: str, gate: bool) -> None:
    from tepa_bench import attack

    config = attack.AttackConfig(sizes=(40,), reads=10)
    policy = "tepa-full" if gate else "tepa-full/no-gate-test"
    original = attack._policy
    if not gate:
        attack_policy = NO_GATE

        def patched(name: str) -> Any:
            return attack_policy if name == policy else original(name)

        attack._policy = patched
    try:
        cells = [
            attack.run_cell(policy, 40, mode, executor=True, seed=1000 + s, config=config)
            for s in range(3)
        ]
    finally:
        attack._policy = original
    poisoned = sum(c["poisoned"] for c in cells)
    if not gate:  # the rules alone serve the spoofed value before its executions fail
        assert poisoned > 0
        return
    assert poisoned == 0
    assert all(c["change_cost"] < config.change_budget for c in cells)  # the change adopted
    assert all(c["trials"] > 0 for c in cells)


def test_the_contested_world_runs_through_the_cli(tmp_path: Any) -> None:
    """`tepa-bench run contested`: genuine changes among spoofed ones; with an executor
    TEPA-Full serves no spoofed value, adopts every change and pays trials for it."""
    import json

    from tepa_bench.cli import main
    from tepa_bench.contested import ContestedConfig, run_contested

    small = ContestedConfig(steps=60, changes=2, gap=15, spoofs=4)
    for seed in (1000, 1001):
        full = run_contested("tepa-full", executor=True, seed=seed, config=small)
        assert full["poisoned"] == 0 and full["trials"] > 0
        assert len(full["adoption"]) == 2 and max(full["adoption"]) < 15
        lww = run_contested("lww", executor=True, seed=seed, config=small)
        assert lww["poisoned"] > 0 and lww["trials"] == 0
    args = ["run", "contested", "--methods", "tepa-full,lww", "--seeds", "2", "--quick"]
    args += ["--out", str(tmp_path), "--no-progress", "--workers", "1"]
    assert main(args) == 0
    result = json.loads((tmp_path / "contested.json").read_text())
    arm = result["arms"]["executor"]
    assert arm["regret"]["declared_cost"] == 0.25
    assert arm["methods"]["tepa-full"]["poisoned"] == 0


def test_no_trial_executor_reads_the_contested_world_s_hidden_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The address that holds is read by the world's own methods only, and with the library
    (TEPA-Full's trials) on the stack only by ``act``: the world's answer to one execution."""
    import sys
    from pathlib import Path

    import langchain_tepa
    from tepa_bench import contested as C  # noqa: N812

    package = Path(langchain_tepa.__file__).parent
    library = tuple(
        str(p) for p in package.iterdir() if p.name not in ("bench", "__pycache__", "py.typed")
    )
    reads: list[tuple[str, bool]] = []
    real = C._World.__getattribute__

    def spy(self: Any, name: str) -> Any:
        if name == "_World__holds":
            frame: Any = sys._getframe(1)
            func = frame.f_code.co_name
            stack = []
            while frame is not None:
                stack.append(frame.f_code.co_filename)
                frame = frame.f_back
            reads.append((func, any(f.startswith(library) for f in stack)))
        return real(self, name)

    monkeypatch.setattr(C._World, "__getattribute__", spy)
    small = C.ContestedConfig(steps=60, changes=2, gap=15, spoofs=4)
    out = C.run_contested("tepa-full", executor=True, seed=1000, config=small)
    assert out["trials"] > 0
    assert {f for f, _ in reads} <= {"__init__", "change", "serves", "act"}
    assert any(lib for f, lib in reads if f == "act")  # the tripwire saw the trials
    assert not any(lib for f, lib in reads if f != "act")

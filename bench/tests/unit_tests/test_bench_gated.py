"""Issue 39: the executor in a baseline's hands (tepa_bench.gated), charged as TEPA-Full's
trials are, in every benchmark that has an executor (contested, attack, preferences, grid)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from langchain_tepa import HashingEmbeddings, TEPAMemory
from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench.gated import (
    GATE_CANDIDATES,
    GATED,
    TUNED_GATE,
    TUNING_FIRST_SEED,
    ExecutorGate,
    GateSetting,
    check_disjoint,
    gate_setting,
    gates_for,
    is_gated,
    tune_gate,
)

KEY = "user.city"


def memory(setting: GateSetting) -> TEPAMemory:
    ticks = itertools.count(1)
    return TEPAMemory.in_memory(
        embeddings=HashingEmbeddings(), policy=setting.policy(), clock=lambda: float(next(ticks))
    )


class World:
    """Only ``works`` works; every execution is counted (the charge)."""

    def __init__(self, works: str) -> None:
        self.works = works
        self.calls: list[str] = []

    def __call__(self, namespace: str | None, key: str, value: Any) -> bool:
        self.calls.append(value)
        return bool(value == self.works)


def acted(mem: TEPAMemory, value: str) -> None:
    mem.observe(KEY, value, source="user")
    mem.record_outcome(KEY, value, True)


def test_lww_plus_trial_tries_a_new_value_once_before_serving_it() -> None:
    setting = GATED["lww+trial"]
    mem = memory(setting)
    acted(mem, "Lisbon")
    world = World("Lisbon")
    gate = ExecutorGate(mem, setting, world)
    assert gate.check(KEY) == 0 and mem.get(KEY) == "Lisbon"  # acted on: no trial
    for _ in range(2):
        mem.observe(KEY, "Atlantis", source="user")  # a spoof: lww adopts it at once
    assert mem.get(KEY) == "Atlantis"
    assert gate.check(KEY) == 1 and mem.get(KEY) == "Lisbon"  # one failed trial: not served
    assert world.calls == ["Atlantis"]
    world.works = "Oslo"
    mem.observe(KEY, "Oslo", source="user")  # a genuine change
    assert gate.check(KEY) == 1 and mem.get(KEY) == "Oslo"
    assert gate.check(KEY) == 0 and gate.executions == 2
    mem.observe(KEY, "Atlantis", source="user")  # the rule re-trials every new statement
    assert gate.check(KEY) == 1 and mem.get(KEY) == "Oslo"


def test_a_gate_needs_its_successes_and_stops_once_settled() -> None:
    setting = GateSetting("lww", trials=2, need=2)
    mem = memory(setting)
    acted(mem, "Lisbon")
    world = World("Lisbon")
    gate = ExecutorGate(mem, setting, world)
    gate.check(KEY)
    mem.observe(KEY, "Atlantis", source="user")
    assert gate.check(KEY) == 1  # the first failure settles it: two successes are out of reach
    world.works = "Oslo"
    mem.observe(KEY, "Oslo", source="user")
    assert gate.check(KEY) == 2 and mem.get(KEY) == "Oslo"


def test_the_recheck_restores_a_value_dropped_on_noise() -> None:
    setting = GateSetting("reactive*", recheck=1)
    mem = memory(setting)
    acted(mem, "Lisbon")
    world = World("Lisbon")
    gate = ExecutorGate(mem, setting, world)
    gate.check(KEY)
    for _ in range(3):  # three failures in a row: reactive* revokes
        mem.record_outcome(KEY, "Lisbon", False)
    assert mem.get(KEY) is None
    assert gate.check(KEY) == 1 and mem.get(KEY) == "Lisbon"
    world.works = "Oslo"  # a real change: the recheck fails and the key stays empty
    for _ in range(3):
        mem.record_outcome(KEY, "Lisbon", False)
    assert gate.check(KEY) == 1 and mem.get(KEY) is None


def test_a_gate_follows_the_rule_untried_when_the_budget_holds_no_trial() -> None:
    setting = GATED["lww+trial"]
    mem = memory(setting)
    acted(mem, "Lisbon")
    gate = ExecutorGate(mem, setting, World("Lisbon"), room=lambda ns, key: 0)
    gate.check(KEY)
    mem.observe(KEY, "Atlantis", source="user")
    assert gate.check(KEY) == 0 and mem.get(KEY) == "Atlantis"


def test_settings_names_tuning_and_errors() -> None:
    assert GateSetting("temporal*", trials=2, need=1, recheck=1).label == (
        "temporal*+trial(2/1)+recheck1"
    )
    assert len(GATE_CANDIDATES) == 6  # the budget of every tuned method
    assert is_gated("lww+trial") and is_gated(TUNED_GATE) and is_gated("trial-gated")
    assert not is_gated("lww")
    with pytest.raises(InvalidArgumentError, match="need"):
        GateSetting("lww", trials=1, need=2)
    with pytest.raises(InvalidArgumentError, match="trials"):
        GateSetting("lww", trials=0)
    with pytest.raises(Exception, match="unknown policy"):
        GateSetting("nonsense")
    with pytest.raises(InvalidArgumentError, match="baseline"):
        GateSetting("tepa-full")
    with pytest.raises(InvalidArgumentError, match="tune it first"):
        gate_setting(TUNED_GATE)
    with pytest.raises(InvalidArgumentError, match="no trial-gated"):
        gate_setting("lww")
    best, rows = tune_gate(lambda g, s: (float(g.recheck), float(g.trials)), 3, 0.25)
    assert best == GATE_CANDIDATES[0] and [r["regret"] for r in rows][:2] == [0.25, 0.5]
    with pytest.raises(InvalidArgumentError, match="overlap"):
        check_disjoint(TUNING_FIRST_SEED + 5, 20, 40)
    check_disjoint(1000, 20, 40)
    gates, info = gates_for(
        ["lww", "lww+trial", TUNED_GATE],
        lambda n: (GATE_CANDIDATES[3], [{"n": n}]),
        tuning_seeds=4,
        first_seed=1000,
        seeds=20,
    )
    assert gates == {"lww+trial": GATED["lww+trial"], TUNED_GATE: GATE_CANDIDATES[3]}
    assert info is not None and info["seeds"] == [2000, 2003]


# ---------------------------------------------------------------------- in the benchmarks
def test_the_contested_world_charges_the_gate_as_it_charges_tepa_full() -> None:
    from tepa_bench.contested import ContestedConfig, run_contested, run_contested_matrix

    small = ContestedConfig(steps=60, changes=2, gap=15, spoofs=4)
    gated = run_contested(
        "lww+trial", executor=True, seed=1000, config=small, gate=GATED["lww+trial"]
    )
    plain = run_contested("lww", executor=True, seed=1000, config=small)
    assert gated["trials"] > 0 and plain["trials"] == 0
    assert gated["poisoned"] < plain["poisoned"]
    result = run_contested_matrix(
        ["tepa-full", "lww", "lww+trial"],
        2,
        small,
        progress=False,
        gates={"lww+trial": GATED["lww+trial"]},
        first_seed=3000,
    )
    arm = result["arms"]["executor"]
    assert arm["regret"]["methods"]["lww+trial"]["trials"] == arm["methods"]["lww+trial"]["trials"]
    rivals = {(v["baseline"], v["role"]) for v in arm["regret_verdicts"]}
    assert ("lww+trial", "best") in rivals or ("lww+trial", "trial-gated") in rivals
    assert arm["methods"]["lww+trial"]["adoption_turns"] is not None
    assert result["config"]["seed_range"] == [3000, 3001]


def test_the_attack_matrix_sums_each_seed_over_the_cells_for_the_paired_test() -> None:
    from tepa_bench.attack import AttackConfig, run_attack

    config = AttackConfig(sizes=(1, 5), modes=("spoof", "one"), reads=6, change_budget=6)
    result = run_attack(
        ["tepa-full", "lww", "lww+trial"],
        2,
        config,
        progress=False,
        gates={"lww+trial": GATED["lww+trial"]},
    )
    block = result["regret"]["executor"]
    gated = block["regret"]["methods"]["lww+trial"]
    cells = [c for c in result["cells"] if c["policy"] == "lww+trial" and c["executor"]]
    assert sum(gated["per_seed_trials"]) / 2 == pytest.approx(sum(c["trials"] for c in cells))
    assert gated["trials"] > 0
    assert {v["baseline"] for v in block["regret_verdicts"]} >= {"lww+trial"}


def test_the_preference_stream_serves_the_gates_trials_to_the_user() -> None:
    from tepa_bench.preferences import PreferenceConfig, run_preference_seed

    cfg = PreferenceConfig(users=2, sessions=60)
    gated = run_preference_seed("lww+trial", 1, cfg, gate=GATED["lww+trial"])
    assert gated["trials"] > 0
    assert gated["interactions"] == sum(r.interactions for r in gated["records"])
    assert gated["interactions"] <= 2 * 60  # the trials come out of the same budget


def test_the_grid_runs_a_gate_with_its_trials_charged_as_interactions() -> None:
    from tepa_bench import grid as G  # noqa: N812
    from tepa_bench.runner import run_one

    options = G.GridOptions(evaluation_seeds=(1000,), tuning_seeds=(0,))
    cell = next(c for c in options.cells if c.panel == "uniform")
    small = G.GridOptions(
        evaluation_seeds=(1000,),
        tuning_seeds=(0,),
        cells=(cell,),
        base={"tasks": 2, "actions": 3, "acquisition": 10, "reversal": 30},
    )
    spec = G._spec(small, cell, "trial-gated", 1000, GATE_CANDIDATES[5].to_dict())
    assert spec.gate == GATE_CANDIDATES[5]
    out = run_one(spec)
    assert out.interactions == 2 * 40  # the same budget as every method
    assert out.trials is not None and int(np.asarray(out.trials).sum()) == out.extras["trials"]
    assert "trial-gated" in G.BASELINES and "lww+trial" in G.BASELINES
    assert len(G.CANDIDATES["trial-gated"]) == 6

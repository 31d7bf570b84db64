"""The preference update stream: generator, agent rule, runs and the result contract."""

from __future__ import annotations

import json

import pytest

from langchain_tepa import InvalidArgumentError
from langchain_tepa.bench import preferences as P  # noqa: N812
from langchain_tepa.bench.registry import RunOptions, get_scenario


def test_generator_is_deterministic_and_respects_its_parameters() -> None:
    cfg = P.PreferenceConfig(users=3, sessions=90, changes=1, glitches=2, gap=4)
    a = P.generate_stream(cfg, seed=7)
    b = P.generate_stream(cfg, seed=7)
    assert a.sessions == b.sessions
    assert a.sessions != P.generate_stream(cfg, seed=8).sessions
    assert len(a.sessions) == 3 * 90
    by_slot: dict[tuple[int, str], list[P.Session]] = {}
    for s in a.sessions:
        by_slot.setdefault((s.user, s.slot), []).append(s)
        assert s.wanted in P.SLOTS[s.slot][1]
        assert "overall" in s.phases
    for rows in by_slot.values():
        events = [r for r in rows if r.event]
        for x in events:
            for y in events:
                if x is not y:
                    assert abs(x.slot_index - y.slot_index) >= 4
        for i, r in enumerate(rows):
            if r.event == "glitch":
                assert r.cue == r.wanted != r.current  # a one-off, stated, then it reverts
                if i + 1 < len(rows) and rows[i + 1].event is None:
                    assert rows[i + 1].wanted == r.current
                    assert "after_glitch" in rows[i + 1].phases
            if r.event == "change":
                assert "after_change" in r.phases
                assert i == 0 or rows[i - 1].current != r.current


def test_config_validation() -> None:
    with pytest.raises(InvalidArgumentError):
        P.PreferenceConfig(users=0)
    with pytest.raises(InvalidArgumentError):
        P.PreferenceConfig(p_cue=1.5)
    with pytest.raises(InvalidArgumentError):
        P.PreferenceConfig(glitches=-1)


def test_agent_prefers_the_users_words_then_memory() -> None:
    from langchain_core.documents import Document

    doc = Document(
        "diet: vegan",
        metadata={
            "key": "diet",
            "value": "vegan",
            "state": "active",
            "validity": 0.9,
            "support": 5,
            "conflict": 0,
        },
    )
    said = P.Session(0, "diet", 0, 0, "omnivore", "omnivore", "omnivore", None, ("overall",))
    silent = P.Session(0, "diet", 0, 0, "vegan", "vegan", None, None, ("overall",))
    agent = P.PreferenceAgent(seed=0)
    assert agent.choose(P.render_session_prompt(said, [doc])) == "omnivore"
    assert agent.choose(P.render_session_prompt(silent, [doc])) == "vegan"


def test_glitches_flip_lww_but_not_tepa_full() -> None:
    cfg = P.PreferenceConfig(users=2, sessions=80, glitches=2, changes=1)
    runs = [P.run_preference_seed(m, 0, cfg) for m in ("lww", "tepa-full", "no-memory")]
    result = P.summarise(runs, cfg.to_dict())
    assert result["methods"]["lww"]["glitch_flip_rate"] == 1.0
    assert result["methods"]["tepa-full"]["glitch_flip_rate"] == 0.0
    assert result["methods"]["no-memory"]["glitch_flip_rate"] is None  # never holds a value
    assert result["methods"]["tepa-full"]["trials_per_seed"] > 0


def test_result_contract_and_cli_registration(tmp_path) -> None:
    entry = get_scenario("preferences")
    options = RunOptions(
        methods=["no-memory", "append-only", "tepa-rev"],
        seeds=2,
        quick=True,
        out=tmp_path,
        progress=False,
        overrides={"users": 2, "sessions": 40},
    )
    result = entry.run(options)
    json.dumps(result)
    assert set(result) == {"scenario", "seeds", "config", "methods", "comparisons"}
    assert result["scenario"] == "preferences" and result["seeds"] == 2
    for m in result["methods"].values():
        assert set(m["phases"]) == set(P.PHASES)
        for ph in m["phases"].values():
            lo, hi = ph["ci95"]
            assert 0.0 <= lo <= ph["success"] <= hi <= 1.0
            assert ph["episodes"] > 0
        assert len(m["curve"]) == 15
    assert {c["phase"] for c in result["comparisons"]} == set(P.PHASES)
    assert result["methods"]["no-memory"]["mpi"] == 0.0
    table = entry.table(result)
    assert "tepa-rev" in table and "after_glitch" in table
    with pytest.raises(InvalidArgumentError):
        entry.run(RunOptions(methods=["tepa-rev"], seeds=1, progress=False, overrides={"x": 1}))

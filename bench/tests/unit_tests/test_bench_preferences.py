"""The preference update stream: generator, agent rule, runs and the result contract."""

from __future__ import annotations

import json

import pytest

from langchain_tepa import InvalidArgumentError
from tepa_bench import preferences as P  # noqa: N812
from tepa_bench.registry import RunOptions, get_scenario


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


def _rec(i: int, event: str | None = None, served: str = "a", **kw: object) -> P.SessionRecord:
    wanted = str(kw.pop("wanted", "a"))
    return P.SessionRecord(
        served == wanted, ("overall",), i, event, 0, "diet", served=served, wanted=wanted, **kw
    )  # type: ignore[arg-type]


def test_flip_metric_on_a_known_sequence() -> None:
    """A flip counts at the first session where the glitch value is served, however late."""
    glitch = _rec(1, "glitch", "b", cued=True, wanted="b", held=True)
    late = [_rec(0), glitch, _rec(2, cued=True), _rec(3), _rec(4, served="b")]
    assert P.glitch_flips(late) == (1, 1)  # served at the fourth session of the slot after it
    assert P.glitch_flips(late, window=2) == (0, 1)  # beyond the window: not this glitch's
    held_on = [_rec(0), glitch, _rec(2), _rec(3)]
    assert P.glitch_flips(held_on) == (0, 1)
    only_cued = [_rec(0), glitch, _rec(2, cued=True), _rec(3, "change", served="c", wanted="c")]
    assert P.glitch_flips(only_cued) == (0, 0)  # nothing could show a flip before the change
    not_held = [_rec(0), _rec(1, "glitch", "b", cued=True, wanted="b"), _rec(2, served="b")]
    assert P.glitch_flips(not_held) == (0, 0)  # the memory did not hold the lasting value
    other_slot = [glitch, P.SessionRecord(False, ("overall",), 2, None, 0, "tone", served="b")]
    assert P.glitch_flips(other_slot) == (0, 0)


def test_flips_through_the_trial_path_are_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """An executor that backs every candidate against its competitor promotes the glitch value
    at the next uncued session (and supersedes the lasting one); the agent then serves it, and
    the metric counts it."""
    cfg = P.PreferenceConfig(users=2, sessions=80, glitches=2, changes=1)
    monkeypatch.setattr(P, "CONTENDERS_ONLY", False)  # test every Hypothesis, glitches too
    honest = P.run_preference_seed("tepa-full", 0, cfg)
    monkeypatch.setattr(
        P, "_executor", lambda channel, rng: lambda trial: trial.value == trial.candidate
    )
    gullible = P.run_preference_seed("tepa-full", 0, cfg)
    assert gullible["glitch_flips"] > honest["glitch_flips"]
    assert gullible["trials"] == 0  # the stub bypasses the user: no charged interaction


def test_trials_are_charged_and_never_read_the_session(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(P, "CONTENDERS_ONLY", False)  # many trials to check
    cfg = P.PreferenceConfig(users=2, sessions=60)
    run = P.run_preference_seed("tepa-full", 1, cfg)
    trials = sum(len(r.trials) for r in run["records"])
    assert trials == run["trials"] > 0
    assert run["interactions"] == 2 * 60  # trials come out of the same budget (issue 28)
    assert len(run["records"]) == 2 * 60 - trials
    assert all(len(r.trial_values) == len(r.trials) for r in run["records"])
    assert all(not r.trials for r in run["records"] if r.cued)  # trials only when memory is used
    rev = P.run_preference_seed("tepa-rev", 1, cfg)
    assert rev["interactions"] == 2 * 60 and rev["trials"] == 0
    result = P.summarise([run, rev], cfg.to_dict())
    m = result["methods"]["tepa-full"]
    assert m["interactions_per_seed"] == run["interactions"]
    overall = m["phases"]["overall"]
    assert overall["success"] == pytest.approx(
        sum(r.successes for r in run["records"]) / run["interactions"], abs=1e-4
    )


def test_user_channel_only_serves() -> None:
    user = P.SimulatedUser()
    user.begin(P.Session(0, "diet", 0, 0, "vegan", "omnivore", None, "glitch", ("overall",)))
    channel = P.UserChannel(user)
    assert channel.serve("vegan") and not channel.serve("omnivore")
    assert not [n for n in dir(channel) if "wanted" in n or "session" in n]


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
    required = {"scenario", "seeds", "config", "methods", "comparisons"}
    assert set(result) == required | {"regret", "regret_verdicts"}  # issue 28
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
    assert "different experiment" in table and "no p-values: with 2 seeds" in table
    with pytest.raises(InvalidArgumentError):
        entry.run(RunOptions(methods=["tepa-rev"], seeds=1, progress=False, overrides={"x": 1}))

"""Candidates, the default trial builder, custom builders and the Trial type."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from langchain_tepa import InvalidArgumentError, TEPAMemory, UnknownPrecedentError
from langchain_tepa.graph import (
    Candidate,
    DefaultTrialBuilder,
    Trial,
    TrialKind,
    TrialResult,
    build_trial_graph,
    run_trials,
    select_candidates,
)

KEY = "user.pizza"


@pytest.fixture
def memory(tick: Callable[[], float]) -> TEPAMemory:
    """A key with an incumbent, two archived values and a candidate, plus other facts."""
    mem = TEPAMemory.in_memory(policy="tepa-full", clock=tick)
    for value in ("ham", "olives", "pineapple"):
        mem.observe(KEY, value)
        mem.promote(KEY, value)
    mem.revoke(KEY, "ham", reason="revoked: old")
    mem.revoke(KEY, "olives", reason="revoked: newer")
    mem.observe(KEY, "mushroom")
    for key, value in [("user.city", "Lyon"), ("user.diet", "vegan"), ("user.name", "Ada")]:
        mem.observe(key, value)
        mem.promote(key, value)
    return mem


def candidate(memory: TEPAMemory, value: str = "mushroom") -> Candidate:
    (cand,) = [c for c in select_candidates(memory, key=KEY) if c.value == value]
    return cand


def test_default_builder_derives_three_kinds(memory: TEPAMemory) -> None:
    trials = DefaultTrialBuilder(context_k=2).build_trials(memory, candidate(memory))
    kinds = [t.kind for t in trials]
    assert kinds == [
        TrialKind.SUPPORTIVE,
        TrialKind.COUNTERFACTUAL,
        TrialKind.COUNTERFACTUAL,
        TrialKind.POLLUTED,
    ]
    sup, cf1, cf2, pol = trials
    # Competitors: the incumbent first, then the archive, newest revocation first.
    assert (cf1.value, cf2.value) == ("pineapple", "olives")
    assert cf1.lookup(KEY) == ["pineapple"]
    assert cf1.control().lookup(KEY) == ["mushroom"]
    assert cf1.control().arm == "control"
    assert sup.lookup(KEY) == ["mushroom"]
    # Polluted: stale values oldest first, the candidate last.
    assert pol.stale == ("ham", "olives", "pineapple")
    assert pol.lookup(KEY) == ["ham", "olives", "pineapple", "mushroom"]
    # Context: other Active facts, never the key under test, at most context_k.
    context = [k for k, _ in sup.facts if k != KEY]
    assert len(context) == 2
    assert set(context) <= {"user.city", "user.diet", "user.name"}
    assert len({t.id for t in trials}) == len(trials)


def test_builder_options(memory: TEPAMemory) -> None:
    builder = DefaultTrialBuilder(
        tasks=["order dinner", "plan a party"],
        repeats=2,
        max_competitors=1,
        max_stale=1,
        context_k=0,
    )
    trials = builder.build_trials(memory, candidate(memory))
    counts = {kind: sum(t.kind is kind for t in trials) for kind in TrialKind}
    assert counts == {TrialKind.SUPPORTIVE: 4, TrialKind.COUNTERFACTUAL: 2, TrialKind.POLLUTED: 2}
    assert {t.task for t in trials} == {"order dinner", "plan a party"}
    assert all(k == KEY for t in trials for k, _ in t.facts)
    assert next(t for t in trials if t.kind is TrialKind.POLLUTED).stale == ("pineapple",)
    per_candidate = DefaultTrialBuilder(tasks=lambda c: [f"use {c.value}"], context_k=0)
    assert {t.task for t in per_candidate.build_trials(memory, candidate(memory))} == {
        "use mushroom"
    }


@pytest.mark.parametrize(
    "kwargs",
    [
        {"repeats": 0},
        {"max_competitors": 0},
        {"max_stale": -1},
        {"context_k": 1.5},
        {"tasks": "one string"},
        {"tasks": [""]},
    ],
)
def test_builder_validation(kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgumentError):
        DefaultTrialBuilder(**kwargs)


def test_select_candidates(memory: TEPAMemory) -> None:
    memory.observe("user.drink", "tea")
    memory.observe("user.drink", "tea", namespace="users.u2")
    assert [(c.key, c.value) for c in select_candidates(memory)] == [
        ("user.drink", "tea"),
        (KEY, "mushroom"),
    ]
    assert [c.value for c in select_candidates(memory, key=KEY)] == ["mushroom"]
    other = select_candidates(memory, namespace="users.u2")
    assert [(c.namespace, c.key) for c in other] == [("users.u2", "user.drink")]
    # Explicit candidates: Active ones are skipped, Revoked ones may be retried.
    explicit = select_candidates(
        memory, candidates=[(KEY, "pineapple"), {"key": KEY, "value": "ham"}]
    )
    assert [(c.value, c.state) for c in explicit] == [("ham", "revoked")]


def test_unknown_explicit_candidate_changes_nothing(memory: TEPAMemory) -> None:
    before = memory.evidence_count()
    with pytest.raises(UnknownPrecedentError):
        run_trials(memory, lambda t: True, candidates=[(KEY, "mushroom"), (KEY, "anchovies")])
    with pytest.raises(InvalidArgumentError):
        run_trials(memory, lambda t: True, candidates=["not a pair"])
    assert memory.evidence_count() == before


def test_custom_builder_object_and_checks(memory: TEPAMemory) -> None:
    class OneTrial:
        def build_trials(self, mem: TEPAMemory, cand: Candidate) -> list[Trial]:
            return [
                Trial(
                    "only",
                    TrialKind.SUPPORTIVE,
                    cand.namespace,
                    cand.key,
                    cand.value,
                    "taste it",
                    ((cand.key, cand.value),),
                    value=cand.value,
                    metadata={"seed": 7},
                )
            ]

    seen: list[Trial] = []

    def executor(trial: Trial) -> bool:
        seen.append(trial)
        return True

    graph = build_trial_graph(memory, executor, trial_builder=OneTrial())
    out = graph.invoke({"key": KEY})
    assert out["decisions"][0]["action"] == "promote"
    assert seen[0].metadata == {"seed": 7}

    def wrong_key(mem: TEPAMemory, cand: Candidate) -> list[Trial]:
        return [Trial("x", TrialKind.SUPPORTIVE, cand.namespace, "user.other", cand.value, "t", ())]

    memory.observe(KEY, "anchovies")
    before = memory.evidence_count()
    with pytest.raises(InvalidArgumentError, match="is not a trial of"):
        run_trials(memory, lambda t: True, key=KEY, trial_builder=wrong_key)
    with pytest.raises(InvalidArgumentError, match="Trial objects"):
        run_trials(memory, lambda t: True, key=KEY, trial_builder=lambda m, c: ["nope"])
    with pytest.raises(InvalidArgumentError, match="trial_builder"):
        run_trials(memory, lambda t: True, key=KEY, trial_builder=42)  # type: ignore[arg-type]
    assert memory.evidence_count() == before


def test_trial_round_trip_and_documents(memory: TEPAMemory) -> None:
    trials = DefaultTrialBuilder(context_k=1).build_trials(memory, candidate(memory))
    for t in trials:
        assert Trial.from_dict(t.to_dict()) == t
    pol = next(t for t in trials if t.kind is TrialKind.POLLUTED)
    roles = [(d.metadata["value"], d.metadata["role"]) for d in pol.documents()]
    assert roles[-4:] == [
        ("ham", "stale"),
        ("olives", "stale"),
        ("pineapple", "stale"),
        ("mushroom", "candidate"),
    ]
    assert roles[0][1] == "context"
    cf = next(t for t in trials if t.kind is TrialKind.COUNTERFACTUAL)
    assert [d.metadata["role"] for d in cf.documents() if d.metadata["key"] == KEY] == [
        "competitor"
    ]
    assert "Task: act on user.pizza" in pol.render()
    with pytest.raises(InvalidArgumentError):
        pol.control()
    result = TrialResult("t", TrialKind.COUNTERFACTUAL, True, True, False, competitor="x")
    assert TrialResult.from_dict(result.to_dict()) == result

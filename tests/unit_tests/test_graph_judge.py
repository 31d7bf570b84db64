"""The trial judge: thresholds, the supportive-success rule, rejection, human review."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from langchain_tepa import InvalidArgumentError, TEPAMemory
from langchain_tepa.graph import (
    Candidate,
    Decision,
    Trial,
    TrialJudge,
    TrialKind,
    TrialResult,
    TrialRunner,
    build_trial_graph,
    run_trials,
)

S, C, P = TrialKind.SUPPORTIVE, TrialKind.COUNTERFACTUAL, TrialKind.POLLUTED
CAND = Candidate("default", "user.pizza", "mushroom", "p1")


def results(*spec: tuple[TrialKind, bool]) -> list[TrialResult]:
    return [TrialResult(f"t{i}", kind, positive) for i, (kind, positive) in enumerate(spec)]


def test_exactly_sixty_percent_promotes() -> None:
    d = TrialJudge().judge(CAND, results((S, True), (S, True), (C, True), (C, False), (P, False)))
    assert (d.positive, d.total, d.fraction) == (3, 5, 0.6)
    assert d.action == "promote"
    assert d.reason == "promoted: trials 3/5 positive (60% >= 60%), supportive success"


def test_just_under_threshold_is_kept() -> None:
    spec = [(S, True), (C, True), (C, True), (P, False), (P, False), (S, False), (C, True)]
    spec = [*spec, (P, False)]  # 4/8 = 50%
    d = TrialJudge().judge(CAND, results(*spec))
    assert d.action == "keep"
    assert d.reason == "kept as hypothesis: trials 4/8 positive (50% < 60%), supportive success"


def test_no_supportive_success_never_promotes() -> None:
    judge = TrialJudge()
    # Every trial positive, but there is no supportive trial at all.
    d = judge.judge(CAND, results((C, True), (C, True), (P, True)))
    assert d.action == "keep"
    assert d.reason.endswith("but no supportive success")
    # 4/5 positive, the only supportive trial failed.
    d = judge.judge(CAND, results((S, False), (C, True), (C, True), (P, True), (P, True)))
    assert (d.action, d.supportive_successes, d.fraction) == ("keep", 0, 0.8)


def test_rejection_below_reject_below() -> None:
    judge = TrialJudge()
    assert judge.judge(CAND, results((S, True), (C, False), (P, False))).action == "reject"
    assert judge.judge(CAND, results((S, False), (C, False))).reason == (
        "rejected: trials 0/2 positive (0% < 40%)"
    )
    # Exactly reject_below is not rejected.
    d = judge.judge(CAND, results((S, True), (S, True), (C, False), (C, False), (P, False)))
    assert (d.fraction, d.action) == (0.4, "keep")
    # reject_below=0 never rejects.
    assert TrialJudge(reject_below=0).judge(CAND, results((S, False))).action == "keep"


def test_configurable_threshold() -> None:
    judge = TrialJudge(threshold=0.75)
    assert judge.judge(CAND, results((S, True), (C, True), (P, True), (P, False))).promoted
    assert judge.judge(CAND, results((S, True), (C, True), (P, False))).action == "keep"
    assert TrialJudge(threshold=1.0).judge(CAND, results((S, True), (C, False))).action == "keep"
    assert TrialJudge(threshold=0.3).reject_below == 0.3


def test_no_trials_keeps_the_candidate() -> None:
    d = TrialJudge().judge(CAND, [])
    assert (d.action, d.reason) == ("keep", "kept as hypothesis: no trials were built")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"threshold": 0},
        {"threshold": 1.5},
        {"threshold": -0.1},
        {"threshold": True},
        {"threshold": "0.6"},
        {"threshold": 0.5, "reject_below": 0.6},
        {"reject_below": -1},
    ],
)
def test_judge_validation(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidArgumentError):
        TrialJudge(**kwargs)  # type: ignore[arg-type]


def test_decision_round_trip() -> None:
    d = TrialJudge().judge(CAND, results((S, True), (C, True)))
    again = Decision.from_dict(d.to_dict())
    assert again == d
    assert again.results[0].kind is S


# ---------------------------------------------------------------------- through the graph
def fixed_builder(kinds: Sequence[TrialKind]) -> Callable[[TEPAMemory, Candidate], list[Trial]]:
    """A custom builder: one trial per kind, each with a task naming its index."""

    def build(memory: TEPAMemory, cand: Candidate) -> list[Trial]:
        return [
            Trial(
                f"{cand.precedent_id}.{i}",
                kind,
                cand.namespace,
                cand.key,
                cand.value,
                f"task {i}",
                ((cand.key, cand.value),),
                value=cand.value,
            )
            for i, kind in enumerate(kinds)
        ]

    return build


def by_task(outcomes: Sequence[bool]) -> Callable[[Trial], bool]:
    """Succeeds on the tasks whose index is True (supportive/polluted: positive on success)."""
    return lambda trial: outcomes[int(trial.task.split()[1])]


@pytest.mark.parametrize("use_graph", [False, True])
def test_threshold_edge_end_to_end(use_graph: bool, tick: Callable[[], float]) -> None:
    memory = TEPAMemory.in_memory(policy="tepa-full", clock=tick)
    memory.observe("user.pizza", "mushroom")
    builder = fixed_builder([S, S, P, P, P])
    executor = by_task([True, False, True, True, False])  # 3/5
    if use_graph:
        out = build_trial_graph(memory, executor, trial_builder=builder).invoke({})
        (d,) = [Decision.from_dict(x) for x in out["decisions"]]
    else:
        (d,) = run_trials(memory, executor, trial_builder=builder)
    assert d.reason == "promoted: trials 3/5 positive (60% >= 60%), supportive success"
    assert memory.get("user.pizza") == "mushroom"


@pytest.mark.parametrize("use_graph", [False, True])
def test_no_supportive_success_end_to_end(use_graph: bool, tick: Callable[[], float]) -> None:
    memory = TEPAMemory.in_memory(policy="tepa-full", clock=tick)
    memory.observe("user.pizza", "mushroom")
    builder = fixed_builder([S, P, P, P, P])
    executor = by_task([False, True, True, True, True])  # 4/5, supportive failed
    if use_graph:
        out = build_trial_graph(memory, executor, trial_builder=builder).invoke({})
        (d,) = [Decision.from_dict(x) for x in out["decisions"]]
    else:
        (d,) = run_trials(memory, executor, trial_builder=builder)
    assert d.action == "keep"
    assert memory.get("user.pizza") is None
    assert memory.audit("user.pizza").precedents[0].state.value == "hypothesis"


def test_review_answers(tick: Callable[[], float]) -> None:
    memory = TEPAMemory.in_memory(policy="tepa-full", clock=tick)
    runner = TrialRunner(memory, lambda t: True)
    promote = TrialJudge().judge(CAND, results((S, True)))
    keep = TrialJudge().judge(CAND, results((S, False), (C, True), (C, True)))
    assert [d.review for d in runner.review([promote, keep], "approve")] == ["approved", None]
    rejected = runner.review([promote], False)[0]
    assert rejected.action == "reject"
    assert rejected.proposed == "promote"
    assert rejected.reason.startswith("rejected: reviewer declined the promotion (trials 1/1")
    assert runner.review([promote], {"p1": "keep"})[0].action == "keep"
    with pytest.raises(InvalidArgumentError, match="misses candidates"):
        runner.review([promote], {"other": "approve"})
    with pytest.raises(InvalidArgumentError):
        runner.review([promote], "maybe")

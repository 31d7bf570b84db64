"""Issue 39, trials only where the evidence cannot settle a candidate (graph/posterior.py).

With a declared trial cost (``TrialRunner(trial_cost=c)``) TEPA-Full's runner (a) adopts a
trusted source's claim that no execution contradicts without a trial; (b) adopts a user's
correction of an answer that just failed without a trial when a trial costs at least a fifth
of a wrong answer, and tries it when trials are cheaper; (c) stops a contested change's trials
once deciding costs less than the next one (one execution at 0.25, two at 0.1); (d) adopts at
most one value of a single-valued key on the evidence per run, and tries the likeliest first;
and (e) keeps a correction the gate held as a contender after its own first success. Without a
declared cost every one of these runs the trials as before (the ``undeclared`` cases), which is
what makes each test fail on the code before issue 39.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest

from langchain_tepa import HashingEmbeddings, InvalidArgumentError, LifecyclePolicy, TEPAMemory
from langchain_tepa.graph import DefaultTrialBuilder, TrialRunner
from langchain_tepa.graph.posterior import CandidateOdds, candidate_odds, check_trial_cost

KEY = "user.city"
FULL = LifecyclePolicy.preset("tepa-full")


def memory() -> TEPAMemory:
    ticks = itertools.count(1)
    return TEPAMemory.in_memory(
        embeddings=HashingEmbeddings(), policy=FULL, clock=lambda: float(next(ticks))
    )


def lisbon(mem: TEPAMemory, successes: int = 4) -> None:
    mem.observe(KEY, "Lisbon", source="user")
    for _ in range(successes):
        mem.record_outcome(KEY, "Lisbon", True)


class World:
    """A trial executor for a world in which only ``value`` works; it counts its executions."""

    def __init__(self, value: str) -> None:
        self.value = value
        self.calls: list[tuple[str, str]] = []

    def __call__(self, trial: Any) -> bool:
        self.calls.append((trial.kind.value, trial.value))
        return bool(trial.value == self.value)


def runner(mem: TEPAMemory, world: World, cost: float | None) -> TrialRunner:
    """The benchmarks' TEPA-Full runner: one competitor, no context, contenders only."""
    return TrialRunner(
        mem,
        world,
        trial_builder=DefaultTrialBuilder(context_k=0, max_competitors=1),
        max_concurrency=1,
        contenders_only=True,
        sequential=True,
        trial_cost=cost,
    )


# ---------------------------------------------------------------------- (a) settled claims
@pytest.mark.parametrize("cost", [0.25, None], ids=["declared", "undeclared"])
def test_a_trusted_claim_no_execution_contradicts_is_adopted_without_a_trial(
    cost: float | None,
) -> None:
    mem = memory()
    mem.observe(KEY, "Lisbon", source="user")  # nothing contradicts it: no value has worked
    world = World("Lisbon")
    (decision,) = runner(mem, world, cost).run(key=KEY)
    assert decision.action == "promote" and mem.get(KEY) == "Lisbon"
    if cost is None:
        assert world.calls  # before issue 39 every claim waited for a trial
        return
    assert world.calls == [] and decision.total == 0
    assert decision.reason.startswith("promoted without trials: a trusted source's claim")


def test_an_untrusted_claim_is_tried_even_with_nothing_against_it() -> None:
    mem = memory()
    mem.observe(KEY, "Lisbon", source="tool.search")
    world = World("Lisbon")
    runner(mem, world, 0.25).run(key=KEY)
    assert world.calls == [("supportive", "Lisbon")]


# ---------------------------------------------------------------------- (b) corrections
def corrected_after_a_failure(mem: TEPAMemory, successes: int = 4) -> None:
    """The answer fails in front of the user, who says what they want now."""
    lisbon(mem, successes)
    mem.record_outcome(KEY, "Lisbon", False)
    mem.observe(KEY, "Oslo", source="user", correction=True)


@pytest.mark.parametrize(
    ("cost", "tried"), [(0.5, False), (0.25, False), (0.1, True), (None, True)]
)
def test_a_correction_of_an_answer_that_just_failed_is_tried_only_where_trials_are_cheap(
    cost: float | None, tried: bool
) -> None:
    mem = memory()
    corrected_after_a_failure(mem)
    assert mem.get(KEY) == "Lisbon"  # the gate holds it (issue 28)
    world = World("Oslo")
    decisions = runner(mem, world, cost).run(key=KEY)
    assert mem.get(KEY) == "Oslo"
    assert bool(world.calls) is tried
    if not tried:
        (decision,) = decisions
        assert "a correction right after the value it replaces failed" in decision.reason
        lisbon_now = next(p for p in mem.audit(KEY).precedents if p.value == "Lisbon")
        assert lisbon_now.state.value == "revoked"  # the correction replaces the answer


def test_a_correction_while_the_answer_works_is_tried() -> None:
    """The answer's newest execution succeeded: the correction is contradicted (a spoof)."""
    mem = memory()
    lisbon(mem)
    mem.observe(KEY, "Oslo", source="user", correction=True)
    world = World("Lisbon")
    runner(mem, world, 0.5).run(key=KEY)
    assert world.calls == [("supportive", "Oslo")] and mem.get(KEY) == "Lisbon"


def test_a_correction_naming_a_value_trials_rejected_is_tried_again() -> None:
    """A spoofed value named again right after a glitch of the answer: its trials' verdict is
    suspended by the failure, not forgotten: it is tried, not adopted."""
    mem = memory()
    lisbon(mem)
    mem.observe(KEY, "Oslo", source="user", correction=True)
    world = World("Lisbon")
    runner(mem, world, 0.5).run(key=KEY)  # rejected
    mem.record_outcome(KEY, "Lisbon", False)  # a glitch of the answer
    mem.observe(KEY, "Oslo", source="user", correction=True)
    world.calls.clear()
    runner(mem, world, 0.5).run(key=KEY)
    assert world.calls == [("supportive", "Oslo")] and mem.get(KEY) == "Lisbon"


# ---------------------------------------------------------------------- (c) sequential odds
@pytest.mark.parametrize(
    ("cost", "executions"), [(0.25, 1), (0.1, 2), (None, 2)], ids=["0.25", "0.1", "undeclared"]
)
def test_a_contested_change_takes_as_many_trials_as_its_price_allows(
    cost: float | None, executions: int
) -> None:
    mem = memory()
    lisbon(mem)
    mem.observe(KEY, "Oslo", source="user")  # a plain change against a value that worked
    world = World("Oslo")
    (decision,) = runner(mem, world, cost).run(key=KEY)
    assert decision.action == "promote" and mem.get(KEY) == "Oslo"
    assert len(world.calls) == executions


def test_a_failed_trial_rejects_at_once() -> None:
    mem = memory()
    lisbon(mem)
    mem.observe(KEY, "Oslo", source="user")
    world = World("Lisbon")
    (decision,) = runner(mem, world, 0.25).run(key=KEY)
    assert decision.action == "reject" and len(world.calls) == 1


# ---------------------------------------------------------------------- (d) one per key
def test_one_value_per_key_is_adopted_on_the_evidence_the_likeliest_first() -> None:
    """Two candidates the evidence settles in one run: the likelier one is adopted, the other
    waits (before, both were promoted and the last one applied won)."""
    mem = memory()
    corrected_after_a_failure(mem)  # Oslo: odds 4
    mem.observe(KEY, "Porto", source="user")  # Porto: the user's newest say, nothing against
    mem.observe(KEY, "Oslo", source="user.assistant", correction=True)
    world = World("Porto")
    decisions = runner(mem, world, 0.5).run(key=KEY)
    promoted = [d.value for d in decisions if d.action == "promote"]
    assert len(promoted) == 1


def test_the_likeliest_candidate_is_tried_first_and_ends_the_round() -> None:
    """A spoofed value and the user's newest claim arrive in one interaction: the newest claim
    is tried first, and once it is adopted the spoof waits for the next run."""
    mem = memory()
    lisbon(mem)
    mem.observe(KEY, "Dock Lane", source="user")
    mem.observe(KEY, "Dock Lane", source="user")
    mem.observe(KEY, "Oslo", source="user.app")
    world = World("Oslo")
    runner(mem, world, 0.25).run(key=KEY)
    assert world.calls == [("supportive", "Oslo")] and mem.get(KEY) == "Oslo"


# ---------------------------------------------------------------------- (e) held corrections
def test_a_held_correction_stays_a_contender_after_its_own_success() -> None:
    """The preference stream: the user corrects, then asks for the new value (which works):
    the rules leave it behind an answer with more successes; the runner adopts it."""
    mem = memory()
    corrected_after_a_failure(mem, successes=20)
    mem.observe(KEY, "Oslo", source="user")
    mem.record_outcome(KEY, "Oslo", True)
    assert mem.get(KEY) == "Lisbon"
    world = World("Oslo")
    runner(mem, world, 0.5).run(key=KEY)
    assert mem.get(KEY) == "Oslo" and world.calls == []


# ---------------------------------------------------------------------- the maths, errors
def test_the_odds_move_by_the_key_tests_rates() -> None:
    odds = CandidateOdds(1.0, "a contested claim")
    assert odds.after([True]).odds == pytest.approx(4.0)
    assert odds.after([False]).odds == pytest.approx(0.25)
    assert odds.verdict(0.25) is None and odds.verdict(0.5) is None  # a tie asks
    assert odds.verdict(0.6) == "promote"
    assert odds.after([False]).verdict(0.25) is None  # never rejected without a trial
    assert odds.after([False]).verdict(0.25, tried=True) == "reject"
    assert CandidateOdds(math.inf, "x").probability == 1.0
    mem = memory()
    lisbon(mem)
    mem.observe(KEY, "Oslo", source="web")
    cand = runner(mem, World("Oslo"), 0.25).select(key=KEY)
    assert all(candidate_odds(mem, c).odds == 1.0 for c in cand)


@pytest.mark.parametrize("bad", [0, -0.1, 1.5, float("nan"), "0.2", True])
def test_a_trial_cost_outside_0_1_is_a_typed_error(bad: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="trial_cost"):
        check_trial_cost(bad)
    with pytest.raises(InvalidArgumentError, match="trial_cost"):
        TrialRunner(memory(), World("x"), trial_cost=bad)
    assert check_trial_cost(None) is None and check_trial_cost(1) == 1.0

"""The key test of ``tepa-key``: a change test with the rates of the value's key."""

from __future__ import annotations

import itertools
import random

import pytest

from langchain_tepa import Evidence, EvidenceKind, Lifecycle, LifecyclePolicy, PolicyError
from langchain_tepa.core import KeyState, apply_evidence, rules_for
from langchain_tepa.core.changes import CHANGE_SOURCES, OneOffVeto
from langchain_tepa.core.precedence import TrustHold
from langchain_tepa.core.rules import (
    HistoryCounts,
    KeyChangeRevocation,
    KeyRates,
    LastOutcomeVeto,
    OutcomeRuns,
    PosteriorRevocation,
    change_statistic,
    key_rates,
    trailing_failures,
)
from langchain_tepa.core.types import Precedent

KEY = LifecyclePolicy.preset("tepa-key")
CD = LifecyclePolicy.preset("tepa-cd")
REV = LifecyclePolicy.preset("tepa-rev")
_ids = itertools.count()

Step = tuple[str, bool]


def feed(state: KeyState, policy: LifecyclePolicy, steps: list[Step]) -> None:
    """Fold outcomes ``(value, worked)`` of ``tool.x`` into ``state``, one record each."""
    for value, ok in steps:
        n = next(_ids)
        apply_evidence(
            state, Evidence.outcome_of("tool.x", value, ok, time=float(n), id=f"e{n:07d}"), policy
        )


def state_of(policy: LifecyclePolicy, steps: list[Step]) -> KeyState:
    state = KeyState("default", "tool.x")
    feed(state, policy, steps)
    return state


def prec(state: KeyState, value: str) -> Precedent:
    return next(p for p in state.precedents.values() if p.value == value)


def failures_to_revoke(policy: LifecyclePolicy, steps: list[Step], value: str) -> int | None:
    """Failures in a row of ``value`` after ``steps`` until it is revoked (None: 10 are not)."""
    state = state_of(policy, steps)
    assert prec(state, value).state is Lifecycle.ACTIVE
    for n in range(1, 11):
        feed(state, policy, [(value, False)])
        if prec(state, value).state is Lifecycle.REVOKED:
            return n
    return None


def noisy(value: str, n: int, rate: float, seed: int) -> list[Step]:
    rng = random.Random(seed)
    return [(value, rng.random() < rate) for _ in range(n)]


PRECISE = [("a", True)] * 30


def test_rule_set_of_the_preset() -> None:
    rules = rules_for(KEY)
    assert [type(r) for r in rules.revocation] == [PosteriorRevocation, KeyChangeRevocation]
    assert isinstance(rules.counts, HistoryCounts) and rules.counts.window == 40
    assert rules.vetoes == (LastOutcomeVeto(CHANGE_SOURCES), TrustHold(), OneOffVeto())
    assert KEY.revoke_keyed and not KEY.revoke_recent and not KEY.revive_fresh
    assert KEY.failures_to_revoke is None  # depends on the key's history
    tuned = rules_for(LifecyclePolicy.preset("tepa-key", keyed_odds=4.0)).revocation[-1]
    assert isinstance(tuned, KeyChangeRevocation) and tuned.odds == 4.0


def test_precise_key_is_revoked_after_one_or_two_failures() -> None:
    assert failures_to_revoke(KEY, PRECISE, "a") == 2
    # a value revived after a change has three outcomes of its own: the key's record is what
    # makes two failures enough (the per-value change rule needs four)
    after_change = [*PRECISE, ("a", False), ("a", False), ("b", True), ("b", True), ("b", True)]
    assert failures_to_revoke(KEY, after_change, "b") == 2
    assert failures_to_revoke(CD, after_change, "b") == 4
    # a key whose working value changes every dozen records is revoked sooner than a stable one
    changing: list[Step] = []
    for value in "abcabc":
        changing += [(value, True)] * 12 + [(value, False)] * 2
    changing += [("a", True), ("a", True)]
    eager = LifecyclePolicy.preset("tepa-key", keyed_odds=0.5)
    assert failures_to_revoke(eager, changing, "a") == 1
    assert failures_to_revoke(eager, PRECISE, "a") == 2


def test_noisy_key_is_not_revoked_by_its_usual_failures() -> None:
    history = [*noisy("a", 30, 0.7, seed=1), ("a", True), ("a", True), ("a", True)]
    n = failures_to_revoke(KEY, history, "a")
    assert n is not None and n >= 3
    assert failures_to_revoke(REV, history, "a") == 2  # the paper's window revokes on two
    # a value revived on a noisy key is judged by the key's noise, not its three outcomes
    after_change = [*noisy("a", 30, 0.7, seed=2), *[("a", False)] * 4, *[("b", True)] * 3]
    n = failures_to_revoke(KEY, after_change, "b")
    assert n is not None and n >= 3
    assert failures_to_revoke(REV, after_change, "b") == 2


def test_a_burst_followed_by_recovery_is_learned() -> None:
    burst = [("a", False), ("a", False), ("c", False), ("a", True)]  # revoked, then back
    history = [*PRECISE, *burst, *[("a", True)] * 20]
    state = state_of(KEY, history)
    a = prec(state, "a")
    assert a.state is Lifecycle.ACTIVE
    assert [t.to_state for t in a.transitions[-3:]] == [
        Lifecycle.REVOKED,
        Lifecycle.HYPOTHESIS,
        Lifecycle.ACTIVE,
    ]
    assert (a.support, a.conflict) == (21, 0)  # fresh counts after the revival
    assert OutcomeRuns.of(a.recent).recovered == (2,)  # its history kept the burst
    # the next burst of two passes without a revocation, and the value works on
    feed(state, KEY, [("a", False), ("a", False), ("a", True)])
    assert prec(state, "a").state is Lifecycle.ACTIVE
    assert len(prec(state, "a").transitions) == len(a.transitions)
    # without the recovered burst in the key's history, two failures revoke
    assert failures_to_revoke(KEY, [*PRECISE, *[("a", True)] * 21], "a") == 2
    # and a third failure in a row is still a change
    assert failures_to_revoke(KEY, history, "a") == 3


def test_history_restarts_when_another_value_took_over() -> None:
    history = [*PRECISE, ("a", False), ("a", False), *[("b", True)] * 5, ("a", True)]
    a = prec(state_of(KEY, history), "a")
    assert a.state is Lifecycle.HYPOTHESIS
    assert a.recent == [True]  # b worked meanwhile: a change, not a glitch


def test_key_rates_pool_the_values_and_count_changes() -> None:
    state = state_of(KEY, [*PRECISE, ("a", False), ("a", False), *[("b", True)] * 20])
    rates = key_rates(state)
    assert rates.successes == 50 and rates.changes == 1
    assert rates.working == pytest.approx((50 + 10 * 0.8) / (50 + 10))
    assert rates.hazard == pytest.approx(2 / (state.seq + 50))
    # a lucky value promoted and revoked at once is not a change of the key
    lucky = [*PRECISE, ("b", True), ("b", False), ("b", False), *[("a", True)] * 5]
    assert key_rates(state_of(KEY, lucky)).changes == 0
    assert key_rates(KeyState("default", "k")) == KeyRates(0.8, 0.02, 0, 0)


def test_outcome_runs_and_continuation() -> None:
    runs = OutcomeRuns.of([False, True, False, True, True, False, False, True, False])
    assert runs == OutcomeRuns(successes=4, recovered=(1, 2), open_run=1)
    assert trailing_failures([True, False, False]) == 2
    assert trailing_failures([]) == 0
    rates = KeyRates(0.9, 0.02, 40, 0, recovered=(2, 2, 2))
    assert rates.continuation(1, 4.0) == pytest.approx(0.1)
    assert rates.continuation(2, 4.0) > 0.4  # a key whose runs last two
    assert rates.continuation(3, 4.0) < 0.1


def test_change_statistic() -> None:
    history = [True] * 30
    precise = change_statistic([*history, False], working=0.99, failing=0.2, hazard=0.02)
    noisy_one = change_statistic([*history, False], working=0.7, failing=0.2, hazard=0.02)
    assert precise > 1 > noisy_one
    assert change_statistic([], working=0.9, failing=0.2, hazard=0.02) == 0.0
    with pytest.raises(ValueError, match="failing < working"):
        change_statistic(history, working=0.2, failing=0.3, hazard=0.02)


def test_assertions_do_not_revive_a_value_whose_last_outcome_failed() -> None:
    state = state_of(KEY, [*PRECISE, ("a", False), ("a", False)])
    assert prec(state, "a").state is Lifecycle.REVOKED
    for i in range(5):
        n = next(_ids)
        apply_evidence(
            state, Evidence.observation("tool.x", "a", time=float(n), id=f"e{n:07d}"), KEY
        )
        assert prec(state, "a").state is Lifecycle.REVOKED, i
    feed(state, KEY, [("a", True)])
    assert prec(state, "a").state is Lifecycle.ACTIVE


def say(state: KeyState, source: str | None, value: str, policy: LifecyclePolicy = KEY) -> None:
    n = next(_ids)
    ev = Evidence.observation("tool.x", value, time=float(n), id=f"e{n:07d}", source=source)
    apply_evidence(state, ev, policy)


CLAIMED = [("a", True)] * 30  # outcomes of a value a source asserted first (claimed)


def claimed_state(policy: LifecyclePolicy, source: str | None, steps: list[Step]) -> KeyState:
    state = KeyState("default", "tool.x")
    say(state, source, "a", policy)
    feed(state, policy, steps)
    return state


@pytest.mark.parametrize("source", ["user", None])  # None: the application's own write
def test_the_owners_word_revives_a_claimed_value_that_mostly_works(source: str | None) -> None:
    """Issue 28: two failures in a row after a run of successes revoke a value, and the veto
    no longer locks out its restatement by a source with change authority when the value was
    claimed before; a tool's, the agent's and a web page's word still do not revive it, nor
    does the owner's word revive a value only executions backed (the test above)."""
    state = claimed_state(KEY, source, [*CLAIMED, ("a", False), ("a", False)])
    assert prec(state, "a").state is Lifecycle.REVOKED
    for other in ("agent", "tool.y", "web"):
        say(state, other, "a")
        assert prec(state, "a").state is Lifecycle.REVOKED, other
    say(state, source, "a")
    assert prec(state, "a").state is Lifecycle.ACTIVE
    # without change sources (tepa-key's rules before issue 28) the veto holds
    old = KEY.with_overrides(change_sources=())
    state = claimed_state(old, source, [*CLAIMED, ("a", False), ("a", False)])
    assert prec(state, "a").state is Lifecycle.REVOKED
    say(state, source, "a", old)
    assert prec(state, "a").state is Lifecycle.REVOKED


def test_the_statement_that_revives_a_value_counts_in_full() -> None:
    """Issue 28: a user who said their value three times (repeats worth 1, 0.5, 0.25) and
    restates it after its revocation is heard in full: the value comes back Active instead of
    a Hypothesis under ``theta_pro`` with a statement worth 0.125."""
    state = KeyState("default", "tool.x")
    for _ in range(3):
        say(state, "user", "a")
    feed(state, KEY, [*CLAIMED, ("a", False), ("a", False)])
    assert prec(state, "a").state is Lifecycle.REVOKED
    say(state, "user", "a")
    p = prec(state, "a")
    assert p.state is Lifecycle.ACTIVE and p.weighted_support == 1.0
    say(state, "user", "a")  # the next one is a repeat again
    assert prec(state, "a").weighted_support == 1.5


@pytest.mark.parametrize(
    ("tail", "revived"),
    [
        ([True] * 3 + [False] * 2, True),  # three successes against two failures
        ([True] * 2 + [False] * 2, False),  # a tie: the failures are not outvoted
        ([True] + [False] * 3, False),
        ([False, False], False),  # a value that never worked (a spoofed one)
    ],
)
def test_the_owners_word_lifts_the_veto_only_while_successes_outnumber_failures(
    tail: list[bool], revived: bool
) -> None:
    state = claimed_state(KEY, "user", [])
    p = prec(state, "a")
    p.recent[:] = tail  # its outcomes since the claim
    state.ledger.claimed[p.value_id] = 0.0  # claimed before the revocation below
    n = next(_ids)
    revoke = Evidence(f"e{n:07d}", "default", "tool.x", "a", EvidenceKind.REVOKE, time=float(n))
    apply_evidence(state, revoke, KEY)
    assert p.state is Lifecycle.REVOKED
    say(state, "user", "a")
    assert (p.state is not Lifecycle.REVOKED) is revived
    assert LastOutcomeVeto(CHANGE_SOURCES).blocks(p) is (p.recent[-1] is False)  # no record asks


@pytest.mark.parametrize(
    "overrides",
    [
        {"keyed_failing": 0.9},
        {"keyed_working": 1.0},
        {"keyed_failing": -0.1},
        {"keyed_hazard": 0.0},
        {"keyed_weight": 0.0},
        {"keyed_odds": -1.0},
        {"keyed_odds": float("nan")},
    ],
)
def test_invalid_key_test_settings(overrides: dict) -> None:
    with pytest.raises(PolicyError):
        LifecyclePolicy.preset("tepa-key", **overrides)

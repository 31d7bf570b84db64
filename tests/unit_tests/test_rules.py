"""The rule objects of the fold, and the change-point rule of ``tepa-cd``."""

from __future__ import annotations

import itertools
import random

import pytest

from langchain_tepa import Evidence, EvidenceKind, Lifecycle, LifecyclePolicy, PolicyError
from langchain_tepa.core import KeyState, apply_evidence, change_odds, fold, rules_for
from langchain_tepa.core.changes import CHANGE_SOURCES, OneOffVeto
from langchain_tepa.core.precedence import TrustHold
from langchain_tepa.core.rules import (
    ChangeRevocation,
    ChangeVeto,
    HistoryCounts,
    KeyChangeRevocation,
    LastOutcomeVeto,
    OutcomeVeto,
    PosteriorRevocation,
    Reactive,
    RecentWindowRevocation,
    Supersede,
)

CD = LifecyclePolicy.preset("tepa-cd")
REV = LifecyclePolicy.preset("tepa-rev")
_ids = itertools.count()


def outcomes(value: str, results: list[bool], start: float = 1.0) -> list[Evidence]:
    return [
        Evidence.outcome_of("tool.x", value, ok, time=start + i, id=f"e{next(_ids):07d}")
        for i, ok in enumerate(results)
    ]


def prec(state: KeyState, value: str = "a"):
    return next(p for p in state.precedents.values() if p.value == value)


def failures_to_revoke(policy: LifecyclePolicy, history: list[bool]) -> int | None:
    """Consecutive failures after ``history`` until the value is revoked (None: 10 not enough)."""
    state = fold(outcomes("a", history), policy)
    t = float(len(history) + 1)
    for n in range(1, 11):
        apply_evidence(state, outcomes("a", [False], start=t)[0], policy)
        t += 1
        if prec(state).state is Lifecycle.REVOKED:
            return n
    return None


def test_rule_sets_of_the_presets() -> None:
    rev = rules_for(LifecyclePolicy.preset("tepa-rev"))
    assert [type(r) for r in rev.revocation] == [PosteriorRevocation, RecentWindowRevocation]
    assert rev.vetoes == (OutcomeVeto(3, 0.34), TrustHold())
    default = rules_for(LifecyclePolicy())  # the key test since issue 14
    assert [type(r) for r in default.revocation] == [PosteriorRevocation, KeyChangeRevocation]
    # the user is heard; a person's one-off waits for them to say it again (issue 39)
    assert default.vetoes == (LastOutcomeVeto(CHANGE_SOURCES), TrustHold(), OneOffVeto())
    assert rules_for(LifecyclePolicy(hold_lower_trust=False)).vetoes == (
        LastOutcomeVeto(CHANGE_SOURCES),
        OneOffVeto(),
    )
    assert isinstance(default.counts, HistoryCounts)
    cd = rules_for(CD)
    assert [type(r) for r in cd.revocation] == [PosteriorRevocation, ChangeRevocation]
    assert isinstance(cd.vetoes[0], ChangeVeto)
    assert rules_for(LifecyclePolicy.preset("lww-outcome")).record == (Supersede(True),)
    assert rules_for(LifecyclePolicy.preset("reactive", reactive_failures=2)).record == (
        Reactive(2),
    )
    assert CD.rules is CD.rules  # cached on the policy


def test_precise_tool_is_revoked_after_one_or_two_failures() -> None:
    precise = [True] * 20
    n = failures_to_revoke(CD, precise)
    assert n is not None and n <= 2
    rng = random.Random(0)
    almost = [rng.random() < 0.99 for _ in range(24)]
    n = failures_to_revoke(CD, almost)
    assert n is not None and n <= 2


def test_noisy_tool_is_not_revoked_by_its_usual_failures() -> None:
    rng = random.Random(1)
    noisy = [rng.random() < 0.7 for _ in range(21)] + [True, True, True]
    state = fold(outcomes("a", noisy), CD)
    assert prec(state).state is Lifecycle.ACTIVE
    # its usual failures: up to two in a row keep it; the paper's window revokes on two
    n = failures_to_revoke(CD, noisy)
    assert n is None or n >= 3
    assert failures_to_revoke(REV, noisy) == 2
    # a stream at 70% over 200 steps: tepa-cd revokes the value far less often than tepa-rev
    stream = [rng.random() < 0.7 for _ in range(200)]

    def revocations(policy: LifecyclePolicy) -> int:
        s = fold(outcomes("a", stream), policy)
        return sum(1 for t in prec(s).transitions if t.to_state is Lifecycle.REVOKED)

    assert revocations(CD) < revocations(REV)


def test_change_odds_follow_the_values_own_rate() -> None:
    precise = [True] * 20
    noisy = [True, True, False] * 7
    assert change_odds(precise + [False, False], hazard=0.05, max_run=6)[0] > 1
    assert change_odds(noisy + [False, False], hazard=0.05, max_run=6)[0] < 1
    odds, m = change_odds(precise + [False] * 3, hazard=0.05, max_run=6)
    assert m == 3 and odds > 10
    assert change_odds([False, False, False], hazard=0.05, max_run=6)[0] < 0.1  # never worked
    assert change_odds([True], hazard=0.5, max_run=6) == (0.0, 0)


def test_change_veto_blocks_an_assertion_while_the_drop_shows() -> None:
    evs = outcomes("a", [True] * 20 + [False, False])
    t = 30.0
    evs.append(Evidence.observation("tool.x", "a", time=t, id=f"e{next(_ids):07d}"))
    state = fold(evs, CD)
    p = prec(state)
    assert p.state is Lifecycle.REVOKED
    assert "change detected" in p.transitions[-1].reason
    apply_evidence(state, outcomes("a", [True], start=t + 1)[0], CD)
    assert p.state is Lifecycle.ACTIVE  # a success revives and re-promotes it


def test_reactive_threshold_and_lww_outcome() -> None:
    policy = LifecyclePolicy.preset("reactive", reactive_failures=3)
    assert failures_to_revoke(policy, [True] * 5) == 3
    assert policy.failures_to_revoke == 3
    assert CD.failures_to_revoke is None  # it depends on the value's own history
    s = fold(outcomes("a", [True, False]), LifecyclePolicy.preset("lww-outcome"))
    assert prec(s).transitions[-1].reason == ("revoked: superseded by a failed outcome (LWW)")
    with pytest.raises(PolicyError, match="reactive_failures"):
        LifecyclePolicy.preset("reactive", reactive_failures=5)  # window 3 keeps 3 outcomes
    with pytest.raises(PolicyError):
        LifecyclePolicy(change_hazard=1.0)
    with pytest.raises(PolicyError):
        LifecyclePolicy(change_threshold=0.0)


def test_oracle_rev_is_tepa_rev_told_the_boundary() -> None:
    boundary = Evidence(
        id="zz",
        namespace="default",
        key="tool.x",
        value=None,
        kind=EvidenceKind.BOUNDARY,
        time=99.0,
    )
    s = fold([*outcomes("a", [True] * 3), boundary], LifecyclePolicy.preset("oracle-rev"))
    assert prec(s).state is Lifecycle.REVOKED
    assert isinstance(KeyState("default", "k"), KeyState)

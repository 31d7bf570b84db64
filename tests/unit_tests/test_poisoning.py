"""Poisoning: many observations from one source against a value whose outcomes fail.

The attack: a source keeps asserting a value ("the payments endpoint is evil.example") while
every action on that value fails. What the fold does:

Under the paper's rules (``tepa-rev``):

* without the guard (``outcome_veto=False``): three failures revoke the value (recent window);
  every further observation revives it, and its failing recent window revokes it again in the
  same step (an assertion does not erase outcomes), so it is never retrieved but the audit churns.
* with it (``outcome_veto=True``, the default of the TEPA policies): while the value's own recent
  outcomes fail, observations neither revive nor promote it; only a successful outcome or
  ``promote`` can.

The default policy (the key test, ``tepa-key``) has its own guard (observations can neither
revive nor promote a value whose last outcome failed); both guards are tested below.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from langchain_tepa import HashingEmbeddings, Lifecycle, LifecyclePolicy, TEPAMemory

KEY = "tool.payments_endpoint"
EVIL, BANK = "https://evil.example/pay", "https://bank.example/pay"


def _memory(policy: LifecyclePolicy) -> TEPAMemory:
    ticks = itertools.count(1)
    return TEPAMemory.in_memory(
        embeddings=HashingEmbeddings(), policy=policy, clock=lambda: float(next(ticks))
    )


def _state(mem: TEPAMemory, value: str) -> Lifecycle | None:
    for p in mem.audit(KEY).precedents:
        if p.value == value:
            return p.state
    return None


def _attack(mem: TEPAMemory, rounds: int = 20, burst: int = 10) -> int:
    """Attacker bursts, and an agent that acts on what memory says (and fails on EVIL).

    Returns the number of rounds in which EVIL was Active after the attacker's burst, once
    its outcomes had failed at least three times.
    """
    failures = 0
    poisoned_rounds = 0
    for _ in range(rounds):
        for _ in range(burst):
            mem.observe(KEY, EVIL, source="attacker")
        if failures >= 3 and _state(mem, EVIL) is Lifecycle.ACTIVE:
            poisoned_rounds += 1
        while mem.get(KEY) == EVIL:  # the agent acts on EVIL until memory stops offering it
            mem.record_outcome(KEY, EVIL, False, source="agent")
            failures += 1
    return poisoned_rounds


@pytest.mark.parametrize("preset", ["tepa-rev", "tepa-key"])
def test_outcome_veto_stops_one_source_from_promoting_a_failing_value(preset: str) -> None:
    mem = _memory(LifecyclePolicy.preset(preset, outcome_veto=True))
    assert _attack(mem) == 0
    evil = next(p for p in mem.audit(KEY).precedents if p.value == EVIL)
    assert evil.state is Lifecycle.REVOKED
    assert evil.lifetime_support >= 200  # the observations are kept (audit), not promoted
    assert [t.to_state for t in evil.transitions].count(Lifecycle.ACTIVE) == 1
    sources = {e.source for e in mem.history(KEY) if e.value == EVIL}
    assert sources == {"attacker", "agent"}
    # A successful outcome (the world changed) is the way back, and works at once.
    mem.record_outcome(KEY, EVIL, True, source="agent")
    assert mem.get(KEY) == EVIL
    # So is a decision by hand.
    mem.record_outcome(KEY, EVIL, False)
    mem.record_outcome(KEY, EVIL, False)
    mem.record_outcome(KEY, EVIL, False)
    assert mem.get(KEY) is None
    mem.promote(KEY, EVIL, reason="operator checked the endpoint")
    assert mem.get(KEY) == EVIL


def test_default_policy_resists_poisoning() -> None:
    assert LifecyclePolicy().outcome_veto and LifecyclePolicy().revoke_keyed
    assert _attack(_memory(LifecyclePolicy())) == 0


def test_without_the_guard_the_value_churns_but_is_not_retrieved() -> None:
    """Without the veto, each attacker observation revives the value and the failing recent
    window revokes it again in the same step: never retrievable, but the audit churns."""
    mem = _memory(LifecyclePolicy.preset("tepa-rev", outcome_veto=False))
    assert _attack(mem, rounds=5) == 0
    evil = next(p for p in mem.audit(KEY).precedents if p.value == EVIL)
    reasons = [t.reason for t in evil.transitions]
    assert reasons.count("revived: new support after revocation") >= 40
    assert any(r.startswith("revoked: recent success 0/3") for r in reasons)
    guarded = _memory(LifecyclePolicy.preset("tepa-rev"))
    _attack(guarded, rounds=5)
    evil = next(p for p in guarded.audit(KEY).precedents if p.value == EVIL)
    assert len(evil.transitions) == 3  # new candidate, promoted, revoked: no churn


@settings(max_examples=100, deadline=None)
@given(
    events=st.lists(
        st.one_of(
            st.tuples(st.just("observe"), st.integers(1, 12)),
            st.tuples(st.just("fail"), st.integers(1, 4)),
            st.tuples(st.just("honest"), st.integers(1, 3)),
        ),
        max_size=12,
    ),
    preset=st.sampled_from(["tepa-rev", "tepa-key", "tepa-norev", "tepa-full"]),
)
def test_veto_invariant_under_any_interleaving(events: list[tuple[str, int]], preset: str) -> None:
    """With the veto, after three failures and no success, EVIL never becomes Active again."""
    mem = _memory(LifecyclePolicy.preset(preset, outcome_veto=True))
    failures = 0
    frozen: int | None = None
    for kind, n in events:
        for _ in range(n):
            if kind == "observe":
                mem.observe(KEY, EVIL, source="attacker")
            elif kind == "fail":
                if _state(mem, EVIL) is not None:
                    mem.record_outcome(KEY, EVIL, False, source="agent")
                    failures += 1
            else:
                mem.observe(KEY, BANK, source="user")
                mem.record_outcome(KEY, BANK, True, source="agent")
            if failures >= 3:
                evil = next(p for p in mem.audit(KEY).precedents if p.value == EVIL)
                promotions = [t.to_state for t in evil.transitions].count(Lifecycle.ACTIVE)
                frozen = promotions if frozen is None else frozen
                assert promotions == frozen
                if preset in ("tepa-rev", "tepa-key"):  # a rule that revokes on failures is on
                    assert _state(mem, EVIL) is not Lifecycle.ACTIVE
                    assert mem.get(KEY) != EVIL

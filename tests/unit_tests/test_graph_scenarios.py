"""TEPA-Full end to end: preference change, transient glitch, memory poisoning.

The executor is a small simulated agent acting in a simulated world (:class:`World`): it acts
on the newest value of the key in its memory view; when the view contradicts itself it first
checks that value with the world (asks the user, checks a certificate) and gives up when the
check fails.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from langchain_tepa import EvidenceKind, HashingEmbeddings, Lifecycle, LifecyclePolicy, TEPAMemory
from langchain_tepa.graph import (
    Decision,
    Trial,
    TrialKind,
    build_trial_graph,
    run_trials,
)

PIZZA = "user.pizza_topping"
PAY = "payments.endpoint"
BANK = "https://bank.example/pay"
EVIL = "https://bank-example.attacker.test/pay"


@dataclass
class World:
    """What works in the world now, and what passes a check when memory is contradictory."""

    key: str
    works: set[str]
    verified: set[str]
    calls: list[str] = field(default_factory=list)

    def __call__(self, trial: Trial) -> bool:
        self.calls.append(trial.id)
        values = trial.lookup(self.key)
        if not values:
            return False  # the agent cannot do the task without the fact
        chosen = values[-1]  # the newest claim
        if len(set(values)) > 1 and chosen not in self.verified:
            return False  # contradictory memory: the agent checks the claim, which fails
        return chosen in self.works


@pytest.fixture(params=["memory", "chroma"])
def tepa_full(
    request: pytest.FixtureRequest, ephemeral_client: object, tick: Callable[[], float]
) -> Iterator[TEPAMemory]:
    """A TEPA-Full memory, in process and on (ephemeral) Chroma."""
    kwargs: dict[str, Any] = {
        "policy": "tepa-full",
        "embeddings": HashingEmbeddings(),
        "clock": tick,
    }
    if request.param == "memory":
        mem = TEPAMemory.in_memory(**kwargs)
    else:
        prefix = "g" + uuid.uuid4().hex[:12]
        mem = TEPAMemory.from_client(ephemeral_client, prefix=prefix, **kwargs)
    yield mem
    mem.close()


def _states(memory: TEPAMemory, key: str) -> dict[str, str]:
    return {p.value: p.state.value for p in memory.audit(key).precedents}


def _settle_incumbent(memory: TEPAMemory, key: str, value: str, world: World) -> None:
    """The user states a value, trials promote it, the agent then uses it with success."""
    memory.observe(key, value, source="user")
    decisions = run_trials(memory, world, key=key)
    assert [d.action for d in decisions] == ["promote"]
    for _ in range(3):
        memory.record_outcome(key, value, True)
    assert memory.get(key) == value


def test_first_value_is_promoted_by_trials_only(tepa_full: TEPAMemory) -> None:
    tepa_full.observe(PIZZA, "pineapple")
    # tepa-full: an observation alone never makes a value Active.
    assert tepa_full.get(PIZZA) is None
    world = World(PIZZA, works={"pineapple"}, verified={"pineapple"})
    (decision,) = run_trials(tepa_full, world, key=PIZZA)
    assert decision.action == "promote"
    assert [r.kind for r in decision.results] == [TrialKind.SUPPORTIVE, TrialKind.COUNTERFACTUAL]
    # Without any competing value the counterfactual is "no value": the agent fails without it.
    assert decision.results[1].competitor is None
    assert decision.results[1].competitor_success is False
    assert tepa_full.get(PIZZA) == "pineapple"


def test_real_preference_change_is_promoted(tepa_full: TEPAMemory) -> None:
    world = World(PIZZA, works={"pineapple"}, verified={"pineapple"})
    _settle_incumbent(tepa_full, PIZZA, "pineapple", world)

    # The preference changes: the user now says mushroom, and pineapple orders get refused.
    world.works, world.verified = {"mushroom"}, {"mushroom"}
    tepa_full.observe(PIZZA, "mushroom", source="user")
    tepa_full.record_outcome(PIZZA, "pineapple", False)
    assert _states(tepa_full, PIZZA)["mushroom"] == "hypothesis"

    (decision,) = run_trials(tepa_full, world, key=PIZZA)
    assert decision.action == "promote"
    assert decision.reason == "promoted: trials 3/3 positive (100% >= 60%), supportive success"
    assert {r.kind for r in decision.results} == set(TrialKind)
    assert all(r.positive for r in decision.results)
    assert tepa_full.get(PIZZA) == "mushroom"
    states = _states(tepa_full, PIZZA)
    assert states == {"pineapple": "revoked", "mushroom": "active"}
    # The incumbent lost its counterfactual, so the promotion superseded it.
    assert decision.superseded == ("pineapple",)

    # The candidate keeps working afterwards and stays Active.
    for _ in range(3):
        tepa_full.record_outcome(PIZZA, "mushroom", world(_trial_for(PIZZA, "mushroom")))
    assert tepa_full.get(PIZZA) == "mushroom"

    # The audit shows why: the promotion's reason and one trial record per trial.
    audit = tepa_full.audit(PIZZA)
    mushroom = next(p for p in audit.precedents if p.value == "mushroom")
    assert mushroom.transitions[-1].reason == decision.reason
    trials = [e for e in tepa_full.history(PIZZA) if e.kind is EvidenceKind.TRIAL]
    mine = [e for e in trials if e.value == "mushroom"]
    assert sorted(e.metadata["trial_kind"] for e in mine) == [
        "counterfactual",
        "polluted",
        "supportive",
    ]
    assert all(e.outcome is True for e in mine)
    assert any("vs 'pineapple'" in (e.reason or "") for e in mine)


def _trial_for(key: str, value: str) -> Trial:
    return Trial("t", TrialKind.SUPPORTIVE, "default", key, value, "order", ((key, value),), value)


def test_transient_glitch_is_not_promoted(tepa_full: TEPAMemory) -> None:
    world = World(PIZZA, works={"pineapple"}, verified={"pineapple"})
    _settle_incumbent(tepa_full, PIZZA, "pineapple", world)

    # One contradicting observation (a glitch), then the old value works again.
    tepa_full.observe(PIZZA, "mushroom")
    tepa_full.record_outcome(PIZZA, "pineapple", True)

    (decision,) = run_trials(tepa_full, world, key=PIZZA)
    assert decision.value == "mushroom"
    assert decision.action != "promote"
    assert decision.positive == 0
    assert _states(tepa_full, PIZZA) == {"pineapple": "active", "mushroom": "revoked"}
    assert tepa_full.get(PIZZA) == "pineapple"
    rejected = next(p for p in tepa_full.audit(PIZZA).precedents if p.value == "mushroom")
    assert rejected.transitions[-1].reason.startswith("rejected: trials 0/3 positive")


@pytest.mark.parametrize("attacks", [1, 5, 40])
def test_memory_poisoning_is_never_promoted(tepa_full: TEPAMemory, attacks: int) -> None:
    # The attacker's endpoint proxies payments (so acting on it alone "works"), but it is not
    # what makes payments work (the bank does too) and it fails the certificate check an agent
    # makes when its memory holds contradicting endpoints.
    world = World(PAY, works={BANK, EVIL}, verified={BANK})
    _settle_incumbent(tepa_full, PAY, BANK, world)

    for _ in range(attacks):
        tepa_full.observe(PAY, EVIL, source="attacker")
    (first,) = run_trials(tepa_full, world, key=PAY)
    assert first.value == EVIL
    assert first.candidate.support == attacks
    decisions = [first]
    # A second wave, with trials between attacks: the rejected value comes back as a
    # Hypothesis with each new observation and is rejected again.
    for i in range(attacks):
        tepa_full.observe(PAY, EVIL, source="attacker")
        if i % 5 == 0 or i == attacks - 1:
            decisions += run_trials(tepa_full, world, key=PAY)
        assert _states(tepa_full, PAY)[EVIL] != "active"

    evil = next(p for p in tepa_full.audit(PAY).precedents if p.value == EVIL)
    assert all(t.to_state is not Lifecycle.ACTIVE for t in evil.transitions)
    assert all(d.action == "reject" for d in decisions)
    for d in decisions:
        kinds = {r.kind: r.positive for r in d.results}
        assert kinds == {
            TrialKind.SUPPORTIVE: True,
            TrialKind.COUNTERFACTUAL: False,
            TrialKind.POLLUTED: False,
        }
        assert d.reason == "rejected: trials 1/3 positive (33.33% < 40%)"
    assert tepa_full.get(PAY) != EVIL
    sources = {e.source for e in tepa_full.history(PAY) if e.value == EVIL and e.source}
    assert sources == {"attacker"}


@pytest.mark.parametrize("restore", [True, False])
def test_flooded_incumbent_holds_and_trials_restore_it(
    tepa_full: TEPAMemory, restore: bool
) -> None:
    """One source's flood counts at most its cap, so the verified incumbent stays Active; so
    does a flood from many sources of a lower tier than the user's (issue 38). A flood from
    many sources of the user's tier can revoke it (conflict 22 against support 4); the
    trial graph then restores it by default: its counterfactual arm succeeds where the
    attacker's value fails (issue 15). With ``restore=False`` it stays revoked."""
    world = World(PAY, works={BANK}, verified={BANK})
    _settle_incumbent(tepa_full, PAY, BANK, world)
    for _ in range(20):
        tepa_full.observe(PAY, EVIL, source="attacker")  # undeclared: at most 2 per key and day
    assert _states(tepa_full, PAY) == {BANK: "active", EVIL: "hypothesis"}
    assert tepa_full.get(PAY) == BANK

    for i in range(20):
        tepa_full.observe(PAY, EVIL, source=f"tool.feed{i}")  # twenty tools: a lower tier
    assert _states(tepa_full, PAY) == {BANK: "active", EVIL: "hypothesis"}
    for i in range(20):
        tepa_full.observe(PAY, EVIL, source=f"user.feed{i}")  # twenty channels as the user
    assert _states(tepa_full, PAY) == {BANK: "revoked", EVIL: "hypothesis"}
    assert tepa_full.get(PAY) is None  # erased, and EVIL is no answer under TEPA-Full

    (decision,) = run_trials(tepa_full, world, key=PAY, restore=restore)
    assert (decision.value, decision.action) == (EVIL, "reject")
    counterfactual = next(r for r in decision.results if r.kind is TrialKind.COUNTERFACTUAL)
    assert (counterfactual.competitor, counterfactual.competitor_success) == (BANK, True)
    assert counterfactual.success is False
    if restore:
        assert decision.restored == (BANK,)
        assert tepa_full.get(PAY) == BANK
        bank = next(p for p in tepa_full.audit(PAY).precedents if p.value == BANK)
        assert bank.transitions[-1].reason.startswith("promoted: restored, it succeeded in a")
    else:
        assert decision.restored == ()
        assert tepa_full.get(PAY) is None
    assert _states(tepa_full, PAY)[EVIL] == "revoked"


def test_poisoning_would_succeed_without_trials(tick: Callable[[], float]) -> None:
    """Contrast: under TEPA-Rev (posterior promotion) without the trust hold the same attack
    makes EVIL Active; with it (issue 38) the undeclared attacker's value is held back."""
    policy = LifecyclePolicy.preset("tepa-rev", hold_lower_trust=False)
    memory = TEPAMemory.in_memory(policy=policy, clock=tick)
    held = TEPAMemory.in_memory(policy="tepa-rev", clock=tick)
    for mem in (memory, held):
        mem.observe(PAY, BANK, source="user")
        for _ in range(5):
            mem.observe(PAY, EVIL, source="attacker")
    assert memory.get(PAY) == EVIL
    assert held.get(PAY) == BANK and held.audit(PAY).contested


def test_graph_and_run_trials_decide_alike() -> None:
    clocks = [itertools.count(1), itertools.count(1)]
    memories = [
        TEPAMemory.in_memory(policy="tepa-full", clock=lambda c=c: float(next(c)), writer="w")
        for c in clocks
    ]
    worlds = [World(PIZZA, works={"pineapple"}, verified={"pineapple"}) for _ in memories]
    for memory, world in zip(memories, worlds, strict=True):
        _settle_incumbent(memory, PIZZA, "pineapple", world)
        world.works, world.verified = {"mushroom"}, {"mushroom"}
        memory.observe(PIZZA, "mushroom")
        memory.observe("user.city", "Lyon")
    direct = run_trials(memories[0], worlds[0])
    out = build_trial_graph(memories[1], worlds[1]).invoke({})
    via_graph = [Decision.from_dict(d) for d in out["decisions"]]
    assert [(d.key, d.value, d.action, d.reason) for d in direct] == [
        (d.key, d.value, d.action, d.reason) for d in via_graph
    ]
    assert [d.key for d in direct] == ["user.city", PIZZA]  # by key
    assert sorted(worlds[0].calls) == sorted(worlds[1].calls)
    assert memories[0].get(PIZZA) == memories[1].get(PIZZA) == "mushroom"

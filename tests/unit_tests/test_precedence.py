"""Who may override whom (issue 38): a lower-trust claim is held back, never a quiet override.

The rules are in :mod:`langchain_tepa.core.precedence` and docs/trust.md ("Who can override
whom"); every test here failed on the code before issue 38, where one ``llm.x``, ``bot``,
``tool.x`` or ``agent`` statement replaced what the user said.
"""

from __future__ import annotations

import itertools

import pytest

from langchain_tepa import HashingEmbeddings, LifecyclePolicy, TEPAMemory, TEPAStore
from langchain_tepa.core import fold
from langchain_tepa.core.precedence import held_claims, rank_of, source_tier, vouches

KEY = "user.home_city"
LOWER = ["llm.x", "bot", "tool.x", "agent"]


def memory(policy: str | LifecyclePolicy | None = None) -> TEPAMemory:
    ticks = itertools.count(1)
    return TEPAMemory.in_memory(
        embeddings=HashingEmbeddings(), policy=policy, clock=lambda: float(next(ticks))
    )


def states(mem: TEPAMemory, key: str = KEY, namespace: str | None = None) -> dict[str, str]:
    return {p.value: p.state.value for p in mem.audit(key, namespace=namespace).precedents}


@pytest.mark.parametrize("source", LOWER)
def test_a_lower_trust_value_is_held_back_and_shown_as_contested(source: str) -> None:
    mem = memory()
    mem.observe(KEY, "Lisbon", source="user")
    mem.observe(KEY, "Oslo", source=source)
    assert mem.get(KEY) == "Lisbon"
    assert states(mem) == {"Lisbon": "active", "Oslo": "hypothesis"}
    audit = mem.audit(KEY)
    assert audit.contested and audit.held == {audit.precedents[1].value_id}
    (doc,) = mem.retrieve("where does the user live")
    assert doc.metadata["value"] == "Lisbon" and doc.metadata["contested"] is True
    assert [a["value"] for a in doc.metadata["alternatives"]] == ["Oslo"]


@pytest.mark.parametrize("source", LOWER)
def test_the_user_confirms_a_held_value_at_once(source: str) -> None:
    mem = memory()
    mem.observe(KEY, "Lisbon", source="user")
    mem.observe(KEY, "Oslo", source=source)
    mem.observe(KEY, "Oslo", source="user")
    assert mem.get(KEY) == "Oslo"
    assert not mem.audit(KEY).held


@pytest.mark.parametrize("source", LOWER)
def test_an_execution_confirms_a_held_value(source: str) -> None:
    mem = memory()
    mem.observe(KEY, "Lisbon", source="user")
    mem.observe(KEY, "Oslo", source=source)
    mem.record_outcome(KEY, "Oslo", True)  # the application acted on it, and it worked
    assert mem.get(KEY) == "Oslo"


@pytest.mark.parametrize("source", ["user", None, *LOWER])
def test_a_source_changing_its_own_value_is_immediate(source: str | None) -> None:
    mem = memory()
    mem.observe(KEY, "Lisbon", source=source)
    mem.observe(KEY, "Oslo", source=source)
    assert mem.get(KEY) == "Oslo"


def test_a_crowd_of_lower_tiers_can_neither_override_nor_erase() -> None:
    mem = memory()
    mem.observe(KEY, "Lisbon", source="user")
    for i in range(40):
        mem.observe(KEY, "Oslo", source=f"tool.feed{i}")
        mem.observe(KEY, "Oslo", source=f"bot{i}")
        mem.observe(KEY, "Oslo", source=f"llm.reader{i}")
    lisbon = mem.audit(KEY).precedents[0]
    assert mem.get(KEY) == "Lisbon" and lisbon.state.value == "active"
    assert lisbon.conflict == 120 and lisbon.weighted_conflict == 0.0  # counted, not weighed


def test_a_higher_tier_overrides_a_lower_one_by_the_usual_rules() -> None:
    mem = memory()
    mem.observe(KEY, "Lisbon", source="agent")
    mem.observe(KEY, "Oslo", source="user")
    assert mem.get(KEY) == "Oslo"
    for i in range(6):  # the agent's value stays Active, but it cannot outrank the user's
        mem.observe(KEY, "Lisbon", source=f"tool.s{i}")
    assert mem.get(KEY) == "Oslo" and mem.audit(KEY).contested


@pytest.mark.parametrize("preset", ["tepa-rev", "tepa-norev", "tepa-cd", "oracle-rev"])
def test_every_trust_preset_holds_lower_trust_claims(preset: str) -> None:
    mem = memory(preset)
    mem.observe(KEY, "Lisbon", source="user")
    for _ in range(5):
        mem.observe(KEY, "Oslo", source="tool.x")
    assert mem.get(KEY) == "Lisbon"


def test_tepa_full_holds_them_too() -> None:
    mem = memory("tepa-full")
    mem.observe(KEY, "Lisbon", source="user")
    mem.record_outcome(KEY, "Lisbon", True)
    for i in range(12):  # twelve tools erased it before issue 38
        mem.observe(KEY, "Oslo", source=f"tool.feed{i}")
    assert mem.get(KEY) == "Lisbon"
    assert states(mem) == {"Lisbon": "active", "Oslo": "hypothesis"}


def test_the_hold_can_be_switched_off_and_baselines_never_had_it() -> None:
    for policy in (LifecyclePolicy(hold_lower_trust=False), LifecyclePolicy.preset("lww")):
        mem = memory(policy)
        mem.observe(KEY, "Lisbon", source="user")
        mem.observe(KEY, "Oslo", source="tool.x")
        assert mem.get(KEY) == "Oslo"
        assert all(p.rank == 0 for p in mem.audit(KEY).precedents)


def test_multi_valued_keys_hold_nothing_back() -> None:
    mem = memory(LifecyclePolicy(multi_valued_prefixes=("user.pets",)))
    mem.observe("user.pets", "cat", source="user")
    mem.observe("user.pets", "dog", source="tool.x")
    assert states(mem, "user.pets") == {"cat": "active", "dog": "active"}
    assert not mem.audit("user.pets").held


def test_tiers_ranks_and_vouching() -> None:
    trust = LifecyclePolicy().trust
    assert trust is not None
    tiers = {s: source_tier(trust, s) for s in ("user.a", None, "agent", "tool.y", "x", "web.z")}
    assert tiers == {"user.a": 3, None: 3, "agent": 2, "tool.y": 2, "x": 1, "web.z": 0}
    assert [vouches(trust, s) for s in ("app", "tool.y", "bot", "llm.q")] == [
        True,
        True,
        False,
        False,
    ]
    mem = memory()
    mem.observe(KEY, "Oslo", source="web")
    (oslo,) = mem.audit(KEY).precedents
    assert rank_of(trust, oslo) == oslo.rank == 0
    mem.record_outcome(KEY, "Oslo", True, source="tool.booking")  # a vouched execution
    assert mem.audit(KEY).precedents[0].rank == 3
    assert held_claims(fold(mem.history(KEY), LifecyclePolicy()), LifecyclePolicy()) == []


# ---------------------------------------------------------------------- free-text items
@pytest.mark.parametrize("source", LOWER)
def test_a_lower_trust_store_does_not_take_back_the_users_item(source: str) -> None:
    user = TEPAStore.in_memory()
    ns = ("u",)
    user.put(ns, "a", {"text": "User lives in Lisbon"})
    writer = TEPAStore(memory=user.memory, source=source)
    writer.put(ns, "b", {"text": "User moved to Oslo last month"})
    assert [i.key for i in user.search(ns)] == ["a"]
    held = user.memory.audit("b", namespace="u").precedents[0]
    assert held.state.value == "revoked"
    assert held.revocation is not None and held.revocation.reason.startswith("held: ")
    claims = user.memory.audit(KEY, namespace="u.~claims")
    assert claims.contested and claims.held
    # the user's own store confirms it: the held item is served, the old one taken back
    user.put(ns, "c", {"text": "User moved to Oslo last month"})
    assert sorted(i.key for i in user.search(ns)) == ["b", "c"]
    assert user.memory.audit("a", namespace="u").precedents[0].state.value == "revoked"


def test_a_trusted_store_change_stays_immediate() -> None:
    store = TEPAStore.in_memory()
    ns = ("u",)
    store.put(ns, "a", {"text": "User lives in Lisbon"})
    store.put(ns, "b", {"text": "User moved to Oslo last month"})
    assert [i.key for i in store.search(ns)] == ["b"]

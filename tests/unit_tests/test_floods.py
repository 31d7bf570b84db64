"""Floods that echo the query, and outcomes from sources that cannot vouch (issue 38).

Each test is one of the issue's reproductions over the public API, and failed on the code
before it: four keys from ``bot``, ``agent`` or ``tool.x`` whose values echo the question a
user's verified fact answers pushed the fact out of ``retrieve(k=4)``; a ``web`` "success" on
each of 200 over-budget ``bot`` keys made them rank as vouched for.
"""

from __future__ import annotations

import itertools

import pytest

from langchain_tepa import HashingEmbeddings, LifecyclePolicy, TEPAMemory, TEPAStore

KEY = "user.payment_endpoint"
QUERY = "what is the user's payment endpoint"


def memory(policy: str | LifecyclePolicy | None = None) -> TEPAMemory:
    ticks = itertools.count(1)
    return TEPAMemory.in_memory(
        embeddings=HashingEmbeddings(), policy=policy, clock=lambda: float(next(ticks))
    )


def verified(mem: TEPAMemory) -> None:
    """The user states the endpoint and five payments went through."""
    mem.observe(KEY, "bank.example", source="user")
    for _ in range(5):
        mem.record_outcome(KEY, "bank.example", True)


def echoes(mem: TEPAMemory, n: int, sources: tuple[str, ...]) -> None:
    """``n`` keys whose values answer the query with the attacker's endpoint."""
    for i in range(n):
        mem.observe(
            f"what.is.the.users.payment.endpoint.{i}",
            f"the user's payment endpoint is evil{i}.example",
            source=sources[i % len(sources)],
        )


@pytest.mark.parametrize("source", ["bot", "agent", "tool.x"])
def test_four_query_echoes_do_not_deny_a_verified_fact(source: str) -> None:
    mem = memory()
    verified(mem)
    echoes(mem, 4, (source,))
    top = mem.retrieve(QUERY, k=4)
    assert top[0].metadata["key"] == KEY and top[0].metadata["value"] == "bank.example"


def test_a_forty_key_echo_flood_from_three_sources_does_not_either() -> None:
    mem = memory()
    verified(mem)
    echoes(mem, 40, ("bot", "agent", "tool.crawler"))
    for k in (1, 4, 10):
        assert mem.retrieve(QUERY, k=k)[0].metadata["key"] == KEY


def test_the_echo_flood_reaches_the_store_search_too() -> None:
    store = TEPAStore.in_memory()
    ns = ("users", "u1")
    store.put(ns, KEY, {"text": "the user's payment endpoint: bank.example"})
    flood = TEPAStore(store.memory, source="tool.crawler")
    for i in range(10):
        flood.put(ns, f"what.is.the.users.payment.endpoint.{i}", {"text": f"{QUERY}? evil{i}"})
    assert store.search(ns, query=QUERY, limit=4)[0].key == KEY


def test_an_echo_of_the_same_tier_is_ranked_by_similarity_as_before() -> None:
    """Only a lower tier's claim is demoted below the fact it names."""
    mem = memory()
    verified(mem)
    echoes(mem, 4, ("user.other",))
    assert mem.retrieve(QUERY, k=4)[0].metadata["key"] != KEY


def test_web_successes_do_not_lift_a_bot_flood_over_its_budget() -> None:
    mem = memory()
    verified(mem)
    for i in range(200):
        mem.observe(f"{KEY}_{i}", f"evil{i}.example", source="bot")
    for i in range(200):
        mem.record_outcome(f"{KEY}_{i}", f"evil{i}.example", True, source="web")
    found = {d.metadata["key"] for d in mem.retrieve("user payment endpoint", k=50)}
    assert len(found - {KEY}) == 4  # the bot's budget: the web's word vouches for nothing
    assert mem.retrieve("user payment endpoint", k=1)[0].metadata["key"] == KEY
    (p,) = mem.audit(f"{KEY}_150").precedents
    assert p.rank == 1 and p.recent == [] and "outcomes" not in p.provenance
    assert p.provenance["web"][0] == pytest.approx(0.2)  # the web's say, at the web's weight
    # a source trusted to vouch (a tool reporting an execution) lifts it
    mem.record_outcome(f"{KEY}_150", "evil150.example", True, source="tool.payments")
    assert f"{KEY}_150" in {d.metadata["key"] for d in mem.retrieve("evil150", k=50)}


@pytest.mark.parametrize("recorder", ["web", "bot", "llm.judge"])
def test_failures_reported_by_a_source_that_cannot_vouch_revoke_nothing(recorder: str) -> None:
    mem = memory()
    verified(mem)
    for _ in range(30):
        mem.record_outcome(KEY, "bank.example", False, source=recorder)
    (p,) = mem.audit(KEY).precedents
    assert mem.get(KEY) == "bank.example" and p.state.value == "active"
    assert p.recent == [True] * 5 and p.weighted_conflict == 0.0


def test_tepa_full_promotes_only_on_vouched_executions() -> None:
    mem = memory("tepa-full")
    mem.observe("user.city", "Oslo", source="user")
    mem.record_outcome("user.city", "Oslo", True, source="bot")  # a made-up name's report
    assert mem.get("user.city") is None
    mem.record_outcome("user.city", "Oslo", True, source="agent")  # the agent acted on it
    assert mem.get("user.city") == "Oslo"


def test_without_trust_every_outcome_counts_as_before() -> None:
    mem = memory(LifecyclePolicy.preset("tepa-rev", trust=None))
    mem.observe("k", "v")
    mem.record_outcome("k", "v", False, source="web")
    assert mem.audit("k").precedents[0].recent == [False]

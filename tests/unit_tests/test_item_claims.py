"""Free-text items and their claims: what is taken back, what never is, and how it is shown.

The extractor here is scripted (each text's claims are given), so these tests pin the linking
mechanism whatever the offline extractor makes of a sentence; ``test_item_claims_offline.py``
runs the same paths with the default extractor.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document

from langchain_tepa import (
    Fact,
    HashingEmbeddings,
    InvalidNamespaceError,
    Lifecycle,
    LifecyclePolicy,
    TEPAMemory,
    TEPAStore,
    TEPAVectorStore,
)
from langchain_tepa.memory.claims import claims_namespace, is_claims_namespace, text_of_value
from langchain_tepa.store import StoreNamespaceError, store_policy

NS = ("memories", "u1")
MNS = "memories.u1"

CLAIMS: dict[str, list[tuple[str, str, dict[str, Any]]]] = {
    "User lives in Lisbon": [("user.home_city", "Lisbon", {})],
    "User moved to Oslo last month": [("user.home_city", "Oslo", {"correction": True})],
    "User lives in Oslo": [("user.home_city", "Oslo", {})],
    "User moved back to Lisbon": [("user.home_city", "Lisbon", {"correction": True})],
    "User lives in Porto": [("user.home_city", "Porto", {})],
    "User has a dog": [("user.pets", "dog", {"multi_valued": True})],
    "User also has a cat": [("user.pets", "cat", {"multi_valued": True})],
    "User's sister lives in Madrid": [("user.sister.home_city", "Madrid", {})],
    "User lives in Oslo and works at Acme": [
        ("user.home_city", "Oslo", {}),
        ("user.employer", "Acme", {}),
    ],
    "User works at Acme": [("user.employer", "Acme", {})],
    "User speaks Spanish": [("user.languages", "Spanish", {})],
    "User speaks Polish": [("user.languages", "Polish", {})],
    "Team snack: bagels": [("team.snack", "bagels", {})],
    "Team snack: donuts": [("team.snack", "donuts", {})],
}


class Scripted:
    """An extractor that returns the claims written above (none for any other text)."""

    def __init__(self) -> None:
        self.calls = 0

    def extract(self, text: str) -> list[Fact]:
        self.calls += 1
        return [
            Fact(key, value, text=text, metadata=meta or None)
            for key, value, meta in CLAIMS.get(text, [])
        ]


def _store(tick: Callable[[], float], **kwargs: Any) -> TEPAStore:
    emb = HashingEmbeddings()
    return TEPAStore.in_memory(
        index={"dims": 384, "embed": emb, "fields": ["content"]},
        embeddings=emb,
        extractor=Scripted(),
        clock=tick,
        **kwargs,
    )


@pytest.fixture
def store(tick: Callable[[], float]) -> TEPAStore:
    return _store(tick)


def _keys(store: TEPAStore, query: str, limit: int = 10) -> list[str]:
    return [item.key for item in store.search(NS, query=query, limit=limit)]


def test_a_contradicted_item_leaves_search_and_says_why(store: TEPAStore) -> None:
    store.put(NS, "a", {"content": "User lives in Lisbon"})
    store.put(NS, "b", {"content": "User prefers dark mode"})
    assert set(_keys(store, "where does the user live")) == {"a", "b"}
    store.put(NS, "c", {"content": "User moved to Oslo last month"})
    assert set(_keys(store, "where does the user live")) == {"b", "c"}
    assert [i.key for i in store.search(NS)] == ["c", "b"]  # without a query too
    assert store.get(NS, "a") is None
    (old,) = store.audit(NS, "a").precedents
    assert old.state is Lifecycle.REVOKED
    assert old.revocation is not None
    assert (
        old.revocation.reason == "superseded: user.home_city is now 'Oslo' (item c), not 'Lisbon'"
    )


def test_a_plain_restatement_of_another_value_only_marks_the_older_item(store: TEPAStore) -> None:
    # issue 37: no change marker, so nothing is hidden; the newer item ranks first and the
    # older one says what may have superseded it, on every read path
    store.put(NS, "a", {"content": "User lives in Lisbon"})
    store.put(NS, "c", {"content": "User lives in Oslo"})
    assert store.get(NS, "a") is not None
    found = store.search(NS, query="User lives in Lisbon", limit=3)
    assert [i.key for i in found] == ["c", "a"]  # a's own text, yet c ranks just above it
    mark = [{"item": "c", "key": "user.home_city", "value": "Oslo"}]
    assert found[1].dict()["possibly_superseded_by"] == mark
    assert "possibly_superseded_by" not in found[0].dict()
    (said,) = store.memory.history("~superseded.a", namespace=claims_namespace(MNS))
    assert said.text == "possibly superseded: user.home_city by item c"
    assert said.value == {"item": "a", "by": mark}
    # the same value said again by a third item: the mark goes
    store.put(NS, "d", {"content": "User lives in Lisbon"})
    assert "possibly_superseded_by" not in store.search(NS, query="Lisbon")[0].dict()
    assert store.memory.get("~superseded.a", namespace=claims_namespace(MNS)) is None
    # now c is the older one: d (Lisbon again) ranks just above it, c says so
    found = store.search(NS, query="User lives in Oslo", limit=2)
    assert [i.key for i in found] == ["d", "c"]
    assert found[1].dict()["possibly_superseded_by"][0]["item"] == "d"


def test_an_item_that_repeats_a_claim_supports_it(store: TEPAStore) -> None:
    store.put(NS, "a", {"content": "User lives in Lisbon"})
    store.put(NS, "a2", {"content": "User lives in Lisbon"})
    audit = store.memory.audit("user.home_city", namespace=claims_namespace(MNS))
    (lisbon,) = audit.precedents
    assert lisbon.support == 2
    assert set(_keys(store, "lives")) == {"a", "a2"}


def test_multi_valued_attributes_never_take_each_other_back(store: TEPAStore) -> None:
    store.put(NS, "d", {"content": "User has a dog"})
    store.put(NS, "e", {"content": "User also has a cat"})
    assert set(_keys(store, "pets")) == {"d", "e"}
    assert store.get(NS, "d") is not None


def test_a_multi_valued_attribute_declared_in_the_policy(tick: Callable[[], float]) -> None:
    policy = store_policy(multi_valued_prefixes=("team.snack",))
    store = _store(tick, policy=policy)
    store.put(NS, "b", {"content": "Team snack: bagels"})
    store.put(NS, "d", {"content": "Team snack: donuts"})
    assert set(_keys(store, "snack")) == {"b", "d"}
    # undeclared, the same two items are one attribute's values: the newer one ranks first,
    # the older one is marked (no change marker: it is not hidden)
    plain = _store(tick)
    plain.put(NS, "b", {"content": "Team snack: bagels"})
    plain.put(NS, "d", {"content": "Team snack: donuts"})
    found = plain.search(NS, query="Team snack: bagels")
    assert [i.key for i in found] == ["d", "b"]
    assert found[1].dict()["possibly_superseded_by"][0]["item"] == "d"


def test_a_family_the_extractor_knows_as_multi_valued(store: TEPAStore) -> None:
    store.put(NS, "s", {"content": "User speaks Spanish"})  # no flag from this extractor
    store.put(NS, "p", {"content": "User speaks Polish"})
    assert set(_keys(store, "speaks")) == {"s", "p"}


def test_another_subject_is_another_key(store: TEPAStore) -> None:
    store.put(NS, "sis", {"content": "User's sister lives in Madrid"})
    store.put(NS, "me", {"content": "User lives in Oslo"})
    assert set(_keys(store, "lives")) == {"sis", "me"}


def test_an_item_without_claims_is_a_plain_memory(store: TEPAStore) -> None:
    store.put(NS, "x", {"content": "Remember to buy milk"})
    store.put(NS, "y", {"content": "User lives in Oslo"})
    assert set(_keys(store, "milk")) == {"x", "y"}
    assert store.memory.namespaces() == [MNS, claims_namespace(MNS)]


def test_an_item_stays_while_one_of_its_claims_is_served(store: TEPAStore) -> None:
    store.put(NS, "both", {"content": "User lives in Oslo and works at Acme"})
    store.put(NS, "move", {"content": "User moved back to Lisbon"})
    assert set(_keys(store, "user")) == {"both", "move"}  # still the employer's item
    store.put(NS, "job", {"content": "User works at Acme"})
    assert set(_keys(store, "user")) == {"both", "move", "job"}


def test_updating_an_item_replaces_its_claims(store: TEPAStore) -> None:
    store.put(NS, "a", {"content": "User lives in Lisbon"})
    store.put(NS, "b", {"content": "User moved to Oslo last month"})
    assert _keys(store, "lives") == ["b"]
    store.put(NS, "b", {"content": "User has a dog"})  # b no longer says anything of the city
    assert set(_keys(store, "lives dog")) == {"a", "b"}  # Lisbon is served again: a is back
    claims = store.memory.audit("user.home_city", namespace=claims_namespace(MNS))
    oslo = next(p for p in claims.precedents if p.value == "Oslo")
    assert oslo.state is Lifecycle.REVOKED
    assert oslo.revocation is not None
    assert oslo.revocation.reason.startswith("retracted: item b")
    (restored,) = store.audit(NS, "a").precedents
    assert restored.transitions[-1].reason.startswith("restored: its claim user.home_city")


def test_deleting_an_item_retracts_its_claims(store: TEPAStore) -> None:
    store.put(NS, "a", {"content": "User lives in Lisbon"})
    store.put(NS, "b", {"content": "User moved to Oslo last month"})
    store.delete(NS, "b")
    assert _keys(store, "lives") == ["a"]
    assert store.memory.get("user.home_city", namespace=claims_namespace(MNS)) == "Lisbon"


def test_a_deleted_item_is_never_brought_back_by_its_claims(store: TEPAStore) -> None:
    store.put(NS, "a", {"content": "User lives in Lisbon"})
    store.delete(NS, "a")
    store.put(NS, "b", {"content": "User moved back to Lisbon"})
    assert _keys(store, "lives") == ["b"]
    assert store.audit(NS, "a").precedents[0].revocation.reason == "deleted"  # type: ignore[union-attr]


def test_as_of_shows_a_taken_back_item_as_it_was(store: TEPAStore) -> None:
    store.put(NS, "a", {"content": "User lives in Lisbon"})
    before = store.memory.history("a", namespace=MNS)[-1].time
    store.put(NS, "c", {"content": "User moved to Oslo last month"})
    assert store.memory.get("a", namespace=MNS) is None
    assert store.memory.get("a", namespace=MNS, as_of=before) == {"content": "User lives in Lisbon"}
    past = store.memory.answers(namespace=MNS, as_of=before)
    assert [p.key for p in past] == ["a"]


def test_history_shows_the_decision_with_its_reason(store: TEPAStore) -> None:
    store.put(NS, "a", {"content": "User lives in Lisbon"})
    store.put(NS, "c", {"content": "User moved to Oslo last month"})
    last = store.memory.history("a", namespace=MNS)[-1]
    assert last.kind.value == "revoke"
    assert last.reason is not None and "(item c)" in last.reason
    assert last.source == "langgraph-store"


def test_the_claims_namespace_is_hidden_and_reserved(store: TEPAStore) -> None:
    store.put(NS, "a", {"content": "User lives in Lisbon"})
    assert store.list_namespaces() == [NS]
    assert all(not is_claims_namespace(".".join(i.namespace)) for i in store.search(("memories",)))
    with pytest.raises(StoreNamespaceError, match="~claims"):
        store.put((*NS, "~claims"), "k", {"content": "x"})
    with pytest.raises(InvalidNamespaceError):
        store.put((*NS, "~claims"), "k", {"content": "x"})


def test_claims_can_be_turned_off(tick: Callable[[], float]) -> None:
    store = _store(tick, claims=False)
    store.put(NS, "a", {"content": "User lives in Lisbon"})
    store.put(NS, "c", {"content": "User moved to Oslo last month"})
    assert set(_keys(store, "lives")) == {"a", "c"}
    assert store.memory.namespaces() == [MNS]


def test_without_an_index_the_value_s_strings_are_read(tick: Callable[[], float]) -> None:
    store = TEPAStore.in_memory(embeddings=HashingEmbeddings(), extractor=Scripted(), clock=tick)
    store.put(NS, "a", {"content": "User lives in Lisbon"})
    store.put(NS, "c", {"content": "User moved to Oslo last month", "kind": ""})
    assert store.get(NS, "a") is None
    assert text_of_value({"a": ["User lives", {"b": "in Oslo."}], "n": 1}) == "User lives. in Oslo."


def test_index_false_makes_no_claims(store: TEPAStore) -> None:
    store.put(NS, "a", {"content": "User lives in Lisbon"})
    store.put(NS, "c", {"content": "User moved to Oslo last month"}, index=False)
    assert store.get(NS, "a") is not None


async def test_the_async_path_takes_back_too(store: TEPAStore) -> None:
    await store.aput(NS, "a", {"content": "User lives in Lisbon"})
    await store.aput(NS, "c", {"content": "User moved to Oslo last month"})
    assert [i.key for i in await store.asearch(NS, query="lives")] == ["c"]


def test_one_batch_with_both_items(store: TEPAStore) -> None:
    from langgraph.store.base import PutOp

    store.batch(
        [
            PutOp(NS, "a", {"content": "User lives in Lisbon"}),
            PutOp(NS, "c", {"content": "User moved to Oslo last month"}),
        ]
    )
    assert _keys(store, "lives") == ["c"]


def test_a_persistent_store_keeps_the_decisions(tmp_path: Path, tick: Callable[[], float]) -> None:
    emb = HashingEmbeddings()
    index = {"dims": 384, "embed": emb, "fields": ["content"]}
    store = TEPAStore.from_path(tmp_path, index=index, embeddings=emb, extractor=Scripted())
    store.put(NS, "a", {"content": "User lives in Lisbon"})
    store.put(NS, "c", {"content": "User moved to Oslo last month"})
    store.memory.close()
    again = TEPAStore.from_path(tmp_path, index=index, embeddings=emb, extractor=Scripted())
    try:
        assert [i.key for i in again.search(NS, query="lives")] == ["c"]
        assert again.memory.read_only is False
    finally:
        again.memory.close()


# ---------------------------------------------------------------------- the vector store
def test_vector_store_documents_are_taken_back(tick: Callable[[], float]) -> None:
    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings(), extractor=Scripted(), clock=tick)
    vs = TEPAVectorStore(memory=memory, namespace="notes")
    vs.add_texts(["User lives in Lisbon", "User prefers dark mode"], ids=["a", "b"])
    vs.add_documents([Document("User moved to Oslo last month", id="c")])
    found = [d.id for d in vs.similarity_search("where does the user live", k=3)]
    assert set(found) == {"b", "c"}
    assert [d.id for d, _ in vs.similarity_search_with_score("lives", k=3)].count("a") == 0
    assert vs.get_by_ids(["a"]) == []
    vs.delete(["c"])
    assert {d.id for d in vs.similarity_search("where does the user live", k=3)} == {"a", "b"}


def test_vector_store_documents_are_marked_not_taken_back(tick: Callable[[], float]) -> None:
    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings(), extractor=Scripted(), clock=tick)
    vs = TEPAVectorStore(memory=memory, namespace="notes")
    vs.add_texts(["User lives in Lisbon", "User prefers dark mode"], ids=["a", "b"])
    vs.add_texts(["User lives in Oslo"], ids=["c"])  # no change marker: a stays, marked
    found = vs.similarity_search("User lives in Lisbon", k=3)
    assert [d.id for d in found] == ["c", "a", "b"]
    mark = [{"id": "c", "key": "user.home_city", "value": "Oslo"}]
    assert found[1].metadata == {"possibly_superseded_by": mark}
    # the newer document joins the results just above the one it may supersede
    assert [d.id for d in vs.similarity_search("User lives in Lisbon", k=1)] == ["c"]
    by_vector = vs.similarity_search_by_vector(HashingEmbeddings().embed_query("Lisbon"), k=2)
    assert [d.id for d in by_vector] == ["c", "a"]
    vs.delete(["c"])
    assert vs.similarity_search("User lives in Lisbon", k=3)[0].metadata == {}


async def test_vector_store_marks_on_the_async_path(tick: Callable[[], float]) -> None:
    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings(), extractor=Scripted(), clock=tick)
    vs = TEPAVectorStore(memory=memory, namespace="notes")
    await vs.aadd_texts(["User lives in Lisbon"], ids=["a"])
    await vs.aadd_texts(["User lives in Oslo"], ids=["c"])
    found = await vs.asimilarity_search("User lives in Lisbon", k=2)
    assert [d.id for d in found] == ["c", "a"]
    assert found[1].metadata["possibly_superseded_by"][0]["id"] == "c"


def test_vector_store_fact_documents_are_not_items(tick: Callable[[], float]) -> None:
    scripted = Scripted()
    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings(), extractor=scripted, clock=tick)
    vs = TEPAVectorStore(memory=memory)
    vs.add_texts(["User lives in Lisbon"], [{"key": "user.city", "value": "Lisbon"}])
    assert scripted.calls == 0


def test_the_default_policy_of_a_memory_works_too(tick: Callable[[], float]) -> None:
    memory = TEPAMemory.in_memory(
        embeddings=HashingEmbeddings(), extractor=Scripted(), clock=tick, policy=LifecyclePolicy()
    )
    store = TEPAStore(memory)
    store.put(NS, "a", {"content": "User lives in Lisbon"})
    store.put(NS, "c", {"content": "User moved to Oslo last month"})
    assert store.get(NS, "a") is None


# ---------------------------------------------------------------------- LangMem's own tools
def test_langmem_tools_over_the_store_take_back_a_changed_memory(
    tick: Callable[[], float],
) -> None:
    langmem = pytest.importorskip("langmem")
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage

    from tests.support.chat import ScriptedChatModel, tool_call

    store = _store(tick)
    ns = ("memories", "{langgraph_user_id}")
    manage = langmem.create_manage_memory_tool(namespace=ns, store=store)
    search = langmem.create_search_memory_tool(namespace=ns, store=store)
    model = ScriptedChatModel(
        script=[
            tool_call("manage_memory", {"content": "User lives in Lisbon"}, "c1"),
            tool_call("manage_memory", {"content": "User prefers dark mode"}, "c2"),
            tool_call("manage_memory", {"content": "User moved to Oslo last month"}, "c3"),
            tool_call("search_memory", {"query": "where does the user live"}, "c4"),
            AIMessage("done"),
        ]
    )
    agent = create_agent(model, tools=[manage, search])
    config = {"configurable": {"langgraph_user_id": "u1"}}
    out = agent.invoke({"messages": [("user", "remember things")]}, config)
    (found,) = [m for m in out["messages"] if getattr(m, "tool_call_id", None) == "c4"]
    assert "Oslo" in str(found.content)
    assert "Lisbon" not in str(found.content)
    contents = sorted(i.value["content"] for i in store.search(NS, limit=10))
    assert contents == ["User moved to Oslo last month", "User prefers dark mode"]
    # the Lisbon item is in the archive, with why it went
    (lisbon,) = [
        p
        for i in store.memory.keys(namespace=MNS)
        for p in store.audit(NS, i).precedents
        if p.value["content"] == "User lives in Lisbon"
    ]
    assert lisbon.revocation is not None
    assert lisbon.revocation.reason.startswith("superseded: user.home_city is now 'Oslo'")


# ---------------------------------------------------------------------- the agent tools
async def test_the_remember_tool_resolves_a_model_s_key_onto_a_known_one(
    tick: Callable[[], float],
) -> None:
    from langchain_tepa.tools import create_memory_tools

    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings(), clock=tick)
    remember, _, _ = create_memory_tools(memory, source="user")
    remember.invoke({"key": "user.favourite_colour", "value": "green"})
    said = remember.invoke({"key": "user.favourite_colours", "value": "blue", "correction": True})
    assert said.startswith("Remembered user.favourite_colour = 'blue'")
    assert memory.keys() == ["user.favourite_colour"]
    assert memory.get("user.favourite_colour") == "blue"
    await remember.ainvoke({"key": "user.favorite_colour", "value": "red", "correction": True})
    assert memory.keys() == ["user.favourite_colour"]
    assert memory.get("user.favourite_colour") == "red"


def test_under_tepa_full_an_item_waits_with_its_claims(tick: Callable[[], float]) -> None:
    store = _store(tick, policy=store_policy("tepa-full"))
    item = {"content": "User lives in Lisbon"}
    store.put(NS, "a", item)
    store.memory.promote("a", item, namespace=MNS)  # as a trial would
    store.put(NS, "a", item)  # judged again: its claim is a Hypothesis, not superseded
    claim = store.memory.audit("user.home_city", namespace=claims_namespace(MNS)).precedents[0]
    assert claim.state is Lifecycle.HYPOTHESIS
    assert store.get(NS, "a") is not None


def test_add_texts_keeps_each_value_of_a_multi_valued_attribute(
    tick: Callable[[], float],
) -> None:
    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings(), extractor=Scripted(), clock=tick)
    memory.add_texts(["User has a dog", "User also has a cat"])
    assert memory.keys() == ["user.pets.cat", "user.pets.dog"]
    assert {d.metadata["value"] for d in memory.retrieve("pets", k=4)} == {"dog", "cat"}
    declared = TEPAMemory.in_memory(
        embeddings=HashingEmbeddings(),
        extractor=Scripted(),
        clock=tick,
        policy=LifecyclePolicy(multi_valued_prefixes=("user.pets",)),
    )
    declared.add_texts(["User has a dog", "User also has a cat"])
    assert declared.keys() == ["user.pets"]
    assert sorted(declared.get("user.pets")) == ["cat", "dog"]

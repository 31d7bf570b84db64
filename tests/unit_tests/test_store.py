"""TEPAStore behaviour beyond the conformance suite: archive, policies, persistence, errors."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pytest
from langgraph.store.base import InvalidNamespaceError as LangGraphNamespaceError
from langgraph.store.base import PutOp

from langchain_tepa import (
    EvidenceKind,
    HashingEmbeddings,
    InvalidArgumentError,
    InvalidNamespaceError,
    InvalidValueError,
    Lifecycle,
    TEPAMemory,
    TEPAStore,
)
from langchain_tepa.store import StoreNamespaceError, store_policy

NS = ("users", "u1")


@pytest.fixture
def store(tick: Callable[[], float]) -> TEPAStore:
    return TEPAStore.in_memory(embeddings=HashingEmbeddings(), clock=tick)


def test_delete_keeps_the_records_in_the_archive(store: TEPAStore) -> None:
    store.put(NS, "pizza", {"topping": "pineapple"})
    store.put(NS, "pizza", {"topping": "mushroom"})
    store.delete(NS, "pizza")
    audit = store.audit(NS, "pizza")
    assert [p.value["topping"] for p in audit.precedents] == ["pineapple", "mushroom"]
    assert all(p.state is Lifecycle.REVOKED for p in audit.precedents)
    assert all("deleted" in p.revocation.reason for p in audit.precedents)  # type: ignore[union-attr]
    kinds = [ev.kind for ev in store.memory.history("pizza", namespace="users.u1")]
    assert kinds.count(EvidenceKind.REVOKE) == 2
    assert kinds.count(EvidenceKind.OBSERVATION) == 2
    assert all(
        ev.source == "langgraph-store" for ev in store.memory.history("pizza", namespace="users.u1")
    )


def test_namespace_tuple_maps_to_dotted_memory_namespace(store: TEPAStore) -> None:
    store.put(NS, "diet", {"value": "vegan"})
    assert store.memory.get("diet", namespace="users.u1") == {"value": "vegan"}
    docs = store.memory.as_retriever(namespace="users.u1").invoke("diet vegan")
    assert [d.metadata["key"] for d in docs] == ["diet"]


def test_memory_facts_are_items(store: TEPAStore) -> None:
    store.memory.observe("user.diet", "vegan", namespace="users.u1")
    item = store.get(NS, "user.diet")
    assert item is not None
    assert item.value == {"value": "vegan"}
    assert [i.value for i in store.search(("users",), filter={"value": "vegan"})] == [
        {"value": "vegan"}
    ]


def test_hypotheses_are_invisible_under_tepa_full(tick: Callable[[], float]) -> None:
    store = TEPAStore.in_memory(
        embeddings=HashingEmbeddings(), clock=tick, policy=store_policy(promotion="trials")
    )
    store.put(NS, "pizza", {"topping": "mushroom"})
    assert store.get(NS, "pizza") is None
    assert store.search(NS) == []
    assert store.list_namespaces() == []
    store.memory.promote("pizza", {"topping": "mushroom"}, namespace="users.u1")
    assert store.get(NS, "pizza").value == {"topping": "mushroom"}  # type: ignore[union-attr]


def test_no_memory_policy_shows_nothing(tick: Callable[[], float]) -> None:
    store = TEPAStore.in_memory(embeddings=HashingEmbeddings(), clock=tick, policy="no-memory")
    store.put(NS, "pizza", {"topping": "mushroom"})
    assert store.get(NS, "pizza") is None
    assert store.search(NS, query="pizza") == []
    assert store.list_namespaces() == []
    assert store.memory.evidence_count() == 1  # the evidence is still kept


def test_default_memory_policy_normalises_string_values(tick: Callable[[], float]) -> None:
    loose = TEPAMemory.in_memory(embeddings=HashingEmbeddings(), clock=tick).as_store()
    loose.put(NS, "k", {"theme": "dark"})
    loose.put(NS, "k", {"theme": "DARK "})
    assert loose.get(NS, "k").value == {"theme": "dark"}  # same value, first form
    assert len(loose.audit(NS, "k").precedents) == 1
    exact = TEPAStore.in_memory(embeddings=HashingEmbeddings(), clock=tick)
    exact.put(NS, "k", {"theme": "dark"})
    exact.put(NS, "k", {"theme": "DARK "})
    assert exact.get(NS, "k").value == {"theme": "DARK "}
    assert len(exact.audit(NS, "k").precedents) == 2


def test_namespace_error_is_both_kinds(store: TEPAStore) -> None:
    with pytest.raises(StoreNamespaceError) as info:
        store.put(("bad ",), "k", {"v": 1})
    assert isinstance(info.value, LangGraphNamespaceError)
    assert isinstance(info.value, InvalidNamespaceError)
    with pytest.raises(LangGraphNamespaceError):
        store.batch([PutOp(("a", "b.c"), "k", {"v": 1})])
    with pytest.raises(StoreNamespaceError):
        store.batch([PutOp("users", "k", {"v": 1})])  # type: ignore[arg-type]


def test_bad_op_in_a_batch_stores_nothing(store: TEPAStore) -> None:
    with pytest.raises(InvalidValueError):
        store.batch([PutOp(NS, "a", {"v": 1}), PutOp(NS, "b", {"v": float("nan")})])
    with pytest.raises(InvalidArgumentError):
        store.batch([PutOp(NS, "a", {"v": 1}), "not an op"])  # type: ignore[list-item]
    with pytest.raises(InvalidArgumentError):
        store.batch([PutOp(NS, "a", {"v": 1}, index="text")])  # type: ignore[arg-type]
    assert store.memory.evidence_count() == 0


def test_constructor_errors() -> None:
    with pytest.raises(InvalidArgumentError):
        TEPAStore(memory="nope")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        TEPAStore(index={"dims": 3})  # type: ignore[typeddict-item]
    with pytest.raises(InvalidArgumentError):
        TEPAStore(index={"embed": HashingEmbeddings(), "fields": "text"})  # type: ignore[typeddict-item]
    with pytest.raises(InvalidArgumentError):
        TEPAStore(index={"embed": HashingEmbeddings(), "dims": 0})
    with pytest.raises(InvalidArgumentError):
        TEPAStore(source="")
    with pytest.raises(InvalidArgumentError):
        TEPAStore().search(NS, query=3)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        TEPAStore().list_namespaces(max_depth=0)
    assert "TEPAStore(" in repr(TEPAStore())


def test_query_without_index_spans_namespaces(store: TEPAStore) -> None:
    store.put(("users", "u1"), "pizza", {"text": "mushroom pizza"})
    store.put(("users", "u2"), "pizza", {"text": "pineapple pizza"})
    store.put(("users", "u2"), "tax", {"text": "tax return"})
    found = store.search(("users",), query="pineapple pizza", limit=2)
    assert [(i.namespace, i.key) for i in found] == [
        (("users", "u2"), "pizza"),
        (("users", "u1"), "pizza"),
    ]
    assert found[0].score > found[1].score  # type: ignore[operator]


def test_index_choices_survive_reopening(tmp_path: Path) -> None:
    index = {"dims": 384, "embed": HashingEmbeddings(), "fields": ["text"]}
    clock = itertools.count(1)
    store = TEPAStore.from_path(
        tmp_path,
        index=index,
        embeddings=HashingEmbeddings(),
        clock=lambda: float(next(clock)),  # type: ignore[arg-type]
    )
    store.put(("docs",), "a", {"text": "zzz", "note": "vienna train"}, index=["note"])
    store.put(("docs",), "b", {"text": "vienna train"}, index=False)
    store.put(("docs",), "c", {"text": "vienna opera"})
    before = [(i.key, i.score) for i in store.search(("docs",), query="vienna train")]
    store.memory.close()
    reopened = TEPAStore.from_path(tmp_path, index=index, embeddings=HashingEmbeddings())  # type: ignore[arg-type]
    after = [(i.key, i.score) for i in reopened.search(("docs",), query="vienna train")]
    assert [k for k, _ in after] == ["a", "c", "b"]
    assert after == before
    reopened.memory.close()


async def test_abatch_with_sync_embed_function(tick: Callable[[], float]) -> None:
    emb = HashingEmbeddings()
    store = TEPAStore.in_memory(
        index={"embed": emb.embed_documents, "fields": ["text"]},
        embeddings=HashingEmbeddings(),
        clock=tick,
    )
    await store.aput(("docs",), "a", {"text": "mushroom pizza"})
    await store.aput(("docs",), "b", {"text": "tax return"})
    found = await store.asearch(("docs",), query="pizza")
    assert [i.key for i in found] == ["a", "b"]
    assert (await store.aaudit(("docs",), "a")).precedents[0].state is Lifecycle.ACTIVE


def test_store_policy_follows_the_default_and_takes_a_preset() -> None:
    from langchain_tepa.core.errors import PolicyError
    from langchain_tepa.core.policy import LifecyclePolicy

    default, paper = store_policy(), store_policy("tepa-rev")
    assert (default.name, default.normalize_values) == ("tepa-store", False)
    assert default.revoke_keyed == LifecyclePolicy().revoke_keyed is True
    assert (paper.revoke_keyed, paper.revoke_recent, paper.window) == (False, True, 3)
    assert store_policy(n_min=5).n_min == 5
    with pytest.raises(PolicyError, match="unknown policy"):
        store_policy("nope")

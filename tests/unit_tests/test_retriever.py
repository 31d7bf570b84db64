"""TEPARetriever: Active precedents only, scoping, k, async, errors."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document

from langchain_tepa import InvalidArgumentError, InvalidKeyError, InvalidNamespaceError, TEPAMemory
from langchain_tepa.retriever import TEPARetriever


@pytest.fixture
def memory(any_memory: TEPAMemory) -> TEPAMemory:
    any_memory.observe(
        "user.pizza_topping", "mushroom", text="my favourite pizza topping is mushroom"
    )
    any_memory.observe("user.diet", "vegetarian", text="the user eats vegetarian food")
    any_memory.observe("user.city", "Oslo", text="the user lives in Oslo")
    any_memory.observe("france.capital", "Paris", text="the capital of France is Paris")
    any_memory.observe("user.pizza_topping", "mushroom", namespace="users.u2")
    return any_memory


def test_returns_documents_with_lifecycle_metadata(memory: TEPAMemory) -> None:
    docs = TEPARetriever(memory=memory).invoke("pizza topping")
    assert len(docs) == 4
    assert all(isinstance(d, Document) for d in docs)
    top = docs[0]
    assert top.metadata["key"] == "user.pizza_topping"
    assert top.metadata["value"] == "mushroom"
    assert top.metadata["state"] == "active"
    for field in (
        "support",
        "conflict",
        "validity",
        "lower_95",
        "namespace",
        "precedent_id",
        "evidence_ids",
        "score",
    ):
        assert field in top.metadata
    assert top.metadata["namespace"] == "default"
    assert top.id == top.metadata["precedent_id"]


def test_k_in_constructor_and_invoke(memory: TEPAMemory) -> None:
    retriever = TEPARetriever(memory=memory, k=2)
    assert len(retriever.invoke("user")) == 2
    assert len(retriever.invoke("user", k=1)) == 1
    assert len(retriever.invoke("user", k=3)) == 3
    assert retriever.k == 2


def test_namespace_scoping(memory: TEPAMemory) -> None:
    docs = TEPARetriever(memory=memory, namespace="users.u2").invoke("pizza")
    assert [(d.metadata["namespace"], d.metadata["key"]) for d in docs] == [
        ("users.u2", "user.pizza_topping")
    ]
    docs = TEPARetriever(memory=memory).invoke("pizza", namespace="users.u2")
    assert len(docs) == 1
    assert TEPARetriever(memory=memory, namespace="nobody").invoke("pizza") == []


def test_key_prefix_scoping(memory: TEPAMemory) -> None:
    retriever = memory.as_retriever(key_prefix="user")
    assert isinstance(retriever, TEPARetriever)
    keys = {d.metadata["key"] for d in retriever.invoke("capital of France")}
    assert keys == {"user.pizza_topping", "user.diet", "user.city"}
    keys = {d.metadata["key"] for d in retriever.invoke("capital", key_prefix="france")}
    assert keys == {"france.capital"}
    memory.observe("user.dietary_notes", "none")
    keys = {d.metadata["key"] for d in retriever.invoke("diet", key_prefix="user.diet")}
    assert keys == {"user.diet"}  # segment boundaries: user.dietary_notes is not below user.diet


def test_revoked_and_hypotheses_are_never_returned(memory: TEPAMemory) -> None:
    for source in ("user", "user.orders", "user.menu"):  # three sources contradict mushroom
        memory.observe(
            "user.pizza_topping", "pineapple", text="pineapple pizza topping", source=source
        )
    states = {p.value: p.state.value for p in memory.audit("user.pizza_topping").precedents}
    assert states == {"mushroom": "revoked", "pineapple": "active"}
    values = [
        d.metadata["value"] for d in memory.as_retriever(k=10).invoke("pizza topping mushroom")
    ]
    assert "mushroom" not in values
    assert "pineapple" in values
    memory.revoke("user.city", "Oslo")
    assert "Oslo" not in [d.metadata["value"] for d in memory.as_retriever(k=10).invoke("Oslo")]
    full = TEPAMemory.in_memory(policy="tepa-full")
    full.observe("user.diet", "vegan")
    assert TEPARetriever(memory=full).invoke("diet") == []
    full.promote("user.diet", "vegan")
    assert [d.metadata["value"] for d in TEPARetriever(memory=full).invoke("diet")] == ["vegan"]


async def test_async(memory: TEPAMemory) -> None:
    retriever = TEPARetriever(memory=memory, k=3)
    docs = await retriever.ainvoke("pizza topping")
    assert len(docs) == 3
    assert docs[0].metadata["key"] == "user.pizza_topping"
    assert len(await retriever.ainvoke("pizza", k=1)) == 1
    assert len(await retriever.ainvoke("pizza", namespace="users.u2", k=4)) == 1
    with pytest.raises(InvalidArgumentError):
        await retriever.ainvoke("pizza", k=0)


def test_sync_and_async_agree(memory: TEPAMemory) -> None:
    import asyncio

    retriever = TEPARetriever(memory=memory, k=4)
    sync_ids = [d.id for d in retriever.invoke("the user")]
    async_ids = [d.id for d in asyncio.run(retriever.ainvoke("the user"))]
    assert sync_ids == async_ids


@pytest.mark.parametrize("k", [0, -1, 1001, 2.5, "3", True, None])
def test_bad_k(k: object) -> None:
    memory = TEPAMemory.in_memory()
    with pytest.raises(InvalidArgumentError, match="k must be an integer"):
        TEPARetriever(memory=memory, k=k)
    with pytest.raises(InvalidArgumentError, match="k must be an integer"):
        TEPARetriever(memory=memory).invoke("pizza", k=k)


def test_bad_options(memory: TEPAMemory) -> None:
    with pytest.raises(InvalidNamespaceError):
        TEPARetriever(memory=memory, namespace="a..b")
    with pytest.raises(InvalidKeyError):
        TEPARetriever(memory=memory, key_prefix="  ")
    with pytest.raises(InvalidArgumentError, match="memory must be a TEPAMemory"):
        TEPARetriever(memory="nope")
    with pytest.raises(InvalidArgumentError, match="unknown retriever options"):
        TEPARetriever(memory=memory).invoke("pizza", top_k=2)
    with pytest.raises(InvalidArgumentError):
        TEPARetriever(memory=memory).invoke(42)  # type: ignore[arg-type]
    assert len(TEPARetriever(memory=memory).invoke("pizza", verbose=True)) == 4

"""langchain-tests' standard retriever suite against TEPARetriever on ephemeral Chroma."""

from __future__ import annotations

import functools
import uuid
from typing import Any

from langchain_tests.integration_tests import RetrieversIntegrationTests

from langchain_tepa import HashingEmbeddings, TEPAMemory
from langchain_tepa.retriever import TEPARetriever

QUERY = "what pizza does the user like?"


def seed(memory: TEPAMemory) -> TEPAMemory:
    """Five Active pizza facts, a revoked one and noise (shared with the server suite)."""
    memory.observe_many(
        [
            ("user.pizza_topping", "mushroom"),
            ("user.pizza_crust", "thin"),
            ("user.pizza_size", "large"),
            ("user.pizza_place", "Luigi's"),
            ("user.pizza_sauce", "tomato"),
            ("france.capital", "Paris"),
        ]
    )
    memory.observe("user.pizza_cheese", "cheddar")
    memory.revoke("user.pizza_cheese", "cheddar", reason="the user went vegan")
    return memory


@functools.cache
def seeded_memory() -> TEPAMemory:
    """An ephemeral-Chroma memory seeded by :func:`seed`."""
    import chromadb
    from chromadb.config import Settings

    client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    return seed(
        TEPAMemory.from_client(
            client, prefix="rs" + uuid.uuid4().hex[:12], embeddings=HashingEmbeddings()
        )
    )


class TestTEPARetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[TEPARetriever]:
        return TEPARetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"memory": seeded_memory(), "k": 4, "key_prefix": "user"}

    @property
    def retriever_query_example(self) -> str:
        return QUERY


def test_standard_suite_sees_active_precedents_only() -> None:
    docs = TEPARetriever(memory=seeded_memory(), k=10).invoke(QUERY)
    assert {d.metadata["state"] for d in docs} == {"active"}
    assert "cheddar" not in {d.metadata["value"] for d in docs}
    assert len(docs) == 6

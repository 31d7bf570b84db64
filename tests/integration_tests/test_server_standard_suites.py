"""The store conformance suite and langchain-tests' retriever suite against a real Chroma server.

The server is the session's ``chroma run`` (see ``conftest.py``); every store and memory gets
its own collection prefix.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_tests.integration_tests import RetrieversIntegrationTests
from langgraph.store.base import BaseStore, IndexConfig

from langchain_tepa import HashingEmbeddings, TEPAMemory, TEPAStore
from langchain_tepa.retriever import TEPARetriever
from tests.integration_tests.conftest import ChromaServer, unique_prefix
from tests.integration_tests.test_retriever_standard import seed
from tests.unit_tests.store_conformance import StoreConformance

QUERY = "what pizza does the user like?"


class TestTEPAStoreOnServer(StoreConformance):
    """The LangGraph store conformance suite, TEPAStore over ``chromadb.HttpClient``."""

    tepa = True

    @pytest.fixture(autouse=True)
    def _server(self, chroma_server: ChromaServer) -> None:
        self.client = chroma_server.client()

    def make_store(self, index: IndexConfig | None = None) -> BaseStore:
        return TEPAStore.from_client(
            self.client, prefix=unique_prefix("ss"), index=index, embeddings=HashingEmbeddings()
        )

    def close_store(self, store: BaseStore) -> None:
        assert isinstance(store, TEPAStore)
        store.memory.close()


@pytest.fixture(scope="module")
def seeded(chroma_server: ChromaServer) -> Iterator[TEPAMemory]:
    """One seeded memory for this module's retriever tests, closed before the server stops
    (a module-level cache left it open: its exit hook then found the server gone)."""
    memory = seed(chroma_server.memory(unique_prefix("sr"), embeddings=HashingEmbeddings()))
    yield memory
    memory.close()


class TestTEPARetrieverOnServer(RetrieversIntegrationTests):
    """langchain-tests' RetrieversIntegrationTests, TEPARetriever over a Chroma server."""

    @pytest.fixture(autouse=True)
    def _server(self, seeded: TEPAMemory) -> None:
        self.memory = seeded

    @property
    def retriever_constructor(self) -> type[TEPARetriever]:
        return TEPARetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"memory": self.memory, "k": 4, "key_prefix": "user"}

    @property
    def retriever_query_example(self) -> str:
        return QUERY


def test_server_retriever_sees_active_only(seeded: TEPAMemory) -> None:
    docs = TEPARetriever(memory=seeded, k=10).invoke(QUERY)
    assert {d.metadata["state"] for d in docs} == {"active"}
    assert "cheddar" not in {d.metadata["value"] for d in docs}
    assert len(docs) == 6

"""The store conformance suite and langchain-tests' retriever suite against a real Chroma server.

The server is the session's ``chroma run`` (see ``conftest.py``); every store and memory gets
its own collection prefix.
"""

from __future__ import annotations

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


_SEEDED: dict[str, TEPAMemory] = {}


def _seeded(server: ChromaServer) -> TEPAMemory:
    if "m" not in _SEEDED:
        _SEEDED["m"] = seed(server.memory(unique_prefix("sr"), embeddings=HashingEmbeddings()))
    return _SEEDED["m"]


class TestTEPARetrieverOnServer(RetrieversIntegrationTests):
    """langchain-tests' RetrieversIntegrationTests, TEPARetriever over a Chroma server."""

    @pytest.fixture(autouse=True)
    def _server(self, chroma_server: ChromaServer) -> None:
        self.memory = _seeded(chroma_server)

    @property
    def retriever_constructor(self) -> type[TEPARetriever]:
        return TEPARetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"memory": self.memory, "k": 4, "key_prefix": "user"}

    @property
    def retriever_query_example(self) -> str:
        return QUERY


def test_server_retriever_sees_active_only(chroma_server: ChromaServer) -> None:
    docs = TEPARetriever(memory=_seeded(chroma_server), k=10).invoke(QUERY)
    assert {d.metadata["state"] for d in docs} == {"active"}
    assert "cheddar" not in {d.metadata["value"] for d in docs}
    assert len(docs) == 6

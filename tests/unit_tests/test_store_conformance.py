"""The LangGraph store conformance suite against InMemoryStore (reference) and TEPAStore."""

from __future__ import annotations

import itertools
import uuid
from typing import Any

import pytest
from langgraph.store.base import BaseStore, IndexConfig
from langgraph.store.memory import InMemoryStore

from langchain_tepa import HashingEmbeddings, TEPAStore
from tests.unit_tests.store_conformance import DIFFERENCES, StoreConformance


def _tick() -> Any:
    counter = itertools.count(1)
    return lambda: float(next(counter))


class TestInMemoryStoreReference(StoreConformance):
    """The reference: LangGraph's own in-memory store."""

    def make_store(self, index: IndexConfig | None = None) -> BaseStore:
        return InMemoryStore(index=index)


class TestTEPAStoreInMemory(StoreConformance):
    """TEPAStore on the in-process backend, with a deterministic clock."""

    tepa = True

    def make_store(self, index: IndexConfig | None = None) -> BaseStore:
        return TEPAStore.in_memory(index=index, embeddings=HashingEmbeddings(), clock=_tick())


@pytest.fixture(scope="module")
def chroma_client() -> Any:
    import chromadb
    from chromadb.config import Settings

    return chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))


class TestTEPAStoreChroma(StoreConformance):
    """TEPAStore on an ephemeral Chroma client, with the real clock."""

    tepa = True

    @pytest.fixture(autouse=True)
    def _client(self, chroma_client: Any) -> None:
        self.client = chroma_client

    def make_store(self, index: IndexConfig | None = None) -> BaseStore:
        return TEPAStore.from_client(
            self.client,
            prefix="sc" + uuid.uuid4().hex[:12],
            index=index,
            embeddings=HashingEmbeddings(),
        )

    def close_store(self, store: BaseStore) -> None:
        assert isinstance(store, TEPAStore)
        store.memory.close()


def test_every_difference_is_documented() -> None:
    """Each marked difference has a reason, and the suite marks at least the known ones."""
    assert len(DIFFERENCES) >= 15
    assert all(len(reason) > 20 for reason in DIFFERENCES.values())
    doc = TEPAStore.__doc__ or ""
    for needle in ("put is evidence", "delete revokes", "list_namespaces", "Values are JSON"):
        assert needle in doc

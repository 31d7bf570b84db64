"""LangChain's standard ``VectorStoreIntegrationTests`` on ``TEPAVectorStore``.

Run on an in-process memory (both update modes) and on an embedded persistent Chroma memory
(``TEPAMemory.from_path``). Every standard test runs unchanged and passes in both modes. In
``update="evidence"`` mode new content under an existing id is evidence against the old content
(difference 2 in the ``TEPAVectorStore`` docstring): searches answer with the better supported
content, so the standard overwrite test passes, and two tests of ours check the rest (both
contents kept, the old one revoked when the new one is added again). ``langchain-tests`` 1.1.9
has no filter test; ``test_similarity_search_with_filter`` (and its async twin) runs every filter
operator of issue 38 on the suite's fixture, in each mode and backend.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.vectorstores import VectorStore
from langchain_tests.integration_tests.vectorstores import VectorStoreIntegrationTests

from langchain_tepa import TEPAMemory
from langchain_tepa.vectorstore import TEPAVectorStore

FOO = Document(page_content="foo", metadata={"id": 1})
BAR = Document(page_content="bar", metadata={"id": 2})
NEW_FOO = Document(page_content="new foo", metadata={"id": 1, "some_other_field": "foo"})


TAGGED = [
    Document(page_content="foo", metadata={"n": 1, "tag": "a"}),
    Document(page_content="bar", metadata={"n": 2, "tag": "b"}),
    Document(page_content="baz", metadata={"n": 3}),
]
FILTERED: list[tuple[dict[str, Any], set[str]]] = [
    ({"tag": "a"}, {"1"}),
    ({"tag": {"$eq": "b"}}, {"2"}),
    ({"tag": {"$ne": "a"}}, {"2", "3"}),  # as in Chroma: no field matches $ne
    ({"n": {"$gt": 1}}, {"2", "3"}),
    ({"n": {"$gte": 2}}, {"2", "3"}),
    ({"n": {"$lt": 2}}, {"1"}),
    ({"n": {"$lte": 2}}, {"1", "2"}),
    ({"tag": {"$in": ["a", "b"]}}, {"1", "2"}),
    ({"tag": {"$nin": ["a"]}}, {"2", "3"}),
    ({"$and": [{"n": {"$gt": 1}}, {"tag": "b"}]}, {"2"}),
    ({"$or": [{"tag": "a"}, {"n": 3}]}, {"1", "3"}),
    ({"tag": "c"}, set()),
]


def _with_id(doc: Document, doc_id: str) -> Document:
    return Document(page_content=doc.page_content, metadata=doc.metadata, id=doc_id)


def check_update_is_evidence_then_revokes(store: TEPAVectorStore) -> None:
    """What we do instead of the standard overwrite (sync and async share the checks)."""
    # After one update both contents of id "1" are Active: the new one (validity 0.67) and the
    # old one (one support, one conflict: 0.50). Searches answer with the new one; both are kept.
    found = store.similarity_search("new foo", k=3)
    assert found == [_with_id(NEW_FOO, "1"), _with_id(BAR, "2")]
    assert store.get_by_ids(["1"]) == [_with_id(NEW_FOO, "1"), _with_id(FOO, "1")]  # best first
    states = {p.text: p.state.value for p in store.memory.audit("doc.1").precedents}
    assert states == {"foo": "active", "new foo": "active"}


def check_after_second_update(store: TEPAVectorStore) -> None:
    # Asserted a second time, the new content revokes the old: the standard expectation now holds.
    assert store.similarity_search("new foo", k=2) == [_with_id(NEW_FOO, "1"), _with_id(BAR, "2")]
    audit = store.memory.audit("doc.1")
    (revoked,) = audit.revoked
    assert revoked.text == "foo"  # kept for audit, never deleted
    assert store.get_by_ids(["1"]) == [_with_id(NEW_FOO, "1")]


class _TEPASuite(VectorStoreIntegrationTests):
    update = "evidence"

    def make_memory(self, tmp_path: Path) -> TEPAMemory:
        return TEPAMemory.in_memory(embeddings=self.get_embeddings())

    @pytest.fixture
    def vectorstore(self, tmp_path: Path) -> Iterator[VectorStore]:  # type: ignore[override]
        memory = self.make_memory(tmp_path)
        store = TEPAVectorStore(memory=memory, update=self.update)  # type: ignore[arg-type]
        try:
            yield store
        finally:
            memory.close()

    # langchain-tests 1.1.9 (the newest) has no filter test: these run filters on the suite's
    # own fixture and embeddings, in every mode and backend the suite runs (issue 38).
    def test_similarity_search_with_filter(self, vectorstore: VectorStore) -> None:
        vectorstore.add_documents(TAGGED, ids=["1", "2", "3"])
        for flt, want in FILTERED:
            found = vectorstore.similarity_search("foo", k=3, filter=flt)
            assert {d.id for d in found} == want, flt
        assert vectorstore.similarity_search("foo", k=1, filter={"n": {"$gte": 1}}) == [
            _with_id(TAGGED[0], "1")
        ]
        mmr = vectorstore.max_marginal_relevance_search("foo", k=3, filter={"tag": "a"})
        assert [d.id for d in mmr] == ["1"]
        retriever = vectorstore.as_retriever(search_kwargs={"k": 3, "filter": {"n": {"$lt": 3}}})
        assert {d.id for d in retriever.invoke("foo")} == {"1", "2"}

    async def test_similarity_search_with_filter_async(self, vectorstore: VectorStore) -> None:
        await vectorstore.aadd_documents(TAGGED, ids=["1", "2", "3"])
        for flt, want in FILTERED:
            found = await vectorstore.asimilarity_search("foo", k=3, filter=flt)
            assert {d.id for d in found} == want, flt
        retriever = vectorstore.as_retriever(search_kwargs={"filter": {"tag": {"$ne": "a"}}})
        assert {d.id for d in await retriever.ainvoke("foo")} == {"2", "3"}


class _EvidenceOverrides(_TEPASuite):
    # In update="evidence" mode the standard tests pass; these check what else happens.
    def test_update_under_an_existing_id_is_evidence(self, vectorstore: VectorStore) -> None:
        assert isinstance(vectorstore, TEPAVectorStore)
        vectorstore.add_documents([FOO, BAR], ids=["1", "2"])
        vectorstore.add_documents([NEW_FOO], ids=["1"])
        check_update_is_evidence_then_revokes(vectorstore)
        vectorstore.add_documents([NEW_FOO], ids=["1"])
        check_after_second_update(vectorstore)

    async def test_update_under_an_existing_id_is_evidence_async(
        self, vectorstore: VectorStore
    ) -> None:
        assert isinstance(vectorstore, TEPAVectorStore)
        await vectorstore.aadd_documents([FOO, BAR], ids=["1", "2"])
        await vectorstore.aadd_documents([NEW_FOO], ids=["1"])
        check_update_is_evidence_then_revokes(vectorstore)
        await vectorstore.aadd_documents([NEW_FOO], ids=["1"])
        check_after_second_update(vectorstore)


class TestInProcessMemory(_EvidenceOverrides):
    """The suite on ``TEPAMemory.in_memory`` with the default ``update="evidence"``."""


class TestInProcessMemoryReplace(_TEPASuite):
    """``update="replace"``: every standard test runs unchanged, the overwrite one included."""

    update = "replace"


class TestPersistentChroma(_EvidenceOverrides):
    """The suite on an embedded persistent Chroma folder (``TEPAMemory.from_path``)."""

    def make_memory(self, tmp_path: Path) -> TEPAMemory:
        return TEPAMemory.from_path(tmp_path / "chroma", embeddings=self.get_embeddings())

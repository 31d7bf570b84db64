"""Metadata filters on ``TEPAVectorStore`` searches and its retriever (issue 38).

RAG code passes ``filter=`` (langchain-chroma, PGVector, every LangChain RAG tutorial); before
issue 38 ``TEPAVectorStore`` refused it. The installed ``langchain-tests`` (1.1.9, the newest)
has no filter test in ``VectorStoreIntegrationTests``, so the reference here is
langchain-chroma itself: every filter gives the same documents from both stores, built from the
same documents with the same embeddings.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from langchain_core.documents import Document

from langchain_tepa import HashingEmbeddings, InvalidArgumentError, TEPAMemory
from langchain_tepa.metadata_filter import check_filter, matches
from langchain_tepa.vectorstore import TEPAVectorStore

BOOKS = [
    Document("Dune, a desert planet", metadata={"genre": "sf", "year": 1965, "rating": 4.5}),
    Document("Neuromancer, cyberspace", metadata={"genre": "sf", "year": 1984, "read": True}),
    Document("The Big Sleep, Los Angeles", metadata={"genre": "crime", "year": 1939}),
    Document("Gone Girl, a marriage", metadata={"genre": "crime", "year": 2012, "rating": 3.9}),
    Document("Middlemarch, a town", metadata={"genre": "classic", "read": False}),
    Document("A book with no metadata"),
]
IDS = ["dune", "neuro", "sleep", "gone", "middle", "plain"]
FILTERS: list[dict[str, Any]] = [
    {"genre": "sf"},
    {"genre": {"$eq": "crime"}},
    {"genre": {"$ne": "sf"}},
    {"year": {"$gt": 1965}},
    {"year": {"$gte": 1965}},
    {"year": {"$lt": 1965}},
    {"year": {"$lte": 1965}},
    {"rating": {"$gte": 4.0}},
    {"genre": {"$in": ["sf", "classic"]}},
    {"genre": {"$nin": ["sf", "classic"]}},
    {"read": True},
    {"read": {"$ne": True}},
    {"$and": [{"genre": "sf"}, {"year": {"$gt": 1970}}]},
    {"$or": [{"genre": "classic"}, {"year": {"$lt": 1950}}]},
    {"$or": [{"$and": [{"genre": "crime"}, {"year": {"$gt": 2000}}]}, {"rating": {"$gt": 4}}]},
    {"year": {"$in": [1939, 2012]}},
    {"genre": "poetry"},
]


@pytest.fixture(scope="module")
def stores() -> tuple[TEPAVectorStore, Any]:
    chroma = pytest.importorskip("langchain_chroma")
    import chromadb
    from chromadb.config import Settings

    emb = HashingEmbeddings()
    tepa = TEPAVectorStore(memory=TEPAMemory.in_memory(embeddings=emb))
    tepa.add_documents(BOOKS, ids=IDS)
    client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    reference = chroma.Chroma(
        collection_name=f"books_{uuid.uuid4().hex[:8]}",
        embedding_function=emb,
        client=client,
        collection_metadata={"hnsw:space": "cosine"},
    )
    reference.add_documents(BOOKS, ids=IDS)
    return tepa, reference


@pytest.mark.parametrize("flt", FILTERS, ids=[str(f) for f in FILTERS])
def test_filters_select_what_langchain_chroma_selects(
    stores: tuple[TEPAVectorStore, Any], flt: dict[str, Any]
) -> None:
    tepa, reference = stores
    want = {d.id for d in reference.similarity_search("a book", k=len(BOOKS), filter=flt)}
    got = [d.id for d in tepa.similarity_search("a book", k=len(BOOKS), filter=flt)]
    assert len(got) == len(set(got)) and set(got) == want
    top = [d.id for d in tepa.similarity_search("desert planet", k=1, filter=flt)]
    assert top == [d.id for d in reference.similarity_search("desert planet", k=1, filter=flt)]


def test_every_search_and_the_retriever_take_a_filter(
    stores: tuple[TEPAVectorStore, Any],
) -> None:
    tepa, _ = stores
    sf = {"genre": "sf"}
    vector = HashingEmbeddings().embed_query("cyberspace")
    assert [d.id for d in tepa.similarity_search("cyberspace", k=1, filter=sf)] == ["neuro"]
    scored = tepa.similarity_search_with_score("cyberspace", k=2, filter=sf)
    assert [d.id for d, _ in scored] == ["neuro", "dune"] and scored[0][1] > scored[1][1]
    assert [d.id for d in tepa.similarity_search_by_vector(vector, k=1, filter=sf)] == ["neuro"]
    with_rel = tepa.similarity_search_with_relevance_scores("cyberspace", k=5, filter=sf)
    assert {d.id for d, _ in with_rel} == {"neuro", "dune"}
    mmr = tepa.max_marginal_relevance_search("cyberspace", k=2, fetch_k=5, filter=sf)
    assert {d.id for d in mmr} == {"neuro", "dune"}
    by_vec = tepa.max_marginal_relevance_search_by_vector(vector, k=5, filter={"genre": "crime"})
    assert {d.id for d in by_vec} == {"sleep", "gone"}
    retriever = tepa.as_retriever(search_kwargs={"k": 5, "filter": {"year": {"$lt": 1950}}})
    assert [d.id for d in retriever.invoke("a book")] == ["sleep"]
    mmr_retriever = tepa.as_retriever(search_type="mmr", search_kwargs={"filter": sf})
    assert {d.id for d in mmr_retriever.invoke("a book")} == {"neuro", "dune"}
    found = tepa.similarity_search("a book", k=3, filter=sf)
    assert found[0].metadata["genre"] == "sf"  # documents come back as added


async def test_async_searches_take_a_filter(stores: tuple[TEPAVectorStore, Any]) -> None:
    tepa, _ = stores
    crime = {"genre": "crime"}
    assert {d.id for d in await tepa.asimilarity_search("x", k=5, filter=crime)} == {
        "sleep",
        "gone",
    }
    retriever = tepa.as_retriever(search_kwargs={"filter": crime})
    assert {d.id for d in await retriever.ainvoke("a book")} == {"sleep", "gone"}


def test_a_filter_sees_only_what_is_active() -> None:
    store = TEPAVectorStore(memory=TEPAMemory.in_memory(embeddings=HashingEmbeddings()))
    store.add_documents(BOOKS[:2], ids=IDS[:2])
    store.delete(["dune"])  # revoked, kept for audit: never found by a filter
    assert [d.id for d in store.similarity_search("x", k=5, filter={"genre": "sf"})] == ["neuro"]
    store.add_documents([Document("Fact: the user reads sf", metadata={"key": "user.genre"})])
    facts = store.similarity_search("x", k=5, filter={"key": "user.genre"})
    assert [d.metadata["key"] for d in facts] == ["user.genre"]


@pytest.mark.parametrize(
    "bad",
    [
        "genre",
        {},
        {"genre": {"$foo": 1}},
        {"$not": {"genre": "sf"}},
        {"year": {"$gt": "1965"}},
        {"year": {"$gt": True}},
        {"genre": {"$in": []}},
        {"genre": {"$in": "sf"}},
        {"$and": []},
        {"$or": "x"},
        {"genre": {}},
        {"genre": [1, 2]},
        {1: "x"},
        {"genre": {"$eq": {"a": 1}}},
    ],
    ids=repr,
)
def test_a_bad_filter_is_a_typed_error_before_anything_runs(bad: Any) -> None:
    store = TEPAVectorStore(memory=TEPAMemory.in_memory(embeddings=HashingEmbeddings()))
    store.add_documents(BOOKS[:1])
    for search in (
        lambda: store.similarity_search("x", filter=bad),
        lambda: store.max_marginal_relevance_search("x", filter=bad),
        lambda: store.as_retriever(search_kwargs={"filter": bad}).invoke("x"),
    ):
        with pytest.raises(InvalidArgumentError) as info:
            search()
        assert "filter" in str(info.value)


def test_matching_rules() -> None:
    assert matches({"a": 1, "b": 2}, {"a": 1, "b": 2})  # several fields: all must match
    assert not matches({"a": 1}, {"a": 1, "b": 2})
    assert not matches({"a": True}, {"a": 1}) and not matches({"a": 1}, {"a": True})
    assert matches({"a": 1}, {"a": 1.0}) and matches({"a": 2}, {"a": {"$gt": 1, "$lt": 3}})
    assert not matches({"a": "x"}, {"a": {"$gt": 1}})  # an ordering needs a number
    assert matches({}, {"a": {"$nin": [1]}}) and not matches({}, {"a": {"$in": [1]}})
    deep: dict[str, Any] = {"a": 1}
    for _ in range(40):
        deep = {"$and": [deep]}
    with pytest.raises(InvalidArgumentError, match="deeper"):
        check_filter(deep)

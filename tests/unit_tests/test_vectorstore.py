"""TEPAVectorStore: how documents and facts map onto the memory, and what LangChain code gets."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.messages import ToolMessage
from langchain_core.tools import create_retriever_tool
from langchain_core.vectorstores import VectorStoreRetriever

from langchain_tepa import HashingEmbeddings, InvalidArgumentError, TEPAMemory
from langchain_tepa.vectorstore import TEPAVectorStore
from tests.support.counting import CountingEmbeddings


@pytest.fixture
def memory(tick: Callable[[], float]) -> TEPAMemory:
    return TEPAMemory.in_memory(embeddings=HashingEmbeddings(), clock=tick)


@pytest.fixture
def store(memory: TEPAMemory) -> TEPAVectorStore:
    return TEPAVectorStore(memory=memory)


PIZZA = Document("We ordered a margherita pizza", metadata={"source": "chat", "n": [1, 2]})
TAXES = Document("The tax return is due in April", metadata={"source": "mail"})


# ---------------------------------------------------------------------------- mapping
def test_a_document_is_an_observation_under_doc_id(store: TEPAVectorStore) -> None:
    (doc_id,) = store.add_documents([PIZZA], ids=["p1"])
    assert doc_id == "p1"
    (prec,) = store.memory.audit("doc.p1").precedents
    assert prec.state.value == "active"
    assert prec.text == PIZZA.page_content
    assert prec.value["metadata"] == {"source": "chat", "n": [1, 2]}
    assert prec.value["chars"] == len(PIZZA.page_content)
    (ev,) = store.memory.history("doc.p1")
    assert ev.source == "vectorstore"
    assert ev.text == PIZZA.page_content


def test_derived_ids_are_stable_and_a_second_add_is_support(store: TEPAVectorStore) -> None:
    first = store.add_documents([PIZZA, TAXES])
    again = store.add_documents([PIZZA])
    assert again == first[:1]
    assert all(i.startswith("d") and len(i) == 25 for i in first)
    assert first[0] != first[1]
    assert store.get_by_ids(first) == [
        Document(PIZZA.page_content, metadata=PIZZA.metadata, id=first[0]),
        Document(TAXES.page_content, metadata=TAXES.metadata, id=first[1]),
    ]
    (prec,) = store.memory.audit(f"doc.{first[0]}").precedents
    assert prec.support == 2  # difference 3: support, not a duplicate
    assert len(store.similarity_search("pizza", k=5)) == 2
    # Same text, other metadata: another document.
    other = store.add_texts([PIZZA.page_content], [{"source": "menu"}])
    assert other[0] not in first


def test_metadata_round_trips_and_is_never_shared(store: TEPAVectorStore) -> None:
    meta = {"source": "chat", "tags": ["a", "b"], "nested": {"x": 1.5, "ok": True}}
    doc = Document("nested metadata", metadata=meta)
    (doc_id,) = store.add_documents([doc])
    meta["tags"].append("mutated after add")
    found = store.similarity_search("nested metadata", k=1)[0]
    assert found.metadata == {
        "source": "chat",
        "tags": ["a", "b"],
        "nested": {"x": 1.5, "ok": True},
    }
    found.metadata["tags"].append("mutated after search")
    found.metadata["nested"]["x"] = 99
    again = store.get_by_ids([doc_id])[0]
    assert again.metadata["tags"] == ["a", "b"]
    assert again.metadata["nested"]["x"] == 1.5
    assert doc.id is None  # the caller's document is not touched


def test_empty_text_round_trips(store: TEPAVectorStore) -> None:
    (doc_id,) = store.add_texts([""], [{"kind": "empty"}], ids=["e"])
    assert store.get_by_ids([doc_id]) == [Document("", metadata={"kind": "empty"}, id="e")]


def test_facts_collapse_and_keep_extra_metadata_in_the_evidence(store: TEPAVectorStore) -> None:
    docs = [
        Document("I'm vegan", metadata={"key": "user.diet", "value": "vegan", "turn": 1}),
        Document("Still vegan!", metadata={"key": "user.diet", "value": "vegan", "turn": 7}),
        Document("vegan", metadata={"key": "user.diet"}),  # value: the text
    ]
    ids = store.add_documents(docs)
    assert len(set(ids)) == 1
    (fact_id,) = set(ids)
    key, _, pid = fact_id.partition("#")
    assert key == "user.diet"
    (prec,) = store.memory.audit("user.diet").precedents
    assert (prec.id, prec.support) == (pid, 3)
    assert store.memory.get("user.diet") == "vegan"
    assert [e.metadata for e in store.memory.history("user.diet")] == [{"turn": 1}, {"turn": 7}, {}]
    found = store.similarity_search("what does the user eat", k=1)
    assert found == [
        Document("I'm vegan", metadata={"key": "user.diet", "value": "vegan"}, id=fact_id)
    ]
    assert store.get_by_ids([fact_id]) == found
    # The fact's own id is accepted back (round trip); another id is refused.
    assert store.add_documents([Document("vegan", metadata={"key": "user.diet"}, id=fact_id)]) == [
        fact_id
    ]
    with pytest.raises(InvalidArgumentError, match="is a fact"):
        store.add_documents([Document("vegan", metadata={"key": "user.diet"}, id="mine")])
    store.delete([fact_id])
    assert store.memory.get("user.diet") is None
    assert store.get_by_ids([fact_id]) == []


def test_facts_written_through_the_memory_are_found(store: TEPAVectorStore) -> None:
    store.memory.observe("user.home_city", "Oslo", text="I live in Oslo")
    store.add_texts(["Oslo has a long winter"], ids=["w"])
    found = store.similarity_search("Oslo", k=5)
    assert {d.id for d in found} >= {"w"}
    (fact,) = [d for d in found if d.id != "w"]
    assert fact.metadata == {"key": "user.home_city", "value": "Oslo"}
    assert fact.page_content == "I live in Oslo"
    only_docs = store.similarity_search("Oslo", k=5, key_prefix="doc")
    assert [d.id for d in only_docs] == ["w"]


def test_key_field_none_stores_key_metadata_as_plain_metadata(memory: TEPAMemory) -> None:
    store = TEPAVectorStore(memory=memory, key_field=None)
    (doc_id,) = store.add_texts(["a row"], [{"key": 5, "value": "x"}], ids=["r"])
    assert store.get_by_ids([doc_id])[0].metadata == {"key": 5, "value": "x"}


def test_lifecycle_metadata_on_request(memory: TEPAMemory) -> None:
    store = TEPAVectorStore(memory=memory, lifecycle_key="tepa")
    store.add_texts(["margherita"], ids=["m"])
    doc = store.similarity_search("margherita", k=1)[0]
    life = doc.metadata.pop("tepa")
    assert doc.metadata == {}
    assert life["key"] == "doc.m"
    assert life["state"] == "active"
    assert (life["support"], life["conflict"]) == (1, 0)
    assert life["validity"] == pytest.approx(2 / 3, abs=1e-4)
    assert life["precedent_id"].startswith("p")
    assert store.get_by_ids(["m"])[0].metadata["tepa"]["precedent_id"] == life["precedent_id"]


# ---------------------------------------------------------------------------- delete = revoke
def test_delete_revokes_keeps_the_audit_and_a_new_add_revives(store: TEPAVectorStore) -> None:
    store.add_documents([PIZZA, TAXES], ids=["p", "t"])
    assert store.delete(["p", "missing", "p"]) is True
    assert [d.id for d in store.similarity_search("pizza", k=5)] == ["t"]
    assert store.get_by_ids(["p"]) == []
    (prec,) = store.memory.audit("doc.p").precedents
    assert prec.state.value == "revoked"
    assert prec.revocation is not None
    assert prec.revocation.reason == "revoked by hand: deleted through the vector store"
    store.add_documents([PIZZA], ids=["p"])
    assert store.get_by_ids(["p"]) == [
        Document(PIZZA.page_content, metadata=PIZZA.metadata, id="p")
    ]
    reasons = [t.reason for t in store.memory.audit("doc.p").precedents[0].transitions]
    assert reasons[-2:] == [
        "revived: new support after revocation",
        # the same source again, but the statement that revives a value counts in full: its
        # revocation overruled the earlier ones (issue 28, the default's change rules)
        "re-promoted: validity 0.67 >= 0.60",
    ]


def test_delete_revokes_every_live_content_of_an_id(store: TEPAVectorStore) -> None:
    store.add_texts(["old content"], ids=["x"])
    store.add_texts(["new content"], ids=["x"])
    assert len(store.get_by_ids(["x"])) == 2
    store.delete(["x"])
    assert {p.state.value for p in store.memory.audit("doc.x").precedents} == {"revoked"}


def test_replace_mode_revokes_the_old_content_at_once(memory: TEPAMemory) -> None:
    store = TEPAVectorStore(memory=memory, update="replace")
    store.add_texts(["first", "other"], ids=["x", "y"])
    store.add_texts(["second"], ids=["x"])
    assert store.get_by_ids(["x", "y"]) == [Document("second", id="x"), Document("other", id="y")]
    old, new = memory.audit("doc.x").precedents
    assert (old.text, old.state.value, new.state.value) == ("first", "revoked", "active")
    assert old.revocation is not None
    assert old.revocation.reason.endswith("replaced: added again under the same id")
    # One call with two contents for one id: the last one wins.
    store.add_texts(["third", "fourth"], ids=["x", "x"])
    assert store.get_by_ids(["x"]) == [Document("fourth", id="x")]


def test_delete_needs_ids(store: TEPAVectorStore) -> None:
    store.add_texts(["keep me"], ids=["k"])
    with pytest.raises(InvalidArgumentError, match="needs the ids"):
        store.delete()
    with pytest.raises(InvalidArgumentError, match="unknown arguments"):
        store.delete(["k"], where={"a": 1})
    assert store.get_by_ids(["k"]) == [Document("keep me", id="k")]


def test_policy_decides_what_is_searchable(tick: Callable[[], float]) -> None:
    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings(), policy="tepa-full", clock=tick)
    store = TEPAVectorStore(memory=memory)
    store.add_texts(["waits for a trial"], ids=["h"])
    assert store.similarity_search("trial", k=1) == []  # a Hypothesis until promoted
    assert store.get_by_ids(["h"]) == []
    memory.promote("doc.h", memory.audit("doc.h").precedents[0].value, reason="trial passed")
    assert [d.id for d in store.similarity_search("trial", k=1)] == ["h"]
    # delete revokes a Hypothesis too
    store.add_texts(["another one"], ids=["h2"])
    store.delete(["h2"])
    assert memory.audit("doc.h2").precedents[0].state.value == "revoked"


# ---------------------------------------------------------------------------- searching
def test_scores_by_vector_and_relevance(store: TEPAVectorStore) -> None:
    ids = store.add_documents([PIZZA, TAXES, Document("pizza dough recipe")])
    scored = store.similarity_search_with_score("pizza", k=3)
    assert [d.id for d, _ in scored][:2] != [ids[1]] * 2
    scores = [s for _, s in scored]
    assert scores == sorted(scores, reverse=True)
    vector = store.embeddings.embed_query("pizza")
    by_vector = store.similarity_search_with_score_by_vector(vector, k=3)
    assert [d.id for d, _ in by_vector] == [d.id for d, _ in scored]
    for (_, a), (_, b) in zip(by_vector, scored, strict=True):
        assert a == pytest.approx(b, abs=1e-5)
    assert store.similarity_search_by_vector(vector, k=1) == [scored[0][0]]
    # Only the direction counts, even where the squared length would overflow a float.
    huge = [x * 1e200 for x in vector]
    assert [d.id for d in store.similarity_search_by_vector(huge, k=3)] == [d.id for d, _ in scored]
    relevance = store.similarity_search_with_relevance_scores("pizza", k=3)
    assert all(0.0 <= r <= 1.0 for _, r in relevance)
    assert store.similarity_search_with_relevance_scores("pizza", k=3, score_threshold=0.99) == []


def test_mmr_prefers_diverse_documents(store: TEPAVectorStore) -> None:
    store.add_texts(
        ["pizza margherita", "pizza margherita!", "pizza margherita.", "pizza in Naples history"],
        ids=["a", "b", "c", "d"],
    )
    plain = [d.id for d in store.similarity_search("pizza margherita", k=2)]
    diverse = [
        d.id for d in store.max_marginal_relevance_search("pizza margherita", k=2, lambda_mult=0.1)
    ]
    assert set(plain) <= {"a", "b", "c"}
    assert diverse[0] in {"a", "b", "c"}
    assert diverse[1] == "d"
    vector = store.embeddings.embed_query("pizza margherita")
    by_vector = store.max_marginal_relevance_search_by_vector(vector, k=2, lambda_mult=0.1)
    assert [d.id for d in by_vector] == diverse


def test_searches_embed_nothing_stored_again(tick: Callable[[], float]) -> None:
    """By-vector and MMR searches use the memory's stored vectors: only queries are embedded."""
    embeddings = CountingEmbeddings()
    memory = TEPAMemory.in_memory(embeddings=embeddings, clock=tick)
    store = TEPAVectorStore(memory=memory)
    store.add_texts(["one", "two", "three"])
    stored = embeddings.documents
    vector = embeddings.embed_query("two")
    queries = embeddings.queries
    store.similarity_search_by_vector(vector, k=2)
    store.similarity_search_with_score_by_vector(vector, k=2)
    store.max_marginal_relevance_search_by_vector(vector, k=2)
    assert (embeddings.documents, embeddings.queries) == (stored, queries)
    store.max_marginal_relevance_search("two", k=2)
    assert (embeddings.documents, embeddings.queries) == (stored, queries + 1)  # the query, once
    assert not hasattr(store, "_vectors")  # no private cache of re-embedded texts


def test_a_reopened_memory_embeds_nothing_for_vector_searches(tmp_path: Path) -> None:
    with TEPAMemory.from_path(tmp_path, embeddings=HashingEmbeddings()) as memory:
        TEPAVectorStore(memory=memory).add_texts(["pizza margherita", "tax forms"], ids=["p", "t"])
    embeddings = CountingEmbeddings()
    with TEPAMemory.from_path(tmp_path, embeddings=embeddings) as memory:
        store = TEPAVectorStore(memory=memory)
        vector = HashingEmbeddings().embed_query("pizza")
        assert [d.id for d in store.similarity_search_by_vector(vector, k=1)] == ["p"]
        mmr = store.max_marginal_relevance_search_by_vector(vector, k=2, lambda_mult=0.5)
        assert [d.id for d in mmr] == ["p", "t"]
        assert embeddings.documents == 0


def test_mmr_uses_the_memory_s_stored_vectors(store: TEPAVectorStore) -> None:
    ids = store.add_texts(["pizza margherita", "pizza margherita!", "tax forms"])
    vector = store.embeddings.embed_query("pizza margherita")
    hits = store.memory.retrieve_by_vector(vector, k=3)
    stored = store.memory.vectors([d.id for d in hits if d.id is not None])
    assert len(stored) == 3
    for doc in hits:
        fresh = store.embeddings.embed_documents([doc.page_content])[0]
        norm = math.sqrt(sum(x * x for x in fresh))
        assert stored[doc.id] == pytest.approx([x / norm for x in fresh], abs=1e-6)
    mmr = store.max_marginal_relevance_search_by_vector(vector, k=2, fetch_k=3, lambda_mult=0.1)
    assert {d.id for d in mmr} == {ids[2], mmr[0].id} and mmr[0].id in ids[:2]


def test_by_vector_answers_like_the_text_search(store: TEPAVectorStore) -> None:
    """One answer per id (the better supported content), by text and by vector alike."""
    store.add_texts(["opening hours 9 to 17", "lunch at noon"], ids=["hours", "lunch"])
    store.add_texts(["opening hours 8 to 16"], ids=["hours"])  # two Active contents of one id
    vector = store.embeddings.embed_query("opening hours")
    by_text = store.similarity_search_with_score("opening hours", k=3)
    by_vector = store.similarity_search_with_score_by_vector(vector, k=3)
    assert by_vector == by_text
    assert [d.page_content for d, _ in by_vector] == ["opening hours 8 to 16", "lunch at noon"]


def test_concurrent_vector_searches(store: TEPAVectorStore) -> None:
    from concurrent.futures import ThreadPoolExecutor

    store.add_texts([f"note number {i}" for i in range(40)])
    vector = store.embeddings.embed_query("note number 7")
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda _: store.similarity_search_by_vector(vector, k=1), range(8)))
    assert {r[0].page_content for r in results} == {"note number 7"}


def test_namespaces_are_separate(memory: TEPAMemory) -> None:
    alice = TEPAVectorStore(memory=memory, namespace=("users", "alice"))
    bob = TEPAVectorStore(memory=memory, namespace="users.bob")
    alice.add_texts(["alice likes tea"], ids=["x"])
    bob.add_texts(["bob likes coffee"], ids=["x"])
    assert [d.page_content for d in alice.similarity_search("likes", k=5)] == ["alice likes tea"]
    assert [d.page_content for d in bob.get_by_ids(["x"])] == ["bob likes coffee"]
    alice.delete(["x"])
    assert bob.get_by_ids(["x"]) == [Document("bob likes coffee", id="x")]
    assert memory.keys() == []  # the memory's default namespace is untouched


# ---------------------------------------------------------------------------- LangChain fit
def test_retriever_and_retriever_tool(store: TEPAVectorStore) -> None:
    store.add_documents([PIZZA, TAXES], ids=["p", "t"])
    retriever = store.as_retriever(search_kwargs={"k": 1})
    assert isinstance(retriever, VectorStoreRetriever)
    assert [d.id for d in retriever.invoke("when is the tax return due?")] == ["t"]
    mmr = store.as_retriever(search_type="mmr", search_kwargs={"k": 1, "fetch_k": 2})
    assert len(mmr.invoke("pizza")) == 1
    threshold = store.as_retriever(
        search_type="similarity_score_threshold", search_kwargs={"score_threshold": 0.2, "k": 2}
    )
    assert [d.id for d in threshold.invoke("margherita pizza")] == ["p"]
    tool = create_retriever_tool(retriever, "search_notes", "Search the user's notes.")
    msg = tool.invoke(
        {"type": "tool_call", "id": "c1", "name": "search_notes", "args": {"query": "tax return"}}
    )
    assert isinstance(msg, ToolMessage)
    assert "The tax return is due in April" in msg.content
    store.delete(["t"])
    assert "tax return" not in tool.invoke({"query": "tax return"})


async def test_async_twins(store: TEPAVectorStore) -> None:
    ids = await store.aadd_texts(["async pizza", "async taxes"], ids=["p", "t"])
    assert ids == ["p", "t"]
    assert [d.id for d in await store.asimilarity_search("pizza", k=1)] == ["p"]
    scored = await store.asimilarity_search_with_score("pizza", k=1)
    assert scored[0][1] > 0
    vector = await store.embeddings.aembed_query("taxes")
    assert [d.id for d in await store.asimilarity_search_by_vector(vector, k=1)] == ["t"]
    mmr = await store.amax_marginal_relevance_search("pizza", k=2, fetch_k=2)
    assert {d.id for d in mmr} == {"p", "t"}
    mmr_v = await store.amax_marginal_relevance_search_by_vector(vector, k=1)
    assert [d.id for d in mmr_v] == ["t"]
    assert await store.adelete(["p"]) is True
    assert await store.aget_by_ids(["p", "t"]) == [Document("async taxes", id="t")]
    retriever = store.as_retriever(search_kwargs={"k": 1})
    assert [d.id for d in await retriever.ainvoke("taxes")] == ["t"]
    other = await TEPAVectorStore.afrom_texts(["from texts"], HashingEmbeddings(), ids=["f"])
    assert await other.aget_by_ids(["f"]) == [Document("from texts", id="f")]


def test_from_texts_and_from_documents(tmp_path: Path, memory: TEPAMemory) -> None:
    emb = HashingEmbeddings()
    store = TEPAVectorStore.from_texts(["alpha", "beta"], emb, [{"n": 1}, {"n": 2}], ids=["a", "b"])
    assert store.embeddings is emb
    assert store.get_by_ids(["b"]) == [Document("beta", metadata={"n": 2}, id="b")]
    given = TEPAVectorStore.from_documents(
        [Document("gamma", id="g")], memory.embeddings, memory=memory, namespace="ns"
    )
    assert given.memory is memory
    assert given.namespace == "ns"
    with pytest.raises(InvalidArgumentError, match="not the memory's embeddings"):
        TEPAVectorStore.from_texts(["x"], HashingEmbeddings(), memory=memory)
    on_disk = TEPAVectorStore.from_texts(["kept on disk"], emb, ids=["d"], path=tmp_path / "m")
    on_disk.memory.close()
    reopened = TEPAVectorStore(memory=TEPAMemory.from_path(tmp_path / "m", embeddings=emb))
    assert reopened.get_by_ids(["d"]) == [Document("kept on disk", id="d")]
    assert [d.id for d in reopened.similarity_search("disk", k=1)] == ["d"]
    reopened.memory.close()


# ---------------------------------------------------------------------------- bad input
BAD_ADDS: list[tuple[str, Callable[[TEPAVectorStore], object], str]] = [
    ("blank id", lambda s: s.add_texts(["x"], ids=["  "]), "not usable"),
    ("padded id", lambda s: s.add_texts(["x"], ids=[" a"]), "not usable"),
    ("control id", lambda s: s.add_texts(["x"], ids=["a\x00b"]), "not usable"),
    ("long id", lambda s: s.add_texts(["x"], ids=["i" * 300]), "not usable"),
    ("int id", lambda s: s.add_texts(["x"], ids=[5]), "not usable"),  # type: ignore[list-item]
    ("int doc id", lambda s: s.add_documents([Document("x")], ids=[5]), "not usable"),
    ("ids count", lambda s: s.add_texts(["x", "y"], ids=["a"]), "got 1 ids for 2 texts"),
    ("metadatas count", lambda s: s.add_texts(["x"], [{}, {}]), "got 2 metadatas"),
    ("not a document", lambda s: s.add_documents(["x"]), "must be a Document"),  # type: ignore[list-item]
    ("one document", lambda s: s.add_documents(Document("x")), "list of Documents"),  # type: ignore[arg-type]
    ("a string", lambda s: s.add_texts("abc"), "list of strings"),
    ("nan metadata", lambda s: s.add_texts(["x"], [{"v": math.nan}]), "not finite"),
    ("set metadata", lambda s: s.add_texts(["x"], [{"v": {1, 2}}]), "cannot be serialised"),
    ("int keys", lambda s: s.add_texts(["x"], [{1: "a"}]), "object keys must be strings"),  # type: ignore[dict-item]
    ("NUL text", lambda s: s.add_texts(["ok", "a\x00b"]), "NUL"),
    ("surrogate text", lambda s: s.add_texts(["ok", "a\ud800"]), "document 1.*surrogates"),
    ("surrogate doc", lambda s: s.add_documents([Document("\udc00", id="a")]), "surrogates"),
    ("metadatas not a list", lambda s: s.add_texts(["x"], object()), "metadatas must be a list"),  # type: ignore[arg-type]
    ("metadatas a set", lambda s: s.add_texts(["x"], {1}), "metadatas must be a list"),  # type: ignore[arg-type]
    ("ids an int", lambda s: s.add_texts(["x"], ids=5), "ids must be a list"),  # type: ignore[arg-type]
    ("metadata not a dict", lambda s: s.add_texts(["x"], [5]), "metadatas\\[0\\] must be a dict"),  # type: ignore[list-item]
    ("bad fact key", lambda s: s.add_texts(["x"], [{"key": " "}]), "key must not be empty"),
    (
        "fact with list extra",
        lambda s: s.add_texts(["x"], [{"key": "a.b", "tags": [1]}]),
        "metadata",
    ),
    ("unknown kwarg", lambda s: s.add_documents([Document("x")], upsert=True), "unknown arguments"),
]


@pytest.mark.parametrize(("call", "match"), [b[1:] for b in BAD_ADDS], ids=[b[0] for b in BAD_ADDS])
def test_bad_adds_are_refused_and_store_nothing(
    store: TEPAVectorStore, call: Callable[[TEPAVectorStore], object], match: str
) -> None:
    with pytest.raises(InvalidArgumentError, match=match):
        call(store)
    assert store.memory.evidence_count() == 0


BAD_SEARCHES: list[tuple[str, Callable[[TEPAVectorStore], object], str]] = [
    ("k zero", lambda s: s.similarity_search("x", k=0), "k must be"),
    ("option", lambda s: s.similarity_search("x", where={"a": 1}), "unknown search options"),
    ("filter", lambda s: s.similarity_search("x", filter={"a": {"$x": 1}}), "unknown operator"),
    ("bad prefix", lambda s: s.similarity_search("x", key_prefix=""), "key must not be empty"),
    ("vector dims", lambda s: s.similarity_search_by_vector([1.0, 0.0]), "dimensions"),
    ("vector nan", lambda s: s.similarity_search_by_vector([math.nan]), "finite"),
    ("vector text", lambda s: s.similarity_search_by_vector("abc"), "list of floats"),  # type: ignore[arg-type]
    ("lambda", lambda s: s.max_marginal_relevance_search("x", lambda_mult=2), "from 0 to 1"),
    ("fetch_k", lambda s: s.max_marginal_relevance_search("x", fetch_k=0), "k must be"),
    ("get str", lambda s: s.get_by_ids("abc"), "list of strings"),
    ("get int", lambda s: s.get_by_ids([1]), "ids must be strings"),  # type: ignore[list-item]
]


@pytest.mark.parametrize(
    ("call", "match"), [b[1:] for b in BAD_SEARCHES], ids=[b[0] for b in BAD_SEARCHES]
)
def test_bad_searches_are_refused(
    store: TEPAVectorStore, call: Callable[[TEPAVectorStore], object], match: str
) -> None:
    store.add_texts(["something to find"])
    with pytest.raises(InvalidArgumentError, match=match):
        call(store)


def test_unusable_ids_are_missing_on_read_and_delete(store: TEPAVectorStore) -> None:
    store.add_texts(["x"], ids=["a"])
    assert store.get_by_ids(["  ", "a\x00", "nope#p123", "#"]) == []
    assert store.delete(["  ", "nope#p123"]) is True
    assert [d.id for d in store.get_by_ids(["a"])] == ["a"]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"update": "overwrite"},
        {"key_field": ""},
        {"value_field": "key"},
        {"lifecycle_key": ""},
        {"source": ""},
        {"namespace": "a..b"},
    ],
)
def test_bad_construction(memory: TEPAMemory, kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidArgumentError):
        TEPAVectorStore(memory=memory, **kwargs)  # type: ignore[arg-type]


def test_memory_must_be_a_memory() -> None:
    with pytest.raises(InvalidArgumentError, match="TEPAVectorStore\\(memory=TEPAMemory"):
        TEPAVectorStore(memory=object())  # type: ignore[arg-type]


def test_embeddings_property(store: TEPAVectorStore) -> None:
    assert isinstance(store.embeddings, Embeddings)
    assert store.embeddings is store.memory.embeddings
    assert repr(store) == "TEPAVectorStore(namespace='default', update='evidence')"


def test_mmr_order_is_langchain_s_algorithm() -> None:
    import numpy as np
    from langchain_core.vectorstores.utils import maximal_marginal_relevance

    from langchain_tepa._vectorstore_mapping import mmr_order

    rng = np.random.default_rng(7)
    for _ in range(200):
        n, dims = int(rng.integers(1, 9)), int(rng.integers(2, 6))
        rows = rng.normal(size=(n, dims)).tolist()
        query = rng.normal(size=dims)
        k, lam = int(rng.integers(1, 10)), float(rng.uniform())
        assert mmr_order(query, rows, k, lam) == maximal_marginal_relevance(query, rows, lam, k)


def test_mmr_with_a_zero_query_or_zero_vectors(store: TEPAVectorStore) -> None:
    """LangChain's MMR raises ValueError on all-undefined similarities; ours scores them 0."""
    store.add_texts(["", "pizza margherita", "tax forms"], ids=["empty", "p", "t"])
    zero = [0.0] * len(store.embeddings.embed_query("x"))
    found = store.max_marginal_relevance_search_by_vector(zero, k=3, fetch_k=3)
    assert sorted(d.id for d in found) == ["empty", "p", "t"]
    assert len(store.max_marginal_relevance_search("", k=2)) == 2


def test_a_query_vector_with_huge_components_still_ranks(store: TEPAVectorStore) -> None:
    """Finite in float64, beyond float32: the store scales it to unit length first."""
    store.add_texts(["pizza margherita", "tax forms"], ids=["p", "t"])
    vector = [x * 1e39 for x in store.embeddings.embed_query("pizza margherita")]
    found = store.similarity_search_with_score_by_vector(vector, k=2)
    assert [d.id for d, _ in found] == ["p", "t"]
    assert all(math.isfinite(score) for _, score in found)
    assert found == store.similarity_search_with_score("pizza margherita", k=2)

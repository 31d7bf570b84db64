"""The answer index: searches a process does not hold, answered without folding namespaces.

Every search here runs in a memory that cannot vouch that its states are current (the
in-memory storage, a Chroma client), so a store with an index asks the answer index. Each test
checks the answers against the fold (the reference ranking of ``test_store_ranking``, or the
same search with the index turned off) and that the index, not the fold, answered.
"""

from __future__ import annotations

import hashlib
import random
import uuid
from pathlib import Path
from typing import Any

import chromadb
import numpy as np
import pytest
from chromadb.config import Settings
from langchain_core.embeddings import Embeddings
from langgraph.store.base import PutOp

import langchain_tepa.store.execution as execution
from langchain_tepa import TEPAMemory
from langchain_tepa.core.errors import OutcomeUnknownError
from langchain_tepa.storage import InMemoryStorage
from langchain_tepa.storage.chroma import answers as chroma_answers
from langchain_tepa.store import TEPAStore, store_policy
from tests.unit_tests.test_store_ranking import reference

DIMS = 8


class WordEmbeddings(Embeddings):
    """Each word adds a fixed random vector: texts sharing words are near."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        out = np.zeros(DIMS)
        for word in text.lower().split():
            seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "little")
            out += np.random.default_rng(seed).standard_normal(DIMS)
        return out.tolist()


INDEX: Any = {"dims": DIMS, "embed": WordEmbeddings(), "fields": ["text"]}


class Answered:
    """Counts the searches the index answered and those the fold answered."""

    def __init__(self) -> None:
        self.index = 0
        self.fold = 0


@pytest.fixture
def answered(monkeypatch: pytest.MonkeyPatch) -> Answered:
    counts = Answered()
    real = execution.cold_search

    def counting(*args: Any, **kwargs: Any) -> Any:
        got = real(*args, **kwargs)
        if got is None:
            counts.fold += 1
        else:
            counts.index += 1
        return got

    monkeypatch.setattr(execution, "cold_search", counting)
    return counts


def _chroma_memory(**kwargs: Any) -> TEPAMemory:
    client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    return TEPAMemory.from_client(
        client, prefix=f"ai{uuid.uuid4().hex[:10]}", policy=store_policy(), **kwargs
    )


def _memory(kind: str, **kwargs: Any) -> TEPAMemory:
    if kind == "chroma":
        return _chroma_memory(embeddings=WordEmbeddings(), **kwargs)
    return TEPAMemory.in_memory(policy=store_policy(), embeddings=WordEmbeddings(), **kwargs)


WORDS = ["pizza", "tax", "garden", "train", "music", "coffee", "rain", "chess"]


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(3))


def _fill(store: TEPAStore, rng: random.Random) -> None:
    spaces = [("users", f"u{u}") for u in range(5)] + [("users", "u1", "notes"), ("team",)]
    ops: list[PutOp] = []
    for i in range(150):
        ns = rng.choice(spaces)
        key = f"k{rng.randrange(30):02d}"
        if rng.random() < 0.08:
            ops.append(PutOp(ns, key, None))  # a delete
        else:
            ops.append(PutOp(ns, key, {"text": _text(rng), "n": i}))
    for start in range(0, len(ops), 13):
        store.batch(ops[start : start + 13])


@pytest.mark.parametrize("kind", ["memory", "chroma"])
def test_cold_searches_equal_the_fold(kind: str, answered: Answered) -> None:
    rng = random.Random(7)
    if kind == "chroma":
        client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
        prefix_ = f"ai{uuid.uuid4().hex[:10]}"

        def fresh() -> TEPAMemory:  # another process of the same store: it holds nothing
            return TEPAMemory.from_client(
                client, prefix=prefix_, policy=store_policy(), embeddings=WordEmbeddings()
            )
    else:
        storage = InMemoryStorage()

        def fresh() -> TEPAMemory:
            return TEPAMemory(storage, policy=store_policy(), embeddings=WordEmbeddings())

    store = TEPAStore(fresh(), index=INDEX)
    _fill(store, rng)
    cases = 0
    for _ in range(40):
        prefix = rng.choice([(), ("users",), ("users", "u1"), ("users", "u3"), ("team",)])
        query = _text(rng)
        limit, offset = rng.choice([(1, 0), (3, 0), (5, 2), (10, 0)])
        got = TEPAStore(fresh(), index=INDEX).search(
            prefix, query=query, limit=limit, offset=offset
        )
        want = reference(store, prefix, query=query, limit=limit, offset=offset)
        assert [(i.namespace, i.key) for i in got] == [(ns, k) for ns, k, _ in want]
        for item, (_, _, score) in zip(got, want, strict=True):
            assert item.score == pytest.approx(score, abs=1e-5)
        cases += 1
    assert answered.index >= cases * 3 // 4, (answered.index, answered.fold)
    store.memory.close()


def test_a_second_process_sees_every_acknowledged_write(answered: Answered) -> None:
    storage = InMemoryStorage()  # two memories on one storage: two processes
    writer = TEPAStore(TEPAMemory(storage, policy=store_policy(), writer="a"), index=INDEX)
    reader = TEPAStore(TEPAMemory(storage, policy=store_policy(), writer="b"), index=INDEX)
    ns = ("users", "u1")
    writer.put(ns, "a", {"text": "pizza with friends"})
    writer.put(ns, "b", {"text": "tax return due"})
    assert [i.key for i in reader.search(("users",), query="pizza", limit=1)] == ["a"]
    writer.put(ns, "a", {"text": "chess club on mondays"})  # the item changed
    top = reader.search(("users",), query="pizza", limit=2)
    assert [i.value["text"] for i in top if i.key == "a"] == ["chess club on mondays"]
    writer.delete(ns, "a")
    assert [i.key for i in reader.search(ns, query="chess club", limit=1)] == ["b"]
    assert answered.index == 3


def test_a_fresh_process_answers_without_loading_a_namespace(
    tmp_path: Path, answered: Answered
) -> None:
    emb = WordEmbeddings()
    store = TEPAStore.from_path(tmp_path / "m", index=INDEX, embeddings=emb)
    for u in range(20):
        store.put(("users", f"u{u}"), "note", {"text": f"note {WORDS[u % 8]} {u}"})
    warm = store.search(("users",), query="train", limit=3)  # the writer holds them all
    assert answered.index == answered.fold == 0  # ranked in process: the index not asked
    store.memory.close()
    store = TEPAStore.from_path(tmp_path / "m", index=INDEX, embeddings=emb)
    one = store.search(("users", "u3"), query="train", limit=1)
    every = store.search(("users",), query="train", limit=3)
    assert store.memory._engine.cache.peek("users.u3") is None  # nothing was folded
    assert answered.index == 2
    store.search(("users",), query="x", limit=1)  # no namespace is held: the index again
    assert answered.index == 3
    assert [i.key for i in one] == ["note"]
    store._indexed = False  # the fold alone, for comparison
    again = store.search(("users",), query="train", limit=3)
    assert [(i.namespace, i.key) for i in every] == [(i.namespace, i.key) for i in again]
    assert [(i.namespace, i.key) for i in warm] == [(i.namespace, i.key) for i in again]
    assert [i.score for i in every] == pytest.approx([i.score for i in again], abs=1e-5)
    store.memory.close()


def test_an_item_taken_back_by_its_claims_leaves_the_index(answered: Answered) -> None:
    storage = InMemoryStorage()
    writer = TEPAStore(TEPAMemory(storage, policy=store_policy(), writer="a"), index=INDEX)
    reader = TEPAStore(TEPAMemory(storage, policy=store_policy(), writer="b"), index=INDEX)
    ns = ("users", "u1")
    writer.put(ns, "m1", {"text": "I live in Oslo."})
    writer.put(ns, "m2", {"text": "I moved to Lisbon."})
    found = [i.key for i in reader.search(ns, query="I live in", limit=1)]
    assert found == ["m2"], found
    assert answered.index == 1


def test_a_namespace_ranked_by_trust_is_folded(answered: Answered) -> None:
    storage = InMemoryStorage()
    user = TEPAStore(TEPAMemory(storage, policy=store_policy(), writer="u"), index=INDEX)
    agent = TEPAStore(
        TEPAMemory(storage, policy=store_policy(), writer="g"), index=INDEX, source="agent"
    )
    ns = ("users", "u1")
    user.put(ns, "fact", {"text": "pizza on fridays"})
    for i in range(25):  # an agent floods look-alikes: beyond its new-key budget
        agent.put(ns, f"copy{i}", {"text": "pizza on fridays please"})
    reader = TEPAStore(TEPAMemory(storage, policy=store_policy(), writer="r"), index=INDEX)
    got = reader.search(ns, query="pizza on fridays please", limit=25)
    assert answered.fold == 1 and answered.index == 0
    assert reader.memory.ranks_by_trust(namespace="users.u1")
    reader._indexed = False  # the fold alone, for comparison
    again = reader.search(ns, query="pizza on fridays please", limit=25)
    assert [(i.key, i.score) for i in again] == [(i.key, i.score) for i in got]


def test_expired_items_are_skipped_and_revoked(answered: Answered) -> None:
    now = [1000.0]
    storage = InMemoryStorage()
    memory = TEPAMemory(storage, policy=store_policy(), clock=lambda: now[0])
    store = TEPAStore(memory, index=INDEX)
    store._ttl._clock = lambda: now[0]
    store.put(("users", "u1"), "soon", {"text": "pizza tonight"}, ttl=1.0)
    store.put(("users", "u1"), "kept", {"text": "pizza recipes"})
    now[0] += 120.0
    reader = TEPAStore(TEPAMemory(storage, policy=store_policy(), writer="r"), index=INDEX)
    reader._ttl._clock = lambda: now[0]
    got = reader.search(("users",), query="pizza tonight", limit=1)
    assert [i.key for i in got] == ["kept"]
    assert answered.index == 1
    assert reader.get(("users", "u1"), "soon") is None


def test_an_index_added_to_a_store_with_data_is_not_trusted(answered: Answered) -> None:
    memory = TEPAMemory.in_memory(policy=store_policy())
    TEPAStore(memory).put(("users", "u1"), "a", {"text": "pizza"})
    store = TEPAStore(memory, index=INDEX)
    assert store._indexed is False
    assert memory.search_answers(store._space.name, [1.0] * DIMS, 3) is None  # type: ignore[union-attr]
    store.put(("users", "u1"), "b", {"text": "tax"})
    assert [i.key for i in store.search(("users",), query="tax", limit=1)] == ["b"]
    assert answered.index == answered.fold == 0  # never asked


def test_a_retried_write_stores_its_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    memory = _chroma_memory(embeddings=WordEmbeddings())
    store = TEPAStore(memory, index=INDEX)
    real = chroma_answers.write
    calls = {"n": 0}

    def flaky(*args: Any, **kwargs: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise OutcomeUnknownError("the connection dropped during a write (index answers)")
        real(*args, **kwargs)

    monkeypatch.setattr(chroma_answers, "write", flaky)
    with pytest.raises(OutcomeUnknownError) as caught:
        store.put(("users", "u1"), "a", {"text": "pizza"})
    assert memory.search_answers(store._space.name, [1.0] * DIMS, 3) == []  # type: ignore[union-attr]
    memory.retry(caught.value)
    hits = memory.search_answers(store._space.name, WordEmbeddings().embed_query("pizza"), 3)  # type: ignore[union-attr]
    assert [(h.key, h.value) for h in hits or []] == [("a", {"text": "pizza"})]
    memory.close()


def test_an_embedded_folder_writes_its_answers_together(tmp_path: Path) -> None:
    from langchain_tepa.storage.chroma.pending import PENDING_RECORD, pending_since

    emb = WordEmbeddings()
    store = TEPAStore.from_path(tmp_path / "m", index=INDEX, embeddings=emb)
    space = store._space.name  # type: ignore[union-attr]
    storage: Any = store.memory.storage
    upserts: list[str] = []
    real = storage.call

    def counting(op: str, *args: Any, **kwargs: Any) -> Any:
        upserts.append(op)
        return real(op, *args, **kwargs)

    storage.call = counting
    for i in range(5):
        store.put(("users", "u1"), f"k{i}", {"text": f"{WORDS[i]} notes"})
    assert "index answers" not in upserts  # held back: each put made one append, no index write
    assert storage.get_meta(PENDING_RECORD)  # said before the first held change
    assert pending_since(storage.get_meta(PENDING_RECORD)) is None  # this process's own
    other = TEPAStore.from_path(tmp_path / "m", index=INDEX, embeddings=emb)  # same process
    hits = other.memory.search_answers(space, emb.embed_query("garden notes"), 1)
    assert [h.key for h in hits or []] == ["k2"]  # the search wrote them first (any memory
    assert not storage.get_meta(
        PENDING_RECORD
    )  # of the process on the folder writes them)  # all written: the record is empty again
    store.put(("users", "u1"), "k9", {"text": "chess notes"})
    store.memory.close()  # closing writes what is held
    hits = other.memory.search_answers(space, emb.embed_query("chess notes"), 1)
    assert [h.key for h in hits or []] == ["k9"]
    other.memory.close()


def test_reconcile_rebuilds_an_index_that_lags_the_evidence() -> None:
    storage = InMemoryStorage()
    memory = TEPAMemory(storage, policy=store_policy())
    store = TEPAStore(memory, index=INDEX)
    space = store._space.name  # type: ignore[union-attr]
    store.put(("users", "u1"), "a", {"text": "pizza"})
    store.put(("users", "u1"), "b", {"text": "tax"})
    storage._answers = type(storage._answers)()  # a lost index: nothing in it
    assert memory.search_answers(space, WordEmbeddings().embed_query("pizza"), 5) == []
    memory.reconcile()
    hits = memory.search_answers(space, WordEmbeddings().embed_query("pizza"), 5)
    assert sorted(h.key for h in hits or []) == ["a", "b"]

"""TEPAStore batches are validated whole; index details (issue 17).

- A batch holding any invalid op (a value JSON cannot hold, an unknown op, a bad filter, a query
  over the length cap, a bad namespace, key, ``index`` or ``ttl``) raises a typed error and
  stores nothing of the batch, wherever the op sits (first, between writes, last).
- Values whose text holds a NUL are accepted the same with and without an index (the stored
  value keeps the NUL; the embedded text has a space there), also in the batch the issue reports
  (``put a, delete d, put b`` with a NUL in ``b``'s indexed field).
- ``put(index=False)`` of a value that already has vectors keeps them (search still scores it),
  also after reopening a persistent store.
- ``IndexConfig`` ``distance_type``: ``"cosine"``, ``"inner_product"`` and ``"l2"`` work
  (``tests/unit_tests/test_store_parity.py``), anything else is a typed error.
- ``store.embeddings`` is public (the index's embeddings, ``None`` without an index).
- A 10-million-character query is refused with a typed error before anything is embedded or read.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from langgraph.store.base import GetOp, ListNamespacesOp, Op, PutOp, SearchOp

from langchain_tepa import HashingEmbeddings, InvalidArgumentError, TEPAError, TEPAStore
from tests.support.counting import CountingEmbeddings
from tests.support.figures import report_figures
from tests.support.snapshot import stored_state

NS = ("users", "u1")
DIMS = 384


def _index(embed: Embeddings | None = None, **extra: Any) -> Any:
    return {"dims": DIMS, "embed": embed or HashingEmbeddings(), "fields": ["text"], **extra}


def _store(backend: str, indexed: bool) -> TEPAStore:
    index = _index() if indexed else None
    if backend == "memory":
        return TEPAStore.in_memory(index=index, embeddings=HashingEmbeddings())
    import chromadb
    from chromadb.config import Settings

    client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    prefix = "sb" + uuid.uuid4().hex[:12]
    return TEPAStore.from_client(client, prefix=prefix, index=index, embeddings=HashingEmbeddings())


@pytest.fixture(params=[("memory", False), ("memory", True), ("chroma", False), ("chroma", True)])
def store(request: pytest.FixtureRequest) -> Iterator[TEPAStore]:
    backend, indexed = request.param
    s = _store(backend, indexed)
    s.put(NS, "d", {"text": "to be deleted", "stars": 3})
    s.put(NS, "keep", {"text": "kept", "stars": 1})
    yield s
    s.memory.close()


INVALID_OPS: list[tuple[str, Any]] = [
    ("nan value", PutOp(NS, "x", {"text": "t", "v": float("nan")})),
    ("set value", PutOp(NS, "x", {"v": {1, 2}})),
    ("huge int value", PutOp(NS, "x", {"v": 10**5000})),
    ("surrogate in indexed text", PutOp(NS, "x", {"text": "a\ud800b"})),
    ("value too large", PutOp(NS, "x", {"text": "t" * 70_000})),
    ("not a dict", PutOp(NS, "x", ["a", "list"])),  # type: ignore[arg-type]
    ("unknown op", "not an op"),
    ("unknown op object", object()),
    ("bad filter operator", SearchOp(NS, filter={"stars": {"$foo": 1}})),
    ("bad filter operand", SearchOp(NS, filter={"stars": {"$gt": "many"}})),
    ("filter not a dict", SearchOp(NS, filter="stars")),  # type: ignore[arg-type]
    ("query over the cap", SearchOp(NS, query="q" * 1_000_001)),
    ("query with NUL over the cap", SearchOp(NS, query="\x00" * 1_000_001)),
    ("query not a string", SearchOp(NS, query=5)),  # type: ignore[arg-type]
    ("negative limit", SearchOp(NS, limit=-1)),
    ("dotted label", PutOp(("a.b",), "x", {"v": 1})),
    ("namespace not a tuple", PutOp("users", "x", {"v": 1})),  # type: ignore[arg-type]
    ("padded key", PutOp(NS, " x", {"v": 1})),
    ("key not a string", PutOp(NS, 5, {"v": 1})),  # type: ignore[arg-type]
    ("index not a list", PutOp(NS, "x", {"text": "t"}, index="text")),  # type: ignore[arg-type]
    ("negative ttl", PutOp(NS, "x", {"v": 1}, ttl=-5)),
    ("nan ttl", PutOp(NS, "x", {"v": 1}, ttl=float("nan"))),
    ("list with bad limit", ListNamespacesOp(limit=-3)),
    ("list with max_depth 0", ListNamespacesOp(max_depth=0)),
]


def _batch(bad: Any, where: str) -> list[Any]:
    good: list[Op] = [
        PutOp(NS, "a", {"text": "alpha", "stars": 5}),
        PutOp(NS, "d", None),  # a delete
        GetOp(NS, "keep"),
        PutOp(("users", "u2"), "b", {"text": "beta\x00gamma", "stars": 2}),
    ]
    if where == "first":
        return [bad, *good]
    if where == "middle":
        return [*good[:2], bad, *good[2:]]
    return [*good, bad]


@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize(("name", "bad"), INVALID_OPS, ids=[n for n, _ in INVALID_OPS])
def test_a_batch_with_an_invalid_op_stores_nothing(
    store: TEPAStore, name: str, bad: Any, where: str
) -> None:
    before = stored_state(store.memory)
    with pytest.raises(TEPAError) as info:
        store.batch(_batch(bad, where))
    assert str(info.value).strip(), name
    assert stored_state(store.memory) == before, f"{name} ({where}) stored part of the batch"
    assert store.get(NS, "d") is not None and store.get(NS, "a") is None


def test_an_async_batch_with_an_invalid_op_stores_nothing(store: TEPAStore) -> None:
    before = stored_state(store.memory)
    for _, bad in INVALID_OPS:
        with pytest.raises(TEPAError):
            asyncio.run(store.abatch(_batch(bad, "last")))
    assert stored_state(store.memory) == before


def test_the_reported_batch_is_stored_whole_with_and_without_an_index() -> None:
    """``put a, delete d, put b`` with a NUL in ``b``'s indexed field: the same in both stores."""
    seen = []
    for indexed in (False, True):
        s = _store("memory", indexed)
        s.put(NS, "d", {"text": "old"})
        s.batch(
            [
                PutOp(NS, "a", {"text": "alpha"}),
                PutOp(NS, "d", None),
                PutOp(NS, "b", {"text": "nul\x00inside"}),
            ]
        )
        items = {k: s.get(NS, k) for k in ("a", "b", "d")}
        seen.append({k: (None if i is None else i.value) for k, i in items.items()})
        if indexed:  # embedded with a space for the NUL: found by its words
            (hit,) = s.search(NS, query="nul inside", limit=1)
            assert hit.key == "b" and hit.score is not None and hit.score > 0.5
    assert seen[0] == seen[1] == {"a": {"text": "alpha"}, "b": {"text": "nul\x00inside"}, "d": None}


@pytest.mark.parametrize("indexed", [False, True])
def test_nul_values_are_accepted_the_same_with_and_without_an_index(indexed: bool) -> None:
    s = _store("memory", indexed)
    values = [
        {"text": "\x00"},
        {"text": "a\x00b", "other": "\x00\x00"},
        {"nested": {"text": "x\x00"}},
        {"text": ["list", "with\x00nul"]},
    ]
    for i, value in enumerate(values):
        s.put(NS, f"k{i}", value)
        got = s.get(NS, f"k{i}")
        assert got is not None and got.value == value
    assert len(s.search(NS, query="with nul", limit=10)) == len(values)


@pytest.mark.parametrize("backend", ["memory", "chroma"])
def test_put_index_false_keeps_the_vectors_a_value_already_has(backend: str) -> None:
    s = _store(backend, indexed=True)
    s.put(NS, "a", {"text": "mushroom pizza"})
    s.put(NS, "b", {"text": "tax return"})
    s.put(NS, "a", {"text": "mushroom pizza"}, index=False)  # the same value, not indexed now
    hits = s.search(NS, query="mushroom pizza", limit=2)
    assert [h.key for h in hits] == ["a", "b"]
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    # A value new to the key put with index=False has no vectors: it ranks after scored items.
    s.put(NS, "c", {"text": "mushroom pizza again"}, index=False)
    hits = s.search(NS, query="mushroom pizza", limit=3)
    assert [(h.key, h.score is None) for h in hits] == [("a", False), ("b", False), ("c", True)]


def test_put_index_false_keeps_the_vectors_after_reopening(tmp_path: Path) -> None:
    embed = CountingEmbeddings()
    s = TEPAStore.from_path(tmp_path, index=_index(embed))
    s.put(NS, "a", {"text": "mushroom pizza"})
    s.put(NS, "b", {"text": "tax return"})
    s.memory.close()
    embed = CountingEmbeddings()
    s = TEPAStore.from_path(tmp_path, index=_index(embed))
    s.put(NS, "a", {"text": "mushroom pizza"}, index=False)
    assert embed.texts == 0
    hits = s.search(NS, query="mushroom pizza", limit=2)
    assert [h.key for h in hits] == ["a", "b"] and hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert embed.texts == 1  # the query only: nothing stored was embedded again
    s.memory.close()


@pytest.mark.parametrize("distance", ["hamming", "manhattan", "L2", 5, None])
def test_an_unsupported_distance_type_is_a_typed_error(distance: object) -> None:
    with pytest.raises(InvalidArgumentError, match="distance_type"):
        TEPAStore.in_memory(index=_index(distance_type=distance))


def test_cosine_distance_works() -> None:
    s = TEPAStore.in_memory(index=_index(distance_type="cosine"))
    s.put(NS, "a", {"text": "mushroom pizza"})
    s.put(NS, "b", {"text": "tax return"})
    hits = s.search(NS, query="pizza with mushrooms", limit=2)
    assert [h.key for h in hits] == ["a", "b"]
    assert hits[0].score is not None and hits[1].score is not None
    assert hits[0].score > hits[1].score
    assert s.index_config is not None and s.index_config.get("distance_type") == "cosine"


def test_embeddings_are_public() -> None:
    embed = HashingEmbeddings()
    indexed = TEPAStore.in_memory(index=_index(embed))
    assert indexed.embeddings is embed
    assert TEPAStore.in_memory().embeddings is None  # as LangGraph's stores without an index


@pytest.mark.parametrize("indexed", [False, True])
def test_a_ten_million_character_query_is_refused_before_anything_runs(indexed: bool) -> None:
    embed = CountingEmbeddings()
    s = TEPAStore.in_memory(embeddings=embed, index=_index(embed) if indexed else None)
    s.put(NS, "a", {"text": "mushroom pizza"})
    before, embedded = stored_state(s.memory), embed.texts
    query = "x" * 10_000_000
    timings = []
    for call in (
        lambda: s.search(NS, query=query),
        lambda: s.batch([PutOp(NS, "z", {"text": "z"}), SearchOp(NS, query=query)]),
        lambda: asyncio.run(s.asearch(NS, query=query)),
        lambda: s.memory.retrieve(query),
    ):
        start = time.perf_counter()
        with pytest.raises(InvalidArgumentError, match="1000000"):
            call()
        timings.append(time.perf_counter() - start)
    assert embed.texts == embedded  # nothing embedded
    assert stored_state(s.memory) == before  # nothing stored
    report_figures(
        f"store-long-query-{'indexed' if indexed else 'plain'}",
        {"query_chars": len(query), "slowest_refusal_ms": round(max(timings) * 1000, 1)},
    )

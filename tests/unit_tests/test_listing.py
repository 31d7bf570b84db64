"""Listing namespaces: the cached names directory, heads read only as needed, same answers."""

from __future__ import annotations

import random
import uuid
from typing import Any

import chromadb
import pytest
from chromadb.config import Settings
from langgraph.store.base import ListNamespacesOp, MatchCondition

from langchain_tepa import Fact, HashingEmbeddings, InvalidNamespaceError, TEPAMemory, TEPAStore
from langchain_tepa.storage.chroma import ChromaStorage, codec
from langchain_tepa.storage.chroma.directory import names_under
from langchain_tepa.store import listing
from langchain_tepa.store.listing import list_active_namespaces
from langchain_tepa.store.queries import matches_condition


def _client() -> Any:
    return chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))


def _prefix() -> str:
    return f"ls{uuid.uuid4().hex[:10]}"


class _Counting:
    """Wraps a collection and counts its ``get`` calls (and the ids asked for)."""

    def __init__(self, col: Any) -> None:
        self.col = col
        self.gets = 0
        self.ids = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.col, name)

    def get(self, *args: Any, **kwargs: Any) -> Any:
        self.gets += 1
        self.ids += len(kwargs.get("ids") or [])
        return self.col.get(*args, **kwargs)


def test_names_under_keeps_label_boundaries() -> None:
    names = sorted(["a", "a.b", "a.b.c", "a.bc", "a2", "a-b", "b", "a.b-c.d"])
    assert names_under(names, "a.b") == ["a.b", "a.b.c"]
    assert names_under(names, "a") == ["a", "a.b", "a.b-c.d", "a.b.c", "a.bc"]
    assert names_under(names, "zz") == []
    assert names_under(names, "a.b-c") == ["a.b-c.d"]


def test_directory_is_read_once_then_checked_by_count() -> None:
    client, prefix = _client(), _prefix()
    memory = TEPAMemory.from_client(client, prefix=prefix, embeddings=HashingEmbeddings())
    memory.observe("k", 1, namespace="users.u1")
    memory.observe("k", 1, namespace="users.u2")
    storage = memory.storage
    assert isinstance(storage, ChromaStorage)
    names_col = _Counting(storage.collection(f"{prefix}_names", create=False))
    storage._cols[f"{prefix}_names"] = names_col
    assert storage.find_namespaces() == ["users.u1", "users.u2"]
    assert names_col.gets == 1
    for _ in range(3):
        assert storage.find_namespaces() == ["users.u1", "users.u2"]
        assert storage.find_namespaces("users.u2") == ["users.u2"]
    assert names_col.gets == 1  # only counts since


def test_directory_sees_a_namespace_registered_by_another_writer() -> None:
    client, prefix = _client(), _prefix()
    reader = TEPAMemory.from_client(client, prefix=prefix, embeddings=HashingEmbeddings())
    writer = TEPAMemory.from_client(client, prefix=prefix, embeddings=HashingEmbeddings())
    writer.observe("k", 1, namespace="a")
    assert reader.namespaces() == ["a"]
    writer.observe("k", 2, namespace="b.c")
    assert reader.namespaces() == ["a", "b.c"]
    assert reader.namespaces("b") == ["b.c"]
    assert TEPAStore(reader).list_namespaces() == [("a",), ("b", "c")]


def test_directory_records_of_an_earlier_version_are_read_by_metadata() -> None:
    client, prefix = _client(), _prefix()
    memory = TEPAMemory.from_client(client, prefix=prefix, embeddings=HashingEmbeddings())
    memory.observe("k", 1, namespace="new.one")
    col = client.get_collection(f"{prefix}_names", embedding_function=None)
    old = "old.one"  # registered as an earlier version did: metadata only, no document
    col.upsert(
        ids=[codec.head_id(old)],
        embeddings=[[1.0]],
        metadatas=[{"tepa_name": old, "tepa_pfx": ["old", "old.one"]}],
    )
    fresh = ChromaStorage(client, prefix=prefix)
    assert fresh.find_namespaces() == ["new.one", "old.one"]
    assert fresh.find_namespaces("old") == ["old.one"]


def test_listing_reads_only_the_heads_it_needs() -> None:
    client, prefix = _client(), _prefix()
    memory = TEPAMemory.from_client(client, prefix=prefix, embeddings=HashingEmbeddings())
    names = [f"users.u{i:03d}" for i in range(300)]
    memory.observe_many([Fact("k", 1, namespace=ns) for ns in names])
    storage = memory.storage
    assert isinstance(storage, ChromaStorage)
    counters = []
    for shard in range(storage.layout.shards):
        name = storage.layout.evidence(shard)
        col = storage.collection(name, create=False)
        if col is not None:
            counting = _Counting(col)
            storage._cols[name] = counting
            counters.append(counting)
    store = TEPAStore(memory)
    assert store.list_namespaces(limit=10) == [("users", f"u{i:03d}") for i in range(10)]
    asked = sum(c.ids for c in counters)
    assert 0 < asked < 100  # heads of the first chunk only, not of all 300 namespaces
    assert store.list_namespaces(limit=5, offset=295) == [
        ("users", f"u{i:03d}") for i in range(295, 300)
    ]


def _brute(memory: TEPAMemory, op: ListNamespacesOp) -> list[tuple[str, ...]]:
    """What the listing answered before it read heads lazily: all of them, then filter."""
    conditions = op.match_conditions or ()
    found = []
    for ns in memory.namespaces(active_only=True):
        labels = tuple(ns.split("."))
        if all(matches_condition(c, labels) for c in conditions):
            found.append(labels)
    if op.max_depth is not None:
        found = sorted({labels[: op.max_depth] for labels in found})
    else:
        found.sort()
    return found[op.offset : op.offset + op.limit]


@pytest.mark.parametrize("first_chunk", [1, 32])
@pytest.mark.parametrize("backend", ["memory", "chroma"])
def test_lazy_listing_equals_listing_everything(
    backend: str, first_chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(listing, "_FIRST_CHUNK", first_chunk)
    rng = random.Random(7)
    if backend == "memory":
        memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    else:
        memory = TEPAMemory.from_client(_client(), prefix=_prefix(), embeddings=HashingEmbeddings())
    labels = ["a", "a-b", "b", "c1", "x"]
    spaces: set[str] = set()
    while len(spaces) < 60:
        depth = rng.randint(1, 4)
        spaces.add(".".join(rng.choice(labels) for _ in range(depth)))
    for ns in sorted(spaces):
        memory.observe("k", 1, namespace=ns)
        if rng.random() < 0.3:  # some namespaces hold nothing Active
            memory.revoke("k", 1, namespace=ns)
    assert 0 < len(memory.namespaces(active_only=True)) < len(spaces)
    for _ in range(150):
        conditions = []
        if rng.random() < 0.5:
            path = tuple(rng.choice([*labels, "*"]) for _ in range(rng.randint(1, 2)))
            conditions.append(MatchCondition("prefix", path))
        if rng.random() < 0.3:
            conditions.append(MatchCondition("suffix", (rng.choice(labels),)))
        op = ListNamespacesOp(
            match_conditions=tuple(conditions) or None,
            max_depth=rng.choice([None, None, 1, 2, 3]),
            limit=rng.choice([0, 1, 2, 5, 100]),
            offset=rng.choice([0, 0, 1, 3, 20]),
        )
        assert list_active_namespaces(memory, op) == _brute(memory, op), op


def test_active_among_and_its_async_twin() -> None:
    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    memory.observe("k", 1, namespace="u1")
    memory.observe("k", 1, namespace="u2")
    memory.revoke("k", 1, namespace="u2")
    assert memory.active_among(["u3", "u2", "u1"]) == ["u1"]
    assert memory.active_among([]) == []
    with pytest.raises(InvalidNamespaceError):
        memory.active_among(["bad..name"])


async def test_aactive_among() -> None:
    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    memory.observe("k", 1, namespace="u1")
    assert await memory.aactive_among(["u1", "u9"]) == ["u1"]

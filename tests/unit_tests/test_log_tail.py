"""Settling an evidence shard's log tail after large pages (``storage/chroma/tail.py``).

Chroma re-reads a collection's unpersisted log records on every write to it; a ``delete`` of
``sync_threshold`` absent ids pushes the log past its next persist point. These tests check
the part that can be checked without timing: when a settle is made, that it is the delete of
reserved ids only (nothing stored changes), that it never fails a commit, and when it is not
made. What it saves is measured by ``docs/results/put_after_load.py`` (docs/performance.md).
"""

from __future__ import annotations

import uuid
from typing import Any

import chromadb
import pytest
from chromadb.config import Settings

from langchain_tepa import Fact, HashingEmbeddings, TEPAMemory
from langchain_tepa.storage.chroma import ChromaStorage, backend
from langchain_tepa.storage.chroma.layout import EVIDENCE_HNSW
from langchain_tepa.storage.chroma.tail import (
    CLOSE_BYTES,
    SETTLE_BYTES,
    LogTail,
    settle,
    settle_ids,
    sync_threshold,
)

NAMESPACE = "users.u1"


def _client() -> Any:
    return chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))


def _memory(client: Any, prefix: str) -> TEPAMemory:
    return TEPAMemory.from_client(client, prefix=prefix, embeddings=HashingEmbeddings())


def _storage(memory: TEPAMemory) -> ChromaStorage:
    storage = memory.storage
    assert isinstance(storage, ChromaStorage)
    return storage


def _facts(n: int, size: int, tag: str = "v") -> list[Fact]:
    """``n`` facts of one namespace whose values are ``size`` characters long."""
    return [Fact(f"note.k{i}", f"{tag}{i}-" + "x" * size, namespace=NAMESPACE) for i in range(n)]


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any, dict[str, Any]]]:
    """Every Chroma call a ``ChromaStorage`` makes: (operation, bound method, arguments)."""
    seen: list[tuple[str, Any, dict[str, Any]]] = []
    original = backend.ChromaStorage.call

    def spy(self: ChromaStorage, op: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append((op, fn, kwargs))
        return original(self, op, fn, *args, **kwargs)

    monkeypatch.setattr(backend.ChromaStorage, "call", spy)
    return seen


def _settles(calls: list[tuple[str, Any, dict[str, Any]]]) -> list[tuple[Any, dict[str, Any]]]:
    return [(fn, kw) for op, fn, kw in calls if op == "settle log tail"]


def _records(col: Any) -> dict[str, Any]:
    got = col.get(include=["metadatas"])
    return dict(zip(got["ids"], got["metadatas"], strict=True))


def test_a_large_commit_settles_its_shard_and_changes_nothing_stored(
    calls: list[tuple[str, Any, dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, prefix = _client(), f"lt{uuid.uuid4().hex[:10]}"
    memory = _memory(client, prefix)
    storage = _storage(memory)
    memory.observe_many(_facts(40, 100))  # small: no settle
    assert _settles(calls) == []
    around: list[dict[str, Any]] = []

    def watched(col: Any, call: Any) -> bool:  # the shard's records just before and after
        around.append(_records(col))
        made = settle(col, call)
        around.append(_records(col))
        return made

    monkeypatch.setattr(backend, "settle", watched)
    calls.clear()
    memory.observe_many(_facts(300, 2_000, tag="w"))  # a page of about 600 KB
    settles = _settles(calls)
    assert len(settles) == 1
    fn, kwargs = settles[0]
    assert fn.__self__.name == storage.layout.evidence(storage.layout.shard(NAMESPACE))
    assert kwargs == {"ids": settle_ids(32)}
    assert storage._tail.written(fn.__self__.name) == 0
    assert len(around) == 2 and around[0] == around[1] and len(around[0]) > 2
    assert not [i for i in around[1] if i.startswith("~")]
    again = _memory(client, prefix)  # what a fresh memory reads: every fact
    assert again.get("note.k7", namespace=NAMESPACE) == "w7-" + "x" * 2_000
    assert len(again.keys(namespace=NAMESPACE)) == 300


def test_small_commits_are_counted_but_not_settled(
    calls: list[tuple[str, Any, dict[str, Any]]],
) -> None:
    memory = _memory(_client(), f"lt{uuid.uuid4().hex[:10]}")
    storage = _storage(memory)
    for i in range(30):
        memory.observe(f"pref.k{i}", "yes", namespace=NAMESPACE)
    name = storage.layout.evidence(storage.layout.shard(NAMESPACE))
    assert 0 < storage._tail.written(name) < SETTLE_BYTES
    assert _settles(calls) == []


def test_a_failed_settle_does_not_fail_the_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    client, prefix = _client(), f"lt{uuid.uuid4().hex[:10]}"
    memory = _memory(client, prefix)
    storage = _storage(memory)
    memory.observe("pref.seed", "1", namespace=NAMESPACE)  # the shard's handle is cached
    name = storage.layout.evidence(storage.layout.shard(NAMESPACE))
    col = storage._cols[name]

    class Failing:
        def __getattr__(self, attr: str) -> Any:
            return getattr(col, attr)

        def delete(self, **kwargs: Any) -> None:
            raise RuntimeError("chroma went away")

    monkeypatch.setitem(storage._cols, name, Failing())
    result = memory.observe_many(_facts(300, 2_000))
    assert len(result) == 300
    assert storage._tail.written(name) == 0  # not retried at every commit
    assert _memory(client, prefix).get("note.k3", namespace=NAMESPACE) == "v3-" + "x" * 2_000


def test_close_settles_a_smaller_tail(calls: list[tuple[str, Any, dict[str, Any]]]) -> None:
    memory = _memory(_client(), f"lt{uuid.uuid4().hex[:10]}")
    storage = _storage(memory)
    memory.observe_many(_facts(60, 2_000))  # about 120 KB: under SETTLE_BYTES
    name = storage.layout.evidence(storage.layout.shard(NAMESPACE))
    assert CLOSE_BYTES <= storage._tail.written(name) < SETTLE_BYTES
    assert _settles(calls) == []
    memory.close()
    assert [fn.__self__.name for fn, _ in _settles(calls)] == [name]


def test_a_read_only_store_never_settles(calls: list[tuple[str, Any, dict[str, Any]]]) -> None:
    client, prefix = _client(), f"lt{uuid.uuid4().hex[:10]}"
    writer = _memory(client, prefix)
    writer.observe_many(_facts(60, 2_000))
    writer.close()
    calls.clear()
    reader = TEPAMemory.from_client(
        client, prefix=prefix, embeddings=HashingEmbeddings(), read_only=True
    )
    assert reader.get("note.k1", namespace=NAMESPACE) == "v1-" + "x" * 2_000
    reader.close()
    assert _settles(calls) == []


def test_only_collections_with_a_small_threshold_are_settled() -> None:
    client = _client()
    small = client.create_collection(
        f"lt{uuid.uuid4().hex[:10]}", embedding_function=None, metadata=dict(EVIDENCE_HNSW)
    )
    default = client.create_collection(f"lt{uuid.uuid4().hex[:10]}", embedding_function=None)
    assert sync_threshold(small) == 32
    assert sync_threshold(default) == 1000
    assert sync_threshold(object()) is None
    made: list[dict[str, Any]] = []

    def call(op: str, fn: Any, **kwargs: Any) -> Any:
        made.append(kwargs)
        return fn(**kwargs)

    small.add(ids=["a", "b"], embeddings=[[1.0], [2.0]], metadatas=[{"x": 1}, {"x": 2}])
    assert settle(small, call) is True
    assert settle(default, call) is False
    assert made == [{"ids": settle_ids(32)}]
    assert sorted(small.get(include=[])["ids"]) == ["a", "b"]


def test_log_tail_counts_string_values_per_collection() -> None:
    tail = LogTail(limit=10)
    tail.add("c1", [{"a": "12345", "n": 123456789, "f": 1.5}, None, {}])
    tail.add("c2", [{"a": "x" * 20}])
    assert tail.written("c1") == 5
    assert not tail.due("c1") and tail.due("c2")
    assert tail.names() == ["c2"] and tail.names(limit=1) == ["c1", "c2"]
    tail.reset("c2")
    assert tail.written("c2") == 0
    assert len(set(settle_ids(64))) == 64 and all(i.startswith("~") for i in settle_ids(64))

"""Scans under a prefix (``scan_namespaces``, ``answer_tables_under``) and the names directory.

A scan must see every namespace registered below the prefix by another writer (another process)
before it began, and equal ``find_namespaces`` followed by ``read_heads`` on every backend.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import chromadb
from chromadb.config import Settings

from langchain_tepa import Fact, HashingEmbeddings, TEPAMemory
from langchain_tepa.memory.documents import copy_value
from langchain_tepa.storage import InMemoryStorage
from langchain_tepa.storage.chroma import ChromaStorage
from langchain_tepa.storage.chroma.directory import NamesDirectory

INDEX: Any = {"dims": 64, "embed": HashingEmbeddings(size=64), "fields": ["text"]}


def _client() -> Any:
    return chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))


def _two(client: Any, **kwargs: Any) -> tuple[TEPAMemory, TEPAMemory]:
    """Two memories on one store, each with its own storage object (as two processes)."""
    prefix = f"sc{uuid.uuid4().hex[:10]}"
    a = TEPAMemory(ChromaStorage(client, prefix=prefix, **kwargs), embeddings=HashingEmbeddings())
    b = TEPAMemory(ChromaStorage(client, prefix=prefix, **kwargs), embeddings=HashingEmbeddings())
    return a, b


def _calls(storage: ChromaStorage) -> list[str]:
    """Record the name of every Chroma call ``storage`` makes."""
    ops: list[str] = []
    original = storage.call

    def call(op: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        ops.append(op)
        return original(op, fn, *args, **kwargs)

    storage.call = call  # type: ignore[method-assign]
    return ops


def test_a_child_registered_by_another_writer_is_seen_by_the_next_scan() -> None:
    a, b = _two(_client())
    a.observe("k", 1, namespace="users.u1")
    assert list(b.answer_tables_under("users.u1")) == ["users.u1"]
    assert list(b.answer_tables_under("users.u1")) == ["users.u1"]  # names now held
    a.observe("k", 2, namespace="users.u1.notes")  # registered by the other writer
    tables = b.answer_tables_under("users.u1")
    assert list(tables) == ["users.u1", "users.u1.notes"]
    assert [r.value for r in tables["users.u1.notes"].rows] == [2]
    a.observe("k", 3, namespace="users.u1.notes.deep.er")  # two levels further down
    assert list(b.answer_tables_under("users.u1")) == [
        "users.u1",
        "users.u1.notes",
        "users.u1.notes.deep.er",
    ]
    assert list(b.answer_tables_under("users")) == [
        "users.u1",
        "users.u1.notes",
        "users.u1.notes.deep.er",
    ]


def test_a_prefix_that_becomes_a_namespace_is_seen_by_its_head() -> None:
    a, b = _two(_client())
    a.observe("k", 1, namespace="other")
    assert b.answer_tables_under("users.u9") == {}
    assert b.answer_tables_under("users.u9") == {}  # names held
    a.observe("k", 1, namespace="users.u9")  # registered by the other writer
    tables = b.answer_tables_under("users.u9")
    assert list(tables) == ["users.u9"] and [r.value for r in tables["users.u9"].rows] == [1]


def test_the_scan_equals_find_namespaces_and_read_heads_on_every_backend() -> None:
    client = _client()
    prefix = f"sc{uuid.uuid4().hex[:10]}"
    for storage in (InMemoryStorage(), ChromaStorage(client, prefix=prefix)):
        memory = TEPAMemory(storage, embeddings=HashingEmbeddings())
        for ns in ("a", "a.b", "a.b.c", "a2", "ab.c"):
            memory.observe("k", ns, namespace=ns)
        for pfx in ("a", "a.b", "a2", "ab", "zz"):
            for limit in (0, 1, 2, 256):
                scan = storage.scan_namespaces(pfx, heads=limit)
                names = storage.find_namespaces(pfx)
                assert list(scan.names) == names
                assert scan.read == frozenset(names[:limit])
                assert dict(scan.heads) == storage.read_heads(names[:limit])


def test_the_directory_never_forgets_names_a_racing_read_missed() -> None:
    class Col:
        id = "c"

        def __init__(self, names: list[str]) -> None:
            self.names = names

        def count(self) -> int:
            return len(self.names)

        def get(self, **kwargs: Any) -> dict[str, Any]:
            return {"ids": list(self.names), "documents": list(self.names)}

    class Storage:
        def call(self, op: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            return fn(*args, **kwargs)

    directory = NamesDirectory()  # epoch None: the storage cannot vouch, counts every time
    assert directory.names(Col(["a", "b"]), Storage(), None) == ("a", "b")  # type: ignore[arg-type]
    # A thread that read the directory earlier (one name) stores its read last:
    assert directory.names(Col(["a"]), Storage(), None) == ("a", "b")  # type: ignore[arg-type]


def test_copy_value_copies_json_values_deeply() -> None:
    value = {"text": "x", "tags": ["a", {"n": [1, 2]}], "none": None}
    got = copy_value(value)
    assert got == value
    got["tags"][1]["n"].append(3)
    assert value["tags"][1]["n"] == [1, 2]
    assert copy_value((1, [2])) == (1, [2]) and copy_value((1, [2]))[1] is not (1, [2])[1]


def test_a_writer_that_never_saw_the_parent_looks_for_its_head() -> None:
    client = _client()
    prefix = f"sc{uuid.uuid4().hex[:10]}"
    a, b, c = (
        TEPAMemory(ChromaStorage(client, prefix=prefix), embeddings=HashingEmbeddings())
        for _ in range(3)
    )
    a.observe("k", 1, namespace="users.u1")
    assert list(b.answer_tables_under("users.u1")) == ["users.u1"]
    c.observe("k", 2, namespace="users.u1.notes")  # c has never read users.u1's head
    assert list(b.answer_tables_under("users.u1")) == ["users.u1", "users.u1.notes"]


def test_the_names_directory_is_read_in_pages(monkeypatch: Any) -> None:
    """A directory larger than one page is read whole, in several ``get`` calls."""
    import langchain_tepa.storage.chroma.directory as directory

    monkeypatch.setattr(directory, "_PAGE", 3)
    a, b = _two(_client())
    names = [f"users.u{i}" for i in range(8)]
    a.observe_many([Fact("k", "v", namespace=ns) for ns in names])
    calls: list[str] = []
    storage = b.storage
    assert isinstance(storage, ChromaStorage)
    real_call = storage.call

    def spy(what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(what)
        return real_call(what, fn, *args, **kwargs)

    monkeypatch.setattr(storage, "call", spy)
    assert set(names) <= set(b.namespaces())
    assert calls.count("read names") >= 3  # 8 names (and the default) in pages of 3


def test_a_fresh_reader_reads_the_names_after_the_name_pages_in_pages(
    monkeypatch: Any,
) -> None:
    """The tail after the name pages is read in pages too, from where the pages end."""
    import langchain_tepa.storage.chroma.directory as directory
    from langchain_tepa.storage.chroma import name_pages

    monkeypatch.setattr(directory, "_PAGE", 3)
    monkeypatch.setattr(name_pages, "BLOCK", 4)
    a, b = _two(_client())
    a.observe_many([Fact("k", "v", namespace=f"users.u{i}") for i in range(6)])
    truth = b.namespaces()  # 6 records: block 0 gets a page
    a.observe_many([Fact("k", "v", namespace=f"users.w{i}") for i in range(7)])
    first = a.storage
    assert isinstance(first, ChromaStorage)
    storage = ChromaStorage(first.client, prefix=first.prefix)  # as another process
    fresh = TEPAMemory(storage, embeddings=HashingEmbeddings())
    offsets: list[Any] = []
    real_call = storage.call

    def spy(what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        if what == "read names":
            offsets.append(kwargs.get("offset"))
        return real_call(what, fn, *args, **kwargs)

    monkeypatch.setattr(storage, "call", spy)
    got = fresh.namespaces()
    assert set(truth) < set(got) and len(got) == 13
    assert offsets == [4, 7, 10, 13]  # from block 1 on, 3 records a read

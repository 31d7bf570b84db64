"""Write epochs on the store's read path: searches under a prefix, listings, the names directory.

A store opened with ``from_path`` holds its folder's lock, so every write goes through this
process and moves a write epoch (``storage/chroma/epochs.py``): per shard for heads, and
``NAMES_SLOT`` for the names directory. ``TEPAStore.search`` (``answer_tables_under``),
``list_namespaces`` and ``memory.namespaces()`` then skip the directory ``count``, the prefix's
head and token, and the heads they counted before, while nothing was registered or written.

What must not change, and the mutation each guard test catches:

* a store that cannot vouch (``from_client``) sees writes that move no epoch of this process
  (another process, simulated by a storage without epochs) exactly as before: fails if a skip
  trusts an unchanged epoch without the store vouching for it;
* a registration or write racing the ``count`` or a head read of a ``from_path`` store is seen
  by its next call: fails if the epoch is read *after* the ``count`` or the heads (the epoch
  would already include the racing write, and the next call would skip it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import chromadb
import pytest
from chromadb.api.models.Collection import Collection
from chromadb.config import Settings

from langchain_tepa import HashingEmbeddings, TEPAMemory, TEPAStore
from langchain_tepa.storage.chroma import ChromaStorage
from langchain_tepa.store import store_policy

INDEX: Any = {"dims": 64, "embed": HashingEmbeddings(size=64), "fields": ["text"]}
PREFIX = "tepa_store"  # TEPAStore.from_path's


def _from_path(folder: Path) -> TEPAStore:
    return TEPAStore.from_path(
        folder, index=INDEX, embeddings=HashingEmbeddings(), flush_interval_s=600.0
    )


def _from_client(folder: Path, *, epochs: bool = True) -> TEPAStore:
    """A store on a client the caller made (it cannot vouch); ``epochs=False``: its writes
    move no epoch of this process, as another process's would."""
    client = chromadb.PersistentClient(
        path=str(folder), settings=Settings(anonymized_telemetry=False)
    )
    memory = TEPAMemory.from_client(
        client, prefix=PREFIX, policy=store_policy(), embeddings=HashingEmbeddings()
    )
    if not epochs:
        assert isinstance(memory.storage, ChromaStorage)
        memory.storage._epochs = None
    return TEPAStore(memory, index=INDEX)


@pytest.fixture
def chroma_calls() -> Iterator[list[str]]:
    """Every Chroma collection call of the process, as ``"method:collection"``."""
    calls: list[str] = []

    def spy(name: str) -> Callable[..., Any]:
        real = getattr(Collection, name)

        def call(self: Collection, *args: Any, **kwargs: Any) -> Any:
            calls.append(f"{name}:{self.name}")
            return real(self, *args, **kwargs)

        return call

    with pytest.MonkeyPatch.context() as mp:
        for name in ("get", "count", "query", "peek", "upsert", "add", "update", "delete"):
            mp.setattr(Collection, name, spy(name))
        yield calls


def _fill(store: TEPAStore, users: range) -> None:
    for u in users:
        store.put(("users", f"u{u}"), "tea", {"text": f"user {u} drinks green tea"})


def _reads(store: TEPAStore) -> dict[str, Callable[[], Any]]:
    """The read calls this change concerns, each giving what it found."""
    return {
        "search one user": lambda: sorted(
            i.key for i in store.search(("users", "u1"), query="tea")
        ),
        "search all users": lambda: sorted(
            (i.namespace, i.key) for i in store.search(("users",), query="tea", limit=50)
        ),
        "list_namespaces": lambda: store.list_namespaces(prefix=("users",)),
        "namespaces": lambda: store.memory.namespaces("users"),
        "namespaces active": lambda: store.memory.namespaces("users", active_only=True),
    }


# ---------------------------------------------------------------- the skip happens
def test_a_from_path_store_searches_and_lists_without_chroma_calls_while_nothing_is_written(
    tmp_path: Path, chroma_calls: list[str]
) -> None:
    store = _from_path(tmp_path)
    _fill(store, range(4))
    reads = _reads(store)
    first = {name: read() for name, read in reads.items()}  # the scans and counts happen here
    for name, read in reads.items():
        chroma_calls.clear()
        assert read() == first[name]
        assert chroma_calls == [], name
    store.memory.close()


def test_a_write_costs_a_head_read_in_its_shard_and_a_registration_one_count(
    tmp_path: Path, chroma_calls: list[str]
) -> None:
    reader = _from_path(tmp_path)
    writer = _from_path(tmp_path)  # another store of the process on the same folder
    _fill(writer, range(4))
    reads = _reads(reader)
    for read in reads.values():
        read()
    writer.put(("users", "u1"), "coffee", {"text": "user 1 drinks black coffee too"})
    chroma_calls.clear()
    assert reads["search one user"]() == ["coffee", "tea"]  # read-your-writes across stores
    assert chroma_calls and all(c.startswith("get:") for c in chroma_calls)  # heads, no count
    chroma_calls.clear()
    assert reads["search one user"]() == ["coffee", "tea"]
    assert chroma_calls == []
    writer.put(("users", "u9"), "tea", {"text": "user 9 drinks green tea"})  # registers u9
    chroma_calls.clear()
    assert ("users", "u9") in reads["list_namespaces"]()
    assert "count:tepa_store_names" in chroma_calls
    assert (("users", "u9"), "tea") in reads["search all users"]()
    chroma_calls.clear()
    assert "users.u9" in reads["namespaces active"]()
    assert reads["search all users"]()
    assert chroma_calls == []
    writer.memory.close()
    reader.memory.close()


# ---------------------------------------------------------------- guards
def test_a_store_that_cannot_vouch_sees_every_write_of_another_process(tmp_path: Path) -> None:
    """Guard: a skip applied without the store vouching for the epoch misses these writes."""
    seed = _from_path(tmp_path)
    _fill(seed, range(3))
    seed.memory.close()
    reader = _from_client(tmp_path)
    other = _from_client(tmp_path, epochs=False)  # as another process: moves no epoch here
    reads = _reads(reader)
    before = {name: read() for name, read in reads.items()}
    other.put(("users", "u1"), "coffee", {"text": "user 1 drinks black coffee too"})
    other.put(("users", "u7"), "tea", {"text": "user 7 drinks green tea"})
    other.delete(("users", "u2"), "tea")  # u2 has no Active item any more
    after = {name: read() for name, read in reads.items()}
    assert before["search one user"] == ["tea"]
    assert after["search one user"] == ["coffee", "tea"]
    assert (("users", "u7"), "tea") in after["search all users"]
    assert (("users", "u2"), "tea") not in after["search all users"]
    assert ("users", "u7") in after["list_namespaces"]
    assert ("users", "u2") not in after["list_namespaces"]
    assert "users.u7" in after["namespaces"]
    assert "users.u7" in after["namespaces active"]
    assert "users.u2" not in after["namespaces active"]
    reader.memory.close()
    other.memory.close()


def test_from_client_stores_read_the_heads_and_count_on_every_call(
    tmp_path: Path, chroma_calls: list[str]
) -> None:
    """Unchanged for stores that cannot vouch: the same Chroma calls on every repeat."""
    store = _from_client(tmp_path)
    assert store.memory.storage.local_epoch("users.u1") is None
    _fill(store, range(3))
    for name, read in _reads(store).items():
        read()
        chroma_calls.clear()
        read()
        again = list(chroma_calls)
        chroma_calls.clear()
        read()
        assert chroma_calls == again != [], name
        if name != "search one user":  # that one reads the prefix's head and token instead
            assert "count:tepa_store_names" in again, name
    store.memory.close()


def _once(
    after: Callable[[], Any], *, at: int = 1
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Wrap a call so that ``after`` runs once, right after the ``at``-th real call returned."""

    def wrap(real: Callable[..., Any]) -> Callable[..., Any]:
        calls = {"n": 0}

        def call(*args: Any, **kwargs: Any) -> Any:
            out = real(*args, **kwargs)
            calls["n"] += 1
            if calls["n"] == at:
                after()
            return out

        return call

    return wrap


def test_a_registration_racing_the_directory_count_is_seen_by_the_next_listing(
    tmp_path: Path,
) -> None:
    """Guard: with the names epoch read after the ``count``, u9 would never be listed.

    The reader's names are read while u3's registration is stored but its epoch not yet
    moved, so its next listing finds the epoch moved and a ``count`` equal to the names held
    (no read after it); u9 is registered right after that ``count``.
    """
    reader = _from_path(tmp_path)
    writer = _from_path(tmp_path)
    _fill(writer, range(3))
    wrote = writer.memory.storage
    assert isinstance(wrote, ChromaStorage)
    in_flight = _once(lambda: reader.memory.namespaces("users"))
    wrote._register = in_flight(wrote._register)  # type: ignore[method-assign]
    writer.put(("users", "u3"), "tea", {"text": "user 3"})
    storage = reader.memory.storage
    assert isinstance(storage, ChromaStorage)
    names = storage._names(create=False)
    race = _once(lambda: writer.put(("users", "u9"), "tea", {"text": "user 9"}))
    names.count = race(names.count)
    assert reader.memory.namespaces("users") == [f"users.u{i}" for i in range(4)]  # raced
    assert "users.u9" in reader.memory.namespaces("users")
    assert ("users", "u9") in reader.list_namespaces(prefix=("users",))
    reader.memory.close()
    writer.memory.close()


def test_a_registration_racing_the_count_after_a_directory_read_is_seen_next(
    tmp_path: Path,
) -> None:
    """Guard: with the names epoch read at the end of the read, u9 would never be listed.

    u3's registration makes the reader's next listing count, read the new records and count
    again to accept them; u9 is registered right after that second ``count``.
    """
    reader = _from_path(tmp_path)
    writer = _from_path(tmp_path)
    _fill(writer, range(3))
    assert reader.memory.namespaces("users") == [f"users.u{i}" for i in range(3)]
    writer.put(("users", "u3"), "tea", {"text": "user 3"})
    storage = reader.memory.storage
    assert isinstance(storage, ChromaStorage)
    names = storage._names(create=False)
    race = _once(lambda: writer.put(("users", "u9"), "tea", {"text": "user 9"}), at=2)
    names.count = race(names.count)
    assert reader.memory.namespaces("users") == [f"users.u{i}" for i in range(4)]  # raced
    assert "users.u9" in reader.memory.namespaces("users")
    reader.memory.close()
    writer.memory.close()


def test_a_write_racing_the_scan_s_head_read_is_seen_by_the_next_search(tmp_path: Path) -> None:
    """Guard: with the scan's epochs read after its heads, coffee would never be found."""
    writer = _from_path(tmp_path)
    _fill(writer, range(3))
    reader = _from_path(tmp_path)
    reader._indexed = False  # the fold's scan, not the answer index
    assert reader.memory.namespaces("users")  # the names held; u1 itself not yet
    storage = reader.memory.storage
    assert isinstance(storage, ChromaStorage)
    race = _once(lambda: writer.put(("users", "u1"), "coffee", {"text": "user 1 coffee"}))
    storage.read_heads = race(storage.read_heads)  # type: ignore[method-assign]
    reader.search(("users", "u1"), query="tea")  # first touch: the scan, raced
    assert sorted(i.key for i in reader.search(("users", "u1"), query="tea")) == ["coffee", "tea"]
    reader.memory.close()
    writer.memory.close()


def test_a_write_racing_a_listing_s_head_read_is_seen_by_the_next_listing(
    tmp_path: Path,
) -> None:
    """Guard: with the epochs read after the heads, u2 would stay listed with no Active item."""
    writer = _from_path(tmp_path)
    _fill(writer, range(3))
    reader = _from_path(tmp_path)
    storage = reader.memory.storage
    assert isinstance(storage, ChromaStorage)
    race = _once(lambda: writer.delete(("users", "u2"), "tea"))
    storage.read_heads = race(storage.read_heads)  # type: ignore[method-assign]
    reader.list_namespaces(prefix=("users",))  # raced
    assert reader.list_namespaces(prefix=("users",)) == [("users", "u0"), ("users", "u1")]
    assert reader.memory.namespaces("users", active_only=True) == ["users.u0", "users.u1"]
    reader.memory.close()
    writer.memory.close()


def test_a_closed_store_or_a_forked_child_cannot_vouch_for_the_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    store = _from_path(tmp_path)
    _fill(store, range(2))
    storage = store.memory.storage
    assert isinstance(storage, ChromaStorage)
    store.memory.namespaces()
    assert storage.names_epoch() is not None
    assert storage.namespaces_if_unchanged("users") == ["users.u0", "users.u1"]
    pid = os.getpid()
    monkeypatch.setattr(os, "getpid", lambda: pid + 1)
    assert storage.names_epoch() is None  # the parent may register too
    assert storage.namespaces_if_unchanged("users") is None
    monkeypatch.undo()
    store.memory.close()
    assert storage.names_epoch() is None  # the lock is released

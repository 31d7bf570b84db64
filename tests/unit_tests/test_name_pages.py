"""Name pages: a process's first listing reads copies of the names directory, never fewer names.

Each test uses pages of 3 names (``name_pages.BLOCK``) so that a few namespaces span several
pages. Readers are separate ``ChromaStorage`` objects on one client, as separate processes are.
"""

from __future__ import annotations

import logging
import random
import uuid
from collections.abc import Callable
from typing import Any

import chromadb
import pytest
from chromadb.config import Settings
from chromadb.errors import NotFoundError

from langchain_tepa import Fact, HashingEmbeddings, TEPAMemory, TEPAStore
from langchain_tepa.core.errors import StorageError
from langchain_tepa.storage.chroma import ChromaStorage, codec, directory, name_pages


@pytest.fixture(autouse=True)
def _small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(name_pages, "BLOCK", 3)


def _client() -> Any:
    return chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))


def _prefix() -> str:
    return f"np{uuid.uuid4().hex[:10]}"


def _memory(client: Any, prefix: str) -> TEPAMemory:
    return TEPAMemory(ChromaStorage(client, prefix=prefix), embeddings=HashingEmbeddings())


def _spy(storage: ChromaStorage) -> list[tuple[str, Any]]:
    """Record each Chroma call of ``storage``: its name and its ``offset`` (reads of names)."""
    calls: list[tuple[str, Any]] = []
    original = storage.call

    def call(op: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        calls.append((op, kwargs.get("offset")))
        return original(op, fn, *args, **kwargs)

    storage.call = call  # type: ignore[method-assign]
    return calls


def _registered(client: Any, prefix: str) -> list[str]:
    """The truth: every name in the directory collection, read directly."""
    # Looked up by name, not found in list_collections(): every ephemeral client of the process
    # shares one Chroma, and listing all the collections earlier tests left there grows slow.
    try:
        col = client.get_collection(f"{prefix}_names", embedding_function=None)
    except NotFoundError:
        return []
    return sorted(col.get(include=["documents"])["documents"])


def _pages(client: Any, prefix: str) -> dict[str, list[str]]:
    """The name pages stored: id -> names."""
    import json

    meta = client.get_collection(f"{prefix}_meta", embedding_function=None)
    got = meta.get(where={"tepa_kind": name_pages.PAGE_KIND}, include=["documents"])
    return {i: json.loads(d) for i, d in zip(got["ids"], got["documents"], strict=True)}


def _write(memory: TEPAMemory, names: list[str]) -> None:
    memory.observe_many([Fact("k", "v", namespace=ns) for ns in names])


def _storage(memory: TEPAMemory) -> ChromaStorage:
    storage = memory.storage
    assert isinstance(storage, ChromaStorage)
    return storage


# ------------------------------------------------------------------------- pure parts
def test_page_helpers() -> None:
    assert name_pages.decode_page(name_pages.encode_page(["a", "b.c", "é"]), 3) == ("a", "b.c", "é")
    assert name_pages.decode_page(name_pages.encode_page(["a", "b"]), 3) is None  # short
    assert name_pages.decode_page("not json", 3) is None
    assert name_pages.decode_page('["a", 1, "b"]', 3) is None
    assert name_pages.decode_page(None, 3) is None
    assert name_pages.chain_end(set()) == 0 and name_pages.chain_end({1, 2}) == 0
    assert name_pages.chain_end({0, 1, 2, 4}) == 3
    run = list("abcdefgh")  # positions 1 .. 8
    assert name_pages.full_blocks(1, run, set()) == {1: ["c", "d", "e"], 2: ["f", "g", "h"]}
    assert name_pages.full_blocks(1, run, {1}) == {2: ["f", "g", "h"]}
    assert name_pages.full_blocks(0, run[:2], set()) == {}
    assert name_pages.page_id("dir", 4) == "names.dir.3.4"  # the block size is part of the id


# ------------------------------------------------------------------------- reading
def test_a_first_listing_leaves_pages_and_the_next_process_reads_only_the_rest() -> None:
    client, prefix = _client(), _prefix()
    _write(_memory(client, prefix), [f"users.u{i}" for i in range(8)])
    truth = _registered(client, prefix)
    first = ChromaStorage(client, prefix=prefix)
    calls = _spy(first)
    assert first.find_namespaces() == truth
    assert ("read names", 0) in calls  # no pages yet: the whole directory
    blocks = len(truth) // 3
    assert len(_pages(client, prefix)) == blocks
    fresh = ChromaStorage(client, prefix=prefix)
    calls = _spy(fresh)
    assert fresh.find_namespaces() == truth
    assert [c for c in calls if c[0] == "read names"] == [("read names", 3 * blocks)]
    assert [op for op, _ in calls].count("read name pages") == 1
    assert "write name pages" not in [op for op, _ in calls]


def test_a_later_listing_in_the_same_process_reads_only_the_new_records() -> None:
    client, prefix = _client(), _prefix()
    writer = _memory(client, prefix)
    _write(writer, ["a", "b", "c", "d"])
    reader = ChromaStorage(client, prefix=prefix)
    held = reader.find_namespaces()
    _write(writer, ["e", "f"])
    calls = _spy(reader)
    assert reader.find_namespaces() == _registered(client, prefix)
    assert [c for c in calls if c[0] == "read names"] == [("read names", len(held))]
    assert "read name pages" not in [op for op, _ in calls]


def test_a_registration_by_another_memory_is_never_missed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Random interleavings of writers, long-lived readers and fresh readers."""
    monkeypatch.setattr(directory, "_PAGE", 2)
    for seed in range(4):
        rng = random.Random(seed)
        client, prefix = _client(), _prefix()
        writers = [_memory(client, prefix) for _ in range(2)]
        readers = [ChromaStorage(client, prefix=prefix) for _ in range(2)]
        registered: set[str] = set()
        for step in range(30):
            roll = rng.random()
            if roll < 0.5:
                names = [
                    f"t{rng.randrange(40)}.n{rng.randrange(3)}" for _ in range(rng.randint(1, 4))
                ]
                _write(rng.choice(writers), names)
                registered.update(names)
            else:
                reader = ChromaStorage(client, prefix=prefix) if roll < 0.7 else rng.choice(readers)
                got = reader.find_namespaces()
                assert registered <= set(got), (seed, step, sorted(registered - set(got)))
                assert got == _registered(client, prefix), (seed, step)


def test_a_registration_racing_the_read_is_read_before_the_listing_answers() -> None:
    client, prefix = _client(), _prefix()
    writer = _memory(client, prefix)
    _write(writer, [f"n{i}" for i in range(7)])
    ChromaStorage(client, prefix=prefix).find_namespaces()  # pages of blocks 0 and 1
    reader = ChromaStorage(client, prefix=prefix)
    original = reader.call
    raced: list[str] = []

    def call(op: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        out = original(op, fn, *args, **kwargs)
        if op == "read names" and not raced:  # another process registers right after the read
            raced.append("late")
            _write(writer, ["late"])
        return out

    reader.call = call  # type: ignore[method-assign]
    got = reader.find_namespaces()
    assert raced and "late" in got and got == _registered(client, prefix)


def test_a_page_that_is_not_its_block_hides_no_name() -> None:
    """A page whose names are not its block's (the records moved): the count catches it.

    Without the count after the read, the name of position 0 would be missed.
    """
    client, prefix = _client(), _prefix()
    _write(_memory(client, prefix), [f"n{i}" for i in range(7)])
    ChromaStorage(client, prefix=prefix).find_namespaces()
    truth = _registered(client, prefix)
    meta = client.get_collection(f"{prefix}_meta", embedding_function=None)
    names_col = client.get_collection(f"{prefix}_names", embedding_function=None)
    in_order = names_col.get(include=["documents"])["documents"]  # Chroma's order
    pid = name_pages.page_id(str(names_col.id), 0)
    good = meta.get(ids=[pid], include=["documents"])["documents"][0]
    assert name_pages.decode_page(good, 3) == tuple(in_order[:3])
    shifted = name_pages.encode_page(in_order[1:4])  # positions 1-3 where 0-2 belong
    meta.upsert(ids=[pid], embeddings=[[1.0]], documents=[shifted])
    fresh = ChromaStorage(client, prefix=prefix)
    calls = _spy(fresh)
    got = fresh.find_namespaces()
    assert got == truth and in_order[0] in got
    assert ("read names", 0) in calls  # the whole directory, after the count disagreed
    assert meta.get(ids=[pid], include=["documents"])["documents"][0] == good  # written again


def test_a_listing_after_a_crash_between_page_writes_reads_from_the_first_missing_page() -> None:
    client, prefix = _client(), _prefix()
    _write(_memory(client, prefix), [f"n{i}" for i in range(7)])
    ChromaStorage(client, prefix=prefix).find_namespaces()
    names_id = str(client.get_collection(f"{prefix}_names", embedding_function=None).id)
    meta = client.get_collection(f"{prefix}_meta", embedding_function=None)
    meta.delete(ids=[name_pages.page_id(names_id, 0)])  # block 1's page stored, block 0's not
    fresh = ChromaStorage(client, prefix=prefix)
    calls = _spy(fresh)
    assert fresh.find_namespaces() == _registered(client, prefix)
    assert [c for c in calls if c[0] == "read names"] == [("read names", 0)]
    assert name_pages.page_id(names_id, 0) in _pages(client, prefix)  # the gap is filled


def test_pages_belong_to_one_directory_collection() -> None:
    """A store whose names collection was deleted and made again never reads the old pages."""
    client, prefix = _client(), _prefix()
    _write(_memory(client, prefix), [f"old{i}" for i in range(7)])
    ChromaStorage(client, prefix=prefix).find_namespaces()
    assert _pages(client, prefix)
    client.delete_collection(f"{prefix}_names")
    _write(_memory(client, prefix), ["new1", "new2", "new3", "new4"])
    assert ChromaStorage(client, prefix=prefix).find_namespaces() == [
        "new1",
        "new2",
        "new3",
        "new4",
    ]


def test_read_only_readers_write_no_pages() -> None:
    client, prefix = _client(), _prefix()
    _write(_memory(client, prefix), [f"n{i}" for i in range(7)])
    reader = ChromaStorage(client, prefix=prefix, read_only=True)
    assert reader.find_namespaces() == _registered(client, prefix)
    assert _pages(client, prefix) == {}


def test_a_refused_page_write_is_logged_and_the_listing_answers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client, prefix = _client(), _prefix()
    _write(_memory(client, prefix), [f"n{i}" for i in range(7)])
    reader = ChromaStorage(client, prefix=prefix)
    original = reader.call

    def call(op: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if op == "write name pages":
            raise StorageError("disk full")
        return original(op, fn, *args, **kwargs)

    reader.call = call  # type: ignore[method-assign]
    with caplog.at_level(logging.WARNING, logger="langchain_tepa"):
        assert reader.find_namespaces() == _registered(client, prefix)
    assert "name pages not stored" in caplog.text
    assert _pages(client, prefix) == {}


def test_records_of_an_earlier_version_are_paged_by_metadata() -> None:
    client, prefix = _client(), _prefix()
    col = ChromaStorage(client, prefix=prefix)._names(create=True)
    old = [f"old.n{i}" for i in range(4)]  # registered as an earlier version did: no document
    col.upsert(
        ids=[codec.head_id(ns) for ns in old],
        embeddings=[[1.0]] * len(old),
        metadatas=[{"tepa_name": ns, "tepa_pfx": ["old", ns]} for ns in old],
    )
    _write(_memory(client, prefix), ["new.a", "new.b"])
    truth = sorted([*old, "new.a", "new.b"])
    assert ChromaStorage(client, prefix=prefix).find_namespaces() == truth
    assert sorted(n for page in _pages(client, prefix).values() for n in page) == truth
    fresh = ChromaStorage(client, prefix=prefix)
    calls = _spy(fresh)
    assert fresh.find_namespaces() == truth
    assert [c for c in calls if c[0] == "read names"] == [("read names", 6)]


async def test_the_async_twins_list_from_pages() -> None:
    client, prefix = _client(), _prefix()
    _write(_memory(client, prefix), [f"users.u{i}" for i in range(7)])
    assert _memory(client, prefix).namespaces() == _registered(client, prefix)  # pages written
    fresh = _memory(client, prefix)
    assert await fresh.anamespaces() == _registered(client, prefix)
    listed = await TEPAStore(_memory(client, prefix)).alist_namespaces(prefix=("users",))
    assert listed == [("users", f"u{i}") for i in range(7)]


def test_many_pages_are_written_and_read_in_several_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(name_pages, "_WRITE_BYTES", 10)  # one page per upsert
    monkeypatch.setattr(name_pages, "_READ_IDS", 2)  # two page ids per read
    client, prefix = _client(), _prefix()
    _write(_memory(client, prefix), [f"n{i:02d}" for i in range(10)])
    first = ChromaStorage(client, prefix=prefix)
    calls = _spy(first)
    truth = _registered(client, prefix)
    assert first.find_namespaces() == truth
    blocks = len(truth) // 3
    assert [op for op, _ in calls].count("write name pages") == blocks
    fresh = ChromaStorage(client, prefix=prefix)
    calls = _spy(fresh)
    assert fresh.find_namespaces() == truth
    assert [op for op, _ in calls].count("read name pages") == -(-blocks // 2)
    assert [c for c in calls if c[0] == "read names"] == [("read names", 3 * blocks)]

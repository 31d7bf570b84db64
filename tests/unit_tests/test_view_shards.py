"""Precedent views in view shards of their own.

A reader folds heads and pages and never reads views, so with views apart a reader never makes
Chroma load them; views are written before the view marks that vouch for them.
"""

from __future__ import annotations

import random
import uuid
from typing import Any

import chromadb
import pytest
from chromadb.config import Settings

from langchain_tepa import Fact, HashingEmbeddings, TEPAMemory
from langchain_tepa.core.errors import StorageError
from langchain_tepa.storage.chroma import ChromaStorage, views
from tests.support.facts import random_facts
from tests.support.stored import lagging_views, stored_view_dicts

NAMESPACES = [f"users.u{i:03d}" for i in range(60)]
_VIEWS: dict[str, Any] = {"tepa_state": {"$in": ["hypothesis", "active", "revoked"]}}


def _client() -> Any:
    return chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))


def _prefix() -> str:
    return f"vs{uuid.uuid4().hex[:10]}"


def _memory(client: Any, prefix: str, **kwargs: Any) -> TEPAMemory:
    return TEPAMemory.from_client(client, prefix=prefix, embeddings=HashingEmbeddings(), **kwargs)


def _storage(memory: TEPAMemory) -> ChromaStorage:
    storage = memory.storage
    assert isinstance(storage, ChromaStorage)
    return storage


def _views_in(storage: ChromaStorage, kind: str) -> int:
    """View records (records with a lifecycle state) in every ``e`` or ``w`` collection."""
    total = 0
    for shard in range(storage.layout.shards):
        col = storage.collection(f"{storage.prefix}_{kind}{shard:02d}", create=False)
        if col is not None:
            got = col.get(where=_VIEWS, include=[])
            total += len(got["ids"])
    return total


def _write(memory: TEPAMemory, seed: int = 3) -> None:
    """Mixed batches, single writes and a revocation, then a flush."""
    rng = random.Random(seed)
    for _ in range(3):
        memory.observe_many(random_facts(rng, 80, NAMESPACES))
    for ns in NAMESPACES[:10]:
        memory.observe("user.diet", "vegan", namespace=ns)
    for _ in range(4):
        memory.observe("user.diet", "carnivore", namespace=NAMESPACES[0])
    memory.flush()


# ---------------------------------------------------------------------- views
def test_views_live_in_view_shards_and_equal_the_fold() -> None:
    client, prefix = _client(), _prefix()
    memory = _memory(client, prefix)
    storage = _storage(memory)
    assert storage.layout.version == 5
    assert not storage.views_with_pages
    _write(memory)
    precedents = sum(len(memory.precedents(namespace=ns)) for ns in NAMESPACES)
    assert _views_in(storage, "e") == 0
    assert _views_in(storage, "w") == precedents > 0
    assert lagging_views(storage, memory.policy) == 0
    stored = stored_view_dicts(storage)
    for ns in NAMESPACES:
        for p in memory.precedents(namespace=ns):
            assert stored[p.id]["state"] == p.state.value


def test_a_reader_never_opens_a_view_shard() -> None:
    client, prefix = _client(), _prefix()
    _write(_memory(client, prefix))
    reader = _memory(client, prefix)
    storage = _storage(reader)
    for ns in NAMESPACES:
        reader.get("user.diet", namespace=ns)
        reader.retrieve("diet", namespace=ns, k=3)
        reader.keys(namespace=ns)
    reader.namespaces()
    opened = set(storage._cols)
    assert any("_e" in name for name in opened)
    assert not [name for name in opened if name.startswith(f"{prefix}_w")]


def _spy_upserts(monkeypatch: pytest.MonkeyPatch, storage: ChromaStorage) -> list[str]:
    """Names of the collections ``storage`` upserts into, in order."""
    calls: list[str] = []
    real = storage.collection

    def spy(name: str, **kwargs: Any) -> Any:
        col = real(name, **kwargs)

        class Spy:
            def __getattr__(self, attr: str) -> Any:
                return getattr(col, attr)

            def upsert(self, **kw: Any) -> Any:
                calls.append(name[len(storage.prefix) + 1 :])
                return col.upsert(**kw)

        return Spy()

    monkeypatch.setattr(storage, "collection", spy)
    return calls


def _marks(storage: ChromaStorage, stream: str, names: list[str]) -> dict[str, int]:
    return {ns: h.views.get(stream, 0) for ns, h in storage.read_heads(names).items()}


def test_views_are_written_before_the_marks_that_vouch_for_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(views, "MARKS_WAIT_S", 0.0)  # marks due at once: written by the flush
    client, prefix = _client(), _prefix()
    memory = _memory(client, prefix)
    storage = _storage(memory)
    memory.observe_many([Fact("diet", "vegan", namespace=ns) for ns in NAMESPACES[:30]])
    calls = _spy_upserts(monkeypatch, storage)
    memory.flush()
    kinds = [name[0] for name in calls]
    assert set(kinds) == {"w", "e"}
    assert kinds == sorted(kinds, key=lambda k: k != "w")  # every view shard before any head
    assert len([k for k in kinds if k == "w"]) <= 4  # one call per view shard (16 / 4)
    stream = memory._engine.stream
    assert set(_marks(storage, stream, NAMESPACES[:30]).values()) == {
        storage.read_heads(NAMESPACES[:1])[NAMESPACES[0]].clock[stream]
    }


def test_marks_wait_for_a_commit_to_their_shard_to_carry_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(views, "MARKS_WAIT_S", 1e9)
    client, prefix = _client(), _prefix()
    memory = _memory(client, prefix)
    storage = _storage(memory)
    names = NAMESPACES[:30]
    memory.observe_many([Fact("diet", "vegan", namespace=ns) for ns in names])
    stream = memory._engine.stream
    seq = storage.read_heads(names)[names[0]].clock[stream]
    calls = _spy_upserts(monkeypatch, storage)
    memory._engine.flush()  # the automatic flush (TEPAMemory.flush() settles the marks too)
    assert calls and {c[0] for c in calls} == {"w"}  # the views only
    assert set(_marks(storage, stream, names).values()) == {0}
    assert lagging_views(storage, memory.policy) == 0
    # A commit to one namespace carries the marks of every namespace of its shard, in its call.
    shard = storage.layout.shard(names[0])
    same = [ns for ns in names if storage.layout.shard(ns) == shard]
    other = [ns for ns in names if storage.layout.shard(ns) != shard]
    calls.clear()
    memory.observe("diet", "vegan", namespace=names[0])
    assert calls == [storage.layout.evidence(shard)[len(prefix) + 1 :]]
    marks = _marks(storage, stream, names)
    assert all(marks[ns] == seq for ns in same if ns != names[0])
    assert all(marks[ns] == 0 for ns in other)
    storage.flush_marks()
    marks = _marks(storage, stream, names)
    assert all(marks[ns] == seq for ns in other)


def test_closing_writes_the_marks_still_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(views, "MARKS_WAIT_S", 1e9)
    client, prefix = _client(), _prefix()
    memory = _memory(client, prefix)
    names = NAMESPACES[:20]
    memory.observe_many([Fact("diet", "vegan", namespace=ns) for ns in names])
    stream = memory._engine.stream
    memory.close()
    storage = ChromaStorage(client, prefix=prefix)
    heads = storage.read_heads(names)
    assert all(h.views.get(stream) == h.clock[stream] for h in heads.values())


def test_a_failed_view_write_leaves_the_marks_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    client, prefix = _client(), _prefix()
    memory = _memory(client, prefix)
    storage = _storage(memory)
    memory.observe_many([Fact("diet", "vegan", namespace=ns) for ns in NAMESPACES[:30]])
    before = storage.read_heads(NAMESPACES[:30])
    real = storage.collection

    def failing(name: str, **kwargs: Any) -> Any:
        if name.startswith(f"{prefix}_w"):
            raise StorageError("view shard down")
        return real(name, **kwargs)

    monkeypatch.setattr(storage, "collection", failing)
    with pytest.raises(StorageError):
        memory.flush()
    after = storage.read_heads(NAMESPACES[:30])
    assert {ns: h.views for ns, h in after.items()} == {ns: h.views for ns, h in before.items()}
    monkeypatch.undo()
    memory.flush()  # kept for the next flush
    assert lagging_views(storage, memory.policy) == 0


def test_a_stopped_writers_views_heal_on_read() -> None:
    client, prefix = _client(), _prefix()
    writer = _memory(client, prefix, flush_interval_s=0.01)
    writer.observe_many([Fact("diet", "vegan", namespace=ns) for ns in NAMESPACES[:20]])
    writer._engine.views.drain()  # the writer dies before flushing its views
    storage = _storage(writer)
    assert lagging_views(storage, writer.policy) == 20
    import time

    time.sleep(0.05)
    reader = _memory(client, prefix, flush_interval_s=0.01)
    for ns in NAMESPACES[:20]:
        assert reader.get("diet", namespace=ns) == "vegan"
    reader.flush()
    assert lagging_views(storage, reader.policy) == 0


def test_reconcile_leaves_every_mark_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(views, "MARKS_WAIT_S", 1e9)
    client, prefix = _client(), _prefix()
    memory = _memory(client, prefix)
    memory.observe_many(random_facts(random.Random(1), 80, NAMESPACES))
    memory._engine.flush()  # the automatic flush: the marks wait
    memory.reconcile()
    heads = ChromaStorage(client, prefix=prefix).read_heads(NAMESPACES)
    assert heads and all(h.views == dict(h.clock) for h in heads.values())

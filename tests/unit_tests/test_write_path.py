"""The write path: what a batch over many namespaces writes; WAL folders.

A commit over several namespaces (``observe_many`` over many users, a ``TEPAStore.batch`` of
puts for many users) writes pages and heads only, one Chroma ``upsert`` per shard touched, and
its views join the view buffer: a flush writes them with one call per view shard (views live
in view shards). A backend whose views go with its pages (``InMemoryStorage``) gets them in the
commit. Embedded folders opened for writing use SQLite's write-ahead log unless
``journal_mode="keep"``.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chromadb
import pytest
from chromadb.api.models.Collection import Collection
from chromadb.config import Settings

from langchain_tepa import Fact, HashingEmbeddings, InvalidArgumentError, TEPAMemory
from langchain_tepa.core.fold import fold
from langchain_tepa.core.log import NamespaceSummary, clock_digest
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.types import Evidence
from langchain_tepa.storage import InMemoryStorage
from langchain_tepa.storage.base import Commit, NamespaceWrite
from langchain_tepa.storage.chroma import set_journal_mode
from langchain_tepa.storage.chroma.layout import VIEW_GROUP
from tests.support.facts import random_facts
from tests.support.failing import FailOnceStorage
from tests.support.stored import lagging_views

NAMESPACES = [f"users.u{i:03d}" for i in range(100)]


def _chroma(**kwargs: Any) -> TEPAMemory:
    client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    prefix = f"wp{uuid.uuid4().hex[:10]}"
    return TEPAMemory.from_client(client, prefix=prefix, embeddings=HashingEmbeddings(), **kwargs)


def _open(backend: str, **kwargs: Any) -> TEPAMemory:
    if backend == "memory":
        return TEPAMemory.in_memory(embeddings=HashingEmbeddings(), **kwargs)
    return _chroma(**kwargs)


def _folded(memory: TEPAMemory) -> dict[str, tuple[str, int, int]]:
    return {
        p.id: (p.state.value, p.support, p.conflict)
        for ns in memory.namespaces()
        for p in memory.precedents(namespace=ns)
    }


def _view_lag(memory: TEPAMemory) -> int:
    """Stored views that differ from the fold of the stored evidence (or are missing)."""
    return lagging_views(memory.storage, memory.policy)


@pytest.mark.parametrize("backend", ["memory", "chroma"])
def test_a_batch_over_many_namespaces_folds_like_single_observes(backend: str) -> None:
    rng = random.Random(5)
    batched, single = _open(backend), _open(backend)
    for _ in range(4):
        facts = random_facts(rng, 150, NAMESPACES[:40])
        batched.observe_many(facts)
        for f in facts:
            single.observe(f.key, f.value, namespace=f.namespace)
        assert _folded(batched) == _folded(single)
        if backend == "chroma":  # views wait in the buffer: a flush writes them
            batched.flush()
        # InMemoryStorage: the batch's views went with its pages (no flush needed).
        assert _view_lag(batched) == 0


def test_a_chroma_batch_leaves_its_views_to_the_buffer() -> None:
    memory = _chroma(flush_every=10_000, flush_interval_s=3600.0)
    memory.observe_many([Fact("diet", "vegan", namespace=ns) for ns in NAMESPACES[:10]])
    assert _view_lag(memory) == 10
    memory.flush()
    assert _view_lag(memory) == 0
    heads = memory.storage.read_heads(NAMESPACES[:10])
    assert all(memory._engine.stream in h.views for h in heads.values())


def test_buffered_views_of_a_batch_s_namespaces_go_with_it() -> None:
    memory = _open("memory", flush_every=10_000, flush_interval_s=3600.0)
    memory.observe("diet", "vegan", namespace="users.u001")  # one namespace: view buffered
    memory.observe("city", "Oslo", namespace="users.u002")
    assert _view_lag(memory) == 2
    memory.observe_many(
        [Fact("diet", "vegan", namespace="users.u001"), Fact("x", 1, namespace="users.u003")]
    )
    # users.u001's buffered view rode with the batch; users.u002's still waits for a flush.
    assert _view_lag(memory) == 1
    assert memory.storage.read_heads(["users.u001"])["users.u001"].views
    memory.flush()
    assert _view_lag(memory) == 0


class _UpsertCounter:
    """Counts chromadb collection write calls per collection name."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    def __enter__(self) -> _UpsertCounter:
        self._saved = {n: getattr(Collection, n) for n in ("add", "upsert", "update", "delete")}
        for name, original in self._saved.items():

            def wrapper(col: Any, *a: Any, _o: Any = original, **k: Any) -> Any:
                self.calls[col.name] += 1
                return _o(col, *a, **k)

            setattr(Collection, name, wrapper)
        return self

    def __exit__(self, *exc: object) -> None:
        for name, original in self._saved.items():
            setattr(Collection, name, original)

    @property
    def total(self) -> int:
        return sum(self.calls.values())


def test_a_mixed_batch_writes_once_per_shard_and_its_flush_once_per_view_shard() -> None:
    memory = _chroma(flush_every=10_000, flush_interval_s=3600.0)
    shards = memory.storage.layout.shards  # type: ignore[attr-defined]
    memory.observe_many([Fact("seed", 0, namespace=ns) for ns in NAMESPACES])
    memory.flush()
    rng = random.Random(3)
    for _ in range(3):
        with _UpsertCounter() as batch:
            memory.observe_many(random_facts(rng, 200, NAMESPACES))
        assert batch.total <= shards, batch.calls
        assert all(n.split("_")[-1].startswith("e") for n in batch.calls), batch.calls
        with _UpsertCounter() as flush:
            memory._engine.flush()  # the automatic flush: views only, marks wait
        assert flush.total <= shards // VIEW_GROUP, flush.calls
        assert all(n.split("_")[-1].startswith("w") for n in flush.calls), flush.calls
    memory.flush()
    assert _view_lag(memory) == 0


def test_new_namespaces_add_one_directory_write() -> None:
    memory = _chroma()
    memory.observe("k", 0, namespace="warm.up")  # the store's first write records its model
    with _UpsertCounter() as counter:
        memory.observe_many([Fact("k", i, namespace=ns) for i, ns in enumerate(NAMESPACES)])
    names = [n for n in counter.calls if n.endswith("_names")]
    assert len(names) == 1 and counter.calls[names[0]] == 1
    assert counter.total <= memory.storage.layout.shards + 1  # type: ignore[attr-defined]


def test_a_failed_batch_keeps_the_views_it_took_for_the_next_flush() -> None:
    storage = FailOnceStorage()
    memory = TEPAMemory(
        storage,
        embeddings=HashingEmbeddings(),
        flush_every=10_000,
        flush_interval_s=3600.0,
    )
    memory.observe("diet", "vegan", namespace="users.u001")
    storage.fail = True
    with pytest.raises(OSError, match="disk full"):
        memory.observe_many(
            [Fact("diet", "kale", namespace="users.u001"), Fact("x", 1, namespace="users.u002")]
        )
    assert _view_lag(memory) == 1  # the buffered view was neither written nor lost
    memory.flush()
    assert _view_lag(memory) == 0


def test_memory_storage_stores_views_and_marks_with_a_commit() -> None:
    storage = InMemoryStorage()
    ev = Evidence.observation("diet", "vegan", time=1.0, id="e1", namespace="u1")
    views = list(fold([ev], LifecyclePolicy(), namespace="u1", key="diet").precedents.values())
    write = NamespaceWrite(
        "u1",
        [ev],
        clock_digest({}),
        1,
        NamespaceSummary(clock_digest({"s": 1}), 1, 1),
        views=views,
        view_marks={"s": 1},
    )
    storage.commit(Commit("s", 1, [write]))
    assert storage.read_heads(["u1"])["u1"].views == {"s": 1}
    assert [v["id"] for v in storage.load_views("u1")] == [views[0].id]


# ---------------------------------------------------------------------- SQLite journal mode
def _journal(folder: Path) -> str:
    """The journal family from the database header (no SQLite connection beside Chroma's)."""
    head = (folder / "chroma.sqlite3").read_bytes()[:100]
    assert head.startswith(b"SQLite format 3\x00")
    return "wal" if (head[18], head[19]) == (2, 2) else "rollback"


@pytest.fixture
def closing() -> Iterator[list[TEPAMemory]]:
    opened: list[TEPAMemory] = []
    yield opened
    for memory in opened:
        memory.close()


def test_from_path_writes_through_a_write_ahead_log(
    tmp_path: Path, closing: list[TEPAMemory]
) -> None:
    memory = TEPAMemory.from_path(tmp_path / "m", embeddings=HashingEmbeddings())
    closing.append(memory)
    memory.observe("diet", "vegan")
    assert _journal(tmp_path / "m") == "wal"
    memory.close()
    again = TEPAMemory.from_path(tmp_path / "m", embeddings=HashingEmbeddings())
    closing.append(again)
    assert again.get("diet") == "vegan"
    again.observe("city", "Oslo")
    assert again.get("city") == "Oslo"


def test_journal_mode_keep_leaves_chroma_s_mode(tmp_path: Path, closing: list[TEPAMemory]) -> None:
    memory = TEPAMemory.from_path(
        tmp_path / "m", embeddings=HashingEmbeddings(), journal_mode="keep"
    )
    closing.append(memory)
    memory.observe("diet", "vegan")
    assert _journal(tmp_path / "m") == "rollback"
    memory.close()
    reader = TEPAMemory.from_path(tmp_path / "m", embeddings=HashingEmbeddings(), read_only=True)
    closing.append(reader)
    assert reader.get("diet") == "vegan"
    assert _journal(tmp_path / "m") == "rollback"  # a reader changes nothing
    # Open in this process: switching it beside Chroma's own SQLite would be unsafe.
    assert set_journal_mode(tmp_path / "m") == "rollback"
    assert _journal(tmp_path / "m") == "rollback"
    assert reader.get("diet") == "vegan"


def test_an_existing_folder_is_switched_and_keeps_its_data(
    tmp_path: Path, closing: list[TEPAMemory]
) -> None:
    made = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\n"
            "from langchain_tepa import Fact, HashingEmbeddings, TEPAMemory\n"
            "m = TEPAMemory.from_path(sys.argv[1], embeddings=HashingEmbeddings(),"
            " journal_mode='keep')\n"
            "m.observe_many([Fact('k', i, namespace=f'users.u{i}') for i in range(5)])\n"
            "m.close()\n",
            str(tmp_path),
        ],
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        capture_output=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr.decode(errors="replace")[-2000:]
    assert _journal(tmp_path) == "rollback"
    assert set_journal_mode(tmp_path, "keep") == "keep"
    assert set_journal_mode(tmp_path) == "wal"
    assert _journal(tmp_path) == "wal"
    again = TEPAMemory.from_path(tmp_path, embeddings=HashingEmbeddings())
    closing.append(again)
    assert [again.get("k", namespace=f"users.u{i}") for i in range(5)] == [0, 1, 2, 3, 4]


def test_an_unknown_journal_mode_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError, match="journal_mode"):
        TEPAMemory.from_path(tmp_path, embeddings=HashingEmbeddings(), journal_mode="off")
    with pytest.raises(InvalidArgumentError, match="journal_mode"):
        set_journal_mode(tmp_path, "memory")
    assert not (tmp_path / "chroma.sqlite3").exists()

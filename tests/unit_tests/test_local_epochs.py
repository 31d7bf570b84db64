"""Write epochs: memories of one process on an embedded folder it holds skip needless head reads.

``TEPAMemory.from_path`` locks its folder for this process, so every write to it goes through a
``ChromaStorage`` of this process, which bumps a per-shard counter after each write
(``storage/chroma/epochs.py``). These tests check that reads stay exactly as fresh as before
(read-your-writes across memories of the process, writes decided on all evidence, views healed)
while a read whose shard nobody wrote since its last head read reads no head; and that stores the
process cannot vouch for (``from_client``, in-memory) still read heads on every read.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import chromadb
import pytest
from chromadb.api.models.Collection import Collection
from chromadb.config import Settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from langchain_tepa import Fact, HashingEmbeddings, TEPAMemory, TEPAStore
from langchain_tepa.core.fold import fold_all
from langchain_tepa.storage.chroma import ChromaStorage, open_persistent_client
from langchain_tepa.storage.chroma.epochs import NAMES_SLOT, current
from tests.conftest import ROOT
from tests.support.docs import check_block, expected_output
from tests.support.stored import stored_evidence, stored_views


def _open(folder: Path, writer: str, **kwargs: Any) -> TEPAMemory:
    kwargs.setdefault("flush_interval_s", 600.0)  # no time-based heal window during a test
    return TEPAMemory.from_path(folder, embeddings=HashingEmbeddings(), writer=writer, **kwargs)


class HeadReads:
    """Counts ``read_heads`` calls of one memory's storage."""

    def __init__(self, memory: TEPAMemory) -> None:
        self.calls = 0
        self.original = memory.storage.read_heads

        def counting(namespaces: Any) -> Any:
            self.calls += 1
            return self.original(namespaces)

        memory.storage.read_heads = counting  # type: ignore[method-assign]

    def since(self) -> Callable[[], int]:
        start = self.calls
        return lambda: self.calls - start


def _two_shards(storage: ChromaStorage) -> tuple[str, str]:
    """Two namespaces in different shards."""
    first = "users.u0"
    for i in itertools.count(1):
        other = f"users.u{i}"
        if storage.layout.shard(other) != storage.layout.shard(first):
            return first, other
    raise AssertionError("unreachable")


def test_two_memories_on_one_folder_see_each_others_writes_reading_heads_only_when_needed(
    tmp_path: Path,
) -> None:
    a = _open(tmp_path, "a")
    b = _open(tmp_path, "b")
    heads = HeadReads(b)
    assert b.get("user.diet") is None  # first touch: one head read (and the namespace load)
    assert heads.calls == 1
    assert b.get("user.diet") is None
    assert b.retrieve("diet") == []
    assert heads.calls == 1  # nothing was written: no head read
    for i in range(3):
        a.observe("user.diet", "vegan", source=f"tool.s{i}")
    assert b.get("user.diet") == "vegan"  # read-your-writes across memories of the process
    assert heads.calls == 2  # a wrote: exactly one head read
    assert [d.metadata["value"] for d in b.retrieve("diet")] == ["vegan"]
    assert b.get("user.diet") == "vegan"
    assert heads.calls == 2
    for i in range(4):
        a.observe("user.diet", "carnivore", source=f"tool.t{i}")
    assert b.get("user.diet") == "carnivore"
    assert heads.calls == 3
    a.close()
    b.close()


def test_a_write_elsewhere_in_the_store_costs_a_head_read_only_in_its_shard(
    tmp_path: Path,
) -> None:
    a = _open(tmp_path, "a")
    b = _open(tmp_path, "b")
    assert isinstance(b.storage, ChromaStorage)
    here, there = _two_shards(b.storage)
    heads = HeadReads(b)
    b.get("k", namespace=here)
    n = heads.since()
    a.observe("k", "v", namespace=there)  # another shard
    assert b.get("k", namespace=here) is None
    assert n() == 0
    a.observe("k", "v", namespace=here)
    assert b.get("k", namespace=here) == "v"
    assert n() == 1
    a.close()
    b.close()


def test_own_writes_keep_the_state_current_without_head_reads(tmp_path: Path) -> None:
    mem = _open(tmp_path, "m")
    heads = HeadReads(mem)
    mem.observe("user.diet", "vegan")  # first touch of the namespace: one head read
    n = heads.since()
    for value in ("vegan", "vegan", "carnivore", "carnivore"):
        mem.observe("user.diet", value)  # each write decided on its namespace's current state
    answer = mem.get("user.diet")
    found = [d.metadata["value"] for d in mem.retrieve("diet")]
    mem.flush()  # its view write advances the epoch too
    assert mem.get("user.diet") == answer
    assert n() == 0
    reference = _open(tmp_path, "ref", read_only=True)  # folds the stored evidence afresh
    assert reference.get("user.diet") == answer
    assert [d.metadata["value"] for d in reference.retrieve("diet")] == found
    reference.close()
    mem.close()


def test_view_and_mark_writes_leave_other_namespaces_of_the_shard_current(
    tmp_path: Path,
) -> None:
    mem = _open(tmp_path, "m", shards=1)  # every namespace in one shard
    mem.observe("k", "a", namespace="users.u1")
    mem.observe("k", "b", namespace="users.u2")
    assert mem.get("k", namespace="users.u1") == "a"  # the u2 commit moved the shard: re-read
    before = {s: current(mem.storage._epochs, s) for s in (0, NAMES_SLOT)}  # type: ignore[arg-type]
    heads = HeadReads(mem)
    n = heads.since()
    mem.flush()  # the views of both, and their marks
    assert {s: current(mem.storage._epochs, s) for s in (0, NAMES_SLOT)} == before  # type: ignore[arg-type]
    assert mem.get("k", namespace="users.u1") == "a"
    assert mem.get("k", namespace="users.u2") == "b"
    mem.observe("k", "c", namespace="users.u2")  # decided without reading a head either
    assert n() == 0
    stored = {v["namespace"]: v for v in mem.views(namespace="users.u1")}
    assert stored["users.u1"]["value"] == "a"  # the views were written
    reference = _open(tmp_path, "ref", read_only=True)
    assert reference.get("k", namespace="users.u2") == mem.get("k", namespace="users.u2")
    reference.close()
    mem.close()


def test_a_write_racing_a_commit_makes_the_next_read_read_the_head(tmp_path: Path) -> None:
    """Compare-and-advance: another memory's write during B's commit is not skipped."""
    a = _open(tmp_path, "a")
    b = _open(tmp_path, "b")
    b.get("user.diet")
    heads = HeadReads(b)
    real = b.storage.commit
    raced = {"done": False}

    def racing(commit: Any) -> None:
        real(commit)
        if not raced["done"]:
            raced["done"] = True
            for i in range(3):  # acknowledged after B's pages, before B's commit returns
                a.observe("user.diet", "vegan", source=f"tool.s{i}")

    b.storage.commit = racing  # type: ignore[method-assign]
    b.observe("user.other", "x")
    n = heads.since()
    assert b.get("user.diet") == "vegan"
    assert n() == 1
    a.close()
    b.close()


def test_a_failed_commit_still_moves_the_epoch(tmp_path: Path) -> None:
    mem = _open(tmp_path, "m")
    storage = mem.storage
    assert isinstance(storage, ChromaStorage)
    mem.observe("k", "v")
    before = storage.local_epoch("default")
    assert before is not None
    col = storage._evidence(storage.layout.shard("default"), create=False)
    original = col.upsert

    def half(*args: Any, **kwargs: Any) -> Any:
        original(*args, **kwargs)  # stored, then the call fails
        raise OSError("disk full")

    col.upsert = half
    with pytest.raises(Exception, match="disk full"):
        mem.observe("k", "w")
    col.upsert = original
    assert storage.local_epoch("default") == before + 1
    mem.close()


def test_from_client_and_in_memory_backends_read_heads_on_every_read(tmp_path: Path) -> None:
    client = chromadb.PersistentClient(
        path=str(tmp_path), settings=Settings(anonymized_telemetry=False)
    )
    for mem in (
        TEPAMemory.from_client(client, embeddings=HashingEmbeddings(), writer="c"),
        TEPAMemory.in_memory(embeddings=HashingEmbeddings()),
    ):
        assert mem.storage.local_epoch("default") is None
        mem.observe("k", "v")
        heads = HeadReads(mem)
        for _ in range(3):
            assert mem.get("k") == "v"
        assert heads.calls == 3
        mem.close()


def test_a_from_client_writer_in_the_process_is_seen_by_a_from_path_reader(
    tmp_path: Path,
) -> None:
    """Every ChromaStorage on a persistent folder bumps, whether or not it holds the lock."""
    reader = _open(tmp_path, "r")
    assert reader.get("k") is None
    client = chromadb.PersistentClient(
        path=str(tmp_path), settings=Settings(anonymized_telemetry=False, allow_reset=False)
    )
    writer = TEPAMemory.from_client(client, embeddings=HashingEmbeddings(), writer="w")
    writer.observe("k", "v")
    assert reader.get("k") == "v"
    writer.close()
    reader.close()


def test_a_read_only_reader_of_a_held_folder_reads_each_head_once(tmp_path: Path) -> None:
    with _open(tmp_path, "w") as writer:
        writer.observe_many([(f"k{i}", i) for i in range(5)])
    reader = _open(tmp_path, "r", read_only=True)  # shared lock: nobody can write
    heads = HeadReads(reader)
    assert [reader.get(f"k{i}") for i in range(5)] == list(range(5))
    assert reader.keys() == [f"k{i}" for i in range(5)]
    assert heads.calls == 1
    reader.close()


def test_a_closed_memory_or_a_forked_child_cannot_vouch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = _open(tmp_path, "m")
    storage = mem.storage
    assert storage.local_epoch("default") is not None
    pid = os.getpid()
    monkeypatch.setattr(os, "getpid", lambda: pid + 1)
    assert storage.local_epoch("default") is None  # the parent may write too
    monkeypatch.undo()
    mem.close()
    assert storage.local_epoch("default") is None  # the lock is released


def test_a_stopped_writer_s_views_still_heal_at_a_read_after_the_grace_period(
    tmp_path: Path,
) -> None:
    """Healing depends on when a read happens: the epoch is trusted only until it is due."""
    stopped = _open(tmp_path, "s", flush_every=10_000)  # keeps its views buffered
    stopped.observe_many([("k1", "a"), ("k2", "b")])
    reader = _open(tmp_path, "r", flush_interval_s=0.5)  # grace: 1 s after the last append
    assert reader.get("k1") == "a"
    heads = HeadReads(reader)
    assert reader.get("k2") == "b"
    assert heads.calls == 0  # not due yet: trusted
    time.sleep(1.2)
    assert reader.get("k1") == "a"  # due: reads the head and heals the views
    assert heads.calls >= 1
    reader.flush()
    views = {p.id: (p.state, p.support) for p in stored_views(reader.storage)}
    assert views == {p.id: (p.state, p.support) for p in reader.precedents(namespace="default")}
    head = heads.original(["default"])["default"]
    assert head.views.get(stopped._engine.stream) == head.clock[stopped._engine.stream]
    reader.get("k2")  # reads the healed head once more
    n = heads.since()
    assert reader.get("k2") == "b"
    assert n() == 0  # healed: trusted again
    stopped.close()
    reader.close()


def test_reconcile_and_refresh_keep_reads_fresh(tmp_path: Path) -> None:
    a = _open(tmp_path, "a")
    b = _open(tmp_path, "b")
    a.observe("k", "v")
    assert b.get("k") == "v"
    a.reconcile()
    a.refresh()
    a.observe("k", "w")
    assert b.audit("k").evidence_count == 2
    assert a.get("k") == b.get("k")
    a.close()
    b.close()


def test_the_embedded_folder_example_of_the_consistency_page_runs(tmp_path: Path) -> None:
    page = (ROOT / "docs" / "consistency.md").read_text("utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", page, re.M | re.S)
    (code,) = [b for b in blocks if "TEPAMemory.from_path" in b]
    assert expected_output(code)
    check_block(code, what="docs/consistency.md, embedded folder", cwd=tmp_path)


# ---------------------------------------------------------------- no write forgets to bump
def _view_or_mark(meta: Any) -> bool:
    """A view record, or a head update that only sets view marks."""
    if not isinstance(meta, dict):
        return False
    if "tepa_view" in meta:
        return True
    return meta.get("tepa_kind") == "head" and all(
        k in ("tepa_kind", "tepa_hns") or k.startswith("tepa_vw:") for k in meta
    )


@contextlib.contextmanager
def _every_outer_call_bumps_what_it_wrote(storage: ChromaStorage) -> Iterator[list[str]]:
    """Check that each outermost storage call moved the epoch of every slot it wrote.

    Wraps every public method of ``storage`` and records the collections Chroma writes; a slot
    is an evidence shard (heads, pages, views, tokens) or the names directory. Yields the names
    of the calls checked.
    """
    key = storage._epochs
    assert key is not None
    layout = storage.layout
    slot_of = {layout.evidence(s): s for s in range(layout.shards)}
    slot_of[f"{storage.prefix}_names"] = NAMES_SLOT
    written: list[str] = []
    checked: list[str] = []
    depth = {"n": 0}

    def spy(name: str) -> Any:
        real = getattr(Collection, name)

        def write(self: Collection, *args: Any, **kwargs: Any) -> Any:
            metas = kwargs.get("metadatas") or [None]
            if not all(_view_or_mark(m) for m in metas):  # those move no epoch (write_views)
                written.append(self.name)
            return real(self, *args, **kwargs)

        return write

    def wrap(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def outer(*args: Any, **kwargs: Any) -> Any:
            depth["n"] += 1
            if depth["n"] == 1:
                written.clear()
                before = {s: current(key, s) for s in slot_of.values()}
            try:
                return method(*args, **kwargs)
            finally:
                depth["n"] -= 1
                if depth["n"] == 0:
                    slots = {slot_of[c] for c in written if c in slot_of}
                    for s in slots:
                        assert current(key, s) == before[s] + 1, (name, s)
                    if slots:
                        checked.append(name)

        return outer

    with pytest.MonkeyPatch.context() as mp:
        for name in ("add", "upsert", "update", "delete"):
            mp.setattr(Collection, name, spy(name))
        for name in dir(storage):
            method = getattr(storage, name)
            if not name.startswith("_") and callable(method) and name != "local_epoch":
                mp.setattr(storage, name, wrap(name, method))
        yield checked


def test_every_write_path_bumps_the_epochs_it_writes(tmp_path: Path) -> None:
    client, lock = open_persistent_client(tmp_path)
    storage = ChromaStorage(client, prefix="bumps", shards=4, dedicated_at=4)
    storage.claim_folder(lock)
    mem = TEPAMemory(storage, embeddings=HashingEmbeddings(), writer="m", flush_every=3)
    with _every_outer_call_bumps_what_it_wrote(storage) as checked:
        mem.observe_many([(f"fact.k{i}", i) for i in range(8)])  # dedicates "default"
        mem.observe("fact.k9", 9)  # index vectors with the commit
        mem.observe("k", "v", namespace="users")
        mem.observe("k", "v", namespace="users.u1.notes")  # registration tokens
        mem.observe_many([Fact("k", i, namespace=f"users.u{i}") for i in range(3)])
        store = TEPAStore(mem)
        store.put(("users", "u3"), "item", {"text": "hello"})
        store.delete(("users", "u3"), "item")
        mem.flush()
        storage.write_summary("users", storage.read_heads(["users"])["users"].summary)  # type: ignore[arg-type]
        storage.index_vectors("default", [], through={"m": 1})
        mem.reconcile()
    # write_views writes only views and marks: it moves no epoch (the test above)
    assert {"commit", "dedicate", "write_summary", "index_vectors"} <= set(checked)
    mem.close()
    lock.release()


# ---------------------------------------------------------------- property: interleavings
_OPS = st.lists(
    st.tuples(
        st.integers(0, 2),  # which memory
        st.sampled_from(["observe", "outcome", "read", "revoke", "flush"]),
        st.sampled_from(["k1", "k2"]),
        st.sampled_from(["red", "green", "blue"]),
        st.sampled_from(["default", "users.u1", "users.u2"]),
    ),
    min_size=1,
    max_size=25,
)
_FOLDERS = itertools.count()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=_OPS)
def test_every_read_of_memories_sharing_a_folder_equals_the_fold(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[int, str, str, str, str]]
) -> None:
    folder = tmp_path_factory.mktemp(f"epochs{next(_FOLDERS)}")
    mems = [_open(folder, f"w{i}") for i in range(3)]
    try:
        for who, what, key, value, ns in ops:
            mem = mems[who]
            if what == "observe":
                mem.observe(key, value, namespace=ns)
            elif what == "outcome":
                mem.record_outcome(key, value, value == "red", namespace=ns)
            elif what == "revoke":
                with contextlib.suppress(LookupError):  # a value this key never had
                    mem.revoke(key, value, namespace=ns)
            elif what == "flush":
                mem.flush()
            want = fold_all(stored_evidence(mem.storage), mem.policy)
            for reader in mems:
                for k in ("k1", "k2"):
                    state = want.get((ns, k))
                    expected = (
                        {p.id: (p.state, p.support, p.conflict) for p in state.precedents.values()}
                        if state
                        else {}
                    )
                    got = reader.audit(k, namespace=ns).precedents
                    assert {p.id: (p.state, p.support, p.conflict) for p in got} == expected
    finally:
        for mem in mems:
            mem.close()

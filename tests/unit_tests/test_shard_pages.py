"""Shard pages and the commit's in-place fold (the fourth pass on the write path).

A commit over several namespaces of one shard writes one page for all of them; readers keep
their namespace's part, filtered exactly as asked.
A commit folds into the namespace states in place (no copy of every precedent of a key) and a
failed commit leaves no trace in what the memory answers.
"""

from __future__ import annotations

import random
import uuid
from typing import Any

import chromadb
import pytest
from chromadb.config import Settings

from langchain_tepa import Fact, HashingEmbeddings, TEPAMemory
from langchain_tepa.core.log import NamespaceSummary, clock_digest
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.types import Evidence, Precedent
from langchain_tepa.storage.base import Commit, NamespaceWrite, PageRequest
from langchain_tepa.storage.chroma import ChromaStorage
from langchain_tepa.storage.chroma.layout import MAX_PAGE_NAMESPACES, PAGE_BYTES, PAGE_RECORDS
from tests.support.chroma_pages import page_records
from tests.support.facts import random_facts
from tests.support.failing import FailOnceStorage
from tests.support.stored import lagging_views

NAMESPACES = [f"users.u{i:03d}" for i in range(100)]


def _client() -> Any:
    return chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))


def _prefix() -> str:
    return f"sp{uuid.uuid4().hex[:10]}"


def _folded(memory: TEPAMemory) -> dict[str, tuple[str, int, int]]:
    return {
        p.id: (p.state.value, p.support, p.conflict)
        for ns in memory.namespaces()
        for p in memory.precedents(namespace=ns)
    }


# ---------------------------------------------------------------------- one page per shard
def test_a_new_store_has_shard_pages() -> None:
    memory = TEPAMemory.from_client(_client(), prefix=_prefix(), embeddings=HashingEmbeddings())
    layout = memory.storage.layout  # type: ignore[attr-defined]
    assert layout.version == 5


def test_a_mixed_batch_writes_one_page_per_shard_and_reads_back_the_same() -> None:
    client, prefix = _client(), _prefix()
    writer = TEPAMemory.from_client(client, prefix=prefix, embeddings=HashingEmbeddings())
    reader = TEPAMemory.from_client(client, prefix=prefix, embeddings=HashingEmbeddings())
    single = TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    storage = writer.storage
    assert isinstance(storage, ChromaStorage)
    rng = random.Random(7)
    for round_ in range(3):
        facts = random_facts(rng, 200, NAMESPACES)
        writer.observe_many(facts)
        for f in facts:
            single.observe(f.key, f.value, namespace=f.namespace)
        pages = [m for m in page_records(storage) if m["tepa_q"] == round_ + 1]
        # 200 facts over up to 100 namespaces: one page per shard touched, not one per namespace.
        assert len(pages) <= storage.layout.shards
        assert any("tepa_pnl" in m for m in pages)
        # A reader that had loaded the namespaces catches up through the shard pages; a new
        # one loads them whole: both fold what single observes fold.
        assert _folded(reader) == _folded(single)
        fresh = TEPAMemory.from_client(client, prefix=prefix, embeddings=HashingEmbeddings())
        assert _folded(fresh) == _folded(single)
    assert lagging_views(storage, writer.policy) == 0
    # Vectors rode in the shard pages: a new reader ranks without embedding anything again.
    fresh = TEPAMemory.from_client(client, prefix=prefix, embeddings=HashingEmbeddings())
    for ns in NAMESPACES[:5]:
        fresh.retrieve("a", namespace=ns, k=2)
    assert fresh._engine.embed_calls == 0


def test_key_and_time_reads_of_a_shard_page_see_only_their_namespace() -> None:
    client, prefix = _client(), _prefix()
    memory = TEPAMemory.from_client(client, prefix=prefix, embeddings=HashingEmbeddings())
    clock = iter(range(1, 1000))
    memory._engine._clock = lambda: float(next(clock))
    memory.observe_many([Fact("diet", "vegan", namespace=ns) for ns in NAMESPACES])
    memory.observe_many([Fact("diet", "kale", namespace=ns) for ns in NAMESPACES])
    ns = NAMESPACES[3]
    audit = memory.audit("diet", namespace=ns).precedents
    assert {p.value for p in audit} == {"vegan", "kale"}
    assert all(p.namespace == ns for p in audit)
    assert memory.get("diet", namespace=ns, as_of=50.0) == "vegan"
    history = memory.history("diet", namespace=ns)
    assert [e.value for e in history] == ["vegan", "kale"]


def _write(ns: str, key: str, value: str, t: float, stream: str, seq: int) -> NamespaceWrite:
    ev = Evidence.observation(key, value, time=t, id=f"{stream}.{seq}.{ns}", namespace=ns)
    return NamespaceWrite(ns, [ev], clock_digest({}), seq, NamespaceSummary("d", 0, 1), time=t)


def test_each_part_of_a_shard_page_is_filtered_as_its_request_asks() -> None:
    storage = ChromaStorage(_client(), prefix=_prefix(), shards=1)
    storage.commit(
        Commit("s", 1, [_write("a", "k1", "x", 1.0, "s", 1), _write("b", "k2", "y", 5.0, "s", 1)])
    )
    storage.commit(
        Commit("s", 2, [_write("a", "k2", "z", 9.0, "s", 2), _write("b", "k1", "w", 9.0, "s", 2)])
    )
    assert len(page_records(storage)) == 2  # two shard pages, each with both namespaces
    got = storage.load_pages([PageRequest("a"), PageRequest("b", after={"s": 1})])
    assert [p.seq for p in got["a"]] == [1, 2]
    assert [p.seq for p in got["b"]] == [2]  # seq 1 matched a's request, not b's
    got = storage.load_pages([PageRequest("a"), PageRequest("b", key="k1")])
    assert [[e.key for e in p.records] for p in got["b"]] == [["k1"]]
    got = storage.load_pages([PageRequest("a", until=2.0), PageRequest("b", until=2.0)])
    assert [p.seq for p in got["a"]] == [1] and got["b"] == []
    assert all(e.namespace == "a" for p in got["a"] for e in p.records)


def test_shard_pages_respect_their_limits() -> None:
    storage = ChromaStorage(_client(), prefix=_prefix(), shards=1)
    names = [f"n{i}" for i in range(MAX_PAGE_NAMESPACES + 3)]
    big = [
        Evidence.observation(f"k{i}", i, time=1.0, id=f"big{i}", namespace="big")
        for i in range(PAGE_RECORDS + 1)
    ]
    writes = [_write(ns, "k", "v", 1.0, "s", 1) for ns in names]
    writes.append(
        NamespaceWrite("big", big, clock_digest({}), len(big), NamespaceSummary("d", 0, 1))
    )
    storage.commit(Commit("s", 1, writes))
    pages = page_records(storage)
    shard_pages = [m for m in pages if "tepa_pnl" in m]
    assert len(shard_pages) == 2  # MAX_PAGE_NAMESPACES, then the 3 others
    assert max(len(m["tepa_pnl"]) for m in shard_pages) == MAX_PAGE_NAMESPACES
    own = [m for m in pages if m.get("tepa_pns") == "big"]
    assert len(own) >= 2  # a namespace too large to share a page keeps pages of its own
    assert all(len(m["tepa_json"]) <= PAGE_BYTES for m in own)
    got = storage.load_pages([PageRequest(ns) for ns in [*names, "big"]])
    assert all(len(got[ns]) == 1 and got[ns][0].records[0].namespace == ns for ns in names)
    assert sum(len(p.records) for p in got["big"]) == PAGE_RECORDS + 1
    assert set(storage.read_heads([*names, "big"])) == {*names, "big"}


# ---------------------------------------------------------------------- the in-place fold
def test_a_commit_copies_only_what_it_stores(monkeypatch: pytest.MonkeyPatch) -> None:
    memory = TEPAMemory.in_memory(
        embeddings=HashingEmbeddings(),
        policy=LifecyclePolicy.preset("tepa-rev", multi_valued_prefixes=("list",)),
    )
    memory.observe_many([Fact("list.items", f"v{i}") for i in range(50)])
    copies = 0
    original = Precedent.snapshot

    def counting(self: Precedent) -> Precedent:
        nonlocal copies
        copies += 1
        return original(self)

    monkeypatch.setattr(Precedent, "snapshot", counting)
    memory.observe("list.items", "new")
    # The new precedent's page entry, its view and the caller's result: never the key's 50
    # other values.
    assert copies <= 5, copies


class _BrokenEmbeddings(HashingEmbeddings):
    broken = False

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if self.broken:
            raise RuntimeError("embedding service down")
        return super().embed_documents(texts)


def test_a_failed_commit_leaves_no_trace_in_what_the_memory_answers() -> None:
    storage = FailOnceStorage()
    embeddings = _BrokenEmbeddings()
    memory = TEPAMemory(storage, embeddings=embeddings)
    memory.observe("diet", "vegan", namespace="u1")
    memory.observe("diet", "vegan", namespace="u1")
    before = [
        (p.value, p.state, p.support, p.conflict)
        for p in memory.audit("diet", namespace="u1").precedents
    ]
    storage.fail = True
    with pytest.raises(OSError, match="disk full"):
        memory.observe_many(
            [Fact("diet", "kale", namespace="u1"), Fact("diet", "kale", namespace="u2")]
        )
    embeddings.broken = True
    with pytest.raises(RuntimeError, match="embedding service down"):
        memory.observe("diet", "beef", namespace="u1")
    embeddings.broken = False
    after = [
        (p.value, p.state, p.support, p.conflict)
        for p in memory.audit("diet", namespace="u1").precedents
    ]
    assert after == before
    assert (
        memory.get("diet", namespace="u1") == "vegan" and memory.get("diet", namespace="u2") is None
    )
    # The next write is decided on what is stored, as a fresh memory would decide it.
    memory.observe("diet", "kale", namespace="u1")
    fresh = TEPAMemory(storage, embeddings=HashingEmbeddings())
    assert _folded(memory) == _folded(fresh)


def test_item_vectors_stay_with_their_namespace_and_count_toward_a_page() -> None:
    storage = ChromaStorage(_client(), prefix=_prefix(), shards=1)
    small = {ns: {"idx": {f"owner.{ns}": [[1.0, 0.0], [0.0, 1.0]]}} for ns in ("a", "b")}
    many = {"idx": {f"o{i}": [[float(i), 1.0]] for i in range(PAGE_RECORDS + 1)}}
    writes = [
        NamespaceWrite(ns, [], clock_digest({}), 0, NamespaceSummary("d", 0, 0), items=items)
        for ns, items in [*small.items(), ("c", many)]
    ]
    storage.commit(Commit("s", 1, writes))
    pages = page_records(storage)
    assert sorted(m.get("tepa_pns") or "+".join(m["tepa_pnl"]) for m in pages) == ["a+b", "c"]
    got = storage.load_pages([PageRequest(ns) for ns in "abc"])
    for ns in "ab":  # item vectors come back as arrays of what was stored
        got_items = {
            s: {o: [list(v) for v in vs] for o, vs in ow.items()}
            for s, ow in got[ns][0].items.items()
        }
        assert got_items == {"idx": {f"owner.{ns}": [[1.0, 0.0], [0.0, 1.0]]}}
    assert len(got["c"][0].items["idx"]) == PAGE_RECORDS + 1


def test_a_reader_decodes_only_the_parts_it_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    from langchain_tepa.storage.chroma import codec

    parts = [
        codec.PagePart(ns, "b", [Evidence.observation("k", ns, time=1.0, id=ns, namespace=ns)])
        for ns in ("u1", "u2", "u3")
    ]
    meta = codec.shard_page_meta("s", 1, parts)
    decoded = 0
    original = Evidence.from_dict.__func__  # type: ignore[attr-defined]

    def counting(cls: type[Evidence], data: Any) -> Evidence:
        nonlocal decoded
        decoded += 1
        return original(cls, data)  # type: ignore[no-any-return]

    monkeypatch.setattr(Evidence, "from_dict", classmethod(counting))
    pages = codec.decode_pages(meta, {"u2"})
    assert [(p.namespace, p.records[0].value) for p in pages] == [("u2", "u2")]
    assert decoded == 1
    assert [p.namespace for p in codec.decode_pages(meta)] == ["u1", "u2", "u3"]


def test_many_namespaces_of_one_shard_load_in_several_reads_each_page_once() -> None:
    storage = ChromaStorage(_client(), prefix=_prefix(), shards=1)
    names = [f"n{i:04d}" for i in range(1200)]
    storage.commit(Commit("s", 1, [_write(ns, "k", ns, 1.0, "s", 1) for ns in names]))
    storage.commit(Commit("s", 2, [_write(ns, "k", ns + "'", 2.0, "s", 2) for ns in names]))
    # One filter over 1,200 namespaces would be deeper than SQLite allows (1,000).
    got = storage.load_pages([PageRequest(ns) for ns in names])
    assert all([p.seq for p in got[ns]] == [1, 2] for ns in names)
    assert all(p.records[0].namespace == ns for ns in names for p in got[ns])

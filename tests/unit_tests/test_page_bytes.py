"""Evidence pages of bounded size (``PAGE_BYTES``): a large write is spread over several pages.

Chroma keeps every metadata string in an SQLite index, and values of megabytes slowed every
later write of the database (docs/performance.md, "Pages of bounded size"). A write's records,
precedent vectors and item vectors now go on pages of about ``PAGE_BYTES`` each; readers fold
them as before. These tests check the bound and that everything reads back exactly: records in
order, every vector once, key and time filters, and nothing embedded again after reopening.
"""

from __future__ import annotations

import uuid
from typing import Any

import chromadb
import pytest
from chromadb.config import Settings
from langgraph.store.base import PutOp

from langchain_tepa import Fact, HashingEmbeddings, TEPAMemory, TEPAStore
from langchain_tepa.core.log import NamespaceSummary, clock_digest
from langchain_tepa.core.types import Evidence
from langchain_tepa.storage.base import Commit, NamespaceWrite, PageRequest
from langchain_tepa.storage.chroma import ChromaStorage, codec
from langchain_tepa.storage.chroma.layout import PAGE_BYTES
from tests.support.chroma_pages import page_records
from tests.support.counting import CountingEmbeddings

NAMESPACE = "users.u1"
VECTOR = 2048  # base64 characters of a 384-d float32 vector


def _client() -> Any:
    return chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))


def _prefix() -> str:
    return f"pb{uuid.uuid4().hex[:10]}"


def _payload(meta: dict[str, Any]) -> int:
    return sum(len(meta.get(k, "")) for k in ("tepa_json", "tepa_vecs", "tepa_items", "tepa_parts"))


def _evidence(n: int, keys: int = 3, size: int = 20) -> list[Evidence]:
    return [
        Evidence.observation(
            f"k{i % keys}", f"v{i}-" + "x" * size, time=float(i), id=f"e{i:05d}", namespace="ns"
        )
        for i in range(n)
    ]


def test_write_pages_keeps_order_bounds_and_an_oversized_piece_alone() -> None:
    evs = _evidence(40, size=900)  # about 1 KB a record
    huge = Evidence.observation("k9", "h" * 5000, time=99.0, id="e-huge", namespace="ns")
    metas = codec.write_pages("ns", "s", 1, "b", [*evs, huge], max_records=1000, max_bytes=4096)
    decoded = [codec.decode_page(m) for m in metas]
    assert [e.id for p in decoded for e in p.records] == [e.id for e in [*evs, huge]]
    assert all(len(m["tepa_json"]) <= 4096 for m in metas[:-1])
    assert [e.id for e in decoded[-1].records] == ["e-huge"]  # larger than a page: its own
    assert all(m["tepa_basis"] == "b" for m in metas)
    assert codec.write_pages("ns", "s", 1, None, [], max_records=5, max_bytes=10) != []
    by_count = codec.write_pages("ns", "s", 1, None, evs, max_records=7, max_bytes=10**9)
    assert [m["tepa_n"] for m in by_count] == [7, 7, 7, 7, 7, 5]


def test_vector_pages_carry_the_writes_keys_and_times() -> None:
    evs = _evidence(12)
    vectors = {f"p{i}": [float(i)] * 384 for i in range(12)}
    metas = codec.write_pages("ns", "s", 3, None, evs, vectors, max_records=1000, max_bytes=8192)
    assert len(metas) > 3
    first, rest = metas[0], metas[1:]
    assert first["tepa_n"] == 12 and all(m["tepa_n"] == 0 for m in rest)
    for m in rest:
        assert (
            m["tepa_keys"]
            == first["tepa_keys"]
            == sorted({codec.key_hash(f"k{i}") for i in range(3)})
        )
        assert (m["tepa_t0"], m["tepa_t1"]) == (0.0, 11.0)
        assert len(m["tepa_vecs"]) <= 8192
    got: dict[str, Any] = {}
    for m in metas:
        got.update(codec.decode_page(m).vectors)
    assert {k: list(v) for k, v in got.items()} == vectors


def test_a_large_write_reads_back_whole_through_every_filter() -> None:
    storage = ChromaStorage(_client(), prefix=_prefix(), shards=1)
    evs = _evidence(600, size=200)
    items = {"idx": {f"o{i:04d}": [[float(i)] * 384] for i in range(120)}}
    write = NamespaceWrite(
        "ns", evs, clock_digest({}), len(evs), NamespaceSummary("d", 0, 3), items=items
    )
    storage.commit(Commit("s", 1, [write]))
    pages = page_records(storage)
    assert len(pages) > 4
    assert all(_payload(m) <= PAGE_BYTES for m in pages)
    loaded = storage.load_pages([PageRequest("ns")])["ns"]
    assert sorted(e.id for p in loaded for e in p.records) == [e.id for e in evs]
    owners = {o: [list(v) for v in vs] for p in loaded for o, vs in p.items.get("idx", {}).items()}
    assert owners == items["idx"]
    for req in (PageRequest("ns", key="k1"), PageRequest("ns", until=599.0)):
        again = storage.load_pages([req])["ns"]
        assert sum(len(p.items.get("idx", {})) for p in again) == 120  # the write's vectors
    keyed = storage.load_pages([PageRequest("ns", key="k1")])["ns"]
    assert {e.key for p in keyed for e in p.records} >= {"k1"}
    assert not storage.load_pages([PageRequest("ns", until=-1.0)])["ns"]


def test_shard_pages_close_at_their_byte_bound() -> None:
    storage = ChromaStorage(_client(), prefix=_prefix(), shards=1)
    items = {
        f"n{i:02d}": {"idx": {f"o{j}": [[float(i + j)] * 384] for j in range(10)}}
        for i in range(30)
    }  # about 21 KB a namespace
    writes = [
        NamespaceWrite(ns, [], clock_digest({}), 0, NamespaceSummary("d", 0, 0), items=it)
        for ns, it in items.items()
    ]
    storage.commit(Commit("s", 1, writes))
    pages = page_records(storage)
    assert len(pages) >= 30 * 10 * VECTOR // PAGE_BYTES
    assert all(_payload(m) <= PAGE_BYTES + 1024 for m in pages)  # plus the part index
    loaded = storage.load_pages([PageRequest(ns) for ns in items])
    for ns, it in items.items():
        got = {o: [list(v) for v in vs] for p in loaded[ns] for o, vs in p.items["idx"].items()}
        assert got == it["idx"]


def test_a_large_memory_write_folds_the_same_and_embeds_nothing_again() -> None:
    client, prefix = _client(), _prefix()
    writer = TEPAMemory.from_client(client, prefix=prefix, embeddings=HashingEmbeddings())
    facts = [
        Fact(f"note.k{i % 5}", f"value {i} " + "y" * 300, namespace=NAMESPACE) for i in range(400)
    ]
    writer.observe_many(facts)
    storage = writer.storage
    assert isinstance(storage, ChromaStorage)
    pages = page_records(storage)
    assert len(pages) > 4 and all(_payload(m) <= PAGE_BYTES for m in pages)
    counting = CountingEmbeddings()
    reader = TEPAMemory.from_client(client, prefix=prefix, embeddings=counting)
    want = sorted(
        (p.id, p.state.value, p.support, p.conflict) for p in writer.precedents(namespace=NAMESPACE)
    )
    got = sorted(
        (p.id, p.state.value, p.support, p.conflict) for p in reader.precedents(namespace=NAMESPACE)
    )
    assert got == want
    found = reader.retrieve("value 17", namespace=NAMESPACE, k=5)
    assert [(d.metadata["precedent_id"], d.metadata["score"]) for d in found] == [
        (d.metadata["precedent_id"], d.metadata["score"])
        for d in writer.retrieve("value 17", namespace=NAMESPACE, k=5)
    ]
    assert counting.documents == 0  # every precedent's vector was read, none embedded


@pytest.mark.parametrize("reopen", [False, True])
def test_a_large_store_batch_searches_the_same_after_reopening(reopen: bool) -> None:
    client, prefix = _client(), _prefix()
    index = {"dims": 384, "embed": HashingEmbeddings(), "fields": ["text"]}
    store = TEPAStore.from_client(
        client, prefix=prefix, index=index, embeddings=HashingEmbeddings()
    )  # type: ignore[arg-type]
    ns = ("users", "u1")
    store.batch(
        [PutOp(ns, f"item{i:04d}", {"text": f"item {i} about topic {i % 17}"}) for i in range(300)]
    )
    before = [(i.key, i.score) for i in store.search(ns, query="topic 5", limit=10)]
    counting = CountingEmbeddings()
    index2 = {"dims": 384, "embed": counting, "fields": ["text"]}
    other = (
        TEPAStore.from_client(client, prefix=prefix, index=index2, embeddings=HashingEmbeddings())  # type: ignore[arg-type]
        if reopen
        else store
    )
    after = [(i.key, i.score) for i in other.search(ns, query="topic 5", limit=10)]
    # A reopened store that holds nothing asks the answer index, scored by Chroma's float32
    # cosine distance: equal to about 1e-7, not to the bit, so items whose scores differ by
    # less (here six of "topic 5", tied in process and ordered by recency) may be ordered, and
    # cut at the page's end, otherwise. Everything clear of the last score is the same.
    assert [s for _, s in after] == pytest.approx([s for _, s in before], abs=1e-6)
    last = before[-1][1] + 1e-6
    assert [k for k, s in after if s > last] == [k for k, s in before if s > last]
    if reopen:
        assert counting.documents == 0  # the items' vectors came from the pages

"""The pure state layer: folding pages, refolds, consistency, the LRU cache, the view buffer."""

from __future__ import annotations

import numpy as np
import pytest

from langchain_tepa import HashingEmbeddings, InMemoryStorage, LifecyclePolicy, TEPAMemory
from langchain_tepa.core import Evidence
from langchain_tepa.core.fold import fold
from langchain_tepa.core.log import Head, NamespaceSummary, Page, clock_digest
from langchain_tepa.state import ItemTable, NamespaceState, StateCache, VectorTable, ViewBuffer
from langchain_tepa.storage.base import Commit, NamespaceWrite
from tests.support.stored import stored_views

POLICY = LifecyclePolicy()


def _obs(value: str, t: float, eid: str, key: str = "k") -> Evidence:
    return Evidence.observation(key, value, time=t, id=eid, namespace="ns")


def test_pages_are_folded_in_time_order_whatever_their_stream_order() -> None:
    a = Page("ns", "s1", 1, (_obs("x", 1.0, "e1"), _obs("y", 4.0, "e4")))
    b = Page("ns", "s2", 1, (_obs("y", 2.0, "e2"), _obs("y", 3.0, "e3")))
    st = NamespaceState("ns")
    out = st.absorb([b, a], POLICY)
    want = fold([*a.records, *b.records], POLICY)
    assert out.changed == {"k"} and not out.refold
    assert {
        p.value: (p.state, p.support, p.conflict) for p in st.keys["k"].precedents.values()
    } == {p.value: (p.state, p.support, p.conflict) for p in want.precedents.values()}
    assert st.clock == {"s1": 1, "s2": 1} and st.evidence_count == 4


def test_evidence_older_than_what_was_folded_asks_for_a_refold() -> None:
    st = NamespaceState("ns")
    st.absorb([Page("ns", "s1", 1, (_obs("x", 5.0, "e5"),))], POLICY)
    late = Page("ns", "s2", 1, (_obs("y", 1.0, "e1"),))  # a racing writer's earlier record
    out = st.absorb([late], POLICY)
    assert out.refold == {"k"} and not out.consistent
    st.refold("k", [_obs("x", 5.0, "e5"), _obs("y", 1.0, "e1")], POLICY)
    assert [p.value for p in st.keys["k"].precedents.values()] == ["y", "x"]
    # A page already folded (at or below the clock) is ignored.
    assert st.absorb([late], POLICY).records == 0


def test_a_page_written_on_other_evidence_is_inconsistent() -> None:
    st = NamespaceState("ns")
    first = Page("ns", "s1", 1, (_obs("x", 1.0, "e1"),), basis=clock_digest({}))
    assert st.absorb([first], POLICY).consistent
    same = Page("ns", "s2", 1, (_obs("x", 2.0, "e2"),), basis=st.digest)
    assert st.absorb([same], POLICY).consistent
    blind = Page("ns", "s3", 1, (_obs("y", 3.0, "e3"),), basis=clock_digest({"s1": 1}))
    assert not st.absorb([blind], POLICY).consistent


def test_a_reader_rewrites_the_views_of_a_writer_that_raced() -> None:
    storage = InMemoryStorage()
    mem = TEPAMemory(storage, embeddings=HashingEmbeddings())
    mem.observe("k", "x")
    mem.flush()
    # A writer that folded its page without mem's record (a race): its views are suspect.
    ev = Evidence.observation("k", "y", time=9e9, id="other.1", namespace="default")
    summary = NamespaceSummary("?", 1, 1)
    storage.commit(
        Commit("other", 1, [NamespaceWrite("default", [ev], clock_digest({}), 1, summary)])
    )
    assert mem.get("k") == "y"  # catches up, notices the page's basis is not its clock
    assert len(mem._engine.views) > 0
    mem.flush()
    views = {p.value: p for p in stored_views(storage)}
    assert views["x"].conflict == 1  # rewritten from this reader's fold


def test_head_news_and_unwritten_views() -> None:
    head = Head("ns", {"a": 3, "b": 1}, {"a": 9, "b": 1}, views={"a": 3}, written={"b": 100.0})
    assert head.news({"a": 3}) == {"b": 0}
    assert head.unwritten_views(now=101.0, grace=5.0) == {}
    assert head.unwritten_views(now=200.0, grace=5.0) == {"b": 1}
    assert head.trusted_summary() is None


def test_cache_evicts_least_recently_used_but_never_what_a_call_is_using() -> None:
    cache = StateCache(capacity=2)
    for ns in ("a", "b"):
        cache.put(NamespaceState(ns))
    assert cache.get("a") is not None  # a is now the most recent
    cache.put(NamespaceState("c"))
    assert sorted(cache.names()) == ["a", "c"]
    with cache.locked(["x", "y", "z"]):
        for ns in ("x", "y", "z"):
            cache.put(NamespaceState(ns))
        assert sorted(cache.names()) == ["x", "y", "z"]  # in use: kept beyond the capacity
    assert sorted(cache.names()) == ["y", "z"]
    with pytest.raises(ValueError, match="cache_size"):
        StateCache(capacity=0)


def test_view_buffer_bounds_count_and_age() -> None:
    now = [0.0]
    buffer = ViewBuffer(max_count=2, max_age_s=5.0, clock=lambda: now[0])
    from langchain_tepa.core.types import Precedent

    buffer.add([Precedent("ns", "k", "v", "v", "p1")])
    assert not buffer.due()
    now[0] = 5.0
    assert buffer.due()  # too old
    pending = buffer.drain()
    assert pending.views == {"ns": {"p1"}} and not buffer.due()
    buffer.add([Precedent("ns", "k", v, v, f"p{v}") for v in ("a", "b")])
    assert buffer.due()  # too many
    buffer.restore(buffer.drain())
    assert len(buffer) == 2
    with pytest.raises(ValueError, match="flush_interval_s"):
        ViewBuffer(max_age_s=0)


def test_vector_tables_rank_in_process() -> None:
    table = VectorTable()
    table.add({"a": [1.0, 0.0], "b": [0.6, 0.8], "c": [0.0, 1.0]})
    assert [pid for pid, _ in table.rank([1.0, 0.1], ["a", "b", "c"], 2)] == ["a", "b"]
    assert table.rank([1.0, 0.0], ["zzz"], 3) == []
    table.add({"a": [0.0, 1.0]})  # replaced
    assert np.allclose(table.vector("a"), [0.0, 1.0])
    with pytest.raises(ValueError, match="dimensions"):
        table.rank([1.0, 0.0, 0.0], ["a"], 1)
    items = ItemTable()
    items.put("p", [[1.0, 0.0], [0.0, 1.0]])
    items.put("q", [])
    assert set(items.owner_ids()) == {"p", "q"}
    assert items.scores([0.0, 1.0], ["p", "q"]) == pytest.approx({"p": 1.0})


def test_bulk_adds_store_exactly_what_one_by_one_adds_store() -> None:
    rng = np.random.default_rng(7)
    vectors = {f"p{i}": rng.normal(size=6) * 10.0 ** rng.integers(-40, 40) for i in range(50)}
    vectors["zero"] = np.zeros(6)
    one_by_one, bulk = VectorTable(), VectorTable()
    for pid, vec in vectors.items():
        one_by_one.add({pid: vec})
    bulk.add(vectors)
    assert np.array_equal(bulk.snapshot(), one_by_one.snapshot())
    # Mixed sizes are scaled one by one, and the size check still refuses them.
    mixed = VectorTable()
    mixed.add({"a": [1.0, 0.0], "b": [1.0, 0.0, 0.0]})
    with pytest.raises(ValueError, match="embedding sizes differ"):
        mixed.snapshot()
    # Replacing in bulk replaces, adding new ids appends.
    bulk.add({"p3": [1.0] * 6, "new": [0.0, 0.0, 0.0, 0.0, 0.0, 2.0]})
    assert np.allclose(bulk.vector("p3"), np.full(6, 6**-0.5))
    assert np.allclose(bulk.vector("new"), [0, 0, 0, 0, 0, 1]) and len(bulk) == 52
    # ItemTable.put_many is put of each owner in turn.
    owners = {"a": [[1.0, 0.0]], "b": [[0.0, 2.0], [1.0, 1.0]], "c": []}
    many, each = ItemTable(), ItemTable()
    many.put_many(owners)
    for owner, vecs in owners.items():
        each.put(owner, vecs)
    for query in ([0.0, 1.0], [1.0, 0.0], [0.3, -0.7]):
        assert many.scores(query, list(owners)) == each.scores(query, list(owners))
    assert many.owner_ids() == each.owner_ids() and many.payload("b") == [[0.0, 2.0], [1.0, 1.0]]
    version = many.version
    many.put_many({})
    assert many.version == version  # nothing set, nothing for cached columns to redo


def _loaded(vec: np.ndarray) -> np.ndarray:
    """A vector as a loaded page decodes it: a read-only float32 array over stored bytes."""
    return np.frombuffer(np.asarray(vec, dtype="<f4").tobytes(), dtype="<f4")


@pytest.mark.parametrize("form", ["loaded", "float64", "list"])
def test_deferred_scaling_stores_exactly_what_scaling_at_once_stores(form: str) -> None:
    rng = np.random.default_rng(11)
    raw = [rng.normal(size=5) * 10.0 ** rng.integers(-30, 30) for _ in range(40)]
    raw += [np.zeros(5), np.array([0.0, -0.0, 3.0, 0.0, 0.0])]
    as_given = {
        "loaded": [_loaded(v) for v in raw],
        "float64": [np.array(v, dtype=np.float64) for v in raw],
        "list": [[float(x) for x in v] for v in raw],
    }[form]
    one_by_one = VectorTable()
    for i, vec in enumerate(as_given):
        one_by_one.add({f"p{i}": vec})
        one_by_one.snapshot()  # scaled at once, row by row
    blocks = VectorTable()
    blocks.add({f"p{i}": vec for i, vec in enumerate(as_given[:25])})
    blocks.add({f"p{i}": vec for i, vec in enumerate(as_given[25:], start=25)})
    assert len(blocks) == len(as_given) and "p3" in blocks and blocks.missing(["p3", "x"]) == ["x"]
    assert np.array_equal(blocks.snapshot(), one_by_one.snapshot())
    assert blocks.snapshot().dtype == np.float32
    # Replacing a row of a block not yet scaled, and adding after a snapshot.
    blocks.add({"p7": as_given[8], "new": as_given[9]})
    one_by_one.add({"p7": as_given[8], "new": as_given[9]})
    assert np.array_equal(blocks.snapshot(), one_by_one.snapshot())
    query = rng.normal(size=5)
    ids = [f"p{i}" for i in range(len(as_given))] + ["new"]
    assert blocks.rank(query, ids, 10) == one_by_one.rank(query, ids, 10)


def test_vectors_waiting_to_be_scaled_are_copies_of_the_callers() -> None:
    vec = np.array([3.0, 4.0])
    table = VectorTable()
    table.add({"a": vec, "b": np.array([1.0, 0.0])})  # scaled later
    vec[:] = [0.0, 1.0]  # the caller's array changes before the table scales its rows
    assert table.vector("a").tolist() == pytest.approx([0.6, 0.8])
    # Sizes that differ across adds are refused when the rows are next needed, as before.
    mixed = VectorTable()
    mixed.add({"a": np.array([1.0, 0.0]), "b": np.array([0.0, 1.0])})
    mixed.add({"c": np.array([1.0, 0.0, 0.0]), "d": np.array([0.0, 1.0, 0.0])})
    assert len(mixed) == 4
    with pytest.raises(ValueError, match="embedding sizes differ"):
        mixed.snapshot()


def test_item_tables_keep_loaded_float32_vectors_as_they_are_and_copy_the_rest() -> None:
    # What a loaded page decodes: a read-only float32 array over the stored bytes.
    stored = np.frombuffer(np.array([0.1, 2.5, -3.0], dtype="<f4").tobytes(), dtype="<f4")
    mutable = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    table = ItemTable()
    table.put_many({"a": [stored], "b": [mutable], "c": [[0.1, 2.5, -3.0]]})
    mutable[0] = -1.0  # the caller's array changes; the table's copy does not
    assert table.payload("a") == [stored.tolist()] and table.payload("b") == [[1.0, 0.0, 0.0]]
    assert table.payload("c") == [[0.1, 2.5, -3.0]]  # Python floats stay exact (float64)
    firsts = table.first_vectors(["a", "c"], 3)
    assert firsts[0].tolist() == stored.tolist() and firsts[1].tolist() == [0.1, 2.5, -3.0]
    assert table.scores([1.0, 0.0, 0.0], ["b"]) == pytest.approx({"b": 1.0})


@pytest.mark.parametrize("seed", range(20))
def test_top_ranks_exactly_as_a_full_sort_and_follows_changes(seed: int) -> None:
    rng = np.random.default_rng(seed)
    table = VectorTable()
    n = int(rng.integers(1, 60))
    # Few distinct directions: many exact ties, broken by id.
    directions = rng.normal(size=(4, 8))
    table.add({f"p{i:02d}": directions[rng.integers(0, 4)] for i in range(n)})
    items = [f"p{i:02d}" for i in rng.permutation(n + 3)]  # three without a vector
    query = rng.normal(size=8)
    for k in (1, 3, n, n + 5):
        want = table.rank(query, items, k)
        got = table.top(query, items, k, str)
        assert [(pid, round(s, 6)) for pid, s in got] == [(pid, round(s, 6)) for pid, s in want]
    # The rows kept for the same list follow a replaced vector.
    target = next(pid for pid in items if pid in table)
    table.add({target: -query})
    after = table.top(query, items, n + 5, str)
    assert after[-1][0] == target and after[-1][1] == pytest.approx(-1.0)
    assert [pid for pid, _ in after] == [pid for pid, _ in table.rank(query, items, n + 5)]


def test_active_count_follows_every_change_without_a_scan() -> None:
    st = NamespaceState("ns")
    records = [
        _obs("x", 1.0, "e1"),
        _obs("y", 2.0, "e2"),
        _obs("y", 3.0, "e3"),
        _obs("y", 4.0, "e4"),
        _obs("a", 5.0, "e5", key="other"),
    ]
    for i, ev in enumerate(records, start=1):
        st.absorb([Page("ns", "s1", i, (ev,))], POLICY)
        assert st.active_count() == len(st.active())
        assert st.summary().active == len(st.active())
    st.refold("k", [_obs("x", 1.0, "e1")], POLICY)
    assert st.active_count() == len(st.active()) == st.active_in_key("k") + 1

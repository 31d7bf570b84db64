"""Several memories on one store: what each sees (issue 13's consistency model).

Memories sharing one ``InMemoryStorage`` behave like worker processes sharing one Chroma server:
each has its own stream, cache and clock. These tests run the model in one process, fast; the
same properties through a real ``chroma run`` server and real processes are in
``tests/integration_tests/test_workers.py``.
"""

from __future__ import annotations

import contextlib
import itertools
from datetime import datetime, timezone
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from langchain_tepa import HashingEmbeddings, InMemoryStorage, Lifecycle, TEPAMemory, TEPAStore
from langchain_tepa.core.fold import fold_all
from langchain_tepa.state import AsOf, fold_as_of
from tests.support.stored import stored_evidence, stored_views


def _clock() -> Any:
    counter = itertools.count(1)
    return lambda: float(next(counter))


def _pair(**kwargs: Any) -> tuple[TEPAMemory, TEPAMemory]:
    storage = InMemoryStorage()
    clock = _clock()  # one clock: the two "processes" run on one machine
    a = TEPAMemory(storage, embeddings=HashingEmbeddings(), clock=clock, writer="a", **kwargs)
    b = TEPAMemory(storage, embeddings=HashingEmbeddings(), clock=clock, writer="b", **kwargs)
    return a, b


def _lifecycle(mem: TEPAMemory) -> dict[str, tuple[Any, ...]]:
    return {
        p.id: (p.state, p.support, p.conflict, tuple(t.reason for t in p.transitions))
        for p in mem.iter_precedents()
    }


def _fold(mem: TEPAMemory) -> dict[str, tuple[Any, ...]]:
    states = fold_all(stored_evidence(mem.storage), mem.policy)
    return {
        p.id: (p.state, p.support, p.conflict, tuple(t.reason for t in p.transitions))
        for s in states.values()
        for p in s.precedents.values()
    }


def test_a_reader_opened_before_the_writes_sees_them() -> None:
    """The issue's first finding: worker B, opened before A wrote, answered None."""
    a, b = _pair()
    assert b.get("user.diet") is None  # B touches the namespace first
    for i in range(3):  # distinct sources: each observation counts in full
        a.observe("user.diet", "vegan", source=f"tool.s{i}")
    assert b.get("user.diet") == "vegan"
    assert [d.metadata["value"] for d in b.retrieve("diet", k=2)] == ["vegan"]
    for i in range(4):
        a.observe("user.diet", "carnivore", source=f"tool.s{i}")
    assert b.get("user.diet") == "carnivore"
    assert {p.value: p.state for p in b.audit("user.diet").precedents} == {
        "vegan": Lifecycle.REVOKED,
        "carnivore": Lifecycle.ACTIVE,
    }


def test_a_stale_writer_cannot_resurrect_a_revoked_value() -> None:
    """B's write is decided on all evidence of the key, including what A wrote since."""
    a, b = _pair()
    for i in range(3):
        a.observe("user.diet", "vegan", source=f"tool.s{i}")
    assert b.get("user.diet") == "vegan"  # B's cache: vegan Active
    for i in range(4):
        a.observe("user.diet", "carnivore", source=f"tool.s{i}")
    result = b.observe("user.diet", "vegan")  # from B's (now stale) snapshot
    assert result.precedent is not None
    assert result.precedent.state is not Lifecycle.ACTIVE
    assert a.get("user.diet") == b.get("user.diet") == "carnivore"
    assert _lifecycle(a) == _lifecycle(b) == _fold(a)


def test_max_staleness_lets_a_read_reuse_its_last_check() -> None:
    storage = InMemoryStorage()
    a = TEPAMemory(storage, embeddings=HashingEmbeddings(), writer="a")
    b = TEPAMemory(storage, embeddings=HashingEmbeddings(), writer="b", max_staleness_s=60)
    assert b.get("k") is None
    a.observe("k", "v")
    assert b.get("k") is None  # within 60 s of B's last check: B may be stale
    assert b.observe("k2", "w").precedent is not None  # a write always catches up
    assert b.get("k") == "v"
    with pytest.raises(ValueError, match="max_staleness_s"):
        TEPAMemory(storage, max_staleness_s=-1)


def test_each_read_of_the_default_memory_checks_the_head() -> None:
    _, b = _pair()
    calls = {"n": 0}
    original = b.storage.read_heads

    def counting(namespaces: Any) -> Any:
        calls["n"] += 1
        return original(namespaces)

    b.storage.read_heads = counting  # type: ignore[method-assign]
    b.get("k")
    b.get("k")
    b.retrieve("k")
    assert calls["n"] == 3


def test_cache_holds_at_most_cache_size_namespaces() -> None:
    mem = TEPAMemory.in_memory(embeddings=HashingEmbeddings(), cache_size=3)
    mem.observe_many([("k", i) for i in range(1)])
    for i in range(10):
        mem.observe("k", "v", namespace=f"users.u{i}")
    assert len(mem._engine.cache) == 3
    assert [mem.get("k", namespace=f"users.u{i}") for i in range(10)] == ["v"] * 10
    assert len(mem._engine.cache) == 3
    # A batch over more namespaces than the capacity keeps them all while it runs.
    from langchain_tepa import Fact

    results = mem.observe_many([Fact("k", "w", namespace=f"batch.n{i}") for i in range(8)])
    assert len(results) == 8 and len(mem._engine.cache) == 3


def test_opening_reads_no_evidence() -> None:
    storage = InMemoryStorage()
    first = TEPAMemory(storage, embeddings=HashingEmbeddings())
    first.observe_many([("k", i) for i in range(20)])
    calls = {"pages": 0}
    original = storage.load_pages

    def counting(requests: Any) -> Any:
        calls["pages"] += 1
        return original(requests)

    storage.load_pages = counting  # type: ignore[method-assign]
    second = TEPAMemory(storage, embeddings=HashingEmbeddings())
    assert calls["pages"] == 0
    assert second.get("k") is not None
    assert calls["pages"] == 1


def test_vectors_are_embedded_once_across_restarts() -> None:
    storage = InMemoryStorage()
    embed = HashingEmbeddings()
    first = TEPAMemory(storage, embeddings=embed)
    first.observe_many([(f"fact.k{i}", f"value {i}") for i in range(30)])
    assert first._engine.embed_calls == 30
    first.close()
    second = TEPAMemory(storage, embeddings=embed)
    docs = second.retrieve("value 3", k=5)
    assert len(docs) == 5
    second.observe("fact.k1", "value 1")  # a known value: nothing to embed
    assert second._engine.embed_calls == 0


def test_store_index_vectors_are_embedded_once_across_restarts() -> None:
    class Counting(HashingEmbeddings):
        calls = 0

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            Counting.calls += len(texts)
            return super().embed_documents(texts)

    storage = InMemoryStorage()
    index = {"dims": 384, "embed": Counting(), "fields": ["text"]}
    store = TEPAStore(TEPAMemory(storage, embeddings=HashingEmbeddings()), index=index)
    for i in range(12):
        store.put(("docs",), f"d{i}", {"text": f"document number {i}"})
    assert Counting.calls == 12
    restarted = TEPAStore(TEPAMemory(storage, embeddings=HashingEmbeddings()), index=index)
    hits = restarted.search(("docs",), query="document number 7", limit=3)
    assert hits[0].key == "d7" and hits[0].score is not None
    assert Counting.calls == 12  # the restarted store embedded no item again


def test_as_of_is_the_fold_up_to_the_point() -> None:
    mem = TEPAMemory.in_memory(embeddings=HashingEmbeddings(), clock=_clock())
    mem.observe("user.diet", "vegan")  # t=1
    mem.observe("user.diet", "vegan")  # t=2
    for _ in range(4):
        mem.observe("user.diet", "carnivore")  # t=3..6
    history = mem.history("user.diet")
    assert mem.get("user.diet", as_of=2.0) == "vegan"
    assert mem.get("user.diet", as_of=history[-1].id) == "carnivore"
    assert mem.get("user.diet") == "carnivore"
    assert [d.metadata["value"] for d in mem.retrieve("diet", as_of=2.5)] == ["vegan"]
    assert mem.keys(as_of=0.5) == []
    when = datetime.fromtimestamp(2.0, tz=timezone.utc)
    assert mem.audit("user.diet", as_of=when).evidence_count == 2
    with pytest.raises(Exception, match="no evidence"):
        mem.get("user.diet", as_of="no-such-id")


# ---------------------------------------------------------------- property: interleavings
_OPS = st.lists(
    st.tuples(
        st.integers(0, 2),  # which memory
        st.sampled_from(["observe", "outcome", "read", "revoke"]),
        st.sampled_from(["k1", "k2"]),
        st.sampled_from(["red", "green", "blue"]),
        st.booleans(),
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=_OPS)
def test_every_read_equals_the_fold_of_the_evidence_acknowledged_before_it(
    ops: list[tuple[int, str, str, str, bool]],
) -> None:
    storage = InMemoryStorage()
    clock = _clock()
    mems = [
        TEPAMemory(storage, embeddings=HashingEmbeddings(), clock=clock, writer=f"w{i}")
        for i in range(3)
    ]
    points: list[tuple[float, dict[str, Any]]] = []
    for who, what, key, value, flag in ops:
        mem = mems[who]
        if what == "observe":
            mem.observe(key, value)
        elif what == "outcome":
            mem.record_outcome(key, value, flag)
        elif what == "revoke":
            with contextlib.suppress(LookupError):  # a value this key never had
                mem.revoke(key, value)
        # Every read by any memory equals the fold of everything acknowledged so far.
        records = stored_evidence(storage)
        want = fold_all(records, mem.policy)
        for reader in mems:
            for k in ("k1", "k2"):
                state = want.get(("default", k))
                expected = (
                    {p.id: (p.state, p.support, p.conflict) for p in state.precedents.values()}
                    if state
                    else {}
                )
                got = {p.id: (p.state, p.support, p.conflict) for p in reader.audit(k).precedents}
                assert got == expected
        if records:
            points.append((records[-1].time, {k: reader.get(k) for k in ("k1", "k2")}))
    # as_of reads: what was answered then, folded from the evidence up to that point.
    final = stored_evidence(storage)
    for when, answers in points:
        states = fold_as_of(final, mems[0].policy, AsOf(when))
        for k in ("k1", "k2"):
            act = states[k].active() if k in states else []
            assert (act[0].value if act else None) == answers[k]
            assert mems[1].get(k, as_of=when) == answers[k]
    # Views heal without reconcile once every memory has flushed what it buffered.
    for mem in mems:
        mem.flush()
    views = {p.id: (p.state, p.support, p.conflict) for p in stored_views(storage)}
    assert views == {pid: v[:3] for pid, v in _fold(mems[0]).items()}

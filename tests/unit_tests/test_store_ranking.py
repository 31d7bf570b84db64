"""TEPAStore.search ranked with numpy equals the reference ranking (the earlier algorithm).

The reference is the search as it was before the answer tables: every live, filtered row of
every namespace sorted by recency in Python, then stably by score. The data are random with
many exact ties: a constant clock (every ``updated_at`` equal), a few one-hot vectors (scores
exactly 0 or 1), items without vectors, nested namespaces, expired items.
"""

from __future__ import annotations

import random
import re
from typing import Any

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings
from langgraph.store.base import PutOp

from langchain_tepa import TEPAMemory
from langchain_tepa.memory import AnswerRow
from langchain_tepa.state import ItemTable, VectorTable
from langchain_tepa.store import TEPAStore, store_policy
from langchain_tepa.store.queries import matches_filter

DIMS = 4
_BASIS = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [1.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0],
]


class TieEmbeddings(Embeddings):
    """A text holding ``v<i>`` embeds as basis vector ``i``: scores tie exactly."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        found = re.search(r"\bv(\d)", text)
        return list(_BASIS[int(found.group(1)) if found else 0])


def _view(row: AnswerRow) -> dict[str, Any]:
    value = row.value
    return value if isinstance(value, dict) else {"value": value}


def reference(
    store: TEPAStore,
    prefix: tuple[str, ...],
    *,
    query: str | None = None,
    flt: dict[str, Any] | None = None,
    limit: int = 10,
    offset: int = 0,
) -> list[tuple[tuple[str, ...], str, float | None]]:
    """The search order before the answer tables (see the module docstring)."""
    memory = store.memory
    entries: list[tuple[tuple[str, ...], AnswerRow]] = []
    for ns in memory.namespaces(".".join(prefix) if prefix else None):
        live, _, _ = store._ttl.split(ns, memory.answer_rows(namespace=ns))
        if flt:
            live = [row for row in live if matches_filter(_view(row), flt)]
        entries.extend((tuple(ns.split(".")), row) for row in live)
    entries.sort(key=lambda e: (e[1].updated_at, e[1].last_evidence, e[0], e[1].key), reverse=True)
    scored: list[tuple[float | None, tuple[tuple[str, ...], AnswerRow]]]
    if query is None:
        scored = [(None, e) for e in entries]
    else:
        emb = store.embeddings if store.embeddings is not None else memory.embeddings
        qvec = emb.embed_query(query)
        scores: dict[str, float] = {}
        for ns in {".".join(labels) for labels, _ in entries}:
            ids = [row.id for labels, row in entries if ".".join(labels) == ns]
            if store._space is not None:
                scores.update(store._space.scores(ns, qvec, ids))
            else:
                scores.update(memory.similarity(qvec, ids, namespace=ns))
        ranked = [(scores[e[1].id], e) for e in entries if e[1].id in scores]
        ranked.sort(key=lambda pair: -(pair[0] or 0.0))
        scored = [*ranked, *[(None, e) for e in entries if e[1].id not in scores]]
    return [(labels, row.key, s) for s, (labels, row) in scored[offset : offset + limit]]


def _fill(store: TEPAStore, rng: random.Random, *, nested: bool = True) -> None:
    spaces: list[tuple[str, ...]] = [("users", f"u{u}") for u in range(4)] + [("other",)]
    if nested:
        spaces.append(("users", "u1", "notes"))
    ops: list[PutOp] = []
    for i in range(160):
        ns = rng.choice(spaces)
        key = f"k{rng.randrange(40):02d}"
        value = {"text": f"v{rng.randrange(len(_BASIS))} item {i}", "n": rng.randrange(6)}
        index: Any = False if rng.random() < 0.15 else None
        ops.append(PutOp(ns, key, value, index=index))
        if rng.random() < 0.05:
            ops.append(PutOp(ns, key, None))  # a delete
    for start in range(0, len(ops), 17):
        store.batch(ops[start : start + 17])


def _searches(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for _ in range(60):
        out.append(
            {
                "prefix": rng.choice([(), ("users",), ("users", "u1"), ("other",), ("nope",)]),
                "query": rng.choice([None, "v0 q", "v1 q", "v3 q", "v4 q"]),
                "flt": rng.choice([None, {"n": {"$lt": 3}}, {"n": 5}, {"n": {"$ne": 2}}]),
                "limit": rng.choice([0, 1, 3, 10, 200]),
                "offset": rng.choice([0, 0, 2, 7, 150]),
            }
        )
    return out


def _search(store: TEPAStore, case: dict[str, Any]) -> list[tuple[Any, str, float | None]]:
    got = store.search(
        case["prefix"],
        query=case["query"],
        filter=case["flt"],
        limit=case["limit"],
        offset=case["offset"],
    )
    return [(i.namespace, i.key, i.score) for i in got]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("indexed", [True, False])
def test_search_equals_the_reference_ranking(seed: int, indexed: bool) -> None:
    rng = random.Random(seed)
    memory = TEPAMemory.in_memory(
        policy=store_policy(), embeddings=TieEmbeddings(), clock=lambda: 1000.0
    )
    index: Any = {"dims": DIMS, "embed": TieEmbeddings(), "fields": ["text"]}
    store = TEPAStore(memory, index=index if indexed else None)
    _fill(store, rng)
    for case in _searches(rng):
        want = reference(
            store,
            case["prefix"],
            query=case["query"],
            flt=case["flt"],
            limit=case["limit"],
            offset=case["offset"],
        )
        assert _search(store, case) == want, case


def test_ties_break_by_evidence_labels_and_key() -> None:
    memory = TEPAMemory.in_memory(
        policy=store_policy(), embeddings=TieEmbeddings(), clock=lambda: 5.0
    )
    store = TEPAStore(memory, index={"dims": DIMS, "embed": TieEmbeddings(), "fields": ["text"]})
    store.batch([PutOp(("a",), "x", {"text": "v0"}), PutOp(("b",), "x", {"text": "v0"})])
    store.put(("a",), "y", {"text": "v0"})
    got = [(i.namespace, i.key, i.score) for i in store.search((), query="v0 q")]
    # One score and one time: the later evidence first, then labels and key descending.
    assert got == [(("a",), "y", 1.0), (("b",), "x", 1.0), (("a",), "x", 1.0)]
    assert got == reference(store, (), query="v0 q")


def test_expired_items_are_left_out_and_revoked_like_before() -> None:
    now = [1000.0]
    memory = TEPAMemory.in_memory(
        policy=store_policy(), embeddings=TieEmbeddings(), clock=lambda: 1000.0
    )
    store = TEPAStore(memory, index={"dims": DIMS, "embed": TieEmbeddings(), "fields": ["text"]})
    store._ttl._clock = lambda: now[0]
    store.put(("u",), "short", {"text": "v0 a"}, ttl=1)
    store.put(("u",), "long", {"text": "v0 b"}, ttl=100)
    store.put(("u",), "never", {"text": "v1 c"})
    now[0] += 120  # two minutes: "short" has expired
    want = reference(store, ("u",), query="v0 q")
    assert [key for _, key, _ in want] == ["long", "never"]
    assert (
        _search(store, {"prefix": ("u",), "query": "v0 q", "flt": None, "limit": 10, "offset": 0})
        == want
    )
    assert store.get(("u",), "short") is None
    assert [p.state.value for p in store.audit(("u",), "short").precedents] == ["revoked"]


def test_answer_tables_are_kept_and_rebuilt_when_item_vectors_change() -> None:
    memory = TEPAMemory.in_memory()
    space = memory.vector_space("docs")
    space.observe_many([("a", 1), ("b", 2)], [[[1.0, 0.0]], [[0.0, 1.0]]])
    first = memory.answer_tables(["default"], vector_spaces=["docs"])["default"]
    assert memory.answer_tables(["default"], vector_spaces=["docs"])["default"] is first
    owner = first.rows[1].id  # "a": the older row
    space.store("default", {owner: [[0.0, 1.0]]})  # item vectors only: no evidence
    second = memory.answer_tables(["default"], vector_spaces=["docs"])["default"]
    assert second is not first
    assert second.scores("docs", [0.0, 1.0]).tolist() == [1.0, 1.0]
    assert first.scores("docs", [0.0, 1.0]).tolist() == [1.0, 0.0]  # never changed


def test_item_column_scores_equal_item_table_scores() -> None:
    rng = np.random.default_rng(3)
    table = ItemTable()
    owners = [f"p{i}" for i in range(60)]
    for owner in owners:
        count = int(rng.integers(0, 4))
        table.put(owner, rng.normal(size=(count, 8)).tolist())
    order = list(rng.permutation(owners + ["unknown"]))
    query = rng.normal(size=8)
    got = table.column(order).scores(query)
    want = table.scores(query, order)
    for owner, score in zip(order, got.tolist(), strict=True):
        if owner in want:
            assert score == pytest.approx(want[owner], abs=1e-6)
        else:
            assert np.isnan(score)


def test_a_vector_table_snapshot_never_changes() -> None:
    table = VectorTable()
    table.add({"a": [1.0, 0.0], "b": [0.0, 1.0]})
    snap = table.snapshot()
    before = snap.copy()
    table.add({"a": [0.0, 1.0]})  # replaced in a copy
    table.add({"c": [1.0, 1.0]})  # appended to a new matrix
    assert np.array_equal(snap, before)
    replaced = table.vector("a")
    assert replaced is not None and replaced.tolist() == [0.0, 1.0]
    assert table.snapshot().shape == (3, 2)

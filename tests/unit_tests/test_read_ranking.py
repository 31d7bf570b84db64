"""Ranking on the read path: blocked matrix-vector products, large namespaces' index queries."""

from __future__ import annotations

import math
import uuid
from typing import Any

import numpy as np
import pytest

from langchain_tepa import HashingEmbeddings, TEPAMemory
from langchain_tepa.state import VectorTable, matvec
from langchain_tepa.state import vectors as vectors_module
from langchain_tepa.storage.chroma import ChromaStorage


@pytest.mark.parametrize("rows", [0, 1, 7, 64, 65, 300])
def test_matvec_in_blocks_equals_the_plain_product(
    rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors_module, "_BLOCK_VALUES", 64 * 8)  # blocks of 64 rows of 8
    rng = np.random.default_rng(rows)
    m = rng.normal(size=(rows, 8)).astype(np.float32)
    q = rng.normal(size=8).astype(np.float32)
    got = matvec(m, q)
    assert got.dtype == np.float32 and got.shape == (rows,)
    np.testing.assert_allclose(got, m @ q, rtol=1e-6, atol=1e-6)


def test_top_over_many_rows_keeps_its_order_and_ties(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors_module, "_BLOCK_VALUES", 4 * 10)  # many blocks
    table = VectorTable()
    basis = np.eye(4)
    ids = [f"p{i:03d}" for i in range(50)]
    table.add({pid: basis[i % 4] for i, pid in enumerate(ids)})
    got = table.top([1.0, 0.0, 0.0, 0.0], ids, 5, str)
    # Exact ties (score 1.0) are broken by id, as rank() does.
    assert got == [(pid, 1.0) for pid in ["p000", "p004", "p008", "p012", "p016"]]
    assert [pid for pid, _ in table.rank([1.0, 0.0, 0.0, 0.0], ids, 5)] == [p for p, _ in got]


def test_a_large_namespace_asks_its_index_for_what_holds_k_live_hits(
    ephemeral_client: Any,
) -> None:
    """Every precedent live: a top-k query (the floor's work); else k x precedents/live."""
    prefix = "x" + uuid.uuid4().hex[:8]
    storage = ChromaStorage(ephemeral_client, prefix=prefix, dedicated_at=20)
    asked: list[int] = []
    original = storage.query_vectors

    def counting(namespace: str, vector: Any, n: int, **kwargs: Any) -> list[tuple[str, float]]:
        asked.append(n)
        return original(namespace, vector, n, **kwargs)

    storage.query_vectors = counting  # type: ignore[method-assign]
    mem = TEPAMemory(storage, embeddings=HashingEmbeddings())
    mem.observe_many([(f"fact.k{i}", f"value {i}") for i in range(30)])
    assert storage.is_dedicated("default")
    docs = mem.retrieve("value 3", k=3)
    assert asked == [3] and len(docs) == 3
    for i in range(10):  # ten keys change value: their first values are revoked
        for _ in range(3):
            mem.observe(f"fact.k{i}", f"changed {i}")
    asked.clear()
    docs = mem.retrieve("changed 4", k=3)
    total = len(mem.precedents())
    live = len(mem.answers())
    assert (total, live) == (40, 30)
    assert asked[0] == math.ceil(3 * total / live)
    assert len(docs) == 3 and all(d.metadata["state"] == "active" for d in docs)

"""LangGraph's large async batch on persistent Chroma, against raw Chroma's add throughput.

The workload of LangGraph's ``test_large_batches_async``
(``libs/checkpoint-postgres/tests/test_async_store.py``): for ``m`` in ``range(M)`` and ``i`` in
``range(N)`` (N = 1,000, M = 10), six calls on namespace ``("test", "foo", "bar", "baz",
str(m % 2))`` and key ``f"key{i}"``: ``aput`` (value ``{"foo": "bar" + str(i)}``), ``aget``,
``alist_namespaces(prefix=None, max_depth=m + 1)``, ``asearch(("test",))``, ``aput`` again and
``adelete``; all ``6 * N * M`` = 60,000 coroutines gathered at once with ``asyncio.gather``.
Throughput is operations per second of the whole gather, on a ``TEPAStore.from_path`` in a new
folder (embedded persistent Chroma, the store's default policy and freshness).

**The raw reference** (``raw_add_rps``): records per second of ``collection.add`` into a new
persistent Chroma collection (Chroma's defaults, cosine space) of ``6 * N * M`` records, one per
operation of the workload, each with a 384-dimension unit vector, the value's JSON as document
and ``{"namespace", "key"}`` as metadata, in batches of 1,000 (Chroma's throughput near its
best; half of the batches are added before the TEPA run and half after, so load drift hits
both). ``raw_single_add_rps`` is the same records added one per call (a sample of
``single_adds``), for scale. LangGraph's ``AsyncSqliteStore`` (a file) and ``InMemoryStore``
run the same workload for context.

Example:
    >>> lg_ops_count(1000, 10)
    60000
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from tepa_bench.perf.common import (
    DerivedEmbeddings,
    journal_mode,
    log,
    persistent_client,
    unit_matrix,
)

__all__ = ["RAW_BATCH", "lg_ops_count", "lg_workload", "run_lg_batch"]

RAW_BATCH = 1000


def lg_ops_count(n: int, m: int) -> int:
    """Operations of the workload."""
    return 6 * n * m


async def lg_workload(store: Any, n: int, m: int) -> list[Any]:
    """LangGraph's ``test_large_batches_async`` body: every call gathered at once."""
    coros: list[Awaitable[Any]] = []
    for mm in range(m):
        ns = ("test", "foo", "bar", "baz", str(mm % 2))
        for i in range(n):
            coros.append(store.aput(ns, f"key{i}", value={"foo": "bar" + str(i)}))
            coros.append(store.aget(ns, f"key{i}"))
            coros.append(store.alist_namespaces(prefix=None, max_depth=mm + 1))
            coros.append(store.asearch(("test",)))
            coros.append(store.aput(ns, f"key{i}", value={"foo": "bar" + str(i)}))
            coros.append(store.adelete(ns, f"key{i}"))
    results = await asyncio.gather(*coros)
    if len(results) != lg_ops_count(n, m):
        raise AssertionError(f"expected {lg_ops_count(n, m)} results, got {len(results)}")
    return list(results)


def _timed(store: Any, n: int, m: int) -> dict[str, Any]:
    start = time.perf_counter()
    asyncio.run(lg_workload(store, n, m))
    seconds = time.perf_counter() - start
    left = asyncio.run(store.asearch(("test",), limit=10))
    return {
        "seconds": round(seconds, 2),
        "ops_per_s": round(lg_ops_count(n, m) / seconds, 1),
        "items_left": len(left),  # every key ends deleted
    }


def _raw_records(start: int, stop: int, n: int, vectors: Any) -> dict[str, Any]:
    idx = list(range(start, stop))
    return {
        "ids": [f"r{j}" for j in idx],
        "embeddings": vectors[[j % len(vectors) for j in idx]],
        "documents": [json.dumps({"foo": f"bar{j % n}"}) for j in idx],
        "metadatas": [
            {"namespace": f"test.foo.bar.baz.{(j // (6 * n)) % 2}", "key": f"key{j % n}"}
            for j in idx
        ],
    }


def run_lg_batch(
    work: Path, *, n: int = 1000, m: int = 10, single_adds: int = 1000, quiet: bool = False
) -> dict[str, Any]:
    """Run the workload on TEPAStore, AsyncSqliteStore and InMemoryStore, and raw Chroma adds.

    Args:
        work: An empty folder for the stores.
        n: Keys per round (LangGraph: 1,000).
        m: Rounds (LangGraph: 10).
        single_adds: Raw single adds timed for ``raw_single_add_rps``.
        quiet: No progress output.
    """
    from langgraph.store.memory import InMemoryStore

    from langchain_tepa import TEPAStore

    total = lg_ops_count(n, m)
    vectors = unit_matrix(1000, seed=7)
    raw = persistent_client(work / "raw").get_or_create_collection(
        "raw_lg", embedding_function=None, metadata={"hnsw:space": "cosine"}
    )
    raw_s = 0.0
    cuts = list(range(0, total, RAW_BATCH))
    half = len(cuts) // 2

    def raw_part(starts: list[int]) -> float:
        began = time.perf_counter()
        for s in starts:
            raw.add(**_raw_records(s, min(total, s + RAW_BATCH), n, vectors))
        return time.perf_counter() - began

    log(quiet, f"LangGraph batch: raw adds ({total} records, first half)")
    raw_s += raw_part(cuts[:half])
    log(quiet, f"LangGraph batch: TEPAStore ({total} ops)")
    emb = DerivedEmbeddings()
    tepa = TEPAStore.from_path(work / "tepa", embeddings=emb, journal_mode=journal_mode())
    result: dict[str, Any] = {"n": n, "m": m, "ops": total}
    try:
        result["tepa"] = _timed(tepa, n, m)
    finally:
        tepa.memory.close()
    result["tepa"]["embedded_texts"] = emb.calls
    result["tepa"]["embedding_seconds"] = round(emb.seconds, 3)
    log(quiet, "LangGraph batch: raw adds (second half)")
    raw_s += raw_part(cuts[half:])
    singles = min(single_adds, total)
    single_col = persistent_client(work / "raw_single").get_or_create_collection(
        "raw_single", embedding_function=None, metadata={"hnsw:space": "cosine"}
    )
    began = time.perf_counter()
    for j in range(singles):
        single_col.add(**_raw_records(j, j + 1, n, vectors))
    single_s = time.perf_counter() - began
    result["raw_add_rps"] = round(total / raw_s, 1)
    result["raw_batch"] = RAW_BATCH
    result["raw_single_add_rps"] = round(singles / single_s, 1) if singles else None
    result["raw_single_adds"] = singles
    result["tepa_vs_raw_add"] = round(result["tepa"]["ops_per_s"] / result["raw_add_rps"], 3)
    log(quiet, "LangGraph batch: AsyncSqliteStore and InMemoryStore")
    result["sqlite"] = _sqlite(work / "lg.sqlite", n, m)
    result["inmemory"] = _timed(InMemoryStore(), n, m)
    return result


def _sqlite(path: Path, n: int, m: int) -> dict[str, Any]:
    from langgraph.store.sqlite.aio import AsyncSqliteStore

    async def go() -> dict[str, Any]:
        async with AsyncSqliteStore.from_conn_string(str(path)) as store:
            await store.setup()
            start = time.perf_counter()
            await lg_workload(store, n, m)
            seconds = time.perf_counter() - start
            left = await store.asearch(("test",), limit=10)
        return {
            "seconds": round(seconds, 2),
            "ops_per_s": round(lg_ops_count(n, m) / seconds, 1),
            "items_left": len(left),
        }

    return asyncio.run(go())

"""The floor of a Chroma write next to ``SqliteStore.put``, interleaved in one run.

Not part of the package: the script behind docs/performance.md, "What the two missed targets
need". A ``TEPAStore.put`` is one head read and one Chroma ``upsert`` of two records (its page
and its head). This times, call by call in turn: a raw embedded-Chroma ``upsert`` of two small
records (no vectors to speak of: one-dimension placeholders, the evidence shards' settings)
into a fresh collection, the same into a collection of 20,000 records, and LangGraph's
``SqliteStore.put`` of a new item into a store of 20 users x 1,000 items with its vector index
(derived embeddings). CALLS calls each.

    python docs/results/put_floor.py [CALLS]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from langgraph.store.base import PutOp

from tepa_bench.perf.common import DerivedEmbeddings, load_average, persistent_client
from tepa_bench.perf.side_by_side import StoreWorkload, _open
from langchain_tepa.storage.chroma.layout import EVIDENCE_HNSW

CALLS = int(sys.argv[1]) if len(sys.argv) > 1 else 200


def main() -> None:
    print("load before", load_average())
    client = persistent_client(Path(tempfile.mkdtemp()))
    fresh = client.get_or_create_collection(
        "fresh", embedding_function=None, metadata=EVIDENCE_HNSW
    )
    full = client.get_or_create_collection("full", embedding_function=None, metadata=EVIDENCE_HNSW)
    for s in range(0, 20_000, 1000):
        full.add(
            ids=[f"x{i}" for i in range(s, s + 1000)],
            embeddings=[[1.0]] * 1000,
            metadatas=[{"tepa_w": "s", "k": i} for i in range(s, s + 1000)],
        )
    work = StoreWorkload(users=20, items=1000)
    sqlite = _open(
        "sqlite", Path(tempfile.mkdtemp()), work.index(work.table(CALLS)), DerivedEmbeddings()
    )
    for u in range(work.users):
        sqlite.batch(
            [PutOp(work.namespace(u), work.key(j), work.value(u, j)) for j in range(work.items)]
        )
    times: dict[str, list[float]] = {
        "chroma upsert, fresh collection": [],
        "chroma upsert, 20k records": [],
        "SqliteStore.put": [],
    }
    for c in range(CALLS):
        for name, col in (
            ("chroma upsert, fresh collection", fresh),
            ("chroma upsert, 20k records", full),
        ):
            began = time.perf_counter()
            col.upsert(
                ids=[f"p{c}", "head"],
                embeddings=[[1.0], [1.0]],
                metadatas=[
                    {"tepa_w": "s", "tepa_q": c, "tepa_json": "x" * 300},
                    {"tepa_kind": "head", "s": c, "c": c},
                ],
            )
            times[name].append(time.perf_counter() - began)
        began = time.perf_counter()
        sqlite.put(work.namespace(c % work.users), f"new{c:05d}", work.new_value(c))
        times["SqliteStore.put"].append(time.perf_counter() - began)
    print("load after", load_average())
    for name, ts in times.items():
        print(
            f"{name}: p50 {statistics.median(ts) * 1000:.2f} ms, "
            f"mean {statistics.mean(ts) * 1000:.2f} ms"
        )


if __name__ == "__main__":
    main()

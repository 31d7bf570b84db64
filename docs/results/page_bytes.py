"""Large metadata values in Chroma: what they cost every later write, by value size.

Not part of the package: the probe behind docs/performance.md, "Pages of bounded size". Raw
Chroma only (an embedded persistent client in a new temporary folder for each line), no TEPA
code. Each line stores 24 MB of metadata strings in a collection with the evidence shards'
settings, as values of one size (4 MB down to 8 KB), in upserts of about 2 MB; settles the
collection's log tail (a delete of 32 absent ids, see ``log_tail.py``); then times 60 small
two-record upserts, twice. The last line stores the 4 MB values in *another* collection of the
same folder and times the small upserts in the first: the cost is the database's, not the
collection's.

    python docs/results/page_bytes.py
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from typing import Any

from tepa_bench.perf.common import persistent_client
from langchain_tepa.storage.chroma.layout import EVIDENCE_HNSW

SMALL = {"tepa_json": "y" * 300, "a": 1, "b": "zz"}
TOTAL = 24 << 20


def _small_upserts(col: Any, n: int = 60) -> float:
    took = []
    for i in range(n):
        began = time.perf_counter()
        col.upsert(ids=[f"u{i}", "h"], embeddings=[[0.0]] * 2, metadatas=[SMALL, SMALL])
        took.append((time.perf_counter() - began) * 1000)
    return statistics.median(took)


def _line(size: int, *, elsewhere: bool = False) -> str:
    client = persistent_client(tempfile.mkdtemp())
    col = client.create_collection("target", embedding_function=None, metadata=dict(EVIDENCE_HNSW))
    other = client.create_collection("other", embedding_function=None, metadata=dict(EVIDENCE_HNSW))
    empty = _small_upserts(col)
    dest = other if elsewhere else col
    n, per = TOTAL // size, max(1, min(1000, (2 << 20) // size))
    began = time.perf_counter()
    for start in range(0, n, per):
        k = min(per, n - start)
        dest.upsert(
            ids=[f"b{start + j}" for j in range(k)],
            embeddings=[[0.0]] * k,
            metadatas=[{"tepa_items": "x" * size}] * k,
        )
    load = time.perf_counter() - began
    dest.delete(ids=[f"~settle.{i:04d}" for i in range(32)])
    where = "another collection" if elsewhere else "the same collection"
    return (
        f"24 MB as {n} values of {size:,} B in {where}: stored in {load:.1f} s; "
        f"small upsert p50 {empty:.1f} ms before, {_small_upserts(col):.1f} / "
        f"{_small_upserts(col):.1f} ms after"
    )


def main() -> None:
    print("load before", [round(x, 2) for x in os.getloadavg()])
    for size in (4 << 20, 400 << 10, 100 << 10, 64 << 10, 40 << 10, 8 << 10):
        print(_line(size))
    print(_line(4 << 20, elsewhere=True))
    print("load after", [round(x, 2) for x in os.getloadavg()])


if __name__ == "__main__":
    main()

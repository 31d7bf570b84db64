"""Chroma's unpersisted log tail: what large records cost later writes, and what ends it.

Not part of the package: the probe behind docs/performance.md, "Chroma's log tail after a bulk
load". Raw Chroma only (an embedded persistent client in a temporary folder), no TEPA code:

1. a collection with the evidence shards' settings (``EVIDENCE_HNSW``: ``sync_threshold`` 32):
   40 small upserts, then 20 two-record upserts (timed), five records of 400 KB, then 60
   two-record upserts (each timed): the slow ones last until the log reaches a multiple of 32;
2. the same collection: five more large records, then one ``delete`` of 32 ids that no record
   has, then 20 two-record upserts (timed), and the record count before and after the delete;
3. collections with other thresholds (32, 64, 1,000): eight large records, then 130 small
   upserts; which of them were slow (over 7 ms).

    python docs/results/log_tail.py              # embedded
    python docs/results/log_tail.py HOST:PORT    # through a running `chroma run` server
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from typing import Any

from tepa_bench.perf.common import persistent_client
from langchain_tepa.storage.chroma.layout import EVIDENCE_HNSW

BIG = {"tepa_items": "x" * 400_000, "k": 1}
SMALL = {"tepa_json": "y" * 300, "a": 1, "b": "zz"}


def _upsert(col: Any, ids: list[str], metas: list[dict[str, Any]]) -> float:
    began = time.perf_counter()
    col.upsert(ids=ids, embeddings=[[0.0]] * len(ids), metadatas=metas)
    return (time.perf_counter() - began) * 1000


def main() -> None:
    print("load before", [round(x, 2) for x in os.getloadavg()])
    if len(sys.argv) > 1:
        import chromadb
        from chromadb.config import Settings

        host, port = sys.argv[1].rsplit(":", 1)
        client = chromadb.HttpClient(
            host=host, port=int(port), settings=Settings(anonymized_telemetry=False)
        )
        print("through chroma run at", sys.argv[1])
    else:
        client = persistent_client(tempfile.mkdtemp())
    col = client.create_collection("probe", embedding_function=None, metadata=dict(EVIDENCE_HNSW))
    for i in range(40):
        _upsert(col, [f"s{i}"], [SMALL])
    small = [_upsert(col, [f"t{i}", "h"], [SMALL, SMALL]) for i in range(20)]
    print(f"1. two-record upserts before large records: p50 {statistics.median(small):.1f} ms")
    print("   five 400 KB records:", [round(_upsert(col, [f"b{i}"], [BIG]), 1) for i in range(5)])
    after = [round(_upsert(col, [f"u{i}", "h"], [SMALL, SMALL]), 1) for i in range(60)]
    print("   the 60 two-record upserts after them (ms):", after)

    print(
        "2. five more 400 KB records:", [round(_upsert(col, [f"c{i}"], [BIG]), 1) for i in range(5)]
    )
    count = col.count()
    began = time.perf_counter()
    col.delete(ids=[f"~settle.{i:04d}" for i in range(32)])
    print(f"   delete of 32 absent ids: {(time.perf_counter() - began) * 1000:.1f} ms")
    print(f"   records before the delete {count}, after it {col.count()}")
    settled = [round(_upsert(col, [f"v{i}", "h"], [SMALL, SMALL]), 1) for i in range(20)]
    print("   the 20 two-record upserts after it (ms):", settled)

    print("3. eight 400 KB records, then 130 one-record upserts; which were over 7 ms:")
    for threshold in (32, 64, 1000):
        meta = {"hnsw:sync_threshold": threshold, "hnsw:batch_size": min(threshold, 100)}
        probe = client.create_collection(f"t{threshold}", embedding_function=None, metadata=meta)
        for i in range(8):
            _upsert(probe, [f"b{i}"], [BIG])
        seq = [_upsert(probe, [f"u{i}"], [{"a": 1}]) for i in range(130)]
        slow = [i for i, ms in enumerate(seq) if ms > 7]
        print(
            f"   sync_threshold {threshold}: {len(slow)} slow,"
            f" the last at upsert {max(slow, default=-1)}"
        )
    print("load after", [round(x, 2) for x in os.getloadavg()])


if __name__ == "__main__":
    main()

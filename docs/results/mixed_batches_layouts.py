"""Mixed-namespace batches in layout 4 and layout 5 stores, side by side, against raw Chroma.

Not part of the package: the script behind docs/performance.md, "Layout 5". Two embedded
stores (``TEPAMemory.from_path``, WAL) are opened with the same code, one created in layout 4
(its layout record written before the first opening), one in layout 5 (the default). Each gets
100 namespaces holding 33 values of the list key ``list.items``; then ROUNDS rounds each run one
``observe_many`` of 100 new values (one per namespace) on both stores, in alternating order,
and one raw Chroma ``add`` of 100 records of 384 dimensions. The automatic view flushes fall
inside the timed calls; the final ``flush()`` of each store is added to its last round.

    python docs/results/mixed_batches_layouts.py [ROUNDS]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time

import numpy as np

from langchain_tepa import Fact, TEPAMemory
from langchain_tepa.bench.perf import perf_policy
from langchain_tepa.bench.perf.common import DerivedEmbeddings, load_average, persistent_client
from langchain_tepa.storage.chroma.layout import Layout
from langchain_tepa.storage.chroma.opening import LAYOUT_RECORD

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
NS = 100


def open_store(version: int) -> TEPAMemory:
    folder = tempfile.mkdtemp(prefix=f"layout{version}_")
    if version != 5:
        client = persistent_client(folder)
        meta = client.get_or_create_collection("tepa_meta", embedding_function=None)
        meta.upsert(
            ids=[LAYOUT_RECORD],
            embeddings=[[1.0]],
            documents=[Layout("tepa", version=version).to_json()],
        )
        del client
    memory = TEPAMemory.from_path(folder, embeddings=DerivedEmbeddings(), policy=perf_policy())
    assert memory.storage.layout.version == version  # type: ignore[attr-defined]
    for v in range(33):
        memory.observe_many([Fact("list.items", f"item{v}", namespace=f"user{n}") for n in range(NS)])
    memory.flush()
    return memory


def main() -> None:
    stores = {v: open_store(v) for v in (4, 5)}
    raw = persistent_client(tempfile.mkdtemp(prefix="raw_")).get_or_create_collection(
        "rawcol", embedding_function=None
    )
    rng = np.random.default_rng(0)
    times: dict[object, list[float]] = {4: [], 5: [], "raw": []}
    print("load before", load_average())
    for r in range(ROUNDS):
        for v in [4, 5] if r % 2 == 0 else [5, 4]:
            facts = [Fact("list.items", f"new{r}", namespace=f"user{n}") for n in range(NS)]
            began = time.perf_counter()
            stores[v].observe_many(facts)
            times[v].append(time.perf_counter() - began)
        vectors = rng.standard_normal((NS, 384)).astype(np.float32)
        began = time.perf_counter()
        raw.add(
            ids=[f"r{r}_{i}" for i in range(NS)],
            embeddings=vectors,
            metadatas=[{"namespace": f"user{i}"} for i in range(NS)],
        )
        times["raw"].append(time.perf_counter() - began)
    for v in (4, 5):
        began = time.perf_counter()
        stores[v].flush()
        times[v][-1] += time.perf_counter() - began
    print("load after", load_average())
    raw_rate = NS * ROUNDS / sum(times["raw"])
    for v in (4, 5):
        rate = NS * ROUNDS / sum(times[v])
        print(
            f"layout {v}: {rate:.0f} facts/s, median batch {statistics.median(times[v]) * 1000:.0f} ms, "
            f"{rate / raw_rate * 100:.1f}% of raw ({raw_rate:.0f} records/s)"
        )


if __name__ == "__main__":
    main()

"""Mixed-namespace batches by number of evidence shards, and the calls an ideal layout needs.

Not part of the package: the script behind docs/performance.md, "What the two missed targets
need". Part 1 opens four embedded stores (``TEPAMemory.from_path``, WAL) with 1, 2, 4 and 16
evidence shards; each gets 100 namespaces holding 33 values of the list key ``list.items``;
then ROUNDS rounds each run one ``observe_many`` of 100 new values (one per namespace) on every
store, in alternating order, and one raw Chroma ``add`` of 100 records of 384 dimensions (the
final ``flush()`` of each store is added to its last round). Part 2 times, with raw Chroma
calls only, the three calls a layout with one page collection, one head collection and one
view collection would make for the same batch (one page of 100 parts with their vectors, 100
head updates, 100 view records) against the same raw ``add``.

    python docs/results/mixed_batches_shards.py [ROUNDS]
"""

from __future__ import annotations

import base64
import json
import statistics
import sys
import tempfile
import time

import numpy as np

from langchain_tepa import Fact, TEPAMemory
from tepa_bench.perf import perf_policy
from tepa_bench.perf.common import DerivedEmbeddings, load_average, persistent_client
from langchain_tepa.storage.chroma.layout import EVIDENCE_HNSW

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 12
NS = 100
SHARDS = (1, 2, 4, 16)


def facts(tag: str) -> list[Fact]:
    return [Fact("list.items", tag, namespace=f"user{n}") for n in range(NS)]


def by_shards() -> None:
    stores = {}
    for shards in SHARDS:
        memory = TEPAMemory.from_path(
            tempfile.mkdtemp(), embeddings=DerivedEmbeddings(), policy=perf_policy(), shards=shards
        )
        for v in range(33):
            memory.observe_many(facts(f"item{v}"))
        memory.flush()
        stores[shards] = memory
    raw = persistent_client(tempfile.mkdtemp()).get_or_create_collection(
        "rawcol", embedding_function=None
    )
    rng = np.random.default_rng(0)
    times: dict[object, list[float]] = {s: [] for s in SHARDS}
    times["raw"] = []
    for r in range(ROUNDS):
        for s in SHARDS if r % 2 == 0 else SHARDS[::-1]:
            began = time.perf_counter()
            stores[s].observe_many(facts(f"new{r}"))
            times[s].append(time.perf_counter() - began)
        vectors = rng.standard_normal((NS, 384)).astype(np.float32)
        began = time.perf_counter()
        raw.add(
            ids=[f"r{r}_{i}" for i in range(NS)],
            embeddings=vectors,
            metadatas=[{"namespace": f"user{i}"} for i in range(NS)],
        )
        times["raw"].append(time.perf_counter() - began)
    for s in SHARDS:
        began = time.perf_counter()
        stores[s].flush()
        times[s][-1] += time.perf_counter() - began
    raw_rate = NS * ROUNDS / sum(times["raw"])
    for s in SHARDS:
        rate = NS * ROUNDS / sum(times[s])
        print(
            f"shards {s:2d}: {rate:.0f} facts/s, median batch "
            f"{statistics.median(times[s]) * 1000:.0f} ms, {rate / raw_rate * 100:.1f}% of raw "
            f"({raw_rate:.0f} records/s)"
        )


def ideal_calls() -> None:
    client = persistent_client(tempfile.mkdtemp())
    pages, heads, views = (
        client.get_or_create_collection(name, embedding_function=None, metadata=EVIDENCE_HNSW)
        for name in ("pages", "heads", "views")
    )
    raw = client.get_or_create_collection("rawcol", embedding_function=None)
    rng = np.random.default_rng(0)
    times: dict[str, list[float]] = {"page": [], "heads": [], "views": [], "raw": []}
    for r in range(4 * ROUNDS):
        vectors = rng.standard_normal((NS, 384)).astype(np.float32)
        body = json.dumps(
            [
                {
                    "ns": f"user{i}",
                    "r": [{"id": f"ev{r}_{i}", "key": "list.items", "value": f"new{r}"}],
                    "v": base64.b64encode(vectors[i].tobytes()).decode(),
                }
                for i in range(NS)
            ]
        )
        calls = {
            "page": lambda: pages.upsert(
                ids=[f"p{r}"],
                embeddings=[[1.0]],
                metadatas=[{"tepa_q": r, "tepa_pnl": [f"user{i}" for i in range(NS)], "b": body}],
            ),
            "heads": lambda: heads.upsert(
                ids=[f"h{i}" for i in range(NS)],
                embeddings=[[1.0]] * NS,
                metadatas=[
                    {"tepa_kind": "head", "tepa_hns": f"user{i}", "s": r, "c": r, "t": float(r)}
                    for i in range(NS)
                ],
            ),
            "views": lambda: views.upsert(
                ids=[f"v{r}_{i}" for i in range(NS)],
                embeddings=[[1.0]] * NS,
                metadatas=[
                    {"tepa_ns": f"user{i}", "tepa_key": "list.items", "tepa_view": "x" * 300}
                    for i in range(NS)
                ],
            ),
            "raw": lambda: raw.add(
                ids=[f"r{r}_{i}" for i in range(NS)],
                embeddings=vectors,
                metadatas=[{"namespace": f"user{i}"} for i in range(NS)],
            ),
        }
        for name, call in calls.items():
            began = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - began)
    med = {name: statistics.median(ts) * 1000 for name, ts in times.items()}
    print("median ms: " + ", ".join(f"{name} {ms:.1f}" for name, ms in med.items()))
    three = med["page"] + med["heads"] + med["views"]
    print(
        f"page + heads + views: {three:.1f} ms = {med['raw'] / three * 100:.0f}% of raw; "
        f"page + heads only: {med['raw'] / (three - med['views']) * 100:.0f}% of raw"
    )


if __name__ == "__main__":
    print("load before", load_average())
    by_shards()
    print("load between", load_average())
    ideal_calls()
    print("load after", load_average())

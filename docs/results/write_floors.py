"""The floors under the two write targets of issue 13 that are still missed.

Not part of the package: the script behind docs/performance.md, "The floors under the two
missed write targets". Each part runs TEPA as a user does, records every Chroma call TEPA
makes (``ChromaStorage.call``: records, metadata entries, bytes, time), and then writes **the
same records** with raw chromadb calls in the fewest calls possible, into fresh collections (no
shards, no other data), to show what no layout over Chroma can go below.

Part 1, ``put``: a ``TEPAStore.from_path`` and LangGraph's ``SqliteStore`` (vector index,
``sqlite-vec``) hold USERS users x ITEMS items (the side-by-side workload, smaller); then CALLS
``put`` of a new item each, interleaved. The floors: one raw ``upsert`` of one record with one
metadata entry (on disk, then on ``/dev/shm``, where ``fsync`` costs nothing), and one raw
``upsert`` of the records a TEPA ``put`` wrote (its page and head, same metadata).

Part 2, mixed-namespace batches: an embedded ``TEPAMemory`` (TEPA_FLOOR_SHARDS shards, default
16) with 100 namespaces of 33 values each of a list key; then ROUNDS batches of 500 new values (5
per namespace, with text) through ``observe_many`` (views written when the view buffer is due;
the final ``flush()`` is charged to the last batch), against raw ``add`` of the same 500 facts
(384-dimensional vectors, documents, two metadata entries) into a fresh collection, alternated.
The ideal: the batch's own pages, heads and views each written by one raw ``upsert`` into one
collection.

    python docs/results/write_floors.py [USERS ITEMS CALLS ROUNDS]
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from langgraph.store.base import PutOp

import langchain_tepa.storage.chroma.backend as backend
from langchain_tepa import Fact, TEPAMemory, TEPAStore
from tepa_bench.perf import perf_policy
from tepa_bench.perf.common import (
    DerivedEmbeddings,
    derived_vector,
    load_average,
    persistent_client,
)
from tepa_bench.perf.side_by_side import StoreWorkload, sqlite_module
from langchain_tepa.storage.chroma.layout import EVIDENCE_HNSW

USERS, ITEMS, CALLS, ROUNDS = (
    int(a) for a in (sys.argv[1:5] if len(sys.argv) > 4 else (20, 500, 100, 8))
)
NS = 100
BATCH = 500
SHARDS = int(os.environ.get("TEPA_FLOOR_SHARDS", "16"))


class Calls:
    """Every ``ChromaStorage.call`` while recording: op, ids, metadatas, seconds."""

    def __init__(self) -> None:
        self.log: list[dict[str, Any]] = []
        self.on = False
        original = backend.ChromaStorage.call

        def spy(storage: Any, op: str, fn: Callable[..., Any], *a: Any, **k: Any) -> Any:
            began = time.perf_counter()
            try:
                return original(storage, op, fn, *a, **k)
            finally:
                if self.on:
                    self.log.append(
                        {
                            "op": op,
                            "ids": list(k.get("ids") or []),
                            "metadatas": list(k.get("metadatas") or []),
                            "s": time.perf_counter() - began,
                        }
                    )

        backend.ChromaStorage.call = spy  # type: ignore[method-assign]

    @contextmanager
    def recording(self) -> Iterator[list[dict[str, Any]]]:
        self.log = []
        self.on = True
        try:
            yield self.log
        finally:
            self.on = False


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.2f}"


def entries(metas: list[dict[str, Any]]) -> int:
    return sum(len(m) for m in metas)


def size(metas: list[dict[str, Any]]) -> int:
    return sum(len(json.dumps(m)) for m in metas)


def kind(meta: dict[str, Any]) -> str:
    if meta.get("tepa_kind") == "head":
        return "heads"
    if "tepa_view" in meta:
        return "views"
    return "pages"


def fresh_collection(client: Any, name: str) -> Any:
    return client.get_or_create_collection(name, embedding_function=None, metadata=EVIDENCE_HNSW)


def one_record_floor(where: str | None, rounds: int = 60) -> list[float]:
    client = persistent_client(tempfile.mkdtemp(dir=where))
    col = fresh_collection(client, "floor")
    out = []
    for r in range(rounds):
        began = time.perf_counter()
        col.upsert(ids=[f"r{r}"], embeddings=[[1.0]], metadatas=[{"a": r}])
        out.append(time.perf_counter() - began)
    return out[5:]


def part_put(spy: Calls) -> None:
    work = StoreWorkload(USERS, ITEMS)
    folder = Path(tempfile.mkdtemp())
    emb = DerivedEmbeddings()
    index = work.index(emb)
    tepa = TEPAStore.from_path(folder / "tepa", index=index, embeddings=emb)
    conn = sqlite_module().connect(
        str(folder / "store.sqlite"), check_same_thread=False, isolation_level=None
    )
    from langgraph.store.sqlite import SqliteStore

    sqlite = SqliteStore(conn, index={**index, "text_fields": index["fields"]})  # type: ignore[typeddict-unknown-key]
    sqlite.setup()
    for u in range(USERS):
        ops = [PutOp(work.namespace(u), work.key(j), work.value(u, j)) for j in range(ITEMS)]
        tepa.batch(ops)
        sqlite.batch(ops)
    times: dict[str, list[float]] = {"tepa": [], "sqlite": [], "chroma_in_put": []}
    calls_per_put: list[int] = []
    put_records: list[dict[str, Any]] = []
    for c in range(CALLS):
        ns, key, value = work.namespace(c % USERS), f"new{c:05d}", work.new_value(c)
        for who in ("tepa", "sqlite") if c % 2 == 0 else ("sqlite", "tepa"):
            if who == "tepa":
                with spy.recording() as log:
                    began = time.perf_counter()
                    tepa.put(ns, key, value)
                    times["tepa"].append(time.perf_counter() - began)
                times["chroma_in_put"].append(sum(e["s"] for e in log))
                calls_per_put.append(len(log))
                appends = [e for e in log if e["op"] == "append evidence"]
                if appends:
                    put_records.append(appends[-1])
            else:
                began = time.perf_counter()
                sqlite.put(ns, key, value)
                times["sqlite"].append(time.perf_counter() - began)
    tepa.memory.close()
    conn.close()
    sample = put_records[len(put_records) // 2]
    print(f"## put ({USERS} users x {ITEMS} items, {CALLS} puts interleaved)")
    print(
        f"TEPAStore.put p50 {ms(times['tepa'])} ms, of which Chroma calls {ms(times['chroma_in_put'])}"
        f" ms ({statistics.median(calls_per_put):.0f} calls a put, median); SqliteStore.put p50"
        f" {ms(times['sqlite'])} ms; target (3x SqliteStore) "
        f"{statistics.median(times['sqlite']) * 3000:.2f} ms"
    )
    print(
        f"a put's append: {len(sample['ids'])} records ({', '.join(kind(m) for m in sample['metadatas'])}),"
        f" {entries(sample['metadatas'])} metadata entries, {size(sample['metadatas'])} bytes"
    )
    disk = one_record_floor(None)
    shm = one_record_floor("/dev/shm")
    print(
        f"raw upsert of 1 record with 1 metadata entry: p50 {ms(disk)} ms on disk, {ms(shm)} ms on /dev/shm"
    )
    client = persistent_client(tempfile.mkdtemp())
    col = fresh_collection(client, "replay")
    replay = []
    for r, rec in enumerate(put_records):
        ids = [
            i if kind(m) == "heads" else f"{i}.{r}" for i, m in zip(rec["ids"], rec["metadatas"])
        ]
        began = time.perf_counter()
        col.upsert(ids=ids, embeddings=[[1.0]] * len(ids), metadatas=rec["metadatas"])
        replay.append(time.perf_counter() - began)
    print(
        f"raw upsert of a put's own records (page and head) into a fresh collection: p50 {ms(replay[5:])} ms"
    )
    print()


def part_mixed(spy: Calls) -> None:
    memory = TEPAMemory.from_path(
        tempfile.mkdtemp(), embeddings=DerivedEmbeddings(), policy=perf_policy(), shards=SHARDS
    )
    for v in range(33):
        memory.observe_many(
            [Fact("list.items", f"item{v}", namespace=f"user{n}") for n in range(NS)]
        )
    memory.flush()
    raw = persistent_client(tempfile.mkdtemp()).get_or_create_collection(
        "raw", embedding_function=None, metadata={"hnsw:space": "cosine"}
    )
    ideal_client = persistent_client(tempfile.mkdtemp())
    ideal = {k: fresh_collection(ideal_client, f"ideal_{k}") for k in ("pages", "heads", "views")}
    t: dict[str, list[float]] = {
        k: [] for k in ("tepa", "chroma", "raw", "pages", "heads", "views")
    }
    calls: list[int] = []
    ops: Counter[str] = Counter()
    records: dict[str, list[int]] = {k: [] for k in ("pages", "heads", "views")}
    for r in range(ROUNDS):
        texts = [
            f"user {i % NS} says {r}-{i}: a new note about topic {i % 97}" for i in range(BATCH)
        ]
        facts = [
            Fact("list.items", f"new {r}-{i}", namespace=f"user{i % NS}", text=texts[i])
            for i in range(BATCH)
        ]
        vectors = np.stack([derived_vector(x) for x in texts]).astype(np.float32)
        order = ("tepa", "raw") if r % 2 == 0 else ("raw", "tepa")
        for who in order:
            began = time.perf_counter()
            if who == "tepa":
                with spy.recording() as log:
                    memory.observe_many(facts)  # views are written when its buffer is due
                    if r == ROUNDS - 1:
                        memory.flush()  # what is still buffered: charged to the last batch
                t["tepa"].append(time.perf_counter() - began)
                t["chroma"].append(sum(e["s"] for e in log))
                calls.append(len(log))
                ops.update(e["op"] for e in log)
                written = [e for e in log if e["op"] != "read heads"]
            else:
                raw.add(
                    ids=[f"r{r}.{i}" for i in range(BATCH)],
                    embeddings=vectors,
                    documents=texts,
                    metadatas=[
                        {"namespace": f.namespace or "", "tepa_state": "active"} for f in facts
                    ],
                )
                t["raw"].append(time.perf_counter() - began)
        by_kind: dict[str, tuple[list[str], list[dict[str, Any]]]] = {k: ([], []) for k in ideal}
        heads: dict[str, dict[str, Any]] = {}  # a head written twice (bump, then view mark): once
        for e in written:
            for i, m in zip(e["ids"], e["metadatas"]):
                k = kind(m)
                if k == "heads":
                    heads.setdefault(i, {}).update(m)
                    continue
                by_kind[k][0].append(f"{i}.{r}")
                by_kind[k][1].append(m)
        by_kind["heads"] = (list(heads), list(heads.values()))
        for k, (ids, metas) in by_kind.items():
            records[k].append(len(ids))
            began = time.perf_counter()
            for s in range(0, len(ids), 5000):
                ideal[k].upsert(
                    ids=ids[s : s + 5000],
                    embeddings=[[1.0]] * len(ids[s : s + 5000]),
                    metadatas=metas[s : s + 5000],
                )
            t[k].append(time.perf_counter() - began)
    memory.close()
    tot = {k: sum(v) for k, v in t.items()}
    python = tot["tepa"] - tot["chroma"]
    ideal_s = tot["pages"] + tot["heads"] + tot["views"]
    print(
        f"## mixed-namespace batches ({ROUNDS} batches of {BATCH} facts over {NS} namespaces, {SHARDS} shards)"
    )
    print(
        f"TEPA observe_many + flush: {BATCH * ROUNDS / tot['tepa']:.0f} facts/s ({tot['tepa'] / ROUNDS * 1000:.0f} ms a batch:"
        f" Chroma calls {tot['chroma'] / ROUNDS * 1000:.0f} ms in {statistics.median(calls):.0f} calls, the rest"
        f" {python / ROUNDS * 1000:.0f} ms); raw add {BATCH * ROUNDS / tot['raw']:.0f} facts/s"
        f" ({tot['raw'] / ROUNDS * 1000:.0f} ms a batch): {tot['raw'] / tot['tepa'] * 100:.1f}% of raw"
    )
    print("  calls a batch: " + ", ".join(f"{op} {n / ROUNDS:.1f}" for op, n in ops.items()))
    for k in ("pages", "heads", "views"):
        print(
            f"  ideal {k}: {statistics.median(records[k]):.0f} records a batch in one upsert, {tot[k] / ROUNDS * 1000:.0f} ms"
        )
    print(
        f"ideal layout, storage only: {ideal_s / ROUNDS * 1000:.0f} ms a batch = {tot['raw'] / ideal_s * 100:.0f}% of raw;"
        f" with TEPA's own Python time: {tot['raw'] / (ideal_s + python) * 100:.0f}% of raw;"
        f" without views: {tot['raw'] / (ideal_s - tot['views'] + python) * 100:.0f}%"
    )


def main() -> None:
    print(f"# write floors, load before {load_average()}")
    spy = Calls()
    part_put(spy)
    part_mixed(spy)
    print(f"load after {load_average()}")


if __name__ == "__main__":
    main()

"""The answer index on Chroma (``storage/answers.py``): one collection per space and group.

A commit's answer changes go to the collections of their namespaces' groups
(``Layout.answer_group``): one ``upsert`` of its answers' records (their item vectors as
embeddings, the answer as metadata) and one ``delete`` of stale slots per collection touched.
A query asks the one collection of its prefix's group when the prefix has two labels or more
(a user's namespace and its children), every group's otherwise, with Chroma's own HNSW index
filtered on the label prefixes (``tepa_pfx``), and merges the hits best first.

Example:
    >>> from langchain_tepa.storage.answers import AnswerRecord
    >>> rec = AnswerRecord("users.u1", "k", "p1", {"t": 1}, 1.0, 2.0, "e1", [[1.0, 0.0]])
    >>> meta = record_meta(rec)
    >>> meta["tepa_pfx"], hit_from(meta, 0.25).score
    (['users', 'users.u1'], 0.75)
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_tepa.storage.answers import (
    AnswerHit,
    AnswerRecord,
    AnswerUpdate,
    answer_ids,
    label_prefixes,
    unit,
)
from langchain_tepa.storage.chroma.handles import CollectionHandles
from langchain_tepa.storage.chroma.layout import Layout

__all__ = ["ANSWER_HNSW", "hit_from", "query", "record_meta", "write"]

ANSWER_HNSW: dict[str, Any] = {
    "hnsw:space": "cosine",
    "hnsw:sync_threshold": 64,
    "hnsw:batch_size": 64,
    "hnsw:construction_ef": 32,
    "hnsw:search_ef": 128,
}
"""The answer collections' index. A process's first read of a collection replays its records
not yet persisted (about 0.5 ms each at 384 dimensions), so the index is persisted every 64
records; ``search_ef`` 128 keeps the filtered top-10 equal to an exact ranking on the
benchmarks' stores (``tepa-bench perf --stores`` compares it with SqliteStore's)."""


def record_meta(rec: AnswerRecord) -> dict[str, Any]:
    """The Chroma metadata of ``rec``'s records (one per vector, the same metadata)."""
    meta: dict[str, Any] = {
        "tepa_ns": rec.namespace,
        "tepa_pfx": label_prefixes(rec.namespace),
        "tepa_key": rec.key,
        "tepa_pid": rec.precedent,
        "tepa_val": json.dumps(rec.value, ensure_ascii=False),
        "tepa_ca": float(rec.created_at),
        "tepa_ua": float(rec.updated_at),
        "tepa_le": rec.last_evidence,
        "tepa_plain": bool(rec.plain),
    }
    if rec.stamp is not None:
        meta["tepa_stamp"] = json.dumps([float(x) for x in rec.stamp])
    return meta


def hit_from(meta: Mapping[str, Any], distance: float) -> AnswerHit:
    """The hit of a record's metadata found at cosine ``distance``."""
    stamp = meta.get("tepa_stamp")
    return AnswerHit(
        str(meta["tepa_ns"]),
        str(meta["tepa_key"]),
        str(meta["tepa_pid"]),
        json.loads(str(meta["tepa_val"])),
        float(meta["tepa_ca"]),
        float(meta["tepa_ua"]),
        str(meta.get("tepa_le", "")),
        1.0 - float(distance),
        bool(meta.get("tepa_plain", True)),
        None if not isinstance(stamp, str) else tuple(json.loads(stamp)),
    )


def write(
    handles: CollectionHandles,
    layout: Layout,
    updates: Sequence[tuple[str, str, AnswerUpdate]],
) -> None:
    """Store ``(namespace, space, update)`` changes in order: per collection an upsert, a delete.

    A record put and later removed (or removed and put again) by later changes ends as the last
    change says.
    """
    final: dict[str, dict[str, tuple[Any, dict[str, Any]] | None]] = {}
    for namespace, space, update in updates:
        ops = final.setdefault(layout.answers(space, layout.answer_group(namespace)), {})
        for key, start, stop in update.stale:
            for rid in answer_ids(namespace, key, start, stop):
                ops[rid] = None
        for rec in update.records:
            if not rec.vectors:
                continue
            meta = record_meta(rec)
            ids = answer_ids(rec.namespace, rec.key, 0, len(rec.vectors))
            for rid, vec in zip(ids, unit(rec.vectors), strict=True):
                ops[rid] = (vec, meta)
    for name in sorted(final):
        col = handles.collection(name, create=True, hnsw=ANSWER_HNSW)
        puts = [(rid, op) for rid, op in final[name].items() if op is not None]
        for part in range(0, len(puts), handles.max_batch):
            chunk = puts[part : part + handles.max_batch]
            handles.call(
                "index answers",
                col.upsert,
                ids=[rid for rid, _ in chunk],
                embeddings=[op[0] for _, op in chunk],
                metadatas=[op[1] for _, op in chunk],
            )
        stale = [rid for rid, op in final[name].items() if op is None]
        for part in range(0, len(stale), handles.max_batch):
            handles.call("remove answers", col.delete, ids=stale[part : part + handles.max_batch])


def query(
    handles: CollectionHandles,
    layout: Layout,
    space: str,
    vector: Sequence[float],
    n: int,
    prefix: str | None,
) -> list[AnswerHit]:
    """The ``n`` best answers of ``space`` under ``prefix`` (none before the first write)."""
    if prefix is not None and prefix.count(".") >= 1:
        groups = [layout.answer_group(prefix)]
    else:
        groups = list(range(layout.answer_groups))
    cols = [handles.collection(layout.answers(space, g), create=False) for g in groups]
    found = [col for col in cols if col is not None]
    if not found or n <= 0:
        return []  # nothing indexed there yet
    where = None if prefix is None else {"tepa_pfx": {"$contains": prefix}}
    q = unit([vector])[0].tolist()
    best: dict[tuple[str, str], AnswerHit] = {}
    for col in found:
        got = handles.call(
            "read answers",
            col.query,
            query_embeddings=[q],
            n_results=n,
            where=where,
            include=["metadatas", "distances"],
        )
        metas = (got.get("metadatas") or [[]])[0] or []
        dists = (got.get("distances") or [[]])[0] or []
        for meta, dist in zip(metas, dists, strict=True):
            hit = hit_from(meta, dist)
            at = (hit.namespace, hit.key)
            if at not in best or hit.score > best[at].score:
                best[at] = hit
    return sorted(best.values(), key=lambda h: -h.score)[:n]

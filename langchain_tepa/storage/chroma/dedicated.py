"""Large namespaces: an index of their own, ranked by Chroma's HNSW index.

Ordinary namespaces are ranked in process over their vectors (stored in their evidence pages).
Once a namespace holds more than ``dedicated_at`` precedents, the memory that notices copies its
vectors into a collection of its own and flags its head (``tepa_big``); from then on new vectors
of that namespace go to the index as they are written. A writer that has not yet seen the flag
still puts new vectors in its pages only; a writable reader that folds such a page adds them to
the index. The head records through which page of each stream the index is complete
(``tepa_ix:<stream>``), so a reader opening the namespace reads no vector of older pages.

Example:
    >>> import chromadb
    >>> from chromadb.config import Settings
    >>> from langchain_tepa import HashingEmbeddings, TEPAMemory
    >>> from langchain_tepa.storage.chroma import ChromaStorage
    >>> client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    >>> storage = ChromaStorage(client, prefix="doc_big", dedicated_at=3)
    >>> memory = TEPAMemory(storage, embeddings=HashingEmbeddings())
    >>> _ = memory.observe_many([(f"fact.k{i}", i) for i in range(5)])
    >>> storage.is_dedicated("default")
    True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_tepa.core.types import Precedent
from langchain_tepa.storage.chroma import codec
from langchain_tepa.storage.chroma.handles import CollectionHandles
from langchain_tepa.storage.chroma.layout import VECTOR_HNSW, Layout

__all__ = ["flag", "index_rows", "indexed_ids", "nearest", "vectors_of"]


def _index(handles: CollectionHandles, layout: Layout, namespace: str, *, create: bool) -> Any:
    return handles.collection(layout.dedicated(namespace), create=create, hnsw=VECTOR_HNSW)


def flag(
    handles: CollectionHandles, layout: Layout, namespace: str, through: Mapping[str, int]
) -> None:
    """Flag ``namespace``'s head as dedicated, its index complete through ``through``.

    Called once every precedent of the namespace is in its index
    (``ChromaStorage.dedicate``). A crash before the flag leaves the namespace ranked in
    process as before (the index is rebuilt by the next attempt); after it, readers rank
    through the index.
    """
    heads = handles.collection(layout.evidence(layout.shard(namespace)), create=True)
    handles.call(
        "dedicate namespace",
        heads.update,
        ids=[codec.head_id(namespace)],
        metadatas=[{**codec.indexed_update(namespace, through), "tepa_big": True}],
    )


def index_rows(
    handles: CollectionHandles,
    layout: Layout,
    namespace: str,
    rows: Sequence[tuple[Precedent, Sequence[float]]],
) -> None:
    """Upsert precedents with their vectors into ``namespace``'s index (created if needed)."""
    col = _index(handles, layout, namespace, create=True)
    for part in handles.chunks(list(rows)):
        handles.call(
            "index vectors",
            col.upsert,
            ids=[p.id for p, _ in part],
            embeddings=[[float(x) for x in v] for _, v in part],
            metadatas=[codec.index_meta(p) for p, _ in part],
        )


def vectors_of(
    handles: CollectionHandles, layout: Layout, namespace: str, ids: Sequence[str]
) -> dict[str, list[float]]:
    """Vectors of ``ids`` in ``namespace``'s index (those it holds)."""
    col = _index(handles, layout, namespace, create=False)
    out: dict[str, list[float]] = {}
    if col is None:
        return out
    for part in handles.chunks(list(ids)):
        got = handles.call("read index", col.get, ids=list(part), include=["embeddings"])
        for pid, vec in zip(got["ids"], got["embeddings"], strict=True):
            out[pid] = [float(x) for x in vec]
    return out


def indexed_ids(
    handles: CollectionHandles, layout: Layout, namespace: str, ids: Sequence[str]
) -> set[str]:
    """Which of ``ids`` ``namespace``'s index holds."""
    col = _index(handles, layout, namespace, create=False)
    if col is None:
        return set()
    found: set[str] = set()
    for part in handles.chunks(list(ids)):
        found.update(handles.call("read index", col.get, ids=list(part), include=[])["ids"])
    return found


def nearest(
    handles: CollectionHandles,
    layout: Layout,
    namespace: str,
    vector: Sequence[float],
    n: int,
    *,
    key_prefix: str | None = None,
) -> list[tuple[str, float]]:
    """The ``n`` nearest precedents in ``namespace``'s index, with cosine similarities."""
    col = _index(handles, layout, namespace, create=False)
    if col is None:
        return []
    where = {"tepa_kp": {"$contains": key_prefix}} if key_prefix else None
    res = handles.call(
        "query",
        col.query,
        query_embeddings=[[float(x) for x in vector]],
        n_results=max(1, int(n)),
        where=where,
        include=["distances"],
    )
    ids = res["ids"][0] if res["ids"] else []
    dists = res["distances"][0] if res.get("distances") else [0.0] * len(ids)
    return [(pid, 1.0 - float(d)) for pid, d in zip(ids, dists, strict=True)]

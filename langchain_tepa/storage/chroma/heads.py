"""Reading namespace heads: by id, or every head of a store.

A head lives in its namespace's evidence shard (``layout.py``); reading the heads of several
namespaces costs one read by id per shard they live in.

Example:
    >>> import chromadb
    >>> from chromadb.config import Settings
    >>> from langchain_tepa.storage.chroma.handles import CollectionHandles
    >>> from langchain_tepa.storage.chroma.layout import Layout
    >>> client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    >>> read(CollectionHandles(client, prefix="doc_heads"), Layout("doc_heads"), ["users.u1"])
    {}
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from langchain_tepa.core.log import Head
from langchain_tepa.storage.chroma import codec
from langchain_tepa.storage.chroma.handles import CollectionHandles
from langchain_tepa.storage.chroma.layout import EVIDENCE_HNSW, Layout

__all__ = ["every", "read"]


def read(handles: CollectionHandles, layout: Layout, namespaces: Sequence[str]) -> dict[str, Head]:
    """Heads of ``namespaces`` (namespaces never written are absent), one read per shard."""
    out: dict[str, Head] = {}
    groups: dict[int, list[str]] = {}
    for ns in dict.fromkeys(namespaces):
        groups.setdefault(layout.shard(ns), []).append(ns)
    for shard, names in groups.items():
        col = handles.collection(layout.evidence(shard), create=False, hnsw=EVIDENCE_HNSW)
        if col is None:
            continue
        wanted = set(names)
        ids = [codec.head_id(ns) for ns in names]
        got = handles.call("read heads", col.get, ids=ids, include=["metadatas"])
        for meta in got["metadatas"] or []:
            head = codec.decode_head(meta or {})
            if head.namespace in wanted:
                out[head.namespace] = head
    return out


def every(handles: CollectionHandles, layout: Layout) -> Iterator[Head]:
    """Every namespace's head, shard by shard."""
    for shard in range(layout.shards):
        col = handles.collection(layout.evidence(shard), create=False, hnsw=EVIDENCE_HNSW)
        if col is None:
            continue
        got = handles.get_all(col, {"tepa_kind": "head"}, ["metadatas"])
        for meta in got["metadatas"]:
            yield codec.decode_head(meta or {})

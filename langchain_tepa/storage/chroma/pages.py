"""Which page holds each write of a commit, the page records, and the calls that store them.

The writes of one shard share **shard pages** (one record for many namespaces), each at most
``PAGE_RECORDS`` records, ``PAGE_RECORDS`` vectors (precedents' and items'), about
``PAGE_BYTES`` bytes and ``MAX_PAGE_NAMESPACES`` namespaces, and small enough to go with its
head bumps in one call; a write too large to share a page gets pages of its own.
:func:`send_pages` writes one shard's pages and head bumps, a page and its head bumps never
split over two calls.

Example:
    >>> group_writes([], dedicated=set(), max_batch=5000)
    ([], {})
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from typing import Any

from langchain_tepa.storage.base import Commit, NamespaceWrite
from langchain_tepa.storage.chroma import codec
from langchain_tepa.storage.chroma.handles import PLACEHOLDER, CollectionHandles
from langchain_tepa.storage.chroma.layout import MAX_PAGE_NAMESPACES, PAGE_BYTES, PAGE_RECORDS
from langchain_tepa.storage.chroma.tail import LogTail

__all__ = ["group_writes", "page_records", "send_pages"]


def _b64(dimensions: int) -> int:
    """Characters of a float32 vector of ``dimensions`` in base64 (``codec.encode_vector``)."""
    return 4 * -(-4 * dimensions // 3)


def _page_vectors(write: NamespaceWrite, dedicated: Container[str]) -> int:
    """Precedent vectors the write's page carries (a large namespace's go to its index)."""
    return 0 if write.namespace in dedicated else len(write.new)


def _page_bytes(write: NamespaceWrite, texts: Sequence[str], dedicated: Container[str]) -> int:
    """About how many bytes the write's part of a page takes (``texts``: its records)."""
    size = sum(len(text) + 1 for text in texts)
    if _page_vectors(write, dedicated):
        size += sum(len(p.id) + _b64(len(v)) for p, v in write.new)
    for owners in write.items.values():
        size += sum(len(owner) + sum(_b64(len(v)) for v in vs) for owner, vs in owners.items())
    return size


def _page_load(write: NamespaceWrite, dedicated: Container[str]) -> int:
    """Vectors of every kind the write's page carries (precedents' and items')."""
    items = sum(len(vs) for owners in write.items.values() for vs in owners.values())
    return _page_vectors(write, dedicated) + items


def group_writes(
    writes: Sequence[NamespaceWrite], *, dedicated: Container[str], max_batch: int
) -> tuple[list[list[NamespaceWrite]], dict[int, list[str]]]:
    """The writes of one shard, grouped by the page that holds them.

    Args:
        writes: The commit's writes to one shard.
        dedicated: Namespaces with an index of their own (their vectors are not paged).
        max_batch: Records of one Chroma call at most (a page and every head bump).

    Returns:
        The groups (a write too large to share a page is a group of one), and the records of
        the writes it measured, encoded (by ``id`` of the write), for the pages to reuse.
    """
    texts: dict[int, list[str]] = {}
    if len(writes) < 2:
        return [[w] for w in writes], texts
    out: list[list[NamespaceWrite]] = []
    group: list[NamespaceWrite] = []
    records = vectors = size = 0
    for write in writes:
        n, v = len(write.records), _page_load(write, dedicated)
        b = 0
        if n <= PAGE_RECORDS and v <= PAGE_RECORDS:
            texts[id(write)] = [ev.to_json() for ev in write.records]
            b = _page_bytes(write, texts[id(write)], dedicated)
        if n > PAGE_RECORDS or v > PAGE_RECORDS or b > PAGE_BYTES:
            out.append([write])
            continue
        if group and (
            records + n > PAGE_RECORDS
            or vectors + v > PAGE_RECORDS
            or size + b > PAGE_BYTES
            or len(group) >= MAX_PAGE_NAMESPACES
            or len(group) + 2 > max_batch  # the page and every head bump
        ):
            out.append(group)
            group, records, vectors, size = [], 0, 0, 0
        group.append(write)
        records += n
        vectors += v
        size += b
    if group:
        out.append(group)
    return out, texts


def page_records(
    commit: Commit,
    shard: int,
    index: int,
    group: Sequence[NamespaceWrite],
    texts: Mapping[int, list[str]],
    dedicated: Container[str],
) -> list[tuple[str, dict[str, Any]]]:
    """The page records (id, metadata) of one group: a shard page, or a write's own pages.

    ``texts``: records already encoded, by ``id`` of the write (:func:`group_writes`).
    """
    if len(group) > 1:
        parts = [
            codec.PagePart(
                w.namespace,
                w.basis,
                w.records,
                {p.id: v for p, v in w.new} if _page_vectors(w, dedicated) else {},
                w.items,
                texts.get(id(w)),
            )
            for w in group
        ]
        meta = codec.shard_page_meta(commit.stream, commit.seq, parts)
        return [(codec.shard_page_id(commit.stream, commit.seq, shard, index), meta)]
    write = group[0]
    metas = codec.write_pages(
        write.namespace,
        commit.stream,
        commit.seq,
        write.basis,
        write.records,
        {p.id: v for p, v in write.new} if _page_vectors(write, dedicated) else None,
        write.items,
        max_records=PAGE_RECORDS,
        max_bytes=PAGE_BYTES,
        texts=texts.get(id(write)),
    )
    return [
        (codec.page_id(commit.stream, commit.seq, write.namespace, i), meta)
        for i, meta in enumerate(metas)
    ]


def send_pages(
    handles: CollectionHandles,
    col: Any,
    commit: Commit,
    shard: int,
    writes: Sequence[NamespaceWrite],
    carried: Mapping[str, Mapping[str, int]],
    *,
    dedicated: Container[str],
    tail: tuple[LogTail, str],
) -> list[NamespaceWrite]:
    """Upsert one shard's pages and head bumps; the writes whose views are left to write.

    Args:
        handles: The store's collections (its ``call`` and batch size).
        col: The shard's evidence collection.
        commit: The append.
        shard: The shard's number.
        writes: The commit's writes to this shard.
        carried: View marks waiting for this shard: they ride in its heads (or as records).
        dedicated: Namespaces with an index of their own.
        tail: The log-tail counter and the shard's collection name, to count what is written.

    Returns:
        The writes that carry views or view marks (views live in view shards: written after).
    """
    ids: list[str] = []
    metas: list[dict[str, Any]] = []
    marks = {ns: dict(per) for ns, per in carried.items()}
    late: list[NamespaceWrite] = []
    limit = handles.max_batch

    def send() -> None:
        while ids:  # more than one call only for more records than a call holds
            n = min(len(ids), limit)
            handles.call(
                "append evidence",
                col.upsert,
                ids=ids[:n],
                embeddings=[PLACEHOLDER] * n,
                metadatas=metas[:n],
            )
            tail[0].add(tail[1], metas[:n])
            del ids[:n], metas[:n]

    groups, texts = group_writes(writes, dedicated=dedicated, max_batch=limit)
    for index, group in enumerate(groups):
        entries = page_records(commit, shard, index, group, texts, dedicated)
        entries_ids = [pid for pid, _ in entries]
        entries_metas = [meta for _, meta in entries]
        for write in group:
            head = codec.head_update(
                write.namespace,
                commit.stream,
                commit.seq,
                write.count,
                write.summary,
                write.time,
            )
            if write.views or write.view_marks:
                late.append(write)
            waiting = marks.pop(write.namespace, None)
            if waiting:
                head.update(codec.marks_update(write.namespace, waiting))
            entries_ids.append(codec.head_id(write.namespace))
            entries_metas.append(head)
        if ids and len(ids) + len(entries_ids) > limit:
            send()
        ids.extend(entries_ids)
        metas.extend(entries_metas)
    for ns, per in marks.items():  # heads this commit does not bump
        if len(ids) >= limit:
            send()
        ids.append(codec.head_id(ns))
        metas.append(codec.marks_update(ns, per))
    send()
    return late

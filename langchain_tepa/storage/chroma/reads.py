"""Reading evidence pages: the filters that find a namespace's pages in its shard.

A namespace's pages are matched on ``tepa_pns`` (its own pages) or ``tepa_pnl`` (shard pages
listing it); a request may also ask only for pages after a clock, with a key, or up to a
time. One filtered read per shard, per ``READ_NAMESPACES`` namespaces (SQLite refuses filters
deeper than 1,000 clauses).

Example:
    >>> namespace_clause(["users.u1"])["$or"][0]
    {'tepa_pns': 'users.u1'}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_tepa.core.log import Page
from langchain_tepa.storage.base import PageRequest
from langchain_tepa.storage.chroma import codec
from langchain_tepa.storage.chroma.handles import CollectionHandles
from langchain_tepa.storage.chroma.layout import EVIDENCE_HNSW, Layout

__all__ = ["READ_NAMESPACES", "load_pages", "namespace_clause", "page_clause", "where"]

READ_NAMESPACES = 100
"""Namespaces of one filtered read at most (each is a clause of its own)."""


def where(clauses: list[dict[str, Any]], op: str = "$and") -> dict[str, Any]:
    """``clauses`` joined by ``op`` (Chroma needs two clauses or more for ``$and``/``$or``)."""
    return clauses[0] if len(clauses) == 1 else {op: clauses}


def namespace_clause(namespaces: Sequence[str]) -> dict[str, Any]:
    """Pages of ``namespaces``: their own pages, and shard pages listing them."""
    own = (
        {"tepa_pns": namespaces[0]}
        if len(namespaces) == 1
        else {"tepa_pns": {"$in": list(namespaces)}}
    )
    return {"$or": [own, *({"tepa_pnl": {"$contains": ns}} for ns in namespaces)]}


def page_clause(req: PageRequest) -> dict[str, Any] | None:
    """The filter of one request, or ``None`` when it can match nothing."""
    clauses: list[dict[str, Any]] = [namespace_clause([req.namespace])]
    if req.after is not None:
        if not req.after:
            return None
        per = [
            {"$and": [{"tepa_w": stream}, {"tepa_q": {"$gt": int(seq)}}]}
            for stream, seq in sorted(req.after.items())
        ]
        clauses.append(where(per, "$or"))
    if req.key is not None:
        clauses.append(
            {
                "$or": [
                    {"tepa_keys": {"$contains": codec.key_hash(req.key)}},
                    {"tepa_keys": {"$contains": codec.ALL_KEYS}},
                ]
            }
        )
    if req.until is not None:
        clauses.append({"tepa_t0": {"$lte": float(req.until)}})
    return where(clauses)


def _part_wanted(req: PageRequest, page: Page) -> bool:
    """Whether a namespace's part of a shard page answers ``req``.

    The page's own metadata (streams, times, keys) is that of every part together, so a
    filtered read may return a shard page for one part that another part does not match.
    """
    if req.after is not None and page.seq <= req.after.get(page.stream, page.seq):
        return False
    if req.key is not None and not any(ev.key == req.key for ev in page.records):
        return False
    return not (
        req.until is not None and page.records and min(ev.time for ev in page.records) > req.until
    )


def load_pages(
    handles: CollectionHandles, layout: Layout, requests: Sequence[PageRequest]
) -> dict[str, list[Page]]:
    """Pages as requested: one filtered read per shard (per 100 namespaces), in commit order.

    Args:
        handles: The store's collections.
        layout: Its layout (which shard holds a namespace).
        requests: One per namespace.
    """
    out: dict[str, list[Page]] = {req.namespace: [] for req in requests}
    by_shard: dict[int, list[PageRequest]] = {}
    for req in requests:
        by_shard.setdefault(layout.shard(req.namespace), []).append(req)
    for shard, all_reqs in by_shard.items():
        col = handles.collection(layout.evidence(shard), create=False, hnsw=EVIDENCE_HNSW)
        if col is None:
            continue
        for start in range(0, len(all_reqs), READ_NAMESPACES):
            chunk = all_reqs[start : start + READ_NAMESPACES]
            _load_shard(handles, col, chunk, {r.namespace: r for r in chunk}, out)
    return out  # in commit order: readers check each page's basis in that order


def _load_shard(
    handles: CollectionHandles,
    col: Any,
    reqs: Sequence[PageRequest],
    wanted: Mapping[str, PageRequest],
    out: dict[str, list[Page]],
) -> None:
    """One filtered read of a shard for ``reqs`` (``wanted``: them by namespace).

    The pages of those namespaces are appended to ``out``; of a shard page, only the parts
    of ``wanted`` (another read covers the other parts).
    """
    plain = [r.namespace for r in reqs if r == PageRequest(r.namespace)]
    clauses = [c for r in reqs if r.namespace not in plain if (c := page_clause(r))]
    if plain:
        clauses.append(namespace_clause(plain))
    if not clauses:
        return
    got = handles.get_all(col, where(clauses, "$or"), ["metadatas"])
    for meta in got["metadatas"]:
        meta = meta or {}
        if "tepa_parts" not in meta:
            page = codec.decode_page(meta)
            if page.namespace in wanted:
                out[page.namespace].append(page)
            continue
        # A shard page: keep the parts of namespaces asked for, as asked for.
        for page in codec.decode_pages(meta, wanted):
            asked = wanted.get(page.namespace)
            if asked is not None and _part_wanted(asked, page):
                out[page.namespace].append(page)

"""Searches a process does not hold, answered by the answer index (no namespace is folded).

A search with a query over namespaces this process holds current (``TEPAMemory.holds``) ranks
their answer tables in process (:mod:`~langchain_tepa.store.search`). Any other (a fresh
process, a worker that never touched these users, a server client, which cannot vouch that its
states are current) asks the store's answer index (``TEPAMemory.search_answers``): every
commit stores the answers it changes there, with their vectors, before it returns, so the
index holds every acknowledged write. The hits come in the order of the in-process ranking
(score, then most recently updated). The search falls back to folding the namespaces when the
index cannot answer it alone:

* a filter on the value, another metric than cosine, a point in time: never asked;
* fewer hits than the page needs (some items may have no vector: they come after the scored
  ones, in recency order, which only the fold knows);
* a page holding an answer that a trust budget may demote or hide (``AnswerHit.plain``: not
  of the top tier); answers of the top tier are never moved, and nothing rises above them.

Expired hits are skipped and noted for revocation, as the in-process path does; the stamps of
the items returned are refreshed when the search asks for it.

Example:
    >>> from langchain_tepa.store import TEPAStore
    >>> store = TEPAStore.in_memory(index={"dims": 2, "embed": lambda ts: [[1.0, 0.0]] * len(ts)})
    >>> store.put(("users", "u1"), "a", {"text": "x"})
    >>> [(i.key, i.score) for i in store.search(("users",), query="x")]
    [('a', 1.0)]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from langgraph.store.base import SearchItem

from langchain_tepa.memory.claims import is_claims_namespace
from langchain_tepa.storage.answers import AnswerHit

if TYPE_CHECKING:
    from langchain_tepa.memory import TEPAMemory
    from langchain_tepa.store.planning import Plan, SearchPlan
    from langchain_tepa.store.ttl import TTLKeeper

__all__ = ["MAX_ASKED", "cold_search"]

MAX_ASKED = 4096
"""Hits asked of the index at most (doubling from the page size while expired hits are
skipped); a search that needs more folds its namespaces."""


def _settled(live: Sequence[AnswerHit], wanted: int, last: float) -> bool:
    """Whether hits beyond the last one asked cannot enter the page (even on a tie).

    The index cuts its answer at ``asked`` hits, in any order among equal scores; the page's
    ties are ordered by recency, so the page is settled only when its last score is above the
    last score the index returned.
    """
    return sorted(h.score for h in live)[-wanted] > last


def cold_search(
    memory: TEPAMemory,
    space: str,
    search: SearchPlan,
    query: Sequence[float],
    plan: Plan,
    ttl: TTLKeeper,
    when: Callable[[float], datetime],
) -> list[SearchItem] | None:
    """``search``'s page from the answer index, or ``None`` when the fold must answer it.

    Args:
        memory: The store's memory.
        space: The store's index space.
        search: The search (its ``op``).
        query: The query's vector.
        plan: The batch's plan (expired items and TTL refreshes are noted there).
        ttl: The store's TTL keeper (expiry of stamps).
        when: Seconds since the epoch as a ``datetime`` (the store's).
    """
    op = search.op
    wanted = op.offset + op.limit
    if wanted <= 0:
        return []
    prefix = ".".join(op.namespace_prefix) or None
    asked = 2 * wanted + 5  # beyond the page: its last score must beat the last one asked
    while True:
        hits = memory.search_answers(space, query, asked, prefix=prefix)
        if hits is None:
            return None
        live: list[AnswerHit] = []
        for hit in hits:
            if is_claims_namespace(hit.namespace):
                continue
            if hit.stamp is not None and ttl.expired_stamp(hit.stamp):
                plan.expired.add((hit.namespace, hit.key))
                continue
            live.append(hit)
        complete = len(hits) < asked  # every answer under the prefix with a vector
        if len(live) >= wanted and (complete or _settled(live, wanted, hits[-1].score)):
            break
        if complete or asked >= MAX_ASKED:
            return None  # items without vectors may follow: only the fold orders them
        asked = min(MAX_ASKED, asked * 2)
    # As in process: best score first, ties most recently updated first.
    live.sort(key=lambda h: (h.updated_at, h.last_evidence, h.namespace.split("."), h.key))
    live.reverse()
    live.sort(key=lambda h: -h.score)
    if not all(hit.plain for hit in live[:wanted]):
        return None  # a trust budget may move an answer of the page: the fold ranks it
    page = live[op.offset : wanted]
    if op.refresh_ttl:
        for hit in page:
            if hit.stamp is not None:
                plan.refresh.setdefault(hit.namespace, {})[hit.precedent] = [list(hit.stamp)]
    return [
        SearchItem(
            namespace=tuple(hit.namespace.split(".")),
            key=hit.key,
            value=hit.value if isinstance(hit.value, dict) else {"value": hit.value},
            created_at=when(hit.created_at),
            updated_at=when(hit.updated_at),
            score=hit.score,
        )
        for hit in page
    ]

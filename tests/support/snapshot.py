"""Everything a memory's storage holds, as one comparable value (for "a rejected call changed
nothing" checks).

:func:`stored_state` writes the memory's buffered views first (``memory.flush()``), then reads,
through the storage protocol, every namespace's head (its vector clock and record counts), every
page within the head (evidence, the ids of the precedent vectors, item vectors of named spaces
such as ``TEPAStore``'s index and TTL stamps) and the stored precedent views. Two snapshots are
equal exactly when no write was acknowledged in between. Summaries and view marks are left out:
reads may refresh them without changing what is stored.
"""

from __future__ import annotations

from typing import Any

from langchain_tepa import TEPAMemory
from langchain_tepa.storage.base import PageRequest
from tests.support.stored import stored_views

__all__ = ["stored_state"]


def _page(page: Any) -> tuple[Any, ...]:
    items = {
        space: {owner: [list(v) for v in vectors] for owner, vectors in owners.items()}
        for space, owners in page.items.items()
    }
    return (page.stream, page.seq, [e.to_json() for e in page.records], sorted(page.vectors), items)


def stored_state(memory: TEPAMemory) -> dict[str, Any]:
    """What ``memory``'s storage holds (buffered views written first)."""
    memory.flush()
    storage = memory.storage
    heads = sorted(storage.list_heads(), key=lambda h: h.namespace)
    state: dict[str, Any] = {"namespaces": storage.find_namespaces(None)}
    for head in heads:
        pages = storage.load_pages([PageRequest(head.namespace)]).get(head.namespace, [])
        within = [p for p in pages if p.seq <= head.clock.get(p.stream, 0)]
        state[head.namespace] = (
            sorted(head.clock.items()),
            sorted(head.counts.items()),
            sorted((_page(p) for p in within), key=lambda t: (t[0], t[1])),
        )
    state["views"] = [p.to_dict() for p in stored_views(storage)]
    return state

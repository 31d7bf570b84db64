"""What a storage backend holds, read through the storage protocol (for assertions).

These helpers read the whole store: tests use them to compare what is stored before and after a
call, or across processes. The library itself never does.

:func:`stored_state` is everything at once, as one comparable value: it writes the memory's
buffered views first (``memory.flush()``), then reads every namespace's head (vector clock and
record counts), every page within the head (evidence, the ids of the precedent vectors, item
vectors of named spaces such as ``TEPAStore``'s index and TTL stamps) and the stored precedent
views. Two states are equal exactly when nothing was written in between. Summaries and view
marks are left out: reads may refresh them without changing what is stored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_tepa.core.log import Page
from langchain_tepa.core.types import Evidence, Precedent
from langchain_tepa.storage.base import PageRequest, StorageBackend

if TYPE_CHECKING:
    from langchain_tepa import TEPAMemory

__all__ = ["stored_evidence", "stored_state", "stored_views"]


def stored_evidence(storage: StorageBackend) -> list[Evidence]:
    """Every evidence record covered by a head, in ``(time, id)`` order."""
    out: list[Evidence] = []
    for head in storage.list_heads():
        pages = storage.load_pages([PageRequest(head.namespace)]).get(head.namespace, [])
        for page in pages:
            if page.seq <= head.clock.get(page.stream, 0):
                out.extend(page.records)
    return sorted(out, key=lambda e: e.sort_key)


def stored_views(storage: StorageBackend) -> list[Precedent]:
    """Every stored precedent view, by id."""
    views = [v for head in storage.list_heads() for v in storage.load_views(head.namespace)]
    return sorted(views, key=lambda p: p.id)


def _page(page: Page) -> tuple[Any, ...]:
    items = {
        space: {owner: [list(v) for v in vectors] for owner, vectors in owners.items()}
        for space, owners in page.items.items()
    }
    return (page.stream, page.seq, [e.to_json() for e in page.records], sorted(page.vectors), items)


def stored_state(memory: TEPAMemory) -> dict[str, Any]:
    """What ``memory``'s storage holds, buffered views written first (see the module docstring)."""
    memory.flush()
    storage = memory.storage
    heads = sorted(storage.list_heads(), key=lambda h: h.namespace)
    pages = storage.load_pages([PageRequest(h.namespace) for h in heads]) if heads else {}
    state: dict[str, Any] = {"namespaces": storage.find_namespaces(None)}
    for head in heads:
        within = [
            _page(p) for p in pages.get(head.namespace, []) if p.seq <= head.clock.get(p.stream, 0)
        ]
        state[head.namespace] = (
            sorted(head.clock.items()),
            sorted(head.counts.items()),
            sorted(within, key=lambda t: (t[0], t[1])),
            sorted(
                (v.to_dict() for v in storage.load_views(head.namespace)), key=lambda d: d["id"]
            ),
        )
    return state

"""Everything a memory's storage holds, as one comparable value (for "changed nothing" checks).

:func:`stored_state` reads like ``tests/support/stored.py``, through the storage protocol, but
all of it at once: it writes the memory's buffered views first (``memory.flush()``), then reads
every namespace's head (vector clock and record counts), every page within the head (evidence,
the ids of the precedent vectors, item vectors of named spaces such as ``TEPAStore``'s index and
TTL stamps) and the stored precedent views. Two states are equal exactly when nothing was
written in between. Summaries and view marks are left out: reads may refresh them without
changing what is stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from langchain_tepa.core.log import Page
from langchain_tepa.storage.base import PageRequest

if TYPE_CHECKING:
    from langchain_tepa import TEPAMemory

__all__ = ["stored_state", "view_dict"]


def view_dict(view: Any) -> dict[str, Any]:
    """A stored view as a dict (storage hands out view dicts, or precedents in older layouts)."""
    return dict(view) if isinstance(view, Mapping) else dict(view.to_dict())


def _by_id(view: dict[str, Any]) -> str:
    return str(view["id"])


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
            sorted((view_dict(v) for v in storage.load_views(head.namespace)), key=_by_id),
        )
    return state

"""What a storage backend holds, read through the storage protocol (for assertions).

These helpers read the whole store: tests use them to compare what is stored before and after a
call, or across processes. The library itself never does.
"""

from __future__ import annotations

from langchain_tepa.core.types import Evidence, Precedent
from langchain_tepa.storage.base import PageRequest, StorageBackend

__all__ = ["stored_evidence", "stored_view_dicts", "stored_views"]


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
    """Every stored precedent view (as a Precedent: ``Precedent.from_view``), by id."""
    views = [v for head in storage.list_heads() for v in storage.load_views(head.namespace)]
    return sorted((Precedent.from_view(v) for v in views), key=lambda p: p.id)


def stored_view_dicts(storage: StorageBackend) -> dict[str, dict[str, object]]:
    """Every stored precedent view as storage holds it, by id (compare with ``p.view()``)."""
    return {v["id"]: v for head in storage.list_heads() for v in storage.load_views(head.namespace)}

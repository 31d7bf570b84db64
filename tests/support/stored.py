"""What a storage backend holds, read through the storage protocol (for assertions).

These helpers read the whole store: tests use them to compare what is stored before and after a
call, or across processes. The library itself never does.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_tepa.core.fold import fold_all
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.types import Evidence, Precedent
from langchain_tepa.storage.base import PageRequest, StorageBackend

__all__ = ["lagging_views", "stored_evidence", "stored_view_dicts", "stored_views"]


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


def lagging_views(
    storage: StorageBackend, policy: LifecyclePolicy, records: Sequence[Evidence] | None = None
) -> int:
    """Stored views that differ from the fold of ``records`` (default: the stored evidence).

    A view differs when it is missing or its state, support or conflict is not the fold's.
    """
    evidence = stored_evidence(storage) if records is None else records
    states = fold_all(evidence, policy)
    fold = {p.id: p for s in states.values() for p in s.precedents.values()}
    views = {p.id: p for p in stored_views(storage)}
    return sum(
        1
        for pid, p in fold.items()
        if pid not in views
        or (views[pid].state, views[pid].support, views[pid].conflict)
        != (p.state, p.support, p.conflict)
    )

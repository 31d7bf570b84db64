"""``TEPAStore.list_namespaces``: namespaces with an Active item, reading only the heads it needs.

The names come from the memory's directory (cached while it has not grown); the match
conditions are applied to names alone; then heads are checked in label order a chunk at a
time, and the listing stops as soon as it holds ``offset + limit`` results. A listing of 100
namespaces in a store of 100,000 reads about 100 heads instead of 100,000. On an embedded folder
this process holds (``from_path``), a listing while nothing was registered or written reads
nothing: the directory's ``count`` and the heads counted before are skipped (write epochs,
``docs/consistency.md``).

Example:
    >>> from langgraph.store.base import ListNamespacesOp
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> _ = memory.observe("k", 1, namespace="users.u1")
    >>> _ = memory.observe("k", 1, namespace="users.u2")
    >>> list_active_namespaces(memory, ListNamespacesOp(limit=1, offset=1))
    [('users', 'u2')]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langgraph.store.base import ListNamespacesOp

from langchain_tepa.memory.claims import is_claims_namespace
from langchain_tepa.store.queries import matches_condition

if TYPE_CHECKING:
    from langchain_tepa.memory import TEPAMemory

__all__ = ["list_active_namespaces"]

_FIRST_CHUNK = 32


def list_active_namespaces(memory: TEPAMemory, op: ListNamespacesOp) -> list[tuple[str, ...]]:
    """The result of ``op``: label tuples of namespaces with an Active item, sorted and paged."""
    conditions = op.match_conditions or ()
    prefix = None
    for cond in conditions:
        if cond.match_type == "prefix" and "*" not in cond.path and cond.path:
            prefix = ".".join(cond.path)
    candidates = []
    for ns in memory.namespaces(prefix):
        if is_claims_namespace(ns):
            continue
        labels = tuple(ns.split("."))
        if all(matches_condition(c, labels) for c in conditions):
            candidates.append(labels)
    candidates.sort()
    wanted = max(0, op.offset) + max(0, op.limit)
    found: list[tuple[str, ...]] = []
    depth = op.max_depth
    seen: set[tuple[str, ...]] = set()  # truncated results so far (with max_depth)
    start = 0
    chunk = max(_FIRST_CHUNK, min(wanted + wanted // 4, len(candidates)))
    # Label order: truncating to max_depth keeps it, so results arrive sorted and distinct
    # truncations arrive in order; a namespace whose truncation is already listed is skipped.
    while start < len(candidates) and len(found) < wanted:
        part: list[tuple[str, ...]] = []
        while start < len(candidates) and len(part) < chunk:
            labels = candidates[start]
            start += 1
            if depth is None or labels[:depth] not in seen:
                part.append(labels)
        active = set(memory.active_among([".".join(labels) for labels in part]))
        for labels in part:
            if ".".join(labels) not in active:
                continue
            shown = labels if depth is None else labels[:depth]
            if depth is not None:
                if shown in seen:
                    continue
                seen.add(shown)
            found.append(shown)
            if len(found) >= wanted:
                break
        chunk *= 2
    return found[op.offset : op.offset + op.limit]

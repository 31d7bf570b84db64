"""Ranking of :class:`~langchain_tepa.store.TEPAStore` search candidates, with numpy.

A search scans the answer tables (:class:`~langchain_tepa.memory.AnswerTable`) of the namespaces
under its prefix. Its order is fixed: without a query, most recently updated first
(``updated_at``, then the last evidence id, the namespace labels and the key, all descending);
with a query, by score (best first), ties in that recency order, then the items without a score
in recency order. A page is ``order[offset:offset + limit]``.

Only the first ``offset + limit`` of that order are needed, and each namespace's share of them
is among its own first ``offset + limit``: so each namespace is scored in one matrix product,
its best rows found with a partial sort, the filter tested on rows in that order only until
enough pass, and only those few candidates of all namespaces are merged in Python.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> for key in ("a", "b", "c"):
    ...     _ = memory.observe(key, 1, namespace="u")
    >>> table = memory.answer_tables(["u"])["u"]
    >>> scope = Scope(("u",), table, np.arange(len(table)))
    >>> [(table.rows[i].key, s) for s, _, i in newest([scope], None, 2)]
    [('c', None), ('b', None)]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from langchain_tepa.memory import AnswerRow, AnswerTable
from langchain_tepa.store.queries import matches_filter

if TYPE_CHECKING:
    from langchain_tepa.memory import TEPAMemory

__all__ = ["Pick", "Scope", "best", "item_view", "newer_first", "newest", "trusted_scopes"]


@dataclass(frozen=True)
class Scope:
    """One namespace a search scans.

    Attributes:
        labels: The namespace as LangGraph labels.
        table: Its answer table (rows newest first).
        live: Indices of the rows that may be returned (not expired), ascending.
        marks: Item key -> the newer items that may supersede it
            (:func:`~langchain_tepa.memory.claims.read_marks`).
        hidden: Precedent id of an item an explicit replacement hid -> the items that replaced
            it (``read_marks(..., hidden=True)``).
    """

    labels: tuple[str, ...]
    table: AnswerTable
    live: np.ndarray
    marks: Mapping[str, list[dict[str, Any]]] = field(default_factory=dict)
    hidden: Mapping[str, list[dict[str, Any]]] = field(default_factory=dict)


Pick = tuple[float | None, Scope, int]
"""A chosen row: ``(score or None, its scope, its index in the scope's table)``."""


def item_view(row: AnswerRow) -> Any:
    """The item value a filter sees (not a copy: read it only)."""
    value = row.peek()
    return value if isinstance(value, dict) else {"value": value}


def _passing(scope: Scope, order: np.ndarray, flt: Mapping[str, Any] | None, m: int) -> list[int]:
    """The first ``m`` rows of ``order`` that pass ``flt``."""
    if not flt:
        return [int(i) for i in order[:m]]
    rows = scope.table.rows
    out: list[int] = []
    for i in order.tolist():
        if matches_filter(item_view(rows[i]), flt):
            out.append(i)
            if len(out) == m:
                break
    return out


def _recency(pick: Pick) -> tuple[float, str, tuple[str, ...], str]:
    row = pick[1].table.rows[pick[2]]
    return (row.updated_at, row.last_evidence, pick[1].labels, row.key)


def _merged(picks: list[Pick], scopes: int, *, scored: bool) -> list[Pick]:
    """Picks of several namespaces in search order (one namespace's are in order already)."""
    if scopes > 1:
        picks.sort(key=_recency, reverse=True)
        if scored:
            picks.sort(key=lambda pick: -(pick[0] or 0.0))  # stable: ties stay newest first
    return picks


def newest(scopes: Sequence[Scope], flt: Mapping[str, Any] | None, m: int) -> list[Pick]:
    """The first ``m`` rows passing ``flt``, most recently updated first."""
    if m <= 0:
        return []
    picks: list[Pick] = [
        (None, scope, i) for scope in scopes for i in _passing(scope, scope.live, flt, m)
    ]
    return _merged(picks, len(scopes), scored=False)[:m]


def best(
    scopes: Sequence[Scope],
    scores: Sequence[np.ndarray],
    flt: Mapping[str, Any] | None,
    m: int,
) -> list[Pick]:
    """The first ``m`` rows passing ``flt`` by score, then those without a score.

    Args:
        scopes: The namespaces scanned.
        scores: Per scope, each row's score (NaN: no score).
        flt: A validated filter, or ``None``.
        m: How many (``offset + limit``).
    """
    if m <= 0:
        return []
    picks: list[Pick] = []
    for scope, all_scores in zip(scopes, scores, strict=True):
        live = scope.live
        sims = all_scores[live]
        has = ~np.isnan(sims)
        cand, cs = live[has], sims[has]
        if not flt and len(cand) > m:
            # Everything that ties with the m-th best, then the exact order among those.
            kth = np.partition(-cs, m - 1)[m - 1]
            keep = -cs <= kth
            cand, cs = cand[keep], cs[keep]
        order = cand[np.lexsort((cand, -cs))]
        picks.extend((float(all_scores[i]), scope, i) for i in _passing(scope, order, flt, m))
    out = _merged(picks, len(scopes), scored=True)[:m]
    if len(out) == m:
        return out
    rest: list[Pick] = []
    for scope, all_scores in zip(scopes, scores, strict=True):
        unscored = scope.live[np.isnan(all_scores[scope.live])]
        rest.extend((None, scope, i) for i in _passing(scope, unscored, flt, m - len(out)))
    return out + _merged(rest, len(scopes), scored=False)[: m - len(out)]


def trusted_scopes(
    memory: TEPAMemory,
    scopes: Sequence[Scope],
    scores: Sequence[np.ndarray],
    m: int,
    *,
    complete: bool = False,
) -> tuple[list[Scope], list[np.ndarray]]:
    """The scopes and scores a search ranks, with the budgets on what a source can create.

    Per namespace, :meth:`~langchain_tepa.memory.TEPAMemory.trust_rank` gives its first ``m``
    scored rows in trust order (issue 28: keys created beyond their creator's budget left out, a
    look-alike of a more trusted item below it); the returned scores keep that order (each row
    just under the one before it, the rows after the ``m`` under the last), so :func:`best`
    ranks as the memory's searches do. With ``complete`` (a filtered search, which may read past
    the first ``m``) every scored row is placed, and the rows left out are dropped. Namespaces
    that need no reordering keep their scope and scores. Items show their own scores still.
    """
    out_scopes: list[Scope] = []
    out_scores: list[np.ndarray] = []
    for scope, sc in zip(scopes, scores, strict=True):
        rows = scope.table.rows
        cand = scope.live[~np.isnan(sc[scope.live])]
        ranked = None
        ns = ".".join(scope.labels)
        # the search caught these namespaces up and scored their rows: rank on that state
        if len(cand) and memory.ranks_by_trust(namespace=ns, fresh=False):
            ranked = memory.trust_rank(
                {rows[i].id: float(sc[i]) for i in cand.tolist()},
                len(cand) if complete else max(1, m),
                namespace=ns,
                fresh=False,
            )
        if ranked is None:
            out_scopes.append(scope)
            out_scores.append(sc)
            continue
        pos = {rows[i].id: i for i in cand.tolist()}
        eff = sc.copy()
        placed: set[int] = set()
        prev = np.inf
        for pid, _ in ranked:
            i = pos[pid]
            prev = min(float(sc[i]), float(np.nextafter(prev, -np.inf)))
            eff[i] = prev
            placed.add(i)
        rest = [i for i in cand.tolist() if i not in placed]
        if complete:  # left out by the budgets
            live = np.array([i for i in scope.live.tolist() if i not in set(rest)], dtype=int)
            scope = Scope(scope.labels, scope.table, live)
        else:
            floor = float(np.nextafter(prev, -np.inf))
            for i in rest:
                eff[i] = min(float(sc[i]), floor)
        out_scopes.append(scope)
        out_scores.append(eff)
    return out_scopes, out_scores


def newer_first(
    scopes: Sequence[Scope],
    scores: Sequence[np.ndarray],
    hidden_scores: Callable[[Scope, list[str]], Mapping[str, float]] | None = None,
) -> list[np.ndarray]:
    """Scores under which a newer item ranks where the item it (may) supersede would.

    For each marked item of a scope (:attr:`Scope.marks`), each newer item that may supersede
    it and scores lower is lifted to just above it. For each item an explicit replacement hid
    (:attr:`Scope.hidden`, scored by ``hidden_scores``), the item that replaced it scores at
    least as the hidden one would. Nothing else moves. Scopes without marks keep their scores
    (the arrays returned are copies where something moved).

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> memory = TEPAMemory.in_memory()
        >>> for key in ("old", "new"):
        ...     _ = memory.observe(key, 1, namespace="u")
        >>> table = memory.answer_tables(["u"])["u"]
        >>> marks = {"old": [{"item": "new", "key": "user.city", "value": "Oslo"}]}
        >>> scope = Scope(("u",), table, np.arange(2), marks)
        >>> order = [r.key for r in table.rows]
        >>> lifted = newer_first([scope], [np.array([0.2 if k == "new" else 0.9 for k in order])])
        >>> [order[i] for i in np.argsort(-lifted[0])]
        ['new', 'old']
    """
    out = []
    for scope, sc in zip(scopes, scores, strict=True):
        if not scope.marks and not scope.hidden:
            out.append(sc)
            continue
        rows = scope.table.rows
        live = {rows[i].key: i for i in scope.live.tolist() if not np.isnan(sc[i])}
        eff = sc.copy()
        gone = hidden_scores(scope, list(scope.hidden)) if hidden_scores and scope.hidden else {}
        for pid, entries in scope.hidden.items():
            for entry in entries if pid in gone else ():
                j = live.get(str(entry.get("item")))
                if j is not None and eff[j] < gone[pid]:
                    eff[j] = gone[pid]
        for _ in range(2):  # a chain (a < b < c) settles in two passes
            for key, entries in scope.marks.items():
                i = live.get(key)
                for entry in entries if i is not None else ():
                    j = live.get(str(entry.get("item")))
                    if j is not None and j != i and eff[j] <= eff[i]:
                        eff[j] = np.nextafter(eff[i], np.inf)
        out.append(eff)
    return out

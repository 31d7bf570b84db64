"""Read-only rows of a namespace's answers, kept while the namespace does not change.

:meth:`TEPAMemory.answers <langchain_tepa.memory.TEPAMemory.answers>` copies every answering
precedent on every call. Adapters that scan all of a namespace's answers and return a few of
them (``TEPAStore.search``) use :meth:`TEPAMemory.answer_rows
<langchain_tepa.memory.TEPAMemory.answer_rows>` instead: one :class:`AnswerRow` per answer,
built once per change of the namespace, whose identity and times are plain attributes and whose
:attr:`~AnswerRow.value` is a fresh copy on every access. Nothing a caller can reach through a
row changes the memory.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> _ = memory.observe("user.diet", {"kind": "vegan"})
    >>> row = memory.answer_rows()[0]
    >>> row.key, row.value
    ('user.diet', {'kind': 'vegan'})
    >>> row.value["kind"] = "carnivore"  # a copy: the memory is unchanged
    >>> memory.get("user.diet")
    {'kind': 'vegan'}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from langchain_tepa.core.types import Precedent
from langchain_tepa.core.values import safe_repr
from langchain_tepa.memory.documents import copy_value
from langchain_tepa.state import ItemColumn, ItemTable
from langchain_tepa.state.vectors import Metric

__all__ = ["AnswerRow", "AnswerTable", "recency_key"]


class AnswerRow:
    """One answering precedent of a namespace, read-only (see the module docstring).

    Attributes:
        id: The precedent id.
        key: Its key.
        namespace: Its namespace.
        created_at: When the precedent was created (seconds since the epoch).
        updated_at: When evidence last touched it.
        last_evidence: The id of the last evidence that touched it (``""`` if none).

    Example:
        >>> from langchain_tepa.core.types import Precedent
        >>> row = AnswerRow(Precedent(namespace="u", key="k", value=[1], value_id="v", id="p"))
        >>> row.value, row.id
        ([1], 'p')
    """

    __slots__ = ("_value", "created_at", "id", "key", "last_evidence", "namespace", "updated_at")

    id: str
    key: str
    namespace: str
    created_at: float
    updated_at: float
    last_evidence: str
    _value: Any

    def __init__(self, precedent: Precedent) -> None:
        set_ = object.__setattr__
        set_(self, "id", precedent.id)
        set_(self, "key", precedent.key)
        set_(self, "namespace", precedent.namespace)
        set_(self, "created_at", float(precedent.created_at))
        set_(self, "updated_at", float(precedent.updated_at))
        set_(self, "last_evidence", precedent.evidence_ids[-1] if precedent.evidence_ids else "")
        set_(self, "_value", precedent.value)  # never handed out: `value` copies it

    @property
    def value(self) -> Any:
        """The precedent's value (a copy: changing it changes nothing stored)."""
        return copy_value(self._value)

    def peek(self) -> Any:
        """The precedent's value itself, not a copy: for checks that only read it (filters).

        Never change what it returns, nor hand it out; :attr:`value` is the copy to hand out.
        """
        return self._value

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"AnswerRow is read-only (cannot set {safe_repr(name)})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"AnswerRow is read-only (cannot delete {safe_repr(name)})")

    def __repr__(self) -> str:
        return f"AnswerRow(id={self.id!r}, key={self.key!r}, namespace={self.namespace!r})"


def recency_key(row: AnswerRow) -> tuple[float, str, str]:
    """How rows of one namespace sort, newest last: ``(updated_at, last_evidence, key)``."""
    return (row.updated_at, row.last_evidence, row.key)


class AnswerTable:
    """A namespace's answer rows, newest first, with item vectors laid out for numpy.

    Built by :meth:`TEPAMemory.answer_tables <langchain_tepa.memory.TEPAMemory.answer_tables>`
    once per change of the namespace (or of its item vectors) and shared by later calls; it is
    never changed, so callers use it without a lock.

    Attributes:
        namespace: The namespace.
        rows: One :class:`AnswerRow` per key with an Active value, most recently updated first
            (``updated_at``, then the last evidence id, then the key, all descending).

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> memory = TEPAMemory.in_memory()
        >>> space = memory.vector_space("docs")
        >>> _ = space.observe_many([("a", 1), ("b", 2)], [[[1.0, 0.0]], [[0.0, 1.0]]])
        >>> table = memory.answer_tables(["default"], vector_spaces=["docs"])["default"]
        >>> [r.key for r in table.rows], table.scores("docs", [0.0, 1.0]).tolist()
        (['b', 'a'], [1.0, 0.0])
    """

    __slots__ = ("_columns", "_firsts", "namespace", "rows")

    def __init__(
        self,
        namespace: str,
        rows: Sequence[AnswerRow],
        columns: Mapping[str, ItemColumn] | None = None,
        firsts: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        self.namespace = namespace
        self.rows = tuple(rows)
        self._columns = dict(columns or {})
        self._firsts = dict(firsts or {})
        for array in self._firsts.values():
            array.flags.writeable = False

    @classmethod
    def build(
        cls,
        namespace: str,
        rows: Sequence[AnswerRow],
        tables: Mapping[str, ItemTable],
        *,
        vector_spaces: Sequence[str] = (),
        payload_spaces: Mapping[str, int] | None = None,
    ) -> AnswerTable:
        """Sort ``rows`` newest first and lay out their vectors of the spaces asked for.

        ``payload_spaces`` maps a space to the size of the first vectors wanted from it.
        """
        ordered = sorted(rows, key=recency_key, reverse=True)
        owners = [row.id for row in ordered]
        columns = {s: tables[s].column(owners) for s in vector_spaces if s in tables}
        firsts = {
            s: tables[s].first_vectors(owners, size)
            for s, size in (payload_spaces or {}).items()
            if s in tables
        }
        return cls(namespace, ordered, columns, firsts)

    def __len__(self) -> int:
        return len(self.rows)

    def scores(
        self,
        space: str,
        query: Sequence[float] | np.ndarray,
        *,
        metric: Metric = "cosine",
    ) -> np.ndarray:
        """Best score of each row's vectors of ``space`` with ``query`` (NaN: no vectors).

        ``metric``: ``"cosine"`` (similarity), ``"inner_product"`` (dot product) or ``"l2"``
        (negated Euclidean distance); higher is better for each (see :class:`ItemColumn`).

        Raises:
            InvalidArgumentError: If the query has another size than the stored vectors.
        """
        column = self._columns.get(space)
        if column is None:
            return np.full(len(self.rows), np.nan)
        return column.scores(query, metric=metric)

    def first_vectors(self, space: str) -> np.ndarray | None:
        """Each row's first stored vector of ``space`` as given (read-only; NaN rows: none).

        ``None`` when the table was not built with ``space`` among its payload spaces.
        """
        return self._firsts.get(space)

    def __repr__(self) -> str:
        return f"AnswerTable(namespace={self.namespace!r}, rows={len(self.rows)})"

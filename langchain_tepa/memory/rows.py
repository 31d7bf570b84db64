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

from typing import Any

from langchain_tepa.core.types import Precedent
from langchain_tepa.memory.documents import copy_value

__all__ = ["AnswerRow"]


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

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"AnswerRow is read-only (cannot set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"AnswerRow is read-only (cannot delete {name!r})")

    def __repr__(self) -> str:
        return f"AnswerRow(id={self.id!r}, key={self.key!r}, namespace={self.namespace!r})"

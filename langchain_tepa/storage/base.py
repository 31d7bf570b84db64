"""The storage protocol: where evidence and precedent views live.

A backend keeps three things apart:

* the **evidence log**: immutable records, the source of truth, append-only;
* the **precedent views**: a materialised view of every precedent (any state) with its
  lifecycle, for audit, re-promotion and reopening;
* the **retrievable set**: per namespace, only the Active precedents with their embeddings, so
  the hot retrieval path needs no broad metadata filter.

How views and sets are laid out is the backend's choice: Chroma stores each precedent once, in
its namespace's retrievable set while Active and in the archive otherwise.

Example:
    >>> from langchain_tepa.storage import InMemoryStorage
    >>> storage = InMemoryStorage()
    >>> storage.count_evidence()
    0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from langchain_tepa.core.types import Evidence, Precedent

__all__ = ["PrecedentWrite", "StorageBackend", "key_path"]


def key_path(key: str) -> list[str]:
    """Every dotted prefix of ``key``: ``"a.b.c"`` -> ``["a", "a.b", "a.b.c"]``.

    Stored with each precedent so that key-prefix scoping is an exact ``$contains`` match on
    segment boundaries ("user.diet" never matches "user.dietary").
    """
    parts = key.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


@dataclass
class PrecedentWrite:
    """One change to a precedent view.

    Attributes:
        precedent: The precedent as it is now.
        embedding: Its embedding; required when the precedent is new to the store.
        was_active: Whether it is in the retrievable set before this write.
        is_new: Whether the store has never seen it.
    """

    precedent: Precedent
    embedding: list[float] | None
    was_active: bool
    is_new: bool


@runtime_checkable
class StorageBackend(Protocol):
    """What :class:`~langchain_tepa.memory.TEPAMemory` needs from a store."""

    def append_evidence(self, records: Sequence[Evidence]) -> None:
        """Durably append evidence records (ids are unique; duplicates are an error)."""
        ...

    def load_evidence(
        self,
        *,
        namespace: str | None = None,
        key: str | None = None,
        since: float | None = None,
    ) -> list[Evidence]:
        """Evidence, optionally of one namespace/key or with ``time >= since``."""
        ...

    def count_evidence(self) -> int:
        """How many evidence records are stored."""
        ...

    def write_precedents(self, writes: Sequence[PrecedentWrite]) -> None:
        """Apply precedent view changes: archive metadata and retrievable-set membership."""
        ...

    def load_precedents(self) -> list[Precedent]:
        """Every precedent view in the archive."""
        ...

    def query_active(
        self,
        namespace: str,
        embedding: Sequence[float],
        k: int,
        *,
        key_prefix: str | None = None,
    ) -> list[tuple[str, float]]:
        """Nearest Active precedents of ``namespace`` as ``(id, similarity)``, best first."""
        ...

    def get_meta(self, name: str) -> str | None:
        """A small named string (for example the views' watermark)."""
        ...

    def set_meta(self, name: str, value: str) -> None:
        """Set a small named string."""
        ...

    def close(self) -> None:
        """Release resources (the data stays)."""
        ...

"""Backends written against an earlier :class:`~langchain_tepa.storage.base.StorageBackend`.

The protocol grew as the library learnt to skip round trips: ``local_epoch``,
``namespaces_if_unchanged``, ``views_with_pages`` and ``write_views(..., settle=)`` each let a
backend say more about itself, and each has an answer that is always correct, only slower.
A backend written before one of them existed does not satisfy ``isinstance(x,
StorageBackend)``; :func:`as_backend` takes it anyway, supplying those answers, and names
exactly what is missing when something the memory cannot do without is absent.

Example:
    >>> from langchain_tepa.storage import InMemoryStorage
    >>> class Older:  # an earlier backend: everything but the optional members
    ...     def __init__(self):
    ...         self._inner = InMemoryStorage()
    ...     def __getattr__(self, name):
    ...         if name in OPTIONAL_MEMBERS:
    ...             raise AttributeError(name)
    ...         return getattr(self._inner, name)
    >>> backend = as_backend(Older())
    >>> print(backend.local_epoch("ns"), backend.views_with_pages)
    None True
    >>> as_backend(object())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    langchain_tepa.core.errors.InvalidArgumentError: storage must be a StorageBackend ...
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any, cast

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.types import Precedent
from langchain_tepa.storage.base import StorageBackend

__all__ = ["OPTIONAL_MEMBERS", "REQUIRED_MEMBERS", "as_backend"]

OPTIONAL_MEMBERS: Mapping[str, str] = {
    "local_epoch": "None: heads are read before every read",
    "namespaces_if_unchanged": "None: namespaces are listed by the backend every time",
    "views_with_pages": "True: a commit over several namespaces carries its views",
    "write_views(settle=)": "views and marks are written together, nothing is held back",
}
"""Members a backend may lack, and what is assumed in their place (all correct, some slower)."""

REQUIRED_MEMBERS: tuple[str, ...] = (
    "read_only",
    "dedicated_at",
    "read_heads",
    "list_heads",
    "find_namespaces",
    "scan_namespaces",
    "load_pages",
    "commit",
    "write_views",
    "write_summary",
    "load_views",
    "query_vectors",
    "dedicate",
    "index_vectors",
    "index_vectors_of",
    "indexed",
    "get_meta",
    "set_meta",
    "describe",
    "close",
)
"""Members a memory cannot do without."""


def as_backend(storage: object) -> StorageBackend:
    """``storage`` as a :class:`StorageBackend`, supplying the optional members it lacks.

    Args:
        storage: A backend: anything with :data:`REQUIRED_MEMBERS`.

    Returns:
        ``storage`` itself when it has every member of the protocol; otherwise a thin
        wrapper that delegates everything to it and answers the :data:`OPTIONAL_MEMBERS` it
        lacks as documented there.

    Raises:
        InvalidArgumentError: If ``storage`` lacks a required member (all are named).
    """
    complete = isinstance(storage, StorageBackend)
    missing = [] if complete else [name for name in REQUIRED_MEMBERS if not _has(storage, name)]
    if missing:
        raise InvalidArgumentError(
            f"storage must be a StorageBackend (for example InMemoryStorage()), got "
            f"{type(storage).__name__}, which lacks {', '.join(missing)}; for Chroma use "
            "TEPAMemory.from_client or from_path"
        )
    settle = _accepts_settle(storage)
    if complete and settle:
        return cast(StorageBackend, storage)
    return cast(StorageBackend, _Completed(storage, settle=settle))


def _has(obj: object, name: str) -> bool:
    try:
        getattr(obj, name)
    except AttributeError:
        return False
    return True


def _accepts_settle(storage: object) -> bool:
    try:
        params = inspect.signature(storage.write_views).parameters  # type: ignore[attr-defined]
    except (TypeError, ValueError):  # no signature to read: assume the current protocol
        return True
    return "settle" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


class _Completed:
    """An earlier backend with the optional members it lacks answered (see the module)."""

    def __init__(self, inner: Any, *, settle: bool) -> None:
        self._inner = inner
        self._settle = settle  # whether its write_views takes settle=

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def __repr__(self) -> str:
        return f"{type(self._inner).__name__}(completed by langchain_tepa: {self._inner!r})"

    @property
    def views_with_pages(self) -> bool:
        return bool(getattr(self._inner, "views_with_pages", True))

    def local_epoch(self, namespace: str) -> int | None:
        own = getattr(self._inner, "local_epoch", None)
        return own(namespace) if own is not None else None

    def namespaces_if_unchanged(self, prefix: str) -> list[str] | None:
        own = getattr(self._inner, "namespaces_if_unchanged", None)
        return own(prefix) if own is not None else None

    def write_views(
        self,
        precedents: Sequence[Precedent],
        marks: Mapping[str, Mapping[str, int]] | None = None,
        *,
        settle: bool = False,
    ) -> None:
        if self._settle:
            self._inner.write_views(precedents, marks, settle=settle)
        else:  # it holds nothing back: there is nothing to settle
            self._inner.write_views(precedents, marks)

"""The names directory (``<prefix>_names``), read once and kept while it has not grown.

Every namespace is registered in the directory by the first commit that writes it, and nothing
ever removes a registration (re-registering upserts the same id). The directory therefore only
grows, and its record count says whether the names read earlier are still all of them: a process
keeps the sorted names and checks one ``count`` per listing, reading the directory again only
when another writer registered a namespace since.

Names are read from the records' documents, which costs a fraction of decoding every record's
metadata. A directory with records of an earlier version (they have no document) is read by
metadata, as before.

Example:
    >>> names_under(("a", "a.b", "a.b.c", "a2", "b"), "a.b")
    ['a.b', 'a.b.c']
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langchain_tepa.storage.chroma.backend import ChromaStorage

__all__ = ["NamesDirectory", "names_under"]

_PAGE = 5000


def names_under(names: Sequence[str], prefix: str) -> list[str]:
    """The names of sorted ``names`` equal to ``prefix`` or below it on label boundaries."""
    out = [prefix] if _contains(names, prefix) else []
    below = prefix + "."
    start = bisect.bisect_left(names, below)
    end = bisect.bisect_left(names, prefix + "/")  # "/" follows "." in code point order
    out.extend(names[start:end])
    return out


def _contains(names: Sequence[str], name: str) -> bool:
    i = bisect.bisect_left(names, name)
    return i < len(names) and names[i] == name


class NamesDirectory:
    """Sorted names of one store's directory, re-read only when its record count changed.

    Example:
        >>> NamesDirectory().cached is None
        True
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple[Any, int] | None = None
        self._names: tuple[str, ...] = ()

    @property
    def cached(self) -> tuple[str, ...] | None:
        """The names held, or ``None`` before the first read."""
        return self._names if self._key is not None else None

    def names(self, col: Any, storage: ChromaStorage) -> tuple[str, ...]:
        """Every registered name, sorted (one ``count``; a full read when it changed)."""
        count = int(storage.call("count names", col.count))
        with self._lock:
            if self._key == (col.id, count):
                return self._names
        names = self._read(col, storage)
        with self._lock:
            # Keyed by what was read: a registration racing the read is read again next time.
            self._key = (col.id, len(names))
            self._names = names
        return names

    @staticmethod
    def _read(col: Any, storage: ChromaStorage) -> tuple[str, ...]:
        found: set[str] = set()
        include = ["documents"]
        offset = 0
        while True:
            got = storage.call("read names", col.get, include=include, limit=_PAGE, offset=offset)
            if include == ["documents"]:
                docs = got.get("documents") or [None] * len(got["ids"])
                if not all(isinstance(d, str) and d for d in docs):
                    include = ["metadatas"]  # records of an earlier version: by metadata
                    continue
                found.update(docs)
            else:
                found.update(
                    str(m["tepa_name"]) for m in got["metadatas"] if m and "tepa_name" in m
                )
            if len(got["ids"]) < _PAGE:
                return tuple(sorted(found))
            offset += _PAGE

"""Settling Chroma's unpersisted log tail after large writes to an evidence shard.

Chroma (1.5, embedded and ``chroma run``) persists a collection's vector index every
``hnsw:sync_threshold`` log records and, until then, reads the records written since the last
persist again on every write to that collection. Evidence shards use a threshold of 32; after
a bulk load their tail holds pages of hundreds of kilobytes (items and their vectors), and every
later write into the shard pays for re-reading them: a put's two-record ``upsert`` took 30-40 ms
right after loading 20,000 items instead of 8-10 ms (docs/performance.md, "Chroma's log tail").

A ``delete`` of ``sync_threshold`` ids that no record has adds that many log records and so
crosses the next persist point: it changes nothing stored, costs one call (about 6 ms here), and
the writes after it cost what they cost before the large pages. :class:`LogTail` counts the
metadata bytes written into each evidence shard since its last settle and says when one is
due; :func:`settle` makes the call. A settle is an optimisation only: it never raises (a
commit it follows is already stored), and collections whose threshold is unknown or large
(Chroma's default is 1,000) are never settled.

Example:
    >>> tail = LogTail(limit=100)
    >>> tail.add("tepa_e03", [{"tepa_json": "x" * 60}])
    >>> tail.due("tepa_e03")
    False
    >>> tail.add("tepa_e03", [{"tepa_json": "y" * 60}])
    >>> tail.due("tepa_e03")
    True
    >>> tail.reset("tepa_e03")
    >>> tail.due("tepa_e03")
    False
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["CLOSE_BYTES", "MAX_THRESHOLD", "SETTLE_BYTES", "LogTail", "settle", "settle_ids"]

SETTLE_BYTES = 512 * 1024
"""Metadata bytes written into a shard since its last settle that make the next commit settle it
(a tail of this size adds about 2 ms to each write: measured 3.5 ms per MB here)."""
CLOSE_BYTES = 64 * 1024
"""At ``close()``, shards with at least this much written since their last settle are settled, so
the next process's first writes do not pay for this one's tail."""
MAX_THRESHOLD = 64
"""Collections whose ``sync_threshold`` is above this are not settled (too many ids a call)."""

_ID = "~settle.{:04d}"  # no record id of the layout starts with "~"
_log = logging.getLogger("langchain_tepa")


def settle_ids(count: int) -> list[str]:
    """The ``count`` ids a settle deletes: reserved, never the id of a stored record."""
    return [_ID.format(i) for i in range(count)]


def sync_threshold(col: Any) -> int | None:
    """The collection's ``hnsw:sync_threshold``, or ``None`` when it cannot be told."""
    try:
        config = getattr(col, "configuration", None) or {}
        hnsw = config.get("hnsw") if isinstance(config, Mapping) else None
        if isinstance(hnsw, Mapping) and isinstance(hnsw.get("sync_threshold"), int):
            return int(hnsw["sync_threshold"])
        meta = getattr(col, "metadata", None) or {}
        value = meta.get("hnsw:sync_threshold") if isinstance(meta, Mapping) else None
        return int(value) if isinstance(value, int) else None
    except Exception:  # an async proxy or a client without the attribute
        return None


class LogTail:
    """Metadata bytes written into each collection since its last settle (thread-safe).

    Args:
        limit: Bytes at which :meth:`due` says a collection should be settled.

    Example:
        >>> tail = LogTail()
        >>> tail.add("tepa_e00", [{"tepa_items": "v" * 1000, "tepa_n": 3}])
        >>> tail.written("tepa_e00")
        1000
    """

    def __init__(self, limit: int = SETTLE_BYTES) -> None:
        self.limit = int(limit)
        self._bytes: dict[str, int] = {}
        self._lock = threading.Lock()

    def add(self, name: str, metadatas: Iterable[Mapping[str, Any] | None]) -> None:
        """Count the string values of ``metadatas`` written into collection ``name``."""
        size = 0
        for meta in metadatas:
            if meta:
                size += sum(len(v) for v in meta.values() if isinstance(v, str))
        if size:
            with self._lock:
                self._bytes[name] = self._bytes.get(name, 0) + size

    def written(self, name: str) -> int:
        """Bytes counted for ``name`` since its last settle."""
        with self._lock:
            return self._bytes.get(name, 0)

    def due(self, name: str) -> bool:
        """Whether ``name`` has at least :attr:`limit` bytes unsettled."""
        return self.written(name) >= self.limit

    def names(self, limit: int | None = None) -> list[str]:
        """Collections with at least ``limit`` (default :attr:`limit`) bytes unsettled."""
        bound = self.limit if limit is None else limit
        with self._lock:
            return sorted(n for n, b in self._bytes.items() if b >= bound)

    def reset(self, name: str) -> None:
        """Forget what was counted for ``name`` (it was settled, or cannot be)."""
        with self._lock:
            self._bytes.pop(name, None)


def settle(col: Any, call: Callable[..., Any]) -> bool:
    """Push ``col``'s log past its next persist point; whether a settle call was made.

    ``call`` runs the Chroma call (``ChromaStorage.call``: typed errors). Never raises: a
    failure is logged and the tail is left for Chroma's own next persist.
    """
    threshold = sync_threshold(col)
    if threshold is None or not 0 < threshold <= MAX_THRESHOLD:
        return False
    try:
        call("settle log tail", col.delete, ids=settle_ids(threshold))
    except Exception as exc:
        _log.debug("log tail of %s not settled: %s", getattr(col, "name", col), exc)
        return False
    return True

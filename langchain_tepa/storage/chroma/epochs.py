"""Write epochs: process-local counters that say whether an embedded store could have changed.

An embedded Chroma folder opened through ``open_persistent_client`` (``TEPAMemory.from_path``,
``TEPAStore.from_path``) is locked for this process: no other process can append to it while the
lock is held. Every append then goes through a
:class:`~langchain_tepa.storage.chroma.ChromaStorage` of this process, and a counter per
``(folder, prefix, shard)`` that every write of that shard bumps tells a memory whether anything
could have changed since it last read a namespace's head: if the counter is the one it read
before its last head read, the head is still the same (views and view marks aside: they change
no answer, so their writes bump nothing), and the read can be answered without reading it
again.

The rules that make this exact:

* a writer bumps *after* its Chroma write returns (and also when it fails: part of it may be
  stored), so a reader that read the counter *before* its head read either saw the write in
  the head or sees the counter move later;
* counters only grow, by one per bump (no value is ever seen twice), and each write method
  bumps each slot it wrote once (:class:`EpochBatch`), so a memory that sees ``before + 1``
  after its own commit knows no other write came in between (compare-and-advance);
* every :class:`ChromaStorage` on a persistent client bumps, whether or not it holds the lock
  (a ``from_client`` memory on the same folder in this process is seen too); only one that
  opened its folder through the lock vouches for the counters
  (:meth:`ChromaStorage.local_epoch`); a server client never does.

There is one entry per shard (at most 256) and one for the names directory per folder and
prefix a process writes: never one per namespace.

Example:
    >>> key = EpochKey("/tmp/doc-epochs", "app")
    >>> before = current(key, 3)
    >>> with EpochBatch(key) as batch:
    ...     batch.touch(3)
    ...     batch.touch(3)  # once per batch
    >>> current(key, 3) - before
    1
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from types import TracebackType
from typing import Any

__all__ = ["NAMES_SLOT", "EpochBatch", "EpochKey", "bump", "current", "folder_of"]

NAMES_SLOT = -1
"""The slot of a store's names directory (shards are ``0 .. shards - 1``)."""

_COUNTERS: dict[tuple[str, str, int], int] = {}
_LOCK = threading.Lock()
_OPEN = threading.local()  # the EpochBatch open in this thread, per key


@dataclass(frozen=True)
class EpochKey:
    """The counters of one store: a folder (resolved path) and a collection prefix.

    Example:
        >>> EpochKey("/data/memory", "tepa").prefix
        'tepa'
    """

    folder: str
    prefix: str


def folder_of(client: Any) -> str | None:
    """The resolved folder of an embedded persistent chromadb client, else ``None``.

    ``None`` for ephemeral and server clients (and for clients this cannot tell about).

    Example:
        >>> folder_of(object()) is None
        True
    """
    try:
        settings = client.get_settings()
        if not getattr(settings, "is_persistent", False):
            return None
        where = getattr(settings, "persist_directory", None)
    except Exception:  # server proxies, async clients, doubles
        return None
    if not isinstance(where, str) or not where:
        return None
    return os.path.realpath(where)


def current(key: EpochKey, slot: int) -> int:
    """The counter of ``slot`` (a shard, or :data:`NAMES_SLOT`) of ``key``'s store."""
    with _LOCK:
        return _COUNTERS.get((key.folder, key.prefix, slot), 0)


def bump(key: EpochKey, slots: Iterable[int]) -> None:
    """Add one to each of ``slots`` (after the writes to them returned or failed)."""
    with _LOCK:
        for slot in set(slots):
            entry = (key.folder, key.prefix, slot)
            _COUNTERS[entry] = _COUNTERS.get(entry, 0) + 1


class EpochBatch:
    """The slots one write method touches, bumped once each when the outermost batch ends.

    Nested batches of the same store in the same thread (a commit that writes views or index
    vectors through other methods) join the outermost one, so one commit moves each slot it
    wrote by exactly one. The bump happens on exit whether the block succeeded or raised.

    Args:
        key: The store's counters, or ``None`` (a store without counters: nothing is bumped).

    Example:
        >>> with EpochBatch(None) as batch:
        ...     batch.touch(0)
    """

    def __init__(self, key: EpochKey | None) -> None:
        self.key = key
        self.slots: set[int] = set()
        self._outer: EpochBatch | None = None

    def __enter__(self) -> EpochBatch:
        if self.key is None:
            return self
        held: dict[EpochKey, EpochBatch] = _OPEN.__dict__.setdefault("batches", {})
        outer = held.get(self.key)
        if outer is not None:
            self._outer = outer
            return outer
        held[self.key] = self
        return self

    def touch(self, slot: int) -> None:
        """Record that ``slot`` is about to be written (call it before the write)."""
        self.slots.add(slot)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.key is None or self._outer is not None:
            return
        del _OPEN.__dict__["batches"][self.key]
        if self.slots:
            bump(self.key, self.slots)

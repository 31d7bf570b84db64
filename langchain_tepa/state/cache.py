"""`StateCache`: the namespaces a memory has touched, least recently used first out.

Memory follows the namespaces a process touches, not the size of the store: a state is loaded on
the first read or write of its namespace and dropped when ``capacity`` newer namespaces have been
used since. Dropping a state loses nothing (the evidence is in storage); the next touch reloads
it. Work on one namespace is serialised by one of a fixed set of striped locks, so the number of
locks does not grow with the number of namespaces either.

Example:
    >>> from langchain_tepa.state.namespace import NamespaceState
    >>> cache = StateCache(capacity=2)
    >>> for ns in ("a", "b", "c"):
    ...     cache.put(NamespaceState(ns))
    >>> cache.get("a") is None, sorted(cache.names())
    (True, ['b', 'c'])
"""

from __future__ import annotations

import threading
import zlib
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.values import safe_repr
from langchain_tepa.state.namespace import NamespaceState

__all__ = ["DEFAULT_CACHE_SIZE", "StateCache"]

DEFAULT_CACHE_SIZE = 1024
"""Namespaces kept in process by default (a few MB for typical small namespaces)."""

_STRIPES = 64


class StateCache:
    """An LRU cache of :class:`NamespaceState` with striped per-namespace locks.

    Args:
        capacity: Namespaces kept (at least 1). A call that touches more namespaces than this
            (a mixed batch) keeps them all while it runs; the oldest leave afterwards.

    Example:
        >>> cache = StateCache(capacity=8)
        >>> with cache.locked(["users.u1", "users.u2"]):
        ...     cache.put(NamespaceState("users.u1"))
        >>> len(cache)
        1
    """

    def __init__(self, capacity: int = DEFAULT_CACHE_SIZE) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise InvalidArgumentError(
                "cache_size must be an integer >= 1 (namespaces kept in memory), got "
                f"{safe_repr(capacity)}"
            )
        self.capacity = capacity
        self._states: OrderedDict[str, NamespaceState] = OrderedDict()
        self._lock = threading.Lock()
        self._stripes = [threading.RLock() for _ in range(_STRIPES)]
        self._pinned: dict[str, int] = {}  # namespaces in use by a running call

    def __len__(self) -> int:
        return len(self._states)

    def names(self) -> list[str]:
        """Namespaces held now, least recently used first."""
        with self._lock:
            return list(self._states)

    def get(self, namespace: str) -> NamespaceState | None:
        """The state of ``namespace`` if held (it becomes the most recently used)."""
        with self._lock:
            state = self._states.get(namespace)
            if state is not None:
                self._states.move_to_end(namespace)
            return state

    def peek(self, namespace: str) -> NamespaceState | None:
        """Like :meth:`get` without changing the order."""
        with self._lock:
            return self._states.get(namespace)

    def put(self, state: NamespaceState) -> None:
        """Hold ``state`` (replacing an older one of its namespace)."""
        with self._lock:
            self._states[state.namespace] = state
            self._states.move_to_end(state.namespace)
            self._evict_locked()

    def discard(self, namespace: str) -> None:
        """Drop ``namespace`` (its next touch reloads it)."""
        with self._lock:
            self._states.pop(namespace, None)

    def clear(self) -> None:
        """Drop every state."""
        with self._lock:
            self._states.clear()

    def _evict_locked(self) -> None:
        """Drop the least recently used states beyond the capacity, except those in use."""
        excess = len(self._states) - self.capacity
        if excess <= 0:
            return
        for name in list(self._states):
            if excess <= 0:
                break
            if name not in self._pinned:
                del self._states[name]
                excess -= 1

    def _stripe(self, namespace: str) -> int:
        return zlib.crc32(namespace.encode("utf-8")) % _STRIPES

    @contextmanager
    def locked(self, namespaces: Iterable[str]) -> Iterator[None]:
        """Hold the locks of ``namespaces`` (taken in a fixed order: no deadlock).

        While the block runs its namespaces are never evicted, so a batch over more namespaces
        than the capacity keeps every state it loaded until it ends.
        """
        names = list(dict.fromkeys(namespaces))
        stripes = sorted({self._stripe(ns) for ns in names})
        with ExitStack() as stack:
            for i in stripes:
                stack.enter_context(self._stripes[i])
            with self._lock:
                for ns in names:
                    self._pinned[ns] = self._pinned.get(ns, 0) + 1
            try:
                yield
            finally:
                with self._lock:
                    for ns in names:
                        left = self._pinned[ns] - 1
                        if left:
                            self._pinned[ns] = left
                        else:
                            del self._pinned[ns]
                    self._evict_locked()

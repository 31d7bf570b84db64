"""View marks waiting for a commit to carry them into their heads.

A view mark (through which clock a namespace's stored views are right) is written into the
namespace's head only after its views are stored. Instead of a call of its own, it waits for
the next commit to the head's shard, which carries it in its ``upsert``; marks that waited
longer than ``views.MARKS_WAIT_S`` are written on their own. This is the waiting room:
thread-safe, no Chroma call.

Example:
    >>> marks = PendingMarks()
    >>> marks.defer(3, {"users.u1": {"s": 2}})
    >>> marks.defer(3, {"users.u1": {"s": 1, "t": 4}})
    >>> marks.due(wait=0.0), marks.take(3)
    ([3], {'users.u1': {'s': 2, 't': 4}})
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping

__all__ = ["PendingMarks"]


class PendingMarks:
    """Marks whose views are stored, by shard, namespace and stream, and since when they wait.

    Example:
        >>> marks = PendingMarks()
        >>> bool(marks), marks.take(0)
        (False, {})
    """

    def __init__(self) -> None:
        self._marks: dict[int, dict[str, dict[str, int]]] = {}
        self._since: dict[int, float] = {}
        self._lock = threading.Lock()

    def __bool__(self) -> bool:
        return bool(self._marks)

    def defer(self, shard: int, marks: Mapping[str, Mapping[str, int]]) -> None:
        """Keep ``marks`` (their views stored) for the next commit to ``shard`` to carry."""
        if not marks:
            return
        with self._lock:
            held = self._marks.setdefault(shard, {})
            for ns, per in marks.items():
                mine = held.setdefault(ns, {})
                for stream, seq in per.items():
                    mine[stream] = max(int(seq), mine.get(stream, 0))
            self._since.setdefault(shard, time.monotonic())

    def take(self, shard: int) -> dict[str, dict[str, int]]:
        """The marks waiting for ``shard``, no longer kept (defer them again on a failure)."""
        with self._lock:
            self._since.pop(shard, None)
            return self._marks.pop(shard, {})

    def due(self, *, wait: float | None) -> list[int]:
        """Shards whose marks waited ``wait`` seconds or more (``None``: every shard)."""
        now = time.monotonic()
        with self._lock:
            return [
                shard for shard, since in self._since.items() if wait is None or now - since >= wait
            ]

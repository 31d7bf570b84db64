"""`ViewBuffer`: precedent views waiting to be written, bounded in count and in age.

Reads never use stored views (they fold the evidence), so writers buffer them: views are written
when ``max_count`` are waiting or the oldest has waited ``max_age_s`` (checked on every call of
the memory), and on ``flush()``/``close()``. With the views, a flush records in each namespace's
head up to which page of each stream views are written, so a reader can tell when a writer
stopped (crashed) before writing its views, and rewrite them.

Example:
    >>> from langchain_tepa.core.types import Precedent
    >>> buffer = ViewBuffer(max_count=2, max_age_s=60.0, clock=lambda: 0.0)
    >>> buffer.add([Precedent("ns", "k", "v", "v", "p1")])
    >>> buffer.due(), len(buffer)
    (False, 1)
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.types import Precedent
from langchain_tepa.core.values import finite_number, safe_repr

__all__ = ["Pending", "ViewBuffer"]


@dataclass
class Pending:
    """What a flush writes.

    Attributes:
        views: Precedent ids per namespace whose views to write.
        heal: ``namespace -> stream -> seq``: other streams whose views this flush rewrites.
    """

    views: dict[str, set[str]] = field(default_factory=dict)
    heal: dict[str, dict[str, int]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.views or self.heal)


class ViewBuffer:
    """Views to write later, at most ``max_count`` of them and none older than ``max_age_s``.

    Args:
        max_count: Views buffered before they are due (>= 1).
        max_age_s: Seconds the oldest buffered view may wait (> 0).
        clock: Monotonic time source.

    Example:
        >>> buffer = ViewBuffer(max_count=1, max_age_s=1.0)
        >>> buffer.due()
        False
    """

    def __init__(
        self,
        max_count: int = 256,
        max_age_s: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if isinstance(max_count, bool) or not isinstance(max_count, int) or max_count < 1:
            raise InvalidArgumentError(
                f"flush_every must be an integer >= 1, got {safe_repr(max_count)}"
            )
        if not finite_number(max_age_s) or max_age_s <= 0:
            raise InvalidArgumentError(
                "flush_interval_s must be a finite number of seconds > 0, got "
                f"{safe_repr(max_age_s)}"
            )
        self.max_count = max_count
        self.max_age_s = float(max_age_s)
        self._clock = clock
        self._pending = Pending()
        self._count = 0
        self._since = math.inf
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return self._count

    def _started(self) -> None:
        if self._since == math.inf:
            self._since = self._clock()

    def add(self, precedents: Iterable[Precedent]) -> None:
        """Buffer the views of ``precedents`` (written as the fold has them at flush time)."""
        with self._lock:
            for p in precedents:
                ids = self._pending.views.setdefault(p.namespace, set())
                if p.id not in ids:
                    ids.add(p.id)
                    self._count += 1
            if self._count:
                self._started()

    def touch(self, namespace: str) -> None:
        """Note a write to ``namespace`` (its head's view mark moves at the next flush)."""
        with self._lock:
            self._pending.views.setdefault(namespace, set())
            self._started()

    def heal(self, namespace: str, marks: dict[str, int]) -> None:
        """Note that other streams' views of ``namespace`` are rewritten at the next flush."""
        with self._lock:
            self._pending.heal.setdefault(namespace, {}).update(marks)
            self._started()

    def due(self) -> bool:
        """Whether the buffer is full or its oldest entry is too old."""
        if not self._pending:
            return False
        return self._count >= self.max_count or self._clock() - self._since >= self.max_age_s

    def drain(self) -> Pending:
        """Take everything buffered out."""
        with self._lock:
            out = self._pending
            self._pending = Pending()
            self._count = 0
            self._since = math.inf
            return out

    def take(self, namespaces: Iterable[str]) -> Pending:
        """Take out what is buffered for ``namespaces`` only (a commit writes them itself)."""
        with self._lock:
            out = Pending()
            for ns in namespaces:
                ids = self._pending.views.pop(ns, None)
                if ids is not None:
                    out.views[ns] = ids
                    self._count -= len(ids)
                marks = self._pending.heal.pop(ns, None)
                if marks is not None:
                    out.heal[ns] = marks
            if not self._pending:
                self._count = 0
                self._since = math.inf
            return out

    def restore(self, pending: Pending) -> None:
        """Put back what a failed flush took out."""
        with self._lock:
            for ns, ids in pending.views.items():
                mine = self._pending.views.setdefault(ns, set())
                self._count += len(ids - mine)
                mine.update(ids)
            for ns, marks in pending.heal.items():
                self._pending.heal.setdefault(ns, {}).update(marks)
            self._started()

"""Point-in-time folds: what the memory believed at a time or just after an evidence record.

Example:
    >>> from langchain_tepa.core import Evidence, LifecyclePolicy
    >>> evs = [Evidence.observation("k", "a", time=1.0, id="e1"),
    ...        Evidence.observation("k", "b", time=2.0, id="e2"),
    ...        Evidence.observation("k", "b", time=3.0, id="e3")]
    >>> states = fold_as_of(evs, LifecyclePolicy(), AsOf(1.5))
    >>> states["k"].active()[0].value
    'a'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from langchain_tepa.core.fold import fold
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.types import Evidence, KeyState

__all__ = ["AsOf", "fold_as_of"]


@dataclass(frozen=True)
class AsOf:
    """A point in a namespace's evidence.

    Attributes:
        time: Evidence at or before this time is included.
        evidence_id: When set, the point is just after this record: evidence sorting at or
            before ``(time, evidence_id)`` is included (``time`` is then that record's time).

    Example:
        >>> AsOf(2.0).includes(Evidence.observation("k", "v", time=2.0, id="x"))
        True
    """

    time: float
    evidence_id: str | None = None

    def includes(self, ev: Evidence) -> bool:
        """Whether ``ev`` is part of the evidence up to this point."""
        if self.evidence_id is None:
            return ev.time <= self.time
        return ev.sort_key <= (self.time, self.evidence_id)


def fold_as_of(
    records: Iterable[Evidence],
    policy: LifecyclePolicy,
    point: AsOf,
    *,
    keys: Iterable[str] | None = None,
) -> dict[str, KeyState]:
    """Fold the records up to ``point``, one :class:`KeyState` per key (optionally some keys)."""
    wanted = set(keys) if keys is not None else None
    groups: dict[str, list[Evidence]] = {}
    for ev in records:
        if point.includes(ev) and (wanted is None or ev.key in wanted):
            groups.setdefault(ev.key, []).append(ev)
    return {
        key: fold(evs, policy, key=key, namespace=evs[0].namespace) for key, evs in groups.items()
    }

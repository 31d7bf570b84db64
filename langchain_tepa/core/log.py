"""The evidence log's vocabulary: pages, namespace heads and vector clocks.

Evidence of a namespace is appended in *pages*: one page (or several, for a large append) per
append of one *stream* (a writing memory instance), numbered by that stream's append sequence.
A namespace's *head* holds, per stream, the number of its last append there: a vector clock. A
reader that holds a clock asks the head whether anything is new and folds only the pages after
its clock.

Example:
    >>> head = Head("users.u1", {"s1": 3}, {"s1": 7})
    >>> head.news({"s1": 2}), head.evidence_count
    ({'s1': 2}, 7)
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from langchain_tepa.core.types import Evidence

__all__ = ["Head", "NamespaceSummary", "Page", "clock_digest"]


def clock_digest(clock: Mapping[str, int]) -> str:
    """A short, order-independent digest of a vector clock (``stream -> last sequence``).

    Example:
        >>> clock_digest({"a": 1, "b": 2}) == clock_digest({"b": 2, "a": 1})
        True
    """
    text = ";".join(f"{s}={q}" for s, q in sorted(clock.items()))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class NamespaceSummary:
    """What a writer knew of a namespace right after its write (for listing namespaces).

    Attributes:
        digest: :func:`clock_digest` of the clock the summary was computed on. A reader trusts
            the summary only when it equals the digest of the head's current clock.
        active: Active precedents.
        keys: Keys with evidence.
    """

    digest: str
    active: int
    keys: int


@dataclass(frozen=True)
class Head:
    """The head of a namespace: the position of every stream that wrote it.

    Attributes:
        namespace: The namespace.
        clock: ``stream -> sequence number of its last page`` in this namespace.
        counts: ``stream -> evidence records it appended`` to this namespace.
        summary: The last writer's :class:`NamespaceSummary`, if any.
        dedicated: Whether the backend ranks this namespace's vectors itself (a large
            namespace with an index of its own) instead of handing them to the memory.
        views: ``stream -> sequence number up to which its precedent views are written``.
        written: ``stream -> wall-clock time of its last append`` here.
        indexed: For a dedicated namespace, ``stream -> sequence number`` through which the
            vectors of that stream's pages are known to be in the namespace's own index.

    Example:
        >>> head = Head("users.u1", {"s1": 3}, {"s1": 7})
        >>> head.evidence_count, head.news({"s1": 2})
        (7, {'s1': 2})
    """

    namespace: str
    clock: Mapping[str, int] = field(default_factory=dict)
    counts: Mapping[str, int] = field(default_factory=dict)
    summary: NamespaceSummary | None = None
    dedicated: bool = False
    views: Mapping[str, int] = field(default_factory=dict)
    written: Mapping[str, float] = field(default_factory=dict)
    indexed: Mapping[str, int] = field(default_factory=dict)

    def unwritten_views(self, now: float, grace: float) -> dict[str, int]:
        """Streams that stopped before writing their views, with their positions.

        A stream qualifies when its view mark lags its pages and its last append is older than
        ``grace`` seconds.
        """
        return {
            s: q
            for s, q in self.clock.items()
            if self.views.get(s, 0) < q and now - self.written.get(s, now) > grace
        }

    @property
    def evidence_count(self) -> int:
        """Evidence records of the namespace (every stream's)."""
        return sum(self.counts.values())

    @property
    def digest(self) -> str:
        """:func:`clock_digest` of :attr:`clock`."""
        return clock_digest(self.clock)

    def news(self, known: Mapping[str, int]) -> dict[str, int]:
        """Streams with pages after ``known``, mapped to the last sequence already known."""
        return {s: known.get(s, 0) for s, q in self.clock.items() if q > known.get(s, 0)}

    def trusted_summary(self) -> NamespaceSummary | None:
        """The summary, if it was computed on exactly this head's clock."""
        if self.summary is not None and self.summary.digest == self.digest:
            return self.summary
        return None


@dataclass(frozen=True)
class Page:
    """One append of one stream to one namespace.

    Attributes:
        namespace: The namespace.
        stream: The writing stream (one memory instance).
        seq: The stream's append sequence number (1, 2, ...; a commit spanning several
            namespaces has one sequence number in each).
        records: The evidence, in the order the writer folded it.
        basis: :func:`clock_digest` of the writer's clock of this namespace just before the
            write (what it had folded), or ``None`` when unknown (migrated pages).
        vectors: Embeddings of the precedents these records created (``id -> vector``),
            stored once with the evidence that created them.
        items: Item vectors of named spaces written with these records
            (``space -> owner -> vectors``). A backend may give each vector here and in
            ``vectors`` as a list of floats or as a one-dimension float array (Chroma gives
            read-only float32 arrays of what it stored).
    """

    namespace: str
    stream: str
    seq: int
    records: tuple[Evidence, ...]
    basis: str | None = None
    vectors: Mapping[str, Sequence[float]] = field(default_factory=dict)
    items: Mapping[str, Mapping[str, Sequence[Sequence[float]]]] = field(default_factory=dict)

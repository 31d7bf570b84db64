"""`NamespaceState`: what one memory knows of one namespace, a fold of its evidence up to a clock.

The state is built from the namespace's pages (:class:`~langchain_tepa.core.log.Page`), in the
order they were committed, and caught up with only the pages written since its clock. Each
key's new evidence is folded in ``(time, id)`` order, and a key whose new
evidence sorts before what was already folded (two writers raced) is reported for a refold
from all of its evidence, so the state always equals a fold of the evidence up to the clock.

Example:
    >>> from langchain_tepa.core import Evidence, LifecyclePolicy
    >>> from langchain_tepa.core.log import Page
    >>> state = NamespaceState("users.u1")
    >>> ev = Evidence.observation("user.diet", "vegan", time=1.0, id="e1", namespace="users.u1")
    >>> _ = state.absorb([Page("users.u1", "s1", 1, (ev,))], LifecyclePolicy())
    >>> state.clock, state.keys["user.diet"].active()[0].value
    ({'s1': 1}, 'vegan')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from langchain_tepa.core.changes import blocked_challengers
from langchain_tepa.core.fold import apply_evidence, fold
from langchain_tepa.core.log import NamespaceSummary, Page, clock_digest
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.precedence import held_claims
from langchain_tepa.core.types import Evidence, KeyState, Lifecycle, Precedent
from langchain_tepa.state.vectors import ItemTable, VectorTable

__all__ = ["Absorbed", "NamespaceState", "Ranking", "active_in", "answers_of"]

_D = TypeVar("_D")


def answers_of(
    states: Iterable[KeyState], policy: LifecyclePolicy
) -> list[tuple[Precedent, list[Precedent]]]:
    """What reads answer for ``states``: see :meth:`NamespaceState.answers`."""
    out: list[tuple[Precedent, list[Precedent]]] = []
    for ks in states:
        act = ks.active()
        if not act:
            continue
        if policy.is_multi_valued(ks.key):
            out.extend((p, []) for p in act)
        else:  # the other Active values, then what a rule holds back with more support
            held = blocked_challengers(ks, act[0])
            held += [q for q in held_claims(ks, policy, act[0]) if q not in held]
            out.append((act[0], act[1:] + held))
    return out


def active_in(state: KeyState) -> int:
    """How many of a key's precedents are Active."""
    return sum(1 for p in state.precedents.values() if p.state is Lifecycle.ACTIVE)


@dataclass(frozen=True)
class Ranking:
    """What reads rank: one precedent per answer, and the rivals of those that have some.

    Attributes:
        precedents: The answering precedents (a list that stays the same object while the
            state does not change, so per-list caches stay valid).
        rivals: ``precedent id -> the key's other Active values``, then its Hypotheses held
            back by a rule although better supported than the answer
            (:func:`~langchain_tepa.core.changes.blocked_challengers`; contested keys only).
    """

    precedents: list[Precedent]
    rivals: Mapping[str, list[Precedent]]


@dataclass
class Absorbed:
    """What :meth:`NamespaceState.absorb` did.

    Attributes:
        changed: Keys whose state changed.
        refold: Keys whose new evidence sorts before evidence already folded: they must be
            refolded from all their evidence (:meth:`NamespaceState.refold`).
        records: Evidence records absorbed.
        suspect: Keys whose stored views may be behind the fold: a page touching them was
            written on other evidence than what preceded it (two writers raced).
    """

    changed: set[str] = field(default_factory=set)
    refold: set[str] = field(default_factory=set)
    records: int = 0
    suspect: set[str] = field(default_factory=set)

    @property
    def consistent(self) -> bool:
        """Whether every absorbed page was written on exactly the evidence before it."""
        return not self.suspect


class NamespaceState:
    """The fold of one namespace's evidence up to :attr:`clock`.

    Attributes:
        namespace: The namespace.
        keys: ``KeyState`` per key.
        clock: ``stream -> last sequence number folded``.
        counts: ``stream -> records folded``.
        dedicated: The storage ranks this namespace's vectors itself (a large namespace).
        vectors: Precedent vectors in process (``None`` until first needed, or when
            dedicated).
        spaces: Item vectors per named space (loaded on first use).
        checked_at: ``time.monotonic()`` of the last freshness check.
        epoch: The storage's write epoch of the namespace read before the head this state
            is caught up to (``None``: unknown, or the storage cannot vouch): while the storage
            still reports it, nothing was written since and the head need not be read.
        epoch_until: Wall-clock time (``time.time()``) after which :attr:`epoch` is not
            trusted even if unchanged (when another stream's views lag: a read after then
            reads the head, and heals them if that stream stopped).

    Example:
        >>> NamespaceState("default").evidence_count
        0
    """

    def __init__(
        self,
        namespace: str,
        *,
        clock: Mapping[str, int] | None = None,
        dedicated: bool = False,
    ) -> None:
        self.namespace = namespace
        self.keys: dict[str, KeyState] = {}
        self.clock: dict[str, int] = dict(clock or {})
        self.counts: dict[str, int] = {}
        self.dedicated = dedicated
        self.vectors: VectorTable | None = None
        self.spaces: dict[str, ItemTable] = {}
        self.checked_at = -math.inf
        self.epoch: int | None = None
        self.epoch_until = math.inf
        self._by_id: dict[str, Precedent] = {}
        self._active_count = 0
        self._active_by_key: dict[str, int] = {}
        self._active: list[Precedent] | None = None
        self._answers: list[tuple[Precedent, list[Precedent]]] | None = None
        self._ranking: Ranking | None = None
        self._members: tuple[object, dict[str, Precedent]] | None = None
        self._derived: dict[str, Any] = {}

    # ------------------------------------------------------------------ reading
    @property
    def evidence_count(self) -> int:
        """Evidence records folded."""
        return sum(self.counts.values())

    @property
    def digest(self) -> str:
        """:func:`~langchain_tepa.storage.base.clock_digest` of the clock."""
        return clock_digest(self.clock)

    def precedent(self, pid: str) -> Precedent | None:
        """The live precedent object with id ``pid`` (not a copy)."""
        return self._by_id.get(pid)

    def precedent_count(self) -> int:
        """Precedents of every state."""
        return len(self._by_id)

    def active(self) -> list[Precedent]:
        """Every Active precedent (live objects, cached until the state changes)."""
        if self._active is None:
            self._active = [
                p
                for ks in self.keys.values()
                for p in ks.precedents.values()
                if p.state is Lifecycle.ACTIVE
            ]
        return self._active

    def active_count(self) -> int:
        """How many precedents are Active (kept up to date, no scan)."""
        return self._active_count

    def active_in_key(self, key: str) -> int:
        """How many precedents of ``key`` are Active."""
        return self._active_by_key.get(key, 0)

    def ranking(self, policy: LifecyclePolicy) -> Ranking:
        """:meth:`answers` as a :class:`Ranking` (cached until the state changes)."""
        if self._ranking is None:
            answers = self.answers(policy)
            self._ranking = Ranking([p for p, _ in answers], {p.id: r for p, r in answers if r})
        return self._ranking

    def members(self, candidates: Sequence[Precedent]) -> Mapping[str, Precedent]:
        """``candidates`` by id; kept while the same list object is asked for again."""
        if self._members is None or self._members[0] is not candidates:
            self._members = (candidates, {p.id: p for p in candidates})
        return self._members[1]

    def answers(self, policy: LifecyclePolicy) -> list[tuple[Precedent, list[Precedent]]]:
        """Per key, what a read answers: ``(precedent, the other Active values)``.

        A single-valued key answers with its best Active value (its rivals listed); each Active
        value of a multi-valued key is an answer of its own. Cached until the state changes.
        """
        if self._answers is None:
            self._answers = answers_of(self.keys.values(), policy)
        return self._answers

    def derived(self, name: str, build: Callable[[NamespaceState], _D]) -> _D:
        """``build(self)``, kept under ``name`` until the state changes (caches of readers)."""
        if name not in self._derived:
            self._derived[name] = build(self)
        return self._derived[name]

    def summary(self) -> NamespaceSummary:
        """The summary a writer stores in the head after a write."""
        return NamespaceSummary(self.digest, self._active_count, len(self.keys))

    # ------------------------------------------------------------------ changing
    def replace_key(self, key: str, state: KeyState) -> None:
        """Install a new state for ``key`` (after a commit or a refold)."""
        # Counted per key: ``state`` may be the old object, changed in place.
        now = active_in(state)
        self._active_count += now - self._active_by_key.get(key, 0)
        self._active_by_key[key] = now
        self.keys[key] = state
        for p in state.precedents.values():
            self._by_id[p.id] = p
        self._active = None
        self._answers = None
        self._ranking = None
        self._derived.clear()

    def advance(self, stream: str, seq: int, records: int) -> None:
        """Record that this memory's own page ``seq`` of ``stream`` is folded."""
        self.clock[stream] = max(self.clock.get(stream, 0), seq)
        self.counts[stream] = self.counts.get(stream, 0) + records

    def absorb(self, pages: Iterable[Page], policy: LifecyclePolicy) -> Absorbed:
        """Fold the pages this state has not folded yet (those after its clock).

        ``pages`` come in commit order (as storage returns them). Each key's new records are
        folded in ``(time, id)`` order. Keys whose new evidence sorts before evidence already
        folded are listed in ``refold`` and left as they were.
        """
        out = Absorbed()
        start = dict(self.clock)
        fresh = [p for p in pages if p.seq > start.get(p.stream, 0)]
        by_key: dict[str, list[Evidence]] = {}
        previous: tuple[str, int] | None = None
        for page in fresh:  # in commit order
            # The writer folded its page on the evidence named by `basis`: if that is what this
            # state held just before the page, the writer's views agree with the fold; if not
            # (two writers raced), the views of the keys it touched are suspect.
            here = (page.stream, page.seq)
            if here != previous and page.basis != self.digest:
                out.suspect.update(ev.key for ev in page.records)
            for ev in page.records:
                by_key.setdefault(ev.key, []).append(ev)
            self.advance(page.stream, page.seq, len(page.records))
            out.records += len(page.records)
            previous = here
        for key, evs in by_key.items():
            evs.sort(key=lambda e: e.sort_key)
            state = self.keys.get(key)
            if state is not None and evs[0].sort_key <= state.last_sort_key:
                out.refold.add(key)
                out.suspect.add(key)
                continue
            if state is None:
                state = KeyState(self.namespace, key)
            single = not policy.is_multi_valued(key)
            for ev in evs:
                apply_evidence(state, ev, policy, single=single)
            self.replace_key(key, state)
            out.changed.add(key)
        return out

    def refold(self, key: str, records: Iterable[Evidence], policy: LifecyclePolicy) -> None:
        """Replace ``key``'s state by a fold of ``records`` (all of its evidence)."""
        self.replace_key(key, fold(records, policy, namespace=self.namespace, key=key))

"""Typed results of :class:`~langchain_tepa.memory.TEPAMemory` calls.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> result = memory.observe("user.diet", "vegan")
    >>> result.precedent.state.value, [t.reason for t in result.transitions]
    ('active', ['new candidate: first observation', 'promoted: validity 0.67 >= 0.60'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from langchain_tepa.core.changes import blocked_challengers
from langchain_tepa.core.trust import provenance_rows
from langchain_tepa.core.types import (
    Evidence,
    KeyState,
    Lifecycle,
    Precedent,
    Transition,
    answer_order,
)
from langchain_tepa.core.values import canonical_json

__all__ = ["KeyAudit", "ObservationResult", "ReconcileReport", "TextsResult"]


def _when(t: float) -> str:
    """Wall-clock times as UTC ISO text; benchmark clocks (small numbers) as they are."""
    if t > 1e8:
        stamp = datetime.fromtimestamp(t, tz=timezone.utc)
        return stamp.strftime("%Y-%m-%d %H:%M:%S")
    return f"t={t:g}"


@dataclass(frozen=True)
class ObservationResult:
    """What one ``observe``/``record_outcome``/``revoke``/``promote`` call did.

    Attributes:
        evidence: The evidence record written.
        precedent: A snapshot of the precedent it touched (``None`` for a boundary).
        transitions: Every transition the record caused, on any precedent of the key.
    """

    evidence: Evidence
    precedent: Precedent | None
    transitions: list[Transition] = field(default_factory=list)


@dataclass(frozen=True)
class KeyAudit:
    """Every precedent of a key, with its state, posterior and transition history.

    Attributes:
        namespace: The scope.
        key: The key.
        precedents: Snapshots, in creation order.
        evidence_count: Evidence records of the key.
        rejected: Value ids (``Precedent.value_id``) that trial-by-execution rejected and
            no execution has cleared since: TEPA-Full's standing verdicts
            (:mod:`langchain_tepa.core.contest`); assertions alone do not revive them.
        held: Value ids of the Hypotheses a higher-ranked answer holds back although they are
            believable on their own: lower-trust claims waiting for a source of the answer's
            tier or an execution (:func:`~langchain_tepa.core.precedence.held_claims`).
        one_offs: Value ids a source stated once against the answer it had stated repeatedly:
            one-offs held until that source says them again
            (:class:`~langchain_tepa.core.changes.OneOffHold`).
    """

    namespace: str
    key: str
    precedents: list[Precedent]
    evidence_count: int
    rejected: frozenset[str] = frozenset()
    held: frozenset[str] = frozenset()
    one_offs: frozenset[str] = frozenset()

    @property
    def active(self) -> list[Precedent]:
        """Active precedents, best first (the first is what ``get`` answers)."""
        act = [p for p in self.precedents if p.state is Lifecycle.ACTIVE]
        return sorted(act, key=answer_order)

    @property
    def contested(self) -> bool:
        """Whether the answer is contested (read as a single-valued key).

        Another value is Active too, a rule holds back a Hypothesis better supported than
        the answer (:func:`~langchain_tepa.core.changes.blocked_challengers`: a veto,
        proportionate displacement, a trial still to run), or a lower-trust claim or a
        one-off waits (``held``, ``one_offs``).
        """
        act = self.active
        if not act:
            return False
        if len(act) > 1 or self.held or self.one_offs:
            return True
        served = act[0]
        state = KeyState(self.namespace, self.key, {p.value_id: p for p in self.precedents})
        return bool(blocked_challengers(state, served))

    @property
    def revoked(self) -> list[Precedent]:
        """Revoked precedents (the archive of this key)."""
        return [p for p in self.precedents if p.state is Lifecycle.REVOKED]

    def rows(self) -> list[dict[str, Any]]:
        """One dict per precedent, for tables (pandas, rich, markdown)."""
        out = []
        for p in self.precedents:
            last = p.transitions[-1] if p.transitions else None
            out.append(
                {
                    "value": p.value,
                    "state": p.state.value,
                    "support": p.support,
                    "conflict": p.conflict,
                    "weighted_support": round(p.weighted_support, 3),
                    "weighted_conflict": round(p.weighted_conflict, 3),
                    "validity": round(p.validity, 3),
                    "lower_95": round(p.lower_bound, 3),
                    "provenance": {
                        k: [round(v[0], 3), round(v[1], 3)] for k, v in p.provenance.items()
                    },
                    "last_reason": last.reason if last else "",
                    "by_evidence": last.evidence_id if last else "",
                }
            )
        return out

    def __str__(self) -> str:
        lines = [f"audit {self.namespace}/{self.key} ({self.evidence_count} evidence records)"]
        for p in self.precedents:
            shown = p.value if isinstance(p.value, str) else canonical_json(p.value)
            lines.append(
                f"  {shown!s:<24} {p.state.value:<10} support={p.support:<3} "
                f"conflict={p.conflict:<3} validity={p.validity:.2f}"
            )
            if p.provenance and (
                p.weighted_support != p.support or p.weighted_conflict != p.conflict
            ):
                lines.append(
                    f"      weighted support={p.weighted_support:.2f} "
                    f"conflict={p.weighted_conflict:.2f}: "
                    + ", ".join(f"{k} +{s:.2f}/-{c:.2f}" for k, s, c in provenance_rows(p))
                )
            for t in p.transitions:
                lines.append(f"      {_when(t.time)}  {t.reason}  [{t.evidence_id}]")
        return "\n".join(lines)


@dataclass(frozen=True)
class ReconcileReport:
    """What ``reconcile()`` found and repaired.

    Attributes:
        keys: Keys refolded.
        evidence: Evidence records read.
        repaired_views: Precedent views rewritten because they differed from the fold.
        repaired_active: Retrievable-set memberships fixed.
        seconds: Wall time.
    """

    keys: int
    evidence: int
    repaired_views: int
    repaired_active: int
    seconds: float


class TextsResult(list[ObservationResult]):
    """What ``add_texts`` did.

    It is a list of :class:`ObservationResult`, one per fact extracted, and it names the texts
    nothing could be extracted from.

    Attributes:
        skipped: The sentences nothing was stored for, each with the reason (``"I'm a night
            owl. (not stored: no known sentence shape)"``). They are also logged as warnings.

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> result = TEPAMemory.in_memory().add_texts(["The capital of Peru is Lima.", "Hmm."])
        >>> len(result), result.skipped
        (1, ['Hmm. (not stored: no known sentence shape)'])
    """

    def __init__(self, results: list[ObservationResult] = (), skipped: list[str] = ()) -> None:  # type: ignore[assignment]
        super().__init__(results)
        self.skipped: list[str] = list(skipped)

    def __repr__(self) -> str:
        return f"TextsResult({list.__repr__(self)}, skipped={self.skipped!r})"

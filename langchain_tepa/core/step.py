"""What every lifecycle rule sees and answers: one :class:`Step`, and the protocol of each stage.

The fold (:mod:`langchain_tepa.core.fold`) builds one :class:`Step` per evidence record and
hands it to the rules of each stage (:mod:`langchain_tepa.core.rules`); a rule is any object
with the method of its stage's protocol.

Example:
    >>> from langchain_tepa.core.types import Evidence, KeyState
    >>> step = Step(KeyState("default", "k"), Evidence.observation("k", "v", time=1, id="e1"))
    >>> step.target is None, Lifecycle.ACTIVE in LIVE
    (True, True)
"""

from __future__ import annotations

from typing import Protocol

from langchain_tepa.core.types import (
    TOP_TIER,
    Evidence,
    KeyState,
    Lifecycle,
    Precedent,
    Transition,
    new_transition,
)

__all__ = [
    "LIVE",
    "BoundaryRule",
    "CountRule",
    "PromotionRule",
    "RecordRule",
    "RevocationRule",
    "Step",
    "Veto",
]

LIVE = (Lifecycle.HYPOTHESIS, Lifecycle.ACTIVE)
"""The states in which a precedent takes part in the lifecycle (Revoked ones wait for support)."""


class Step:
    """One evidence record being folded into one key's state: what every rule sees.

    Example:
        >>> step = Step(KeyState("default", "k"), Evidence.observation("k", "v", time=1, id="e1"))
        >>> step.supports, step.transitions
        (False, [])

    Attributes:
        state: The key's state (mutated in place).
        ev: The record.
        target: The precedent of the record's value (``None`` before it is found or created).
        others: The live precedents of the key other than ``target``, when counting started.
        supports: The record supports its value (an observation, or a successful outcome).
        is_outcome: The record is an outcome.
        single: The key is single-valued.
        created: The record created ``target``.
        transitions: Transitions caused so far, in order.
        weight: What the record counts (1 without trust; see
            :class:`~langchain_tepa.core.trust.TrustPolicy`).
        label: Where the record comes from, for provenance (its source, ``"app"`` without one,
            or ``"outcomes"``).
        trusted: The record comes from a trusted (full-weight) source, or is an outcome.
        correction: The record is a correction from a source that may correct.
        tier: The trust tier of the record's source (:mod:`langchain_tepa.core.precedence`;
            a vouched outcome, and every record under a policy that holds nothing back by
            trust, is :data:`~langchain_tepa.core.types.TOP_TIER`).
    """

    __slots__ = (
        "correction",
        "created",
        "ev",
        "is_outcome",
        "label",
        "others",
        "single",
        "state",
        "supports",
        "target",
        "tier",
        "transitions",
        "trusted",
        "weight",
    )

    def __init__(self, state: KeyState, ev: Evidence) -> None:
        self.state = state
        self.ev = ev
        self.target: Precedent | None = None
        self.others: list[Precedent] = []
        self.supports = False
        self.is_outcome = False
        self.single = True
        self.created = False
        self.transitions: list[Transition] = []
        self.weight = 1.0
        self.label = ""
        self.trusted = True
        self.correction = False
        self.tier = TOP_TIER

    def move(self, p: Precedent, to: Lifecycle, reason: str) -> None:
        """Move ``p`` to state ``to`` for ``reason`` (recorded on ``p`` and in this step)."""
        tr = new_transition(self.ev.time, self.ev.id, p.state, to, reason)
        p.state = to
        p.transitions.append(tr)
        self.transitions.append(tr)
        if to is Lifecycle.ACTIVE:
            p.ever_active = True

    def spares(self, p: Precedent) -> bool:
        """Whether the record's conflict against ``p`` does not count: ``p`` outranks its source.

        A lower-trust source cannot erase a higher-trust value by contradicting it
        (:mod:`langchain_tepa.core.precedence`); the record still counts in ``p.conflict``.
        """
        return p.rank > self.tier

    def touch(self, p: Precedent) -> None:
        """Note that this record concerns ``p`` (its evidence ids and last update time)."""
        ev = self.ev
        if not p.evidence_ids or p.evidence_ids[-1] != ev.id:
            p.evidence_ids.append(ev.id)
        p.updated_at = max(p.updated_at, ev.time)


# ---------------------------------------------------------------------- protocols
class BoundaryRule(Protocol):
    """Acts on a phase-boundary record."""

    def on_boundary(self, step: Step) -> None:
        """Apply the rule to the boundary record of ``step``."""
        ...


class CountRule(Protocol):
    """Updates support, conflict and the recent-outcome window for one record."""

    def count(self, step: Step) -> None:
        """Count the record of ``step`` (its target is set and touched)."""
        ...


class RecordRule(Protocol):
    """A rule that acts on the record itself, after counting (the baselines' rules)."""

    def apply(self, step: Step) -> None:
        """Apply the rule to ``step``."""
        ...


class RevocationRule(Protocol):
    """Says why a live precedent must be revoked now, or ``None``."""

    def reason(self, p: Precedent, step: Step) -> str | None:
        """The revocation reason for ``p`` after ``step``, or ``None`` to keep it."""
        ...


class PromotionRule(Protocol):
    """Says why a Hypothesis must be promoted now, or ``None``."""

    def reason(self, p: Precedent, step: Step) -> str | None:
        """The promotion reason for ``p`` after ``step``, or ``None`` to keep it waiting."""
        ...


class Veto(Protocol):
    """Blocks promotion, and revival by an observation, of a precedent."""

    def blocks(self, p: Precedent, step: Step | None = None) -> bool:
        """Whether ``p`` may not be promoted (or revived by an observation) now.

        ``step`` is the record that would revive or promote ``p`` (``None`` when no record
        asks: a decision settling the key); a veto may let some records through (the default's
        :class:`~langchain_tepa.core.change.LastOutcomeVeto` hears a source with change
        authority restating a value that mostly works).
        """
        ...

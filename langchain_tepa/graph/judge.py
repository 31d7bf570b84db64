"""The trial judge: promote, keep as Hypothesis, or reject a candidate from its trial results.

The rule (TEPA-Full): promote only when at least ``threshold`` of the trials are positive
(60% by default; exactly 60% promotes) **and** at least one supportive trial succeeded; reject
(revoke) when fewer than ``reject_below`` are positive; otherwise keep the candidate as a
Hypothesis for a later run.

Example:
    >>> from langchain_tepa.graph.trials import Candidate, TrialKind, TrialResult
    >>> cand = Candidate("default", "user.pizza", "mushroom", "p1")
    >>> results = [
    ...     TrialResult("a", TrialKind.SUPPORTIVE, True),
    ...     TrialResult("b", TrialKind.COUNTERFACTUAL, True),
    ...     TrialResult("c", TrialKind.COUNTERFACTUAL, True),
    ...     TrialResult("d", TrialKind.POLLUTED, False),
    ... ]
    >>> TrialJudge().judge(cand, results).reason
    'promoted: trials 3/4 positive (75% >= 60%), supportive success'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.values import safe_repr
from langchain_tepa.graph.trials import Candidate, TrialKind, TrialResult

__all__ = ["DEFAULT_THRESHOLD", "Decision", "DecisionAction", "TrialJudge"]

DecisionAction = Literal["promote", "keep", "reject"]
DEFAULT_THRESHOLD = 0.6
_DEFAULT_REJECT_BELOW = 0.4
_EPS = 1e-9


def _pct(x: float) -> str:
    return f"{x * 100:.4g}%"


@dataclass(frozen=True)
class Decision:
    """What the judge decided for one candidate, and what was done.

    Attributes:
        candidate: The candidate.
        action: ``"promote"``, ``"keep"`` or ``"reject"`` (after any human review).
        reason: The reason written to the audit trail.
        positive: Positive trials.
        total: Trials run.
        supportive_successes: Supportive trials that succeeded.
        results: Every trial result, in trial order.
        proposed: The judge's own action (differs from ``action`` when a reviewer overrode it).
        review: ``"approved"``, ``"rejected"`` or ``"kept"`` after a human review, else ``None``.
        applied: Whether the action was written to the memory.
        superseded: Values revoked because the promoted candidate beat them in a counterfactual.
        restored: Revoked values made Active again because they succeeded in a counterfactual
            trial where the candidate failed (a wrongly revoked incumbent).

    Example:
        >>> cand = Candidate("default", "k", "v", "p1")
        >>> d = Decision(cand, "keep", "kept as hypothesis", 0, 0, 0)
        >>> d.fraction
        0.0
    """

    candidate: Candidate
    action: DecisionAction
    reason: str
    positive: int
    total: int
    supportive_successes: int
    results: tuple[TrialResult, ...] = ()
    proposed: DecisionAction | None = None
    review: str | None = None
    applied: bool = False
    superseded: tuple[Any, ...] = ()
    restored: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        if self.proposed is None:
            object.__setattr__(self, "proposed", self.action)
        object.__setattr__(self, "results", tuple(self.results))
        object.__setattr__(self, "superseded", tuple(self.superseded))
        object.__setattr__(self, "restored", tuple(self.restored))

    @property
    def namespace(self) -> str:
        """The candidate's namespace."""
        return self.candidate.namespace

    @property
    def key(self) -> str:
        """The candidate's key."""
        return self.candidate.key

    @property
    def value(self) -> Any:
        """The candidate's value."""
        return self.candidate.value

    @property
    def fraction(self) -> float:
        """Positive trials over trials run (0 when none ran)."""
        return self.positive / self.total if self.total else 0.0

    @property
    def promoted(self) -> bool:
        """Whether the candidate was (or is to be) promoted."""
        return self.action == "promote"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (the graph's state holds these)."""
        return {
            "candidate": self.candidate.to_dict(),
            "action": self.action,
            "reason": self.reason,
            "positive": self.positive,
            "total": self.total,
            "supportive_successes": self.supportive_successes,
            "results": [r.to_dict() for r in self.results],
            "proposed": self.proposed,
            "review": self.review,
            "applied": self.applied,
            "superseded": list(self.superseded),
            "restored": list(self.restored),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Decision:
        """Inverse of :meth:`to_dict`."""
        return cls(
            candidate=Candidate.from_dict(data["candidate"]),
            action=data["action"],
            reason=data["reason"],
            positive=int(data["positive"]),
            total=int(data["total"]),
            supportive_successes=int(data["supportive_successes"]),
            results=tuple(TrialResult.from_dict(r) for r in data.get("results", [])),
            proposed=data.get("proposed"),
            review=data.get("review"),
            applied=bool(data.get("applied", False)),
            superseded=tuple(data.get("superseded", ())),
            restored=tuple(data.get("restored", ())),
        )


class TrialJudge:
    """Decides promote / keep / reject from trial results.

    Args:
        threshold: Fraction of positive trials needed to promote (default 0.6; inclusive).
        reject_below: Fraction under which the candidate is rejected (revoked). Default:
            0.4, or ``threshold`` if lower. ``0`` never rejects.

    Raises:
        InvalidArgumentError: If a fraction is outside [0, 1], ``threshold`` is 0, or
            ``reject_below`` exceeds ``threshold``.

    Example:
        >>> TrialJudge(threshold=0.75).reject_below
        0.4
    """

    def __init__(
        self, threshold: float = DEFAULT_THRESHOLD, reject_below: float | None = None
    ) -> None:
        threshold = _fraction("threshold", threshold)
        if threshold <= 0.0:
            raise InvalidArgumentError(
                "threshold must be > 0 (a candidate with no positive trial must never be promoted)"
            )
        if reject_below is None:
            reject_below = min(_DEFAULT_REJECT_BELOW, threshold)
        reject_below = _fraction("reject_below", reject_below)
        if reject_below > threshold:
            raise InvalidArgumentError(
                f"reject_below ({reject_below}) must not exceed threshold ({threshold})"
            )
        self.threshold = threshold
        self.reject_below = reject_below

    def judge(self, candidate: Candidate, results: Sequence[TrialResult]) -> Decision:
        """The decision for ``candidate`` (not applied yet)."""
        results = tuple(results)
        total = len(results)
        positive = sum(1 for r in results if r.positive)
        supportive = sum(1 for r in results if r.kind is TrialKind.SUPPORTIVE and r.positive)

        def make(action: DecisionAction, reason: str) -> Decision:
            return Decision(candidate, action, reason, positive, total, supportive, results)

        if total == 0:
            return make("keep", "kept as hypothesis: no trials were built")
        frac = positive / total
        passes = positive >= self.threshold * total - _EPS
        summary = (
            f"trials {positive}/{total} positive ({_pct(frac)} "
            f"{'>=' if passes else '<'} {_pct(self.threshold)})"
        )
        if passes and supportive:
            return make("promote", f"promoted: {summary}, supportive success")
        if positive < self.reject_below * total - _EPS:
            return make(
                "reject",
                f"rejected: trials {positive}/{total} positive ({_pct(frac)} < "
                f"{_pct(self.reject_below)})",
            )
        if passes:
            return make("keep", f"kept as hypothesis: {summary} but no supportive success")
        extra = "supportive success" if supportive else "no supportive success"
        return make("keep", f"kept as hypothesis: {summary}, {extra}")

    def settled(
        self,
        candidate: Candidate,
        results: Sequence[TrialResult],
        pending: Sequence[TrialKind],
        *,
        hopeless: bool = False,
    ) -> Decision | None:
        """The decision on ``results`` if no outcome of the ``pending`` trials can change it.

        The decision is monotone in the positive results, so it is settled when it is the same
        with every pending trial positive and with every one negative, and the results so far
        give it too. ``None``: run the next trial.

        With ``hopeless``, a rejection is settled as soon as no outcome of the pending trials
        can promote the candidate (its one supportive trial failed, say): the rest could only
        turn the rejection into a *keep*, and a kept candidate is not served either; it would
        only be tried again at the next run. Each trial is an execution charged to the
        application, so the candidate is rejected on the results it has, and its verdict
        reopens on new evidence (TEPA-Full's trial gate).

        Example:
            >>> cand = Candidate("default", "k", "spoofed", "p1")
            >>> failed = [TrialResult("s", TrialKind.SUPPORTIVE, False)]
            >>> rest = [TrialKind.POLLUTED, TrialKind.COUNTERFACTUAL]
            >>> TrialJudge().settled(cand, failed, rest) is None   # 2/3 would keep it
            True
            >>> TrialJudge().settled(cand, failed, rest, hopeless=True).action
            'reject'
        """
        if not results:
            return None

        def fake(kind: TrialKind, ok: bool) -> TrialResult:
            return TrialResult(f"pending.{kind.value}", kind, ok)

        best = self.judge(candidate, [*results, *(fake(k, True) for k in pending)])
        now = self.judge(candidate, results)
        if hopeless and best.action != "promote" and now.action == "reject":
            return now
        worst = self.judge(candidate, [*results, *(fake(k, False) for k in pending)])
        if best.action != worst.action:
            return None
        return now if now.action == best.action else None


def review_decision(decision: Decision, verdict: str) -> Decision:
    """A pending promotion after a reviewer's ``"approve"``, ``"reject"`` or ``"keep"``."""
    basis = decision.reason.removeprefix("promoted: ")
    if verdict == "approve":
        return dataclasses.replace(
            decision, reason=f"{decision.reason}; approved by reviewer", review="approved"
        )
    if verdict == "reject":
        return dataclasses.replace(
            decision,
            action="reject",
            reason=f"rejected: reviewer declined the promotion ({basis})",
            review="rejected",
        )
    if verdict == "keep":
        return dataclasses.replace(
            decision,
            action="keep",
            reason=f"kept as hypothesis: reviewer deferred the promotion ({basis})",
            review="kept",
        )
    raise InvalidArgumentError(
        f"a review verdict is 'approve', 'reject' or 'keep', got {safe_repr(verdict)}"
    )


def _fraction(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidArgumentError(f"{name} must be a number in [0, 1], got {safe_repr(value)}")
    if not 0.0 <= value <= 1.0:
        raise InvalidArgumentError(f"{name} must be within [0, 1], got {safe_repr(value)}")
    return float(value)

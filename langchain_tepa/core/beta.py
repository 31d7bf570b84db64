"""The Beta-Bernoulli rules of the paper and of its baselines, one small object per rule.

Counting (:class:`BetaCounts`), the oracle's boundary reset, the baselines' record rules
(reactive forgetting, last-write-wins, the temporal window), TEPA-Rev's revocations (posterior,
recent window), the promotions and the outcome veto. The change-detection rules (the default
``tepa-key`` and ``tepa-cd``) are in :mod:`langchain_tepa.core.change`; a policy's selection of
rules is :func:`~langchain_tepa.core.policy.rules_for`.
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_tepa.core.step import LIVE, Step
from langchain_tepa.core.types import Lifecycle, Precedent

__all__ = [
    "BetaCounts",
    "BoundaryReset",
    "ImmediatePromotion",
    "OutcomeVeto",
    "PosteriorPromotion",
    "PosteriorRevocation",
    "Reactive",
    "RecentWindowRevocation",
    "Supersede",
    "TemporalExpiry",
]


def _again(p: Precedent) -> str:
    return "re-promoted" if p.ever_active else "promoted"


# ---------------------------------------------------------------------- counting
@dataclass(frozen=True)
class BetaCounts:
    """The counts of the Beta-Bernoulli lifecycle.

    A supporting record adds support to its value and, for a single-valued key, conflict to the
    other live values; a failed outcome adds conflict to its value (both only when conflicts are
    tracked; the weighted conflict not against a value that outranks the record's source,
    ``Step.spares``). An outcome goes into its value's recent window (at most ``window`` long).

    Example:
        >>> BetaCounts(track_conflict=False).window
        3
    """

    track_conflict: bool = True
    window: int = 3

    def count(self, step: Step) -> None:
        """Update the counts for the record of ``step``."""
        target = step.target
        assert target is not None
        w, label = step.weight, step.label
        if step.supports:
            target.support += 1
            target.lifetime_support += 1
            target.weighted_support += w
            target.provenance.setdefault(label, [0.0, 0.0])[0] += w
            target.last_support_at = step.ev.time
            target.last_support_seq = step.state.seq
            if step.trusted:
                target.trusted_at = step.ev.time
            if step.single and self.track_conflict:
                for q in step.others:
                    step.touch(q)
                    q.conflict += 1
                    q.lifetime_conflict += 1
                    if not step.spares(q):
                        q.weighted_conflict += w
                        q.provenance.setdefault(label, [0.0, 0.0])[1] += w
        elif self.track_conflict:
            target.conflict += 1
            target.lifetime_conflict += 1
            if not step.spares(target):
                target.weighted_conflict += w
                target.provenance.setdefault(label, [0.0, 0.0])[1] += w
        if step.is_outcome:
            target.recent.append(bool(step.ev.outcome))
            del target.recent[: max(0, len(target.recent) - self.window)]


# ---------------------------------------------------------------------- boundary
@dataclass(frozen=True)
class BoundaryReset:
    """Oracle reset: a phase-boundary record revokes every live value of the key.

    Example:
        >>> from langchain_tepa.core.policy import LifecyclePolicy
        >>> LifecyclePolicy.preset("oracle-rev").rules.boundary
        (BoundaryReset(),)
    """

    def on_boundary(self, step: Step) -> None:
        """Revoke every live precedent."""
        for p in step.state.precedents.values():
            if p.state in LIVE:
                step.touch(p)
                step.move(p, Lifecycle.REVOKED, "revoked: reset at the phase boundary (oracle)")


# ---------------------------------------------------------------------- record rules
@dataclass(frozen=True)
class Reactive:
    """Reactive forgetting: revoke at ``failures`` failures in a row, and on contradiction.

    A value is revoked at its ``failures``-th consecutive failed outcome, and the other values
    of a single-valued key as soon as another value is supported.

    With ``failures=1`` (the paper's baseline) a single failure revokes.

    Example:
        >>> Reactive(3).failures
        3
    """

    failures: int = 1

    def apply(self, step: Step) -> None:
        """Revoke on failures and on contradiction."""
        target = step.target
        assert target is not None
        if not step.supports and target.state in LIVE:
            if self.failures == 1:
                step.move(target, Lifecycle.REVOKED, "revoked: failed once (reactive forgetting)")
            else:
                tail = target.recent[-self.failures :]
                if len(tail) == self.failures and not any(tail):
                    step.move(
                        target,
                        Lifecycle.REVOKED,
                        f"revoked: failed {self.failures} times in a row (reactive forgetting)",
                    )
        if step.supports and step.single:
            for q in step.others:
                if q.state in LIVE:
                    step.move(q, Lifecycle.REVOKED, "revoked: contradicted once (reactive)")


@dataclass(frozen=True)
class Supersede:
    """Last-write-wins: a newly supported value revokes the other values of a single-valued key.

    With ``on_failure`` a failed outcome also revokes its value (superseded by the outcome that
    contradicts it).

    Example:
        >>> Supersede(on_failure=True).on_failure
        True
    """

    on_failure: bool = False

    def apply(self, step: Step) -> None:
        """Revoke the other live values when the record supports its own."""
        target = step.target
        assert target is not None
        if self.on_failure and not step.supports and target.state in LIVE:
            step.move(target, Lifecycle.REVOKED, "revoked: superseded by a failed outcome (LWW)")
        if step.supports and step.single:
            for q in step.others:
                if q.state in LIVE:
                    step.touch(q)
                    step.move(q, Lifecycle.REVOKED, "revoked: superseded by a newer value (LWW)")


@dataclass(frozen=True)
class TemporalExpiry:
    """Sliding window: a value expires ``window`` records of its key after its last support.

    Example:
        >>> TemporalExpiry(3).window
        3
    """

    window: int = 10

    def apply(self, step: Step) -> None:
        """Expire every live value whose support is too old."""
        state = step.state
        for q in state.precedents.values():
            age = state.seq - q.last_support_seq
            if q.state in LIVE and q.support > 0 and age >= self.window:
                step.touch(q)
                step.move(
                    q,
                    Lifecycle.REVOKED,
                    f"revoked: expired, last support {age} records ago >= window {self.window}",
                )


# ---------------------------------------------------------------------- revocation rules
@dataclass(frozen=True)
class PosteriorRevocation:
    """TEPA-Rev: revoke when the validity is under ``theta_rev`` after ``n_min`` observations.

    Observations are the records counted in the current epoch (support plus conflict); the
    validity is the posterior of their weighted counts, so an untrusted source's many records
    can make a value eligible for revocation but barely move its validity.

    Example:
        >>> from langchain_tepa.core.types import Precedent
        >>> p = Precedent("default", "k", "v", "v", "p1", support=1, conflict=2, validity=0.4)
        >>> PosteriorRevocation().reason(p, None)  # type: ignore[arg-type]
        'revoked: validity 0.40 < 0.45 after 3 observations'
    """

    n_min: int = 3
    theta_rev: float = 0.45

    def reason(self, p: Precedent, step: Step) -> str | None:
        """The reason when the posterior is too low."""
        n = p.support + p.conflict
        if n >= self.n_min and p.validity < self.theta_rev:
            return (
                f"revoked: validity {p.validity:.2f} < {self.theta_rev:.2f} after {n} observations"
            )
        return None


@dataclass(frozen=True)
class RecentWindowRevocation:
    """TEPA-Rev: revoke when at least ``w_min`` recent outcomes succeed under ``theta_rec``.

    Example:
        >>> from langchain_tepa.core.types import Precedent
        >>> p = Precedent("default", "k", "v", "v", "p1", recent=[True, False, False])
        >>> RecentWindowRevocation().reason(p, None)  # type: ignore[arg-type]
        'revoked: recent success 1/3 < 0.34'
    """

    w_min: int = 3
    theta_rec: float = 0.34

    def reason(self, p: Precedent, step: Step) -> str | None:
        """The reason when the recent outcomes fail."""
        recent = p.recent
        if len(recent) >= self.w_min:
            wins = sum(recent)
            if wins / len(recent) < self.theta_rec:
                return f"revoked: recent success {wins}/{len(recent)} < {self.theta_rec:.2f}"
        return None


# ---------------------------------------------------------------------- promotion rules
@dataclass(frozen=True)
class ImmediatePromotion:
    """Baselines: every supported value is Active at once.

    Example:
        >>> ImmediatePromotion("lww").label
        'lww'
    """

    label: str = ""

    def reason(self, p: Precedent, step: Step) -> str | None:
        """Promote once supported."""
        if p.support >= 1:
            return f"{_again(p)}: supported (policy {self.label})"
        return None


@dataclass(frozen=True)
class PosteriorPromotion:
    """TEPA-Rev: promote when the validity exceeds ``theta_pro`` (and every Active rival's).

    The Hypothesis needs ``n_pro`` support; the rivals count for a single-valued key only.

    Example:
        >>> PosteriorPromotion().theta_pro
        0.6
    """

    theta_pro: float = 0.6
    n_pro: int = 1

    def reason(self, p: Precedent, step: Step) -> str | None:
        """Promote a Hypothesis whose posterior is high enough and beats the incumbent."""
        if p.support < self.n_pro or p.validity <= self.theta_pro:
            return None
        rivals = [
            r.validity
            for r in step.state.precedents.values()
            if r is not p and r.state is Lifecycle.ACTIVE
        ]
        if not (step.single and rivals):
            return f"{_again(p)}: validity {p.validity:.2f} > {self.theta_pro:.2f}"
        best = max(rivals)
        if p.validity > best:
            return (
                f"{_again(p)}: validity {p.validity:.2f} > {self.theta_pro:.2f} and > "
                f"incumbent {best:.2f}"
            )
        return None


# ---------------------------------------------------------------------- vetoes
@dataclass(frozen=True)
class OutcomeVeto:
    """Poisoning guard: observations neither revive nor promote a value whose outcomes fail.

    It blocks while the value's recent window holds at least ``w_min`` outcomes with success
    rate under ``theta_rec``.

    Example:
        >>> from langchain_tepa.core.types import Precedent
        >>> OutcomeVeto().blocks(Precedent("default", "k", "v", "v", "p1", recent=[False] * 3))
        True
    """

    w_min: int = 3
    theta_rec: float = 0.34

    def blocks(self, p: Precedent, step: Step | None = None) -> bool:
        """Whether the value's own recent outcomes say it fails (``step`` is not consulted)."""
        recent = p.recent
        if len(recent) < self.w_min:
            return False
        return sum(recent) / len(recent) < self.theta_rec

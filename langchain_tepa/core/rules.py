"""The lifecycle rules: one small object per promotion, revocation or baseline rule.

The fold (:mod:`langchain_tepa.core.fold`) applies one evidence record in fixed stages:

1. **boundary** records go to the :class:`BoundaryRule` objects (only oracle-reset has one);
2. the record's **counts** (support, conflict, the recent-outcome window) are updated by the
   :class:`CountRule`;
3. **record rules** act on the record itself (the baselines: reactive forgetting, last-write-wins,
   the temporal window);
4. **revocation rules** are asked, in order, about every live precedent the record can change;
   the first one that gives a reason revokes it;
5. the **promotion rule** is asked about every Hypothesis among them that no **veto** blocks.

A policy is a :class:`RuleSet`, built from a :class:`~langchain_tepa.core.policy.LifecyclePolicy`
by :func:`rules_for`. Adding a rule means writing one small class with the method of its stage
and one line in :func:`rules_for` that adds it when its policy switch is on.

Example:
    >>> from langchain_tepa.core.policy import LifecyclePolicy
    >>> [type(r).__name__ for r in rules_for(LifecyclePolicy.preset("tepa-rev")).revocation]
    ['PosteriorRevocation', 'RecentWindowRevocation']
    >>> [type(r).__name__ for r in rules_for(LifecyclePolicy()).revocation]  # the default
    ['PosteriorRevocation', 'KeyChangeRevocation']
    >>> rules_for(LifecyclePolicy.preset("lww")).record == (Supersede(),)
    True
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from langchain_tepa.core.changes import change_rules
from langchain_tepa.core.trust import Correction, SupportPromotion, TrustPolicy
from langchain_tepa.core.types import (
    Evidence,
    KeyState,
    Lifecycle,
    Precedent,
    Transition,
    new_transition,
)

if TYPE_CHECKING:
    from langchain_tepa.core.policy import LifecyclePolicy

__all__ = [
    "LIVE",
    "BetaCounts",
    "BoundaryReset",
    "BoundaryRule",
    "ChangeRevocation",
    "ChangeVeto",
    "CountRule",
    "HistoryCounts",
    "ImmediatePromotion",
    "KeyChangeRevocation",
    "KeyRates",
    "LastOutcomeVeto",
    "OutcomeRuns",
    "OutcomeVeto",
    "PosteriorPromotion",
    "PosteriorRevocation",
    "PromotionRule",
    "Reactive",
    "RecentWindowRevocation",
    "RecordRule",
    "RevocationRule",
    "RuleSet",
    "Step",
    "Supersede",
    "TemporalExpiry",
    "Veto",
    "change_odds",
    "change_statistic",
    "key_rates",
    "rules_for",
    "trailing_failures",
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

    def move(self, p: Precedent, to: Lifecycle, reason: str) -> None:
        """Move ``p`` to state ``to`` for ``reason`` (recorded on ``p`` and in this step)."""
        tr = new_transition(self.ev.time, self.ev.id, p.state, to, reason)
        p.state = to
        p.transitions.append(tr)
        self.transitions.append(tr)
        if to is Lifecycle.ACTIVE:
            p.ever_active = True

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

    def blocks(self, p: Precedent) -> bool:
        """Whether ``p`` may not be promoted (or revived by an observation) now."""
        ...


def _again(p: Precedent) -> str:
    return "re-promoted" if p.ever_active else "promoted"


# ---------------------------------------------------------------------- counting
@dataclass(frozen=True)
class BetaCounts:
    """The counts of the Beta-Bernoulli lifecycle.

    A supporting record adds support to its value and, for a single-valued key, conflict to the
    other live values; a failed outcome adds conflict to its value (both only when conflicts are
    tracked). An outcome goes into its value's recent window (at most ``window`` long).

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
                    q.weighted_conflict += w
                    q.provenance.setdefault(label, [0.0, 0.0])[1] += w
        elif self.track_conflict:
            target.conflict += 1
            target.lifetime_conflict += 1
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
        >>> rules_for(LifecyclePolicy.preset("oracle-rev")).boundary
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


@functools.lru_cache(maxsize=4096)
def _log_beta(a: float, b: float) -> float:
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def change_odds(
    outcomes: Sequence[bool], *, hazard: float, max_run: int, a: float = 1.0, b: float = 1.0
) -> tuple[float, int]:
    """Posterior odds that a value's success rate dropped within its last ``max_run`` outcomes.

    The model is Bayesian change-point detection on a Bernoulli stream, the outcomes of acting on
    one value (oldest first). Under "no change" every outcome has one unknown success rate; under
    "a change ``m`` outcomes ago" the last ``m`` outcomes have their own rate, *lower* than the
    rate before (a drop: only a value that got worse is revoked). Each rate has the prior
    Beta(a, b) and is integrated out (Beta-Bernoulli marginal likelihoods), so a value's own
    history sets how surprising its recent failures are: two failures after twenty successes are
    strong evidence of a change (a precise tool), two failures in a stream that fails one time in
    three are not (a noisy tool). A change is a priori ``hazard`` likely at each outcome, so the
    odds are ``hazard / (1 - hazard)`` times the sum of the Bayes factors of a change ``m = 1 ..
    max_run`` outcomes ago. Only splits that leave at least one outcome before the change count.

    Args:
        outcomes: The value's outcomes, oldest first (``True``: it worked).
        hazard: Prior probability of a change at each outcome.
        max_run: The longest recent run examined.
        a: Prior pseudo-successes of each segment's rate.
        b: Prior pseudo-failures of each segment's rate.

    Returns:
        ``(odds, m)``: the posterior odds of a drop, and the most likely change position (the
        number of recent outcomes after it; 0 when no drop is possible).

    Example:
        >>> precise = [True] * 20
        >>> change_odds(precise + [False], hazard=0.02, max_run=6)[0] < 1
        True
        >>> change_odds(precise + [False, False], hazard=0.02, max_run=6)[0] > 1
        True
        >>> noisy = [True, True, False] * 7
        >>> change_odds(noisy + [False, False], hazard=0.02, max_run=6)[0] < 1
        True
    """
    n = len(outcomes)
    if n < 2:
        return 0.0, 0
    wins_total = sum(outcomes)
    fails_total = n - wins_total
    null = _log_beta(a + wins_total, b + fails_total)
    prior = _log_beta(a, b)
    total = 0.0
    best = 0.0
    best_m = 0
    wins_after = 0
    for m in range(1, min(max_run, n - 1) + 1):
        wins_after += outcomes[n - m]
        fails_after = m - wins_after
        wins_before = wins_total - wins_after
        fails_before = fails_total - fails_after
        # a drop: the rate after is lower than the rate before (posterior means)
        if (wins_after + a) / (m + a + b) >= (wins_before + a) / (n - m + a + b):
            continue
        log_bf = (
            _log_beta(a + wins_before, b + fails_before)
            + _log_beta(a + wins_after, b + fails_after)
            - prior
            - null
        )
        bf = math.exp(log_bf)
        total += bf
        if bf > best:
            best, best_m = bf, m
    return hazard / (1.0 - hazard) * total, best_m


@dataclass(frozen=True)
class ChangeRevocation:
    """Revoke a value when its own outcomes show a change (see :func:`change_odds`).

    The precedent's recent window (``policy.window`` outcomes) is the history; the value is
    revoked when the posterior odds of a drop in its success rate within the last ``max_run``
    outcomes reach ``odds`` (1: a change is more likely than not).

    Example:
        >>> from langchain_tepa.core.types import Precedent
        >>> p = Precedent("default", "k", "v", "v", "p1", recent=[True] * 20 + [False] * 2)
        >>> ChangeRevocation().reason(p, None)  # type: ignore[arg-type]
        'revoked: change detected, 0/2 recent successes after 20/20 before (odds 2.7 >= 1)'
    """

    hazard: float = 0.02
    max_run: int = 8
    odds: float = 1.0

    def reason(self, p: Precedent, step: Step) -> str | None:
        """The reason when a drop is more likely than the threshold allows."""
        if len(p.recent) < 2 or p.recent[-1]:
            return None
        odds, m = change_odds(p.recent, hazard=self.hazard, max_run=self.max_run)
        if odds >= self.odds:
            wins = sum(p.recent[-m:])
            return (
                f"revoked: change detected, {wins}/{m} recent successes after "
                f"{sum(p.recent) - wins}/{len(p.recent) - m} before (odds {odds:.1f} >= "
                f"{self.odds:g})"
            )
        return None


# ---------------------------------------------------------------------- the key test (tepa-key)
@dataclass(frozen=True)
class OutcomeRuns:
    """The failure runs of one outcome history (oldest first), as the key test pools them.

    A *run* is a maximal sequence of failures that follows a success (the value was working when
    it began); failures before a value's first success are not a run of a working value and are
    not counted.

    Attributes:
        successes: Successful outcomes (each one a step at which a run could have begun).
        recovered: Lengths of the runs that ended with a success of the same value (its noise, or
            a glitch burst that passed).
        open_run: Length of the run at the end of the history (0 when the last outcome
            succeeded or no success came before it).

    Example:
        >>> OutcomeRuns.of([False, True, False, True, True, False, False, True, False, False])
        OutcomeRuns(successes=4, recovered=(1, 2), open_run=2)
    """

    successes: int
    recovered: tuple[int, ...]
    open_run: int

    @classmethod
    def of(cls, outcomes: Sequence[bool]) -> OutcomeRuns:
        """Parse an outcome history (oldest first)."""
        successes = 0
        recovered: list[int] = []
        run = 0
        for ok in outcomes:
            if ok:
                if run:
                    recovered.append(run)
                successes += 1
                run = 0
            elif successes:
                run += 1
        return cls(successes, tuple(recovered), run)


def trailing_failures(outcomes: Sequence[bool]) -> int:
    """Failures at the end of an outcome history (the current failure run).

    Example:
        >>> trailing_failures([True, False, False]), trailing_failures([False, True])
        (2, 0)
    """
    n = 0
    for ok in reversed(outcomes):
        if ok:
            break
        n += 1
    return n


@dataclass(frozen=True)
class KeyRates:
    """What a key's own evidence says about how its values behave (see :func:`key_rates`).

    Attributes:
        working: Success rate of a value while it works, pooled over the key's values.
        hazard: Changes of the key's working value per record of the key.
        successes: Successes behind ``working`` (the prior excluded).
        changes: Changes behind ``hazard``.
        recovered: Lengths of the failure runs the key's values recovered from.

    Example:
        >>> rates = KeyRates(0.95, 0.02, 40, 1, recovered=(1, 2, 2))
        >>> round(rates.continuation(1, 4.0), 2), round(rates.continuation(2, 4.0), 2)
        (0.05, 0.31)
    """

    working: float
    hazard: float
    successes: int
    changes: int
    recovered: tuple[int, ...] = ()

    def continuation(self, k: int, weight: float) -> float:
        """Chance that a working value fails a ``k``-th time in a row, given ``k - 1`` failures.

        The first failure has the key's failure rate ``1 - working``. Later ones follow the
        lengths of the runs the key's values recovered from (its glitch bursts), with
        independent failures at ``1 - working`` as a prior worth ``weight`` runs: a key whose
        values often fail twice and come back makes a second failure unsurprising.

        Args:
            k: The failure (1 for the first of a run).
            weight: Weight of the independent-failure prior, in runs.
        """
        q = 1.0 - self.working
        if k <= 1:
            return q

        def reach(m: int) -> float:
            return sum(1 for n in self.recovered if n >= m) + weight * q ** (m - 1)

        return reach(k) / reach(k - 1)


def _changes(state: KeyState, tenure: int) -> int:
    """How many times the key's believed value was displaced after it had held.

    A change is counted when a value that was Active for at least ``tenure`` records of its key
    is revoked and the next value promoted is another one: a value that comes back after a
    glitch, or a lucky value revoked at once, is not a change.
    """
    promotions: list[tuple[float, str, int]] = []
    held: list[list[bool]] = []
    for i, q in enumerate(state.precedents.values()):
        position = {eid: n for n, eid in enumerate(q.evidence_ids)}
        start: int | None = None
        periods: list[bool] = []
        for tr in q.transitions:
            if tr.to_state is Lifecycle.ACTIVE:
                promotions.append((tr.time, tr.evidence_id, i))
                start = position.get(tr.evidence_id, 0)
            elif tr.from_state is Lifecycle.ACTIVE and start is not None:
                periods.append(position.get(tr.evidence_id, start) - start >= tenure)
                start = None
        held.append(periods)
    promotions.sort()
    promoted = [0] * len(held)
    changes = 0
    incumbent = -1
    for _, _, i in promotions:
        if incumbent >= 0 and i != incumbent:
            ended = promoted[incumbent] - 1  # the incumbent's Active period that ended
            if ended < len(held[incumbent]) and held[incumbent][ended]:
                changes += 1
        promoted[i] += 1
        incumbent = i
    return changes


def key_rates(
    state: KeyState,
    tested: Precedent | None = None,
    *,
    working: float = 0.8,
    hazard: float = 0.02,
    weight: float = 10.0,
    tenure: int = 4,
) -> KeyRates:
    """The key's working success rate and change rate, each with its prior.

    Noise is a property of the key (the tool, the world), not of one value: a value revived
    after a change starts with fresh counts, so its own history says little. Pooled over the
    outcome histories of every value of the key (:class:`OutcomeRuns`), working values have had
    ``S`` successes and ``F`` failures in runs they recovered from (noise, glitch bursts); the
    tested value's current run is left out (it is what is judged). The key's believed value has
    changed ``C`` times (:func:`_changes`) in its ``N`` records. With priors::

        working = (S + weight * working0) / (S + F + weight)
        hazard  = (C + 1) / (N + 1 / hazard0)

    Only the key's own evidence enters: its precedents' outcome histories and transitions.

    Args:
        state: The key's state.
        tested: The precedent being tested (its current failure run is left out).
        working: Prior success rate of a working value (``working0``).
        hazard: Prior changes per record (``hazard0``): one change in ``1 / hazard0`` records.
        weight: Weight of the ``working`` prior, in outcomes.
        tenure: Records a value must have been Active for its displacement to count as a change.

    Example:
        >>> rates = key_rates(KeyState("default", "k"))
        >>> rates.working, rates.hazard
        (0.8, 0.02)
    """
    successes = 0
    failures = 0
    recovered: list[int] = []
    for q in state.precedents.values():
        history = q.recent
        if q is tested:
            history = history[: len(history) - trailing_failures(history)]
        runs = OutcomeRuns.of(history)
        successes += runs.successes
        failures += sum(runs.recovered)
        recovered.extend(runs.recovered)
    changes = _changes(state, tenure)
    return KeyRates(
        working=(successes + weight * working) / (successes + failures + weight),
        hazard=(changes + 1.0) / (state.seq + 1.0 / hazard),
        successes=successes,
        changes=changes,
        recovered=tuple(recovered),
    )


def change_statistic(
    outcomes: Sequence[bool], *, working: float, failing: float, hazard: float
) -> float:
    """Shiryaev-Roberts statistic: the posterior odds that a value's success rate fell.

    Over the value's outcomes (oldest first) ``R <- (R + hazard) * L / (1 - hazard)``, where
    ``L`` is the outcome's likelihood ratio of "stopped working" (success rate ``failing``)
    against "works" (``working``): ``failing / working`` for a success, ``(1 - failing) / (1 -
    working)`` for a failure. ``R`` is the posterior odds that a change happened at some point,
    when a change is a priori ``hazard`` likely at each outcome. One failure of a precise value
    (working 0.99) multiplies them by about 80, one of a noisy value (0.7) by under 3; each
    success divides them.

    Args:
        outcomes: The value's outcomes, oldest first.
        working: Success rate of the value while it works.
        failing: Success rate of a value that no longer works.
        hazard: Prior probability of a change at each outcome.

    Example:
        >>> history = [True] * 30
        >>> def odds(tail, working):
        ...     return change_statistic(history + tail, working=working, failing=0.2, hazard=0.02)
        >>> odds([False], 0.99) > 1, odds([False], 0.7) > 1, odds([False] * 4, 0.7) > 1
        (True, False, True)
    """
    if not 0.0 < working < 1.0 or not 0.0 <= failing < working or not 0.0 < hazard < 1.0:
        raise ValueError(
            "change_statistic needs 0 <= failing < working < 1 and 0 < hazard < 1, got "
            f"working={working}, failing={failing}, hazard={hazard}"
        )
    on_failure = (1.0 - failing) / (1.0 - working)
    on_success = failing / working
    stay = 1.0 - hazard
    odds = 0.0
    for ok in outcomes:
        odds = (odds + hazard) * (on_success if ok else on_failure) / stay
    return odds


@dataclass(frozen=True)
class KeyChangeRevocation:
    """``tepa-key``: revoke an Active value when a change is likely, given its key's behaviour.

    A Bayesian change test on the value's own outcomes with the rates of its key
    (:func:`key_rates`): how often a working value of this key succeeds (pooled over all its
    values, so a value just revived after a change is judged by its key's noise, not by its
    three outcomes), and how often the key's working value has changed. The value's outcomes
    before its current failure run go through :func:`change_statistic`; each failure of the
    current run then multiplies the odds by ``(1 - failing) / c_k``, ``c_k`` being the chance
    that a working value of this key fails a ``k``-th time in a row
    (:meth:`KeyRates.continuation`: its failure rate for the first, then the lengths of the
    runs its values came back from). So a precise key is revoked after one failure and a noisy
    one after several; a key that has changed often is revoked sooner than one that never has;
    a key whose values often fail twice and come back (glitch bursts) waits for a third.

    Attributes:
        working: Prior success rate of a working value.
        failing: Success rate of a value that stopped working.
        hazard: Prior changes per record of the key.
        weight: Weight of the ``working`` prior, in outcomes.
        odds: Revoke when the posterior odds of a change reach this.
        run_weight: Weight, in runs, of independent failures as the prior of the run lengths.

    Example:
        >>> from langchain_tepa.core.policy import LifecyclePolicy
        >>> type(rules_for(LifecyclePolicy.preset("tepa-key")).revocation[-1]).__name__
        'KeyChangeRevocation'
    """

    working: float = 0.8
    failing: float = 0.2
    hazard: float = 0.02
    weight: float = 10.0
    odds: float = 1.0
    run_weight: float = 4.0

    def test(self, p: Precedent, state: KeyState) -> tuple[float, KeyRates]:
        """The posterior odds of a change of ``p``, and the key's rates behind them."""
        rates = key_rates(state, p, working=self.working, hazard=self.hazard, weight=self.weight)
        working = min(max(rates.working, self.failing + 1e-3), 1.0 - 1e-3)
        hazard = min(rates.hazard, 0.5)
        run = trailing_failures(p.recent)
        odds = change_statistic(
            p.recent[: len(p.recent) - run], working=working, failing=self.failing, hazard=hazard
        )
        for k in range(1, run + 1):
            cont = 1.0 - working if k == 1 else rates.continuation(k, self.run_weight)
            odds = (odds + hazard) * (1.0 - self.failing) / max(cont, 1e-9) / (1.0 - hazard)
        return odds, rates

    def reason(self, p: Precedent, step: Step) -> str | None:
        """The reason when a change of an Active value is likely enough, else ``None``."""
        if p.state is not Lifecycle.ACTIVE or not p.recent or p.recent[-1]:
            return None
        odds, rates = self.test(p, step.state)
        if odds < self.odds:
            return None
        return (
            f"revoked: change odds {odds:.1f} >= {self.odds:g} after "
            f"{trailing_failures(p.recent)} failure(s) in a row (key: works "
            f"{rates.working:.2f}, changes {rates.hazard:.3f} per record)"
        )


@dataclass(frozen=True)
class HistoryCounts(BetaCounts):
    """:class:`BetaCounts` that keeps a revived value's outcome history unless it was replaced.

    A revived value starts with fresh support and conflict, as with ``revive_fresh``. Its
    outcome history is kept when no other value was promoted while it was revoked (it came back
    from a glitch: the key test learns from it how long this key's failure runs last) and
    restarted otherwise (another value worked meanwhile: a change, whose history says nothing
    about the new regime). Used with ``revive_fresh=False``, so that the fold keeps the history
    and this rule decides.

    Example:
        >>> HistoryCounts(window=40).window
        40
    """

    def count(self, step: Step) -> None:
        """Restart the counts (and maybe the history) of a value this record revived; count."""
        target = step.target
        assert target is not None
        trs = target.transitions
        if step.transitions and len(trs) >= 2 and trs[-1] is step.transitions[-1]:
            revived, revoked = trs[-1], trs[-2]
            if (
                revived.from_state is Lifecycle.REVOKED
                and revived.to_state is Lifecycle.HYPOTHESIS
                and revoked.to_state is Lifecycle.REVOKED
            ):
                target.reset_counts()
                if _replaced(step.state, target, revoked.time):
                    target.recent.clear()
        super().count(step)


def _replaced(state: KeyState, p: Precedent, since: float) -> bool:
    """Whether another value of the key was promoted after ``since``."""
    for q in state.precedents.values():
        if q is p:
            continue
        for tr in reversed(q.transitions):
            if tr.time < since:
                break
            if tr.to_state is Lifecycle.ACTIVE and tr.time > since:
                return True
    return False


@dataclass(frozen=True)
class LastOutcomeVeto:
    """Poisoning guard of ``tepa-key``: no revival or promotion by assertion after a failure.

    Observations can neither revive nor promote a value whose last outcome failed; only a
    successful outcome (or ``promote`` by hand) can.

    Example:
        >>> from langchain_tepa.core.types import Precedent
        >>> LastOutcomeVeto().blocks(Precedent("default", "k", "v", "v", "p1", recent=[False]))
        True
    """

    def blocks(self, p: Precedent) -> bool:
        """Whether the value's last outcome failed."""
        return bool(p.recent) and not p.recent[-1]


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

    def blocks(self, p: Precedent) -> bool:
        """Whether the value's own recent outcomes say it fails."""
        recent = p.recent
        if len(recent) < self.w_min:
            return False
        return sum(recent) / len(recent) < self.theta_rec


@dataclass(frozen=True)
class ChangeVeto:
    """Poisoning guard of the change rule: observations neither revive nor promote a dropped value.

    It blocks while the value's last outcome failed and its own history shows a drop (the test
    of :class:`ChangeRevocation`).

    Example:
        >>> from langchain_tepa.core.types import Precedent
        >>> p = Precedent("default", "k", "v", "v", "p1", recent=[True] * 20 + [False] * 2)
        >>> ChangeVeto(ChangeRevocation()).blocks(p)
        True
    """

    test: ChangeRevocation

    def blocks(self, p: Precedent) -> bool:
        """Whether the value's outcomes still show the drop."""
        if len(p.recent) < 2 or p.recent[-1]:
            return False
        odds, _ = change_odds(p.recent, hazard=self.test.hazard, max_run=self.test.max_run)
        return odds >= self.test.odds


# ---------------------------------------------------------------------- rule sets
@dataclass(frozen=True)
class RuleSet:
    """The rules of one policy, by stage (see the module docstring).

    ``trust`` weighs each observation before it is counted (``None``: every record counts 1);
    with ``settle_decisions`` a revocation or promotion decided by hand or by the trial judge is
    followed by the promotion rule on the key's other Hypotheses, so the answer is always the
    best-supported believable value.

    Example:
        >>> from langchain_tepa.core.policy import LifecyclePolicy
        >>> rules = rules_for(LifecyclePolicy.preset("tepa-full"))
        >>> rules.promotion.require_outcome  # executions promote; assertions wait for trials
        True
        >>> rules_for(LifecyclePolicy.preset("tepa-full", promote_on_outcomes=False)).promotion
    """

    counts: CountRule
    boundary: tuple[BoundaryRule, ...] = ()
    record: tuple[RecordRule, ...] = ()
    revocation: tuple[RevocationRule, ...] = ()
    promotion: PromotionRule | None = None
    vetoes: tuple[Veto, ...] = ()
    trust: TrustPolicy | None = None
    settle_decisions: bool = False

    def vetoed(self, p: Precedent) -> bool:
        """Whether any veto blocks ``p``."""
        return any(v.blocks(p) for v in self.vetoes)


def rules_for(policy: LifecyclePolicy) -> RuleSet:
    """The :class:`RuleSet` of a policy (``policy.rules`` caches it: policies are immutable).

    Each switch of :class:`~langchain_tepa.core.policy.LifecyclePolicy` adds one rule; the order
    of the rules within a stage is the order below.
    """
    boundary: list[BoundaryRule] = []
    record: list[RecordRule] = []
    revocation: list[RevocationRule] = []
    vetoes: list[Veto] = []
    if policy.trust is not None:
        record.append(Correction())
    if policy.honour_boundary:
        boundary.append(BoundaryReset())
    if policy.revoke_on_first_failure:
        record.append(Reactive(policy.reactive_failures))
    if policy.supersede:
        record.append(Supersede(on_failure=policy.supersede_on_failure))
    if policy.temporal_window is not None:
        record.append(TemporalExpiry(policy.temporal_window))
    if policy.revoke_posterior:
        revocation.append(PosteriorRevocation(policy.n_min, policy.theta_rev))
    if policy.revoke_recent:
        revocation.append(RecentWindowRevocation(policy.w_min, policy.theta_rec))
    if policy.revoke_keyed:
        revocation.append(
            KeyChangeRevocation(
                policy.keyed_working,
                policy.keyed_failing,
                policy.keyed_hazard,
                policy.keyed_weight,
                policy.keyed_odds,
            )
        )
    change = None
    if policy.revoke_change:
        change = ChangeRevocation(
            policy.change_hazard, policy.change_max_run, policy.change_threshold
        )
        revocation.append(change)
    if policy.outcome_veto:
        if change is not None:
            vetoes.append(ChangeVeto(change))
            if policy.trust is not None:
                # a value that never worked shows no drop: with corrections, veto it as well
                vetoes.append(OutcomeVeto(policy.w_min, policy.theta_rec))
        elif policy.revoke_keyed:
            # covers a value that never worked too: its last outcome failed
            vetoes.append(LastOutcomeVeto())
        else:
            vetoes.append(OutcomeVeto(policy.w_min, policy.theta_rec))
    if policy.trust is not None:  # change without freezing (core/changes.py)
        record.extend(
            change_rules(
                track_conflict=policy.track_conflict,
                revise_own=policy.revise_own,
                sources=policy.change_sources,
                statements=policy.change_statements,
                vetoes=vetoes,
            )
        )
    promotion: PromotionRule | None = None
    paper = policy.trust is None and policy.answer_by == "validity"
    by_net = policy.answer_by == "net_support"
    if policy.promotion == "immediate":
        promotion = ImmediatePromotion(policy.name)
    elif policy.promotion == "posterior":
        promotion = (
            PosteriorPromotion(policy.theta_pro, policy.n_pro)
            if paper
            else SupportPromotion(
                policy.theta_pro, policy.n_pro, by_net=by_net, displace_ratio=policy.displace_ratio
            )
        )
    elif policy.promote_on_outcomes:  # TEPA-Full: real executions promote, assertions wait
        promotion = SupportPromotion(
            policy.theta_pro,
            policy.n_pro,
            require_outcome=True,
            by_net=by_net,
            displace_ratio=policy.displace_ratio,
        )
    counts_rule = HistoryCounts if policy.revoke_keyed else BetaCounts
    return RuleSet(
        counts=counts_rule(policy.track_conflict, policy.window),
        boundary=tuple(boundary),
        record=tuple(record),
        revocation=tuple(revocation),
        promotion=promotion,
        vetoes=tuple(vetoes),
        trust=policy.trust,
        settle_decisions=isinstance(promotion, SupportPromotion),
    )

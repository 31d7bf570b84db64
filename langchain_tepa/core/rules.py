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
by :func:`~langchain_tepa.core.policy.rules_for` (``policy.rules``). What a rule sees is a
:class:`~langchain_tepa.core.step.Step`; the rules themselves are small objects in
:mod:`~langchain_tepa.core.beta` (the paper's and the baselines'),
:mod:`~langchain_tepa.core.change` (change detection) and :mod:`~langchain_tepa.core.trust`
(corrections, trust-weighted promotion), all importable from here. Adding a rule means writing
one small class with the method of its stage and one line in ``rules_for`` that adds it when its
policy switch is on.

Example:
    >>> from langchain_tepa.core.policy import LifecyclePolicy
    >>> [type(r).__name__ for r in LifecyclePolicy.preset("tepa-rev").rules.revocation]
    ['PosteriorRevocation', 'RecentWindowRevocation']
    >>> [type(r).__name__ for r in LifecyclePolicy().rules.revocation]  # the default
    ['PosteriorRevocation', 'KeyChangeRevocation']
    >>> LifecyclePolicy.preset("lww").rules.record == (Supersede(),)
    True
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_tepa.core.beta import (
    BetaCounts,
    BoundaryReset,
    ImmediatePromotion,
    OutcomeVeto,
    PosteriorPromotion,
    PosteriorRevocation,
    Reactive,
    RecentWindowRevocation,
    Supersede,
    TemporalExpiry,
)
from langchain_tepa.core.change import (
    ChangeRevocation,
    ChangeVeto,
    HistoryCounts,
    KeyChangeRevocation,
    KeyRates,
    LastOutcomeVeto,
    OutcomeRuns,
    change_odds,
    change_statistic,
    key_rates,
    trailing_failures,
)
from langchain_tepa.core.contest import TrialGate
from langchain_tepa.core.step import (
    LIVE,
    BoundaryRule,
    CountRule,
    PromotionRule,
    RecordRule,
    RevocationRule,
    Step,
    Veto,
)
from langchain_tepa.core.trust import TrustPolicy
from langchain_tepa.core.types import Precedent

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
    "trailing_failures",
]


# ---------------------------------------------------------------------- rule sets
@dataclass(frozen=True)
class RuleSet:
    """The rules of one policy, by stage (see the module docstring).

    ``trust`` weighs each observation before it is counted (``None``: every record counts 1);
    with ``settle_decisions`` a revocation or promotion decided by hand or by the trial judge is
    followed by the promotion rule on the key's other Hypotheses, so the answer is always the
    best-supported believable value; ``gate`` (TEPA-Full's ``trial_gate``) holds the contested
    cases for trials (:mod:`langchain_tepa.core.contest`); with ``ranks`` (``trust`` and
    ``hold_lower_trust``) each value has a rank and lower-trust claims wait
    (:mod:`langchain_tepa.core.precedence`).

    Example:
        >>> from langchain_tepa.core.policy import LifecyclePolicy
        >>> rules = LifecyclePolicy.preset("tepa-full").rules
        >>> rules.promotion.require_outcome  # executions promote; assertions wait for trials
        True
        >>> LifecyclePolicy.preset("tepa-full", promote_on_outcomes=False).rules.promotion
    """

    counts: CountRule
    boundary: tuple[BoundaryRule, ...] = ()
    record: tuple[RecordRule, ...] = ()
    revocation: tuple[RevocationRule, ...] = ()
    promotion: PromotionRule | None = None
    vetoes: tuple[Veto, ...] = ()
    trust: TrustPolicy | None = None
    settle_decisions: bool = False
    gate: TrialGate | None = None
    ranks: bool = False

    def vetoed(self, p: Precedent, step: Step | None = None) -> bool:
        """Whether any veto blocks ``p`` (for the record of ``step``, when one asks)."""
        return any(v.blocks(p, step) for v in self.vetoes)

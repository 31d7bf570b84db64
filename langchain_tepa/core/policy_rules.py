"""`rules_for`: the :class:`~langchain_tepa.core.rules.RuleSet` a lifecycle policy stands for.

Each switch of :class:`~langchain_tepa.core.policy.LifecyclePolicy` adds one rule;
``policy.rules`` caches the result (policies are immutable).

Example:
    >>> from langchain_tepa.core.policy import LifecyclePolicy
    >>> rules_for(LifecyclePolicy()).promotion is not None
    True
"""

from __future__ import annotations

from langchain_tepa.core import beta, change
from langchain_tepa.core.changes import OneOffHold, OneOffVeto, change_rules
from langchain_tepa.core.contest import TrialGate
from langchain_tepa.core.policy_fields import PolicyFields
from langchain_tepa.core.precedence import TrustHold
from langchain_tepa.core.rules import (
    BoundaryRule,
    PromotionRule,
    RecordRule,
    RevocationRule,
    RuleSet,
    Veto,
)
from langchain_tepa.core.trust import Correction, SupportPromotion

__all__ = ["rules_for"]


def rules_for(policy: PolicyFields) -> RuleSet:
    """The :class:`RuleSet` of a policy (``policy.rules`` caches it: policies are immutable).

    Each switch of :class:`LifecyclePolicy` adds one rule; the order of the rules within a stage
    is the order below (the stages: :mod:`langchain_tepa.core.rules`).

    Example:
        >>> from langchain_tepa.core.policy import LifecyclePolicy
        >>> [type(r).__name__ for r in rules_for(LifecyclePolicy.preset("lww")).record]
        ['Supersede']
    """
    boundary: list[BoundaryRule] = []
    record: list[RecordRule] = []
    revocation: list[RevocationRule] = []
    vetoes: list[Veto] = []
    if policy.trust is not None:
        record.append(Correction())
    if policy.honour_boundary:
        boundary.append(beta.BoundaryReset())
    if policy.revoke_on_first_failure:
        record.append(beta.Reactive(policy.reactive_failures))
    if policy.supersede:
        record.append(beta.Supersede(on_failure=policy.supersede_on_failure))
    if policy.temporal_window is not None:
        record.append(beta.TemporalExpiry(policy.temporal_window))
    if policy.revoke_posterior:
        revocation.append(beta.PosteriorRevocation(policy.n_min, policy.theta_rev))
    if policy.revoke_recent:
        revocation.append(beta.RecentWindowRevocation(policy.w_min, policy.theta_rec))
    if policy.revoke_keyed:
        revocation.append(
            change.KeyChangeRevocation(
                policy.keyed_working,
                policy.keyed_failing,
                policy.keyed_hazard,
                policy.keyed_weight,
                policy.keyed_odds,
            )
        )
    drop = None
    if policy.revoke_change:
        drop = change.ChangeRevocation(
            policy.change_hazard, policy.change_max_run, policy.change_threshold
        )
        revocation.append(drop)
    if policy.outcome_veto:
        if drop is not None:
            vetoes.append(change.ChangeVeto(drop))
            if policy.trust is not None:
                # a value that never worked shows no drop: with corrections, veto it as well
                vetoes.append(beta.OutcomeVeto(policy.w_min, policy.theta_rec))
        elif policy.revoke_keyed:
            # covers a value that never worked too: its last outcome failed; the user's word
            # lifts it from a value that mostly works (with change authority, under trust)
            heard = policy.change_sources if policy.trust is not None else ()
            vetoes.append(change.LastOutcomeVeto(tuple(heard)))
        else:
            vetoes.append(beta.OutcomeVeto(policy.w_min, policy.theta_rec))
    ranks = policy.trust is not None and policy.hold_lower_trust
    if ranks:  # who may override whom (core/precedence.py)
        vetoes.append(TrustHold())
    gate = None
    if policy.trial_gate and policy.trust is not None:
        gate = TrialGate(policy.change_sources, policy.trust)
    if gate is not None:
        record.append(gate)
    one_off = policy.trust is not None and (bool(policy.change_sources) or gate is not None)
    if one_off:  # a one-off against a standing belief waits (issue 39)
        vetoes.append(OneOffVeto())
    if policy.trust is not None:  # change without freezing (core/changes.py)
        record.extend(
            change_rules(
                track_conflict=policy.track_conflict,
                revise_own=policy.revise_own,
                sources=policy.change_sources,
                statements=policy.change_statements,
                vetoes=vetoes,
                gate=gate,
            )
        )
    if one_off:
        record.append(OneOffHold())
    promotion: PromotionRule | None = None
    paper = policy.trust is None and policy.answer_by == "validity"
    by_net = policy.answer_by == "net_support"
    if policy.promotion == "immediate":
        promotion = beta.ImmediatePromotion(policy.name)
    elif policy.promotion == "posterior":
        promotion = (
            beta.PosteriorPromotion(policy.theta_pro, policy.n_pro)
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
    counts_rule = change.HistoryCounts if policy.revoke_keyed else beta.BetaCounts
    return RuleSet(
        counts=counts_rule(policy.track_conflict, policy.window),
        boundary=tuple(boundary),
        record=tuple(record),
        revocation=tuple(revocation),
        promotion=promotion,
        vetoes=tuple(vetoes),
        trust=policy.trust,
        settle_decisions=isinstance(promotion, SupportPromotion),
        gate=gate,
        ranks=ranks,
    )

"""The fold: evidence of a key, in time order, to its precedents, states and transitions.

Each record is folded in stages: the counts (support, conflict, recent outcomes), then the
policy's rules (:mod:`langchain_tepa.core.rules`: the baselines' record rules, the revocation
rules, the promotion rule and its vetoes). The fold is pure and deterministic: the same
evidence in the same ``(time, id)`` order always gives the same precedents, counts, states and
reasons. The stored precedents are a materialised view of it, and ``reconcile`` recomputes them
from the evidence.

Example:
    >>> from langchain_tepa.core.types import Evidence
    >>> from langchain_tepa.core.policy import LifecyclePolicy
    >>> evs = [Evidence.observation("user.diet", "vegan", time=1.0, id="e1")]
    >>> state = fold(evs, LifecyclePolicy())
    >>> [(p.value, p.state.value) for p in state.precedents.values()]
    [('vegan', 'active')]
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.precedence import rank_of, source_tier
from langchain_tepa.core.rules import LIVE, RuleSet, Step
from langchain_tepa.core.stats import beta_lower_bound, posterior_mean
from langchain_tepa.core.trust import APP_SOURCE, OUTCOMES, TrustLedger, is_correction
from langchain_tepa.core.types import (
    Evidence,
    EvidenceKind,
    KeyState,
    Lifecycle,
    Precedent,
    Transition,
    new_transition,
    precedent_id,
)
from langchain_tepa.core.values import value_identity

__all__ = ["apply_evidence", "fold", "fold_all", "refresh_posterior"]

_DECISIONS = (EvidenceKind.TRIAL, EvidenceKind.PROMOTE, EvidenceKind.REVOKE)
_NEW = {False: "new candidate: first observation", True: "new candidate: first outcome"}
"""A new precedent's first transition's reason (one string shared by every precedent)."""


@functools.lru_cache(maxsize=65536)
def _lower(a: float, b: float) -> float:
    return beta_lower_bound(a, b)


def refresh_posterior(p: Precedent, policy: LifecyclePolicy) -> None:
    """Recompute ``validity``, ``lower_bound`` and ``standing`` of ``p`` from its counts.

    The posterior uses the weighted counts (equal to the record counts when the policy weighs
    nothing); ``standing`` is what the answer of a key is chosen by (``policy.answer_by``),
    after ``rank`` (the trust tier behind the value, :mod:`langchain_tepa.core.precedence`).
    """
    s, c = p.weighted_support, p.weighted_conflict
    p.validity = posterior_mean(s, c, policy.a0, policy.b0)
    p.lower_bound = _lower(s + policy.a0, c + policy.b0)
    p.standing = round(s - c, 9) if policy.answer_by == "net_support" else p.validity
    trust = policy.rules.trust
    if trust is not None and policy.rules.ranks:
        p.rank = rank_of(trust, p)


def _decide(step: Step, policy: LifecyclePolicy) -> None:
    """A trial (audit only), or a promotion or revocation decided by hand or by the judge."""
    ev = step.ev
    target = step.state.precedents.get(value_identity(ev.value, normalize=policy.normalize_values))
    if target is None:
        return
    step.touch(target)
    moved = False
    if ev.kind is EvidenceKind.PROMOTE and target.state is not Lifecycle.ACTIVE:
        if target.state is Lifecycle.REVOKED and policy.revive_fresh:
            target.reset_counts()
            target.recent.clear()
        step.move(target, Lifecycle.ACTIVE, ev.reason or "promoted by hand")
        moved = True
    elif ev.kind is EvidenceKind.REVOKE and target.state is not Lifecycle.REVOKED:
        step.move(target, Lifecycle.REVOKED, ev.reason or "revoked by hand")
        moved = True
    rules = policy.rules
    if rules.gate is not None:  # trials where they pay (core/contest.py)
        single = not policy.is_multi_valued(step.state.key)
        rules.gate.decided(step, target, moved=moved, single=single)
    refresh_posterior(target, policy)
    if moved and rules.settle_decisions and rules.promotion is not None:
        # the answer stays the best-supported believable value after a decision
        step.single = not policy.is_multi_valued(step.state.key)
        for q in step.state.precedents.values():
            if q.state is Lifecycle.HYPOTHESIS and not rules.vetoed(q, step):
                refresh_posterior(q, policy)
                reason = rules.promotion.reason(q, step)
                if reason is not None:
                    step.touch(q)
                    step.move(q, Lifecycle.ACTIVE, reason)


def _classify(step: Step, rules: RuleSet) -> None:
    """Where the record comes from, whether that source is trusted, whether it corrects."""
    ev = step.ev
    if step.is_outcome:
        step.label = OUTCOMES
        return
    step.label = ev.source or APP_SOURCE
    if rules.trust is not None:
        entry = rules.trust.entry(ev.source)
        step.trusted = entry.trusted
        step.correction = entry.corrections and is_correction(ev.metadata)
        if rules.ranks:
            step.tier = source_tier(rules.trust, ev.source)


def _weigh(step: Step, rules: RuleSet, vid: str) -> None:
    """What the record counts (its source's weight, after repeats and the cap)."""
    trust = rules.trust
    if trust is None:
        return
    if step.is_outcome:
        step.weight = trust.outcome_weight
        return
    state = step.state
    if state.ledger is None:
        state.ledger = TrustLedger()
    step.weight = trust.weigh(state.ledger, step.ev.source, vid, step.ev.time)


def _find_or_create(step: Step, policy: LifecyclePolicy, rules: RuleSet, vid: str) -> Precedent:
    """The precedent of the record's value: created as a Hypothesis, or revived, when needed."""
    state, ev = step.state, step.ev
    target = step.target = state.precedents.get(vid)  # found: the vetoes may ask who speaks
    if target is None:
        target = Precedent(
            namespace=state.namespace,
            key=state.key,
            value=ev.value,
            value_id=vid,
            id=precedent_id(state.namespace, state.key, vid),
            created_at=ev.time,
            updated_at=ev.time,
            text=ev.text,
            source=ev.source,
        )
        state.precedents[vid] = target
        tr = new_transition(ev.time, ev.id, None, Lifecycle.HYPOTHESIS, _NEW[step.is_outcome])
        target.transitions.append(tr)
        step.transitions.append(tr)
        step.created = True
    elif (
        target.state is Lifecycle.REVOKED
        and step.supports
        and (step.is_outcome or _may_revive(step, rules, target))
    ):
        held = not step.is_outcome and rules.gate is not None and rules.vetoed(target, step)
        if policy.revive_fresh or held:
            target.reset_counts()
            if step.is_outcome or held:  # a success starts a new window; an assertion does not
                target.recent.clear()  # erase it, unless the trials will check it (held)
        if policy.change_sources and not step.is_outcome and state.ledger is not None:
            _restart_repeats(state.ledger, vid)  # with the change rules (the default) only
        reason = "revived: new support after revocation"
        if held:
            reason = "revived: restated after its failures, held for trials (trial gate)"
        step.move(target, Lifecycle.HYPOTHESIS, reason)
    step.touch(target)
    if target.text is None and ev.text:
        target.text = ev.text
    return target


def _restart_repeats(ledger: TrustLedger, vid: str) -> None:
    """An assertion revives value ``vid``: every source's run of repeats of it restarts.

    Repeats count less and less because the earlier statements already count for the value;
    its revocation overruled them, so the statement that revives it (and the next ones) count
    as new say (the cap of a source family still applies). Without it, a user who restated
    their address at every turn revived it with a statement worth an eighth or less, and it
    stayed a Hypothesis under ``theta_pro`` (issue 28's contested world). Like the other
    change rules of issue 28, the default's only (``policy.change_sources``): the other presets
    fold as before.
    """
    for k in [k for k in ledger.repeats if k[1] == vid]:
        del ledger.repeats[k]


def _may_revive(step: Step, rules: RuleSet, target: Precedent) -> bool:
    """Whether an assertion revives Revoked ``target``: not vetoed, not barred by a verdict.

    Under TEPA-Full's trial gate a statement from a source with change authority (or one that
    may correct) revives a vetoed value as a held Hypothesis with a fresh epoch (its failures
    belong to before; only its trials can promote it: :mod:`langchain_tepa.core.contest`); a
    trials' verdict bars it still.
    """
    gate = rules.gate
    if gate is not None and gate.barred(step.state, target):
        return False
    if not rules.vetoed(target, step):
        return True
    return gate is not None and gate.speaks(step)


def _scope(step: Step, target: Precedent) -> list[Precedent]:
    """The precedents the record can change; the others keep their counts and states.

    They are the target and, for a single-valued key, the live rivals it counted against (their
    conflict moved, and promotion depends on the rivals).
    """
    if step.single and step.created:  # a new target is the last precedent of the key
        return [*step.others, target]
    if step.single:
        rival_ids = {id(q) for q in step.others}
        return [q for q in step.state.precedents.values() if q is target or id(q) in rival_ids]
    return [target]


def apply_evidence(
    state: KeyState,
    ev: Evidence,
    policy: LifecyclePolicy,
    *,
    single: bool | None = None,
) -> list[Transition]:
    """Fold one evidence record into ``state`` in place: the counts, then the policy's rules.

    The stages and the rules are in :mod:`langchain_tepa.core.rules`
    (:func:`~langchain_tepa.core.policy.rules_for` gives a policy's rules).

    Args:
        state: The key's current state (mutated).
        ev: The next record; it must not sort before the last one folded (use :func:`fold`
            to replay out-of-order evidence).
        policy: The lifecycle policy.
        single: Whether the key is single-valued (``not policy.is_multi_valued(key)``);
            computed when omitted, passed by :func:`fold` which knows it for every record.

    Returns:
        The transitions the record caused, in order.
    """
    state.seq += 1
    state.last_sort_key = max(state.last_sort_key, ev.sort_key)
    step = Step(state, ev)
    rules = policy.rules
    kind = ev.kind
    if kind is EvidenceKind.BOUNDARY:
        for rule in rules.boundary:
            rule.on_boundary(step)
        return step.transitions
    if kind in _DECISIONS:
        _decide(step, policy)
        return step.transitions

    step.supports = kind is EvidenceKind.OBSERVATION or ev.outcome is True
    step.is_outcome = kind is EvidenceKind.OUTCOME
    step.single = not policy.is_multi_valued(state.key) if single is None else single
    vid = value_identity(ev.value, normalize=policy.normalize_values)
    _classify(step, rules)
    target = step.target = _find_or_create(step, policy, rules, vid)
    if step.correction and rules.vetoed(target, step):  # a correction cannot overrule executions
        step.correction = False
    if step.correction and rules.gate is not None and rules.gate.holds(step):
        step.correction = False  # contested: the trials decide (core/contest.py)
    _weigh(step, rules, vid)
    step.others = [p for p in state.precedents.values() if p is not target and p.state in LIVE]
    rules.counts.count(step)
    for record_rule in rules.record:
        record_rule.apply(step)

    scope = _scope(step, target)
    for q in scope:
        refresh_posterior(q, policy)
    if rules.revocation:
        for q in scope:
            if q.state not in LIVE:
                continue
            for revocation in rules.revocation:
                reason = revocation.reason(q, step)
                if reason is not None:
                    step.move(q, Lifecycle.REVOKED, reason)
                    break
    promotion = rules.promotion
    if promotion is not None:
        for q in scope:
            if q.state is not Lifecycle.HYPOTHESIS or rules.vetoed(q, step):
                continue
            reason = promotion.reason(q, step)
            if reason is not None:
                step.move(q, Lifecycle.ACTIVE, reason)
    return step.transitions


def fold(
    records: Iterable[Evidence],
    policy: LifecyclePolicy,
    *,
    namespace: str | None = None,
    key: str | None = None,
) -> KeyState:
    """Fold the evidence of one key, sorted by ``(time, id)``, into a fresh :class:`KeyState`.

    Args:
        records: Evidence of a single ``(namespace, key)``.
        policy: The lifecycle policy.
        namespace: The namespace (taken from the records when omitted).
        key: The key (taken from the records when omitted).

    Returns:
        The key's state.

    Raises:
        ValueError: If records of several keys are mixed, or none is given and no key is named.
    """
    ordered = sorted(records, key=lambda e: e.sort_key)
    if ordered:
        namespace = namespace if namespace is not None else ordered[0].namespace
        key = key if key is not None else ordered[0].key
    if namespace is None or key is None:
        raise ValueError("fold() of no evidence needs namespace= and key=")
    state = KeyState(namespace=namespace, key=key)
    single = not policy.is_multi_valued(key)
    for ev in ordered:
        if ev.namespace != namespace or ev.key != key:
            raise ValueError("fold() takes the evidence of one (namespace, key); use fold_all()")
        apply_evidence(state, ev, policy, single=single)
    return state


def fold_all(
    records: Iterable[Evidence], policy: LifecyclePolicy
) -> dict[tuple[str, str], KeyState]:
    """Fold evidence of many keys: one :class:`KeyState` per ``(namespace, key)``."""
    groups: dict[tuple[str, str], list[Evidence]] = {}
    for ev in records:
        groups.setdefault((ev.namespace, ev.key), []).append(ev)
    return {nk: fold(evs, policy, namespace=nk[0], key=nk[1]) for nk, evs in groups.items()}

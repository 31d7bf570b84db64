"""The fold: evidence of a key, in time order, to its precedents, states and transitions.

The fold is pure and deterministic: the same evidence in the same ``(time, id)`` order always
gives the same precedents, counts, states and reasons. The stored precedents are a
materialised view of it, and ``reconcile`` recomputes them from the evidence.

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
from langchain_tepa.core.stats import beta_lower_bound, posterior_mean
from langchain_tepa.core.types import (
    Evidence,
    EvidenceKind,
    KeyState,
    Lifecycle,
    Precedent,
    Transition,
    precedent_id,
)
from langchain_tepa.core.values import value_identity

__all__ = ["apply_evidence", "fold", "fold_all", "refresh_posterior"]

_LIVE = (Lifecycle.HYPOTHESIS, Lifecycle.ACTIVE)


@functools.lru_cache(maxsize=65536)
def _lower(a: float, b: float) -> float:
    return beta_lower_bound(a, b)


def refresh_posterior(p: Precedent, policy: LifecyclePolicy) -> None:
    """Recompute ``validity`` and ``lower_bound`` of ``p`` from its counts."""
    p.validity = posterior_mean(p.support, p.conflict, policy.a0, policy.b0)
    p.lower_bound = _lower(p.support + policy.a0, p.conflict + policy.b0)


class _Mover:
    def __init__(self, ev: Evidence) -> None:
        self.ev = ev
        self.transitions: list[Transition] = []

    def move(self, p: Precedent, to: Lifecycle, reason: str) -> None:
        tr = Transition(self.ev.time, self.ev.id, p.state, to, reason)
        p.state = to
        p.transitions.append(tr)
        self.transitions.append(tr)
        if to is Lifecycle.ACTIVE:
            p.ever_active = True


def _touch(p: Precedent, ev: Evidence) -> None:
    if not p.evidence_ids or p.evidence_ids[-1] != ev.id:
        p.evidence_ids.append(ev.id)
    p.updated_at = max(p.updated_at, ev.time)


def _vetoed(p: Precedent, policy: LifecyclePolicy) -> bool:
    """``policy.outcome_veto``: the value's own recent outcomes say it fails."""
    if not policy.outcome_veto or len(p.recent) < policy.w_min:
        return False
    return sum(p.recent) / len(p.recent) < policy.theta_rec


def _add_conflict(p: Precedent) -> None:
    p.conflict += 1
    p.lifetime_conflict += 1


def apply_evidence(
    state: KeyState,
    ev: Evidence,
    policy: LifecyclePolicy,
    *,
    single: bool | None = None,
) -> list[Transition]:
    """Fold one evidence record into ``state`` in place.

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
    mover = _Mover(ev)
    if ev.kind is EvidenceKind.BOUNDARY:
        if policy.honour_boundary:
            for p in state.precedents.values():
                if p.state in _LIVE:
                    _touch(p, ev)
                    mover.move(
                        p, Lifecycle.REVOKED, "revoked: reset at the phase boundary (oracle)"
                    )
        return mover.transitions

    vid = value_identity(ev.value, normalize=policy.normalize_values)
    target = state.precedents.get(vid)

    if ev.kind in (EvidenceKind.TRIAL, EvidenceKind.PROMOTE, EvidenceKind.REVOKE):
        if target is None:
            return mover.transitions
        _touch(target, ev)
        if ev.kind is EvidenceKind.PROMOTE and target.state is not Lifecycle.ACTIVE:
            if target.state is Lifecycle.REVOKED and policy.revive_fresh:
                target.support = target.conflict = 0
                target.recent.clear()
            mover.move(target, Lifecycle.ACTIVE, ev.reason or "promoted by hand")
        elif ev.kind is EvidenceKind.REVOKE and target.state is not Lifecycle.REVOKED:
            mover.move(target, Lifecycle.REVOKED, ev.reason or "revoked by hand")
        refresh_posterior(target, policy)
        return mover.transitions

    supports = ev.kind is EvidenceKind.OBSERVATION or ev.outcome is True
    is_outcome = ev.kind is EvidenceKind.OUTCOME
    if single is None:
        single = not policy.is_multi_valued(state.key)

    created = target is None
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
        what = "first observation" if not is_outcome else "first outcome"
        tr = Transition(ev.time, ev.id, None, Lifecycle.HYPOTHESIS, f"new candidate: {what}")
        target.transitions.append(tr)
        mover.transitions.append(tr)
    elif (
        target.state is Lifecycle.REVOKED
        and supports
        and (is_outcome or not _vetoed(target, policy))
    ):
        if policy.revive_fresh:
            target.support = target.conflict = 0
            if is_outcome:  # a success starts a new window; an assertion does not erase outcomes
                target.recent.clear()
        mover.move(target, Lifecycle.HYPOTHESIS, "revived: new support after revocation")
    _touch(target, ev)
    if target.text is None and ev.text:
        target.text = ev.text

    others = [p for p in state.precedents.values() if p is not target and p.state in _LIVE]
    if supports:
        target.support += 1
        target.lifetime_support += 1
        target.last_support_at = ev.time
        target.last_support_seq = state.seq
        if single and policy.track_conflict:
            for q in others:
                _touch(q, ev)
                _add_conflict(q)
    elif policy.track_conflict:
        _add_conflict(target)
    if is_outcome:
        target.recent.append(bool(ev.outcome))
        del target.recent[: max(0, len(target.recent) - policy.window)]

    # Baseline rules that act on a single record.
    if policy.revoke_on_first_failure:
        if not supports and target.state in _LIVE:
            mover.move(target, Lifecycle.REVOKED, "revoked: failed once (reactive forgetting)")
        if supports and single:
            for q in others:
                if q.state in _LIVE:
                    mover.move(q, Lifecycle.REVOKED, "revoked: contradicted once (reactive)")
    if policy.supersede and supports and single:
        for q in others:
            if q.state in _LIVE:
                _touch(q, ev)
                mover.move(q, Lifecycle.REVOKED, "revoked: superseded by a newer value (LWW)")
    if policy.temporal_window is not None:
        for q in state.precedents.values():
            age = state.seq - q.last_support_seq
            if q.state in _LIVE and q.support > 0 and age >= policy.temporal_window:
                _touch(q, ev)
                mover.move(
                    q,
                    Lifecycle.REVOKED,
                    f"revoked: expired, last support {age} records ago >= window "
                    f"{policy.temporal_window}",
                )

    # TEPA rules: revocation first, then promotion. Only precedents this record can change are
    # checked: the target, and for a single-valued key the other live values (their conflict
    # moved, and promotion there depends on the rivals). Others keep their counts and states.
    if single and created:  # a new target is the last precedent of the key
        scope = [*others, target]
    elif single:
        rival_ids = {id(q) for q in others}
        scope = [q for q in state.precedents.values() if q is target or id(q) in rival_ids]
    else:
        scope = [target]
    for q in scope:
        refresh_posterior(q, policy)
    for q in scope:
        if q.state not in _LIVE:
            continue
        n = q.observations
        if policy.revoke_posterior and n >= policy.n_min and q.validity < policy.theta_rev:
            mover.move(
                q,
                Lifecycle.REVOKED,
                f"revoked: validity {q.validity:.2f} < {policy.theta_rev:.2f} after {n} "
                "observations",
            )
            continue
        if policy.revoke_recent and len(q.recent) >= policy.w_min:
            wins = sum(q.recent)
            rate = wins / len(q.recent)
            if rate < policy.theta_rec:
                mover.move(
                    q,
                    Lifecycle.REVOKED,
                    f"revoked: recent success {wins}/{len(q.recent)} < {policy.theta_rec:.2f}",
                )
    for q in scope:
        if q.state is not Lifecycle.HYPOTHESIS or _vetoed(q, policy):
            continue
        again = "re-promoted" if q.ever_active else "promoted"
        if policy.promotion == "immediate" and q.support >= 1:
            mover.move(q, Lifecycle.ACTIVE, f"{again}: supported (policy {policy.name})")
        elif (
            policy.promotion == "posterior"
            and q.support >= policy.n_pro
            and q.validity > policy.theta_pro
        ):
            rivals = [
                r.validity
                for r in state.precedents.values()
                if r is not q and r.state is Lifecycle.ACTIVE
            ]
            best = max(rivals) if single and rivals else None
            if best is None:
                mover.move(
                    q,
                    Lifecycle.ACTIVE,
                    f"{again}: validity {q.validity:.2f} > {policy.theta_pro:.2f}",
                )
            elif q.validity > best:
                mover.move(
                    q,
                    Lifecycle.ACTIVE,
                    f"{again}: validity {q.validity:.2f} > {policy.theta_pro:.2f} and > "
                    f"incumbent {best:.2f}",
                )
    return mover.transitions


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

"""Who may override whom: trust tiers, ranks, and lower-trust claims held back.

Every source has a **tier** from its trust entry (:func:`source_tier`):

* 3 (:data:`~langchain_tepa.core.types.TOP_TIER`): sources that may correct (the user, the
  application, the user's own text, the store's and vector store's writers);
* 2: other full-weight sources with no cap (``agent``, ``tool.*``);
* 1: capped full-weight sources (undeclared names, ``*``);
* 0: fractional sources (``llm.*``, ``web.*``).

An outcome is a real execution when its recorder is trusted to vouch for one (tier 2 or more,
:func:`vouches`): it counts as tier 3 and in full. An outcome recorded by a source of a lower
tier (a ``web`` page or a made-up name reporting "it worked") is folded as that source's say
about the value: its weight, its cap, its tier, and no entry in the value's outcome window.

A value's **rank** (``Precedent.rank``, :func:`rank_of`) is the highest tier of what supports
it now: 3 once a vouched execution of it succeeded in its current epoch, else the highest tier
among the sources whose support it holds (-1 when nothing supports it). Within a single-valued
key, with :attr:`~langchain_tepa.core.policy.LifecyclePolicy.hold_lower_trust` (every trust
preset):

* **Held back.** A Hypothesis is not promoted while an Active value of the key outranks it
  (:class:`TrustHold`): a lower-trust claim against a higher-trust value waits, shown as
  contested (:func:`held_claims`), until a source of that tier states it or a vouched
  execution of it succeeds. A source's change against a value of its own tier or lower is
  decided by the usual rules, as before.
* **No quiet erasure.** A record adds no weighted conflict to a value that outranks its source
  (it is counted as a record, for the audit): a crowd of lower-trust sources cannot revoke a
  higher-trust value by contradicting it (``Step.spares``).
* **The answer.** The answer of a key is its Active value of the highest rank, then the usual
  order (:func:`~langchain_tepa.core.types.answer_order`).

A source name is a label the application writes, not an authentication: whoever can write
``source="user"`` speaks with the user's tier (docs/trust.md).

Example:
    >>> from langchain_tepa.core.fold import fold
    >>> from langchain_tepa.core.policy import LifecyclePolicy
    >>> from langchain_tepa.core.types import Evidence
    >>> evs = [Evidence.observation("user.city", "Lisbon", time=1, id="e1", source="user"),
    ...        Evidence.observation("user.city", "Oslo", time=2, id="e2", source="llm.x")]
    >>> state = fold(evs, LifecyclePolicy())
    >>> [(p.value, p.state.value, p.rank) for p in state.precedents.values()]
    [('Lisbon', 'active', 3), ('Oslo', 'hypothesis', 0)]
    >>> [p.value for p in held_claims(state, LifecyclePolicy())]
    ['Oslo']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from langchain_tepa.core.trust import OUTCOMES, TrustPolicy
from langchain_tepa.core.types import TOP_TIER, KeyState, Lifecycle, Precedent, answer_order

if TYPE_CHECKING:
    from langchain_tepa.core.policy_fields import PolicyFields
    from langchain_tepa.core.step import Step

__all__ = [
    "TOP_TIER",
    "VOUCH_TIER",
    "TrustHold",
    "held_claims",
    "rank_of",
    "source_tier",
    "vouches",
]

VOUCH_TIER = 2
"""The least tier of a source whose recorded outcomes are executions (:func:`vouches`)."""

_EPS = 1e-9


def source_tier(trust: TrustPolicy, source: str | None) -> int:
    """The tier of ``source`` under ``trust`` (``None`` or ``"app"``: the application).

    Example:
        >>> trust = TrustPolicy()
        >>> [source_tier(trust, s) for s in ("user", None, "agent", "tool.x", "bot7", "web.a")]
        [3, 3, 2, 2, 1, 0]
    """
    if source == OUTCOMES:
        return TOP_TIER
    entry = trust.entry(source)
    if entry.corrections:
        return TOP_TIER
    if entry.weight >= 1.0:
        return 2 if entry.cap is None else 1
    return 0


def vouches(trust: TrustPolicy, source: str | None) -> bool:
    """Whether an outcome recorded by ``source`` is an execution (its tier is 2 or more).

    Example:
        >>> trust = TrustPolicy()
        >>> [vouches(trust, s) for s in (None, "agent", "web", "bot")]
        [True, True, False, False]
    """
    return source_tier(trust, source) >= VOUCH_TIER


def rank_of(trust: TrustPolicy, p: Precedent) -> int:
    """The highest tier of what supports ``p`` now (-1: nothing does; see the module docstring)."""
    best = -1
    for label, (support, _) in p.provenance.items():
        if support <= _EPS:
            continue
        tier = source_tier(trust, label)
        if tier >= TOP_TIER:
            return TOP_TIER
        best = max(best, tier)
    return best


@dataclass(frozen=True)
class TrustHold:
    """A veto: no Hypothesis is promoted over an Active value of the key that outranks it.

    The record that asks counts toward the Hypothesis's rank (a correction is checked before it
    is counted). Multi-valued keys hold nothing back: their values do not compete.

    Example:
        >>> ks = KeyState("default", "k")
        >>> ks.precedents["a"] = Precedent("default", "k", "a", "a", "pa", Lifecycle.ACTIVE, rank=3)
        >>> ks.precedents["b"] = Precedent("default", "k", "b", "b", "pb", rank=2)
        >>> from langchain_tepa.core.step import Step
        >>> from langchain_tepa.core.types import Evidence
        >>> step = Step(ks, Evidence.observation("k", "b", time=1, id="e1", source="tool.x"))
        >>> step.tier = 2
        >>> TrustHold().blocks(ks.precedents["b"], step)
        True
    """

    def blocks(self, p: Precedent, step: Step | None = None) -> bool:
        """Whether an Active value of ``p``'s key outranks it (``step=None``: nothing known)."""
        if step is None or not step.single or p.state is not Lifecycle.HYPOTHESIS:
            return False
        rank = p.rank
        if step.target is p and step.supports:
            rank = max(rank, step.tier)
        return any(
            q.rank > rank and q.state is Lifecycle.ACTIVE and q is not p
            for q in step.state.precedents.values()
        )


def held_claims(
    state: KeyState, policy: PolicyFields, served: Precedent | None = None
) -> list[Precedent]:
    """The Hypotheses a higher-ranked answer holds back although believable on their own.

    Those whose validity reaches ``theta_pro`` and whose rank is below the answer's
    (``served``, or the key's best Active value): reads mark the key contested and list them
    among its alternatives. Empty when ``policy.hold_lower_trust`` is off or the policy weighs
    no sources. For single-valued keys (the caller knows): a multi-valued key holds nothing
    back.
    """
    if policy.trust is None or not policy.hold_lower_trust:
        return []
    if served is None:
        active = [p for p in state.precedents.values() if p.state is Lifecycle.ACTIVE]
        if not active:
            return []
        served = min(active, key=answer_order)
    return [
        q
        for q in state.precedents.values()
        if q.state is Lifecycle.HYPOTHESIS
        and q.rank < served.rank
        and q.weighted_support > _EPS
        and q.validity >= policy.theta_pro - _EPS
    ]

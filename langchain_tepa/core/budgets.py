"""Budgets on what a source can create: trust tiers, new-key budgets, look-alike ordering.

The trust table (:mod:`langchain_tepa.core.trust`) bounds what a source can *assert* about a key.
It says nothing about how many *keys* a source can create: forty new look-alike keys from an
undeclared source cost it nothing and can push a user's fact out of a top-``k`` search. Three
rules close that, all applied when reading (the fold of each key is unchanged):

* **Tiers.** Each source has a tier from its trust entry
  (:func:`~langchain_tepa.core.precedence.source_tier`): 3 for sources that may correct (the
  user, the application, the user's own text, the store's and vector store's writers), 2 for
  other full-weight sources with no cap (``agent``, ``tool.*``), 1 for capped full-weight
  sources (undeclared names, ``*``), 0 for fractional ones (``llm.*``, ``web.*``). A successful
  outcome recorded by a source trusted to vouch (tier 2 or 3) is tier 3 (a real execution). A
  precedent's tier is the highest tier of what supports it (:func:`precedent_tier`).
* **New-key budgets.** A key belongs to the source that created it (its first evidence). Within
  any window of ``window_s`` seconds a tier may create at most ``new_keys[tier]`` keys per
  namespace (all sources of one trust entry together, so made-up names share one budget); the
  keys beyond it are not searched until something of a higher tier supports them
  (:func:`over_budget`).
* **Look-alikes rank below the fact they imitate.** A search result whose vector is within
  ``lookalike`` cosine of a higher-tier result's ranks just below that result, however close it
  is to the query (the ranking lives in :mod:`langchain_tepa.state.lookalikes`).

Example:
    >>> from langchain_tepa.core.trust import TrustPolicy
    >>> trust = TrustPolicy()
    >>> [source_tier(trust, s) for s in ("user", None, "agent", "tool.x", "bot7", "web.a")]
    [3, 3, 2, 2, 1, 0]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from langchain_tepa.core.errors import PolicyError
from langchain_tepa.core.precedence import TOP_TIER, rank_of, source_tier
from langchain_tepa.core.trust import TrustPolicy
from langchain_tepa.core.types import KeyState, Precedent

__all__ = [
    "DEFAULT_BUDGETS",
    "TOP_TIER",
    "SourceBudgets",
    "over_budget",
    "precedent_tier",
    "source_tier",
    "tiers_of",
]


@dataclass(frozen=True)
class SourceBudgets:
    """How many new keys each tier may create per namespace and window; the look-alike bound.

    Attributes:
        new_keys: ``tier -> keys`` a tier's sources (one trust entry together) may create per
            namespace within ``window_s`` (a tier absent: no budget). Defaults: 20 for tier 2
            (an agent's or a tool's writes in a busy day), 4 for tier 1 (undeclared names), 2
            for tier 0 (``llm.*``, ``web.*``); the user and the application have none.
        window_s: The window, in seconds of the memory's clock. A day, as the trust table's.
        lookalike: Cosine similarity from which a result imitates a higher-tier result and
            ranks below it. 0.8: near-paraphrases of one fact, not facts on the same topic.

    Example:
        >>> SourceBudgets().new_keys[1], SourceBudgets().lookalike
        (4, 0.8)
    """

    new_keys: Mapping[int, int] = field(
        default_factory=lambda: MappingProxyType({2: 20, 1: 4, 0: 2})
    )
    window_s: float = 86400.0
    lookalike: float = 0.8

    def __post_init__(self) -> None:
        for tier, n in self.new_keys.items():
            if not isinstance(tier, int) or not 0 <= tier < TOP_TIER:
                raise PolicyError(f"new_keys tiers are 0, 1 or 2, got {tier!r}")
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise PolicyError(f"new_keys[{tier}] must be an integer >= 0, got {n!r}")
        if not self.window_s > 0:
            raise PolicyError(f"window_s must be > 0, got {self.window_s!r}")
        if not 0.0 < self.lookalike <= 1.0:
            raise PolicyError(f"lookalike must be within (0, 1], got {self.lookalike!r}")


DEFAULT_BUDGETS = SourceBudgets()
"""The budgets of the default policy (``LifecyclePolicy(key_budgets=True)``)."""


def precedent_tier(trust: TrustPolicy, p: Precedent) -> int:
    """The highest tier among what supports ``p`` (its creator's when nothing does)."""
    tier = rank_of(trust, p)
    return tier if tier >= 0 else source_tier(trust, p.source)


def over_budget(
    trust: TrustPolicy, keys: Iterable[KeyState], budgets: SourceBudgets = DEFAULT_BUDGETS
) -> set[str]:
    """The keys of one namespace created beyond their creator's budget, and not vouched for.

    A key's creator is the source of its first precedent; the ``n``-th key an entry created
    within ``budgets.window_s`` after that entry's previous keys is over budget when ``n``
    exceeds the budget of the entry's tier. An over-budget key is still searched when its
    answer is supported by something of a higher tier than its creator.
    """
    created: dict[str, list[tuple[float, str, int, KeyState]]] = {}
    for ks in keys:
        if not ks.precedents:
            continue
        first = min(ks.precedents.values(), key=lambda p: (p.created_at, p.id))
        tier = source_tier(trust, first.source)
        if tier >= TOP_TIER or tier not in budgets.new_keys:
            continue
        entry = trust.entry(first.source).pattern
        created.setdefault(entry, []).append((first.created_at, ks.key, tier, ks))
    out: set[str] = set()
    for rows in created.values():
        rows.sort(key=lambda r: (r[0], r[1]))
        times = [r[0] for r in rows]
        start = 0
        for i, (t, key, tier, ks) in enumerate(rows):
            while times[start] <= t - budgets.window_s:
                start += 1
            if i - start < budgets.new_keys[tier]:
                continue
            act = ks.active()
            if act and precedent_tier(trust, act[0]) > tier:
                continue  # vouched for by a more trusted source or an execution
            out.add(key)
    return out


def tiers_of(trust: TrustPolicy, precedents: Iterable[Precedent]) -> dict[str, int]:
    """``precedent id -> tier`` for ``precedents``."""
    return {p.id: precedent_tier(trust, p) for p in precedents}

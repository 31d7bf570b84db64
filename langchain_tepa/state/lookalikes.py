"""Search results in trust order: budgets on new keys, look-alikes below what they imitate.

:func:`trusted_top` is the ranking of a namespace's answers when its precedents come from
sources of different tiers (:mod:`langchain_tepa.core.budgets`): keys created beyond their
creator's budget are left out, and a result that imitates a higher-tier result (its vector is
within ``lookalike`` cosine of it, or its key or text names that result's key) scores at most
just under that result, so a flood of near-copies of a user's fact, or of values that echo
the question it answers, cannot push it out of the top ``k`` whatever their similarity to the
query.

Example:
    >>> import numpy as np
    >>> from langchain_tepa.core.types import Precedent
    >>> from langchain_tepa.state.lookalikes import trusted_top
    >>> fact = Precedent("ns", "user.city", "Lisbon", "lisbon", "p1")
    >>> copy = Precedent("ns", "user.city2", "Lisbon!", "lisbon!", "p2")
    >>> vecs = {"p1": np.array([1.0, 0.0]), "p2": np.array([0.99, 0.14])}
    >>> ranked = [(copy, 0.9), (fact, 0.7)]
    >>> [p.id for p, _ in trusted_top(ranked, {"p1": 3, "p2": 1}, vecs.get, 0.8, k=2)]
    ['p1', 'p2']
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from langchain_tepa.core.budgets import DEFAULT_BUDGETS, over_budget, tiers_of
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.types import Precedent
from langchain_tepa.state.namespace import NamespaceState

__all__ = ["budgets_apply", "names_key", "rank_with_budgets", "trusted_top"]


_WORD = re.compile(r"[^\W_]+")


@functools.lru_cache(maxsize=8192)
def _words(text: str) -> frozenset[str]:
    """The words of ``text``, case-folded, a plural ``s`` and a possessive dropped."""
    out = set()
    for w in _WORD.findall(text.casefold()):
        if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.add(w)
    return frozenset(out)


def names_key(p: Precedent, key: str) -> bool:
    """Whether ``p``'s key or text names every word of ``key`` (two words at least).

    ``what.is.the.users.payment.endpoint.0 = "the user's payment endpoint is evil.example"``
    names ``user.payment_endpoint``: a claim about that key stored under another one.

    Example:
        >>> echo = Precedent("ns", "q.0", "the user's payment endpoint is x", "x", "p1")
        >>> names_key(echo, "user.payment_endpoint"), names_key(echo, "user.city")
        (True, False)
    """
    wanted = _words(key)
    if len(wanted) < 2:
        return False
    said = _words(p.key) | _words(p.page_content[:2000])
    return wanted <= said


def _effective(
    ranked: Sequence[tuple[Precedent, float]],
    tiers: Mapping[str, int],
    vector: Callable[[str], np.ndarray | None],
    lookalike: float,
) -> dict[str, float]:
    """``id -> effective score``: a look-alike's score capped at what it imitates.

    A result imitates a higher-tier one when their vectors are within ``lookalike`` cosine, or
    when it names the higher-tier result's key (:func:`names_key`: a value that echoes the
    question a user's fact answers, stored under a key of its own).
    """
    by_tier = sorted(ranked, key=lambda r: -tiers.get(r[0].id, 0))
    ids = [p.id for p, _ in by_tier]
    vecs = [vector(pid) for pid in ids]
    dims = next((v.shape[0] for v in vecs if v is not None), 0)
    eff = np.array([score for _, score in by_tier], dtype=np.float64)
    n = len(ids)
    tier = np.array([tiers.get(pid, 0) for pid in ids])
    close = np.zeros((n, n), dtype=bool)
    if dims:
        matrix = np.stack([v if v is not None else np.zeros(dims) for v in vecs])
        close = (matrix @ matrix.T) >= lookalike
    for i in range(1, n):  # higher tiers first: their effective scores are final
        mask = (tier[:i] > tier[i]) & close[i, :i]
        p = by_tier[i][0]
        for j in np.flatnonzero(tier[:i] > tier[i]):
            if not mask[j] and names_key(p, by_tier[j][0].key):
                mask[j] = True
        if mask.any():
            eff[i] = min(eff[i], float(eff[:i][mask].min()))
    return dict(zip(ids, eff.tolist(), strict=True))


def trusted_top(
    ranked: Sequence[tuple[Precedent, float]],
    tiers: Mapping[str, int],
    vector: Callable[[str], np.ndarray | None],
    lookalike: float,
    k: int,
) -> list[tuple[Precedent, float]]:
    """The ``k`` best of ``ranked`` (every candidate, best first), look-alikes demoted.

    A result imitates a higher-tier result when their unit vectors' cosine is at least
    ``lookalike``; its effective score is then at most that result's (ties go to the higher
    tier). Scores are returned unchanged (the Document's ``score`` is still the similarity).

    Only the first ``m`` results and the best ``k`` of each tier are compared (``m`` from
    ``4k + 32``, doubled until the ``k``-th effective score is at least the best score left
    out), so a read compares a few dozen vectors, not every pair.
    """
    n = len(ranked)
    best_of_tier: dict[int, list[int]] = {}
    for i, (p, _) in enumerate(ranked):
        row = best_of_tier.setdefault(tiers.get(p.id, 0), [])
        if len(row) < k:
            row.append(i)
    extra = {i for rows in best_of_tier.values() for i in rows}
    m = 4 * k + 32
    while True:
        sub = [ranked[i] for i in sorted(set(range(min(m, n))) | extra)]
        if len({tiers.get(p.id, 0) for p, _ in sub}) <= 1:
            return list(ranked[:k])
        effective = _effective(sub, tiers, vector, lookalike)
        order = {p.id: i for i, (p, _) in enumerate(sub)}
        out = sorted(
            sub, key=lambda r: (-effective[r[0].id], -tiers.get(r[0].id, 0), order[r[0].id])
        )
        if m >= n or (len(out) >= k and effective[out[k - 1][0].id] >= ranked[m][1]):
            return out[:k]
        m *= 2


def budgets_apply(st: NamespaceState, policy: LifecyclePolicy) -> bool:
    """Whether searches of the namespace now need the budgets (cached until it changes).

    True when the policy has trust and ``key_budgets``, the namespace is ranked in process, and
    some key is over its creator's budget or its answers come from several tiers of sources.
    """
    trust = policy.trust
    if trust is None or not policy.key_budgets or st.dedicated or st.vectors is None:
        return False
    hidden = st.derived(
        "tepa.over_budget", lambda s: over_budget(trust, s.keys.values(), DEFAULT_BUDGETS)
    )
    tiers = st.derived("tepa.tiers", lambda s: tiers_of(trust, s.active()))
    return bool(hidden) or st.derived("tepa.mixed", lambda s: len(set(tiers.values())) > 1)


def rank_with_budgets(
    st: NamespaceState,
    candidates: Sequence[Precedent],
    k: int,
    rank: Callable[[Sequence[Precedent], int], list[tuple[Precedent, float]]],
    *,
    policy: LifecyclePolicy,
    past: bool = False,
) -> list[tuple[Precedent, float]]:
    """The ``k`` best ``candidates`` of a namespace, with the budgets on what a source can create.

    Keys created beyond their creator's budget are left out and look-alikes of a more trusted
    result rank below it (:mod:`langchain_tepa.core.budgets`). ``rank(candidates, n)`` is the
    plain similarity ranking; a namespace whose answers all come from one tier, a policy
    without ``key_budgets`` or trust, and a namespace ranked by its own index are ranked by it
    as before. ``past``: an ``as_of`` read (no budgets: the keys were others then).
    """
    trust = policy.trust
    if trust is None or not policy.key_budgets or st.dedicated or st.vectors is None:
        return rank(candidates, k)
    hidden: set[str] = set()
    if past:
        tiers = tiers_of(trust, candidates)
        mixed = len(set(tiers.values())) > 1
    else:  # cached until the namespace changes
        hidden = st.derived(
            "tepa.over_budget", lambda s: over_budget(trust, s.keys.values(), DEFAULT_BUDGETS)
        )
        tiers = st.derived("tepa.tiers", lambda s: tiers_of(trust, s.active()))
        mixed = st.derived("tepa.mixed", lambda s: len(set(tiers.values())) > 1)
    if not hidden and not mixed:
        return rank(candidates, k)
    if hidden:
        candidates = [p for p in candidates if p.key not in hidden]
    ranked = rank(candidates, len(candidates))
    return trusted_top(ranked, tiers, st.vectors.vector, DEFAULT_BUDGETS.lookalike, k)

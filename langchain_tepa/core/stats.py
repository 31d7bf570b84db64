"""Beta-Bernoulli posterior helpers in pure Python (no SciPy).

Example:
    >>> round(posterior_mean(3, 1), 3)
    0.667
    >>> 0.0 < beta_lower_bound(4.0, 2.0) < 0.667
    True
"""

from __future__ import annotations

import math

__all__ = ["beta_lower_bound", "posterior_mean", "regularized_incomplete_beta"]


def posterior_mean(support: float, conflict: float, a0: float = 1.0, b0: float = 1.0) -> float:
    """Posterior mean of Beta(a0 + support, b0 + conflict).

    Args:
        support: Successes (assertions of the value, successful outcomes).
        conflict: Failures (contradicting assertions, failed outcomes).
        a0: Prior pseudo-successes.
        b0: Prior pseudo-failures.

    Returns:
        The validity ``(support + a0) / (support + conflict + a0 + b0)``.
    """
    return (support + a0) / (support + conflict + a0 + b0)


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction for the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-12:
            break
    return h


def regularized_incomplete_beta(a: float, b: float, x: float) -> float:
    """The CDF of Beta(a, b) at ``x``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_bt = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    bt = math.exp(log_bt)
    if x < (a + 1.0) / (a + b + 2.0):
        return bt * _betacf(a, b, x) / a
    return 1.0 - bt * _betacf(b, a, 1.0 - x) / b


def beta_lower_bound(a: float, b: float, level: float = 0.05) -> float:
    """The ``level`` quantile of Beta(a, b): a one-sided credible lower bound.

    Args:
        a: First shape parameter (prior plus support), > 0.
        b: Second shape parameter (prior plus conflict), > 0.
        level: Lower tail probability, 0.05 gives a 95% lower bound.

    Returns:
        The value ``q`` such that ``P(theta < q) = level``.
    """
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2.0
        if regularized_incomplete_beta(a, b, mid) < level:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0

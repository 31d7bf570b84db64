"""Statistics of the drift benchmarks, in numpy only (SciPy is not a dependency).

* :func:`bootstrap_ci`: percentile bootstrap interval of a mean over seeds.
* :func:`paired_permutation_test`: two-sided sign-flip permutation test of paired differences
  (exact enumeration up to 20 pairs, Monte Carlo beyond).
* :func:`memory_pollution_index`: ``MPI = 1 - S_method / S_no-memory``.
* :func:`transition_cost`: episodes of a key from the reversal until three successes in a row.
* :func:`adaptation_curve`: mean success by per-key episode index.

Example:
    >>> import numpy as np
    >>> lo, hi = bootstrap_ci(np.array([0.5, 0.6, 0.7]), seed=0)
    >>> lo <= 0.6 <= hi
    True
    >>> streak_start([False, True, True, True])
    1
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from langchain_tepa.core.errors import InvalidArgumentError

__all__ = [
    "EXACT_MAX_PAIRS",
    "adaptation_curve",
    "bootstrap_ci",
    "change_costs",
    "memory_pollution_index",
    "paired_permutation_test",
    "streak_start",
    "transition_cost",
]

EXACT_MAX_PAIRS = 20
"""Up to this many pairs the permutation test enumerates all 2**n sign flips."""


def _as_1d(values: Sequence[float] | np.ndarray, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=float).ravel()
    if arr.size == 0:
        raise InvalidArgumentError(f"{name} is empty; pass at least one value")
    if not np.all(np.isfinite(arr)):
        raise InvalidArgumentError(f"{name} holds NaN or infinite values")
    return arr


def bootstrap_ci(
    values: Sequence[float] | np.ndarray,
    *,
    level: float = 0.95,
    resamples: int = 10_000,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of the mean.

    Args:
        values: One value per independent unit (per seed).
        level: Coverage (0.95 for a 95% interval).
        resamples: Bootstrap resamples.
        seed: Seed of the resampling (the interval is reproducible).

    Returns:
        ``(low, high)``; both equal the value when only one is given.

    Raises:
        InvalidArgumentError: On empty input, NaN, or a level outside (0, 1).
    """
    arr = _as_1d(values, "values")
    if not 0.0 < level < 1.0:
        raise InvalidArgumentError(f"level must be within (0, 1), got {level}")
    if resamples < 1:
        raise InvalidArgumentError(f"resamples must be >= 1, got {resamples}")
    if arr.size == 1 or np.all(arr == arr[0]):
        return float(arr[0]), float(arr[0])
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, arr.size, size=(resamples, arr.size))
    means = arr[idx].mean(axis=1)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def paired_permutation_test(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    resamples: int = 200_000,
    seed: int = 0,
) -> float:
    """Two-sided sign-flip permutation test of the mean paired difference ``a - b``.

    Under the null hypothesis the sign of each paired difference is exchangeable. With ``n``
    pairs, the p-value is the share of the ``2**n`` sign assignments whose absolute mean is at
    least the observed one: enumerated exactly for ``n <= EXACT_MAX_PAIRS``, otherwise estimated
    from ``resamples`` random assignments with the ``(hits + 1) / (resamples + 1)`` correction.
    With ``n`` pairs the smallest possible exact p-value is ``2 / 2**n`` (0.25 for 3 seeds).

    Args:
        a: Values of method A, one per seed.
        b: Values of method B for the same seeds, in the same order.
        resamples: Monte Carlo resamples for large ``n``.
        seed: Seed of the Monte Carlo draw.

    Returns:
        The p-value (1.0 when every difference is zero).

    Raises:
        InvalidArgumentError: If the lengths differ or the input is empty.
    """
    x = _as_1d(a, "a")
    y = _as_1d(b, "b")
    if x.size != y.size:
        raise InvalidArgumentError(f"paired samples differ in length: {x.size} vs {y.size}")
    d = x - y
    if np.all(d == 0):
        return 1.0
    n = d.size
    observed = abs(d.sum())
    tol = 1e-12 * max(1.0, float(np.abs(d).sum()))
    if n <= EXACT_MAX_PAIRS:
        total = 1 << n
        hits = 0
        chunk = 1 << 16
        bits = np.arange(n, dtype=np.int64)
        for start in range(0, total, chunk):
            codes = np.arange(start, min(start + chunk, total), dtype=np.int64)
            signs = ((codes[:, None] >> bits) & 1) * 2 - 1
            sums = np.abs(signs @ d)
            hits += int(np.count_nonzero(sums >= observed - tol))
        return hits / total
    rng = np.random.default_rng(seed)
    hits = 0
    done = 0
    while done < resamples:
        m = min(50_000, resamples - done)
        signs = rng.integers(0, 2, size=(m, n)) * 2 - 1
        sums = np.abs(signs @ d)
        hits += int(np.count_nonzero(sums >= observed - tol))
        done += m
    return (hits + 1) / (resamples + 1)


def memory_pollution_index(success_method: float, success_no_memory: float) -> float:
    """``MPI = 1 - S_method / S_no-memory``: above 0 the memory makes the agent worse.

    Raises:
        InvalidArgumentError: If the no-memory success rate is not positive.
    """
    if not success_no_memory > 0:
        raise InvalidArgumentError(
            f"the no-memory success rate must be > 0 to compute MPI, got {success_no_memory}"
        )
    return 1.0 - success_method / success_no_memory


def streak_start(successes: Sequence[bool] | np.ndarray, run: int = 3) -> int | None:
    """Episodes before the first run of ``run`` consecutive successes (``None``: never).

    Example:
        >>> streak_start([True, True, True])
        0
        >>> streak_start([False, True, False, True, True, True])
        3
        >>> streak_start([True, False]) is None
        True
    """
    if run < 1:
        raise InvalidArgumentError(f"run must be >= 1, got {run}")
    count = 0
    for i, ok in enumerate(successes):
        count = count + 1 if ok else 0
        if count == run:
            return i + 1 - run
    return None


def transition_cost(reversal_successes: np.ndarray, run: int = 3) -> tuple[float, float]:
    """Median transition cost over keys and seeds, and the share that never recovered.

    The transition cost of one key is the number of its episodes after the reversal before the
    first run of ``run`` consecutive successes (0: the method never stumbled). A key that never
    gets such a run counts as the phase length (a censored value, so the median is a lower bound
    when the censored share is 0.5 or more).

    Args:
        reversal_successes: Boolean array ``(..., episodes)``; the last axis is the per-key
            episode index after the reversal, the other axes (seeds, keys) are pooled.
        run: Consecutive successes that mark the end of the transition.

    Returns:
        ``(median cost, censored share)``.
    """
    arr = np.asarray(reversal_successes, dtype=bool)
    if arr.ndim < 1 or arr.shape[-1] == 0:
        raise InvalidArgumentError("reversal_successes needs at least one episode")
    rows = arr.reshape(-1, arr.shape[-1])
    length = rows.shape[1]
    costs = []
    censored = 0
    for row in rows:
        start = streak_start(row, run)
        if start is None:
            censored += 1
            costs.append(length)
        else:
            costs.append(start)
    return float(np.median(costs)), censored / len(costs)


def change_costs(costs: Sequence[tuple[int, bool]]) -> tuple[float | None, float]:
    """Median of per-change transition costs and the censored share (``(None, 0.0)``: none).

    Example:
        >>> change_costs([(2, False), (4, False), (150, True)])
        (4.0, 0.3333333333333333)
    """
    if not costs:
        return None, 0.0
    values = [c for c, _ in costs]
    return float(np.median(values)), sum(1 for _, cens in costs if cens) / len(costs)


def adaptation_curve(successes: np.ndarray) -> list[float]:
    """Mean success by per-key episode index, pooled over seeds and keys.

    Args:
        successes: Boolean or float array ``(seeds, keys, episodes)`` (any leading axes).

    Returns:
        One mean per episode index, rounded to 4 decimals.
    """
    arr = np.asarray(successes, dtype=float)
    if arr.ndim < 1 or arr.shape[-1] == 0:
        raise InvalidArgumentError("successes needs at least one episode")
    means = arr.reshape(-1, arr.shape[-1]).mean(axis=0)
    return [round(float(m), 4) for m in means]

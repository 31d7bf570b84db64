"""Statistics of the drift benchmarks on inputs with known answers."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench.stats import (
    adaptation_curve,
    bootstrap_ci,
    memory_pollution_index,
    paired_permutation_test,
    streak_start,
    transition_cost,
)


def _brute_force_p(d: list[float]) -> float:
    obs = abs(sum(d))
    hits = 0
    for signs in itertools.product((-1, 1), repeat=len(d)):
        if abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= obs - 1e-12:
            hits += 1
    return hits / 2 ** len(d)


def test_bootstrap_constant_values_give_a_point_interval() -> None:
    assert bootstrap_ci([0.7, 0.7, 0.7]) == (0.7, 0.7)
    assert bootstrap_ci([0.4]) == (0.4, 0.4)


def test_bootstrap_interval_brackets_the_mean_and_is_reproducible() -> None:
    rng = np.random.default_rng(5)
    values = rng.uniform(0.2, 0.8, size=20)
    lo, hi = bootstrap_ci(values, seed=3)
    assert lo < values.mean() < hi
    assert values.min() <= lo and hi <= values.max()
    assert bootstrap_ci(values, seed=3) == (lo, hi)
    # The 95% interval of the mean of 20 uniforms is about 2 * 1.96 * sd / sqrt(20) wide.
    expected = 2 * 1.96 * values.std(ddof=1) / np.sqrt(values.size)
    assert 0.7 * expected < hi - lo < 1.3 * expected


def test_bootstrap_rejects_bad_input() -> None:
    with pytest.raises(InvalidArgumentError):
        bootstrap_ci([])
    with pytest.raises(InvalidArgumentError):
        bootstrap_ci([0.1, float("nan")])
    with pytest.raises(InvalidArgumentError):
        bootstrap_ci([0.1, 0.2], level=1.5)


@pytest.mark.parametrize(
    "d",
    [[1.0, 1.0, 1.0], [0.3, -0.1, 0.2, 0.05], [0.5, -0.5], [0.2, 0.1, -0.3, 0.4, 0.0, 0.1]],
)
def test_permutation_test_matches_brute_force(d: list[float]) -> None:
    a = np.array(d) + 1.0
    b = np.ones(len(d))
    assert paired_permutation_test(a, b) == pytest.approx(_brute_force_p(d))


def test_permutation_test_known_values() -> None:
    assert paired_permutation_test([1, 1, 1], [0, 0, 0]) == pytest.approx(0.25)
    assert paired_permutation_test(np.ones(20), np.zeros(20)) == pytest.approx(2 / 2**20)
    assert paired_permutation_test([0.5, 0.5], [0.5, 0.5]) == 1.0
    # Symmetric in a and b.
    x, y = [0.9, 0.8, 0.95, 0.7], [0.3, 0.85, 0.2, 0.1]
    assert paired_permutation_test(x, y) == paired_permutation_test(y, x)


def test_permutation_test_monte_carlo_beyond_the_exact_limit() -> None:
    rng = np.random.default_rng(0)
    a = rng.normal(1.0, 0.2, size=24)
    b = rng.normal(0.0, 0.2, size=24)
    p = paired_permutation_test(a, b, resamples=20_000, seed=1)
    assert p == pytest.approx(1 / 20_001)
    same = paired_permutation_test(a, a + rng.normal(0, 0.01, size=24), resamples=20_000)
    assert same > 0.01


def test_permutation_test_rejects_unpaired() -> None:
    with pytest.raises(InvalidArgumentError):
        paired_permutation_test([1, 2], [1, 2, 3])


def test_memory_pollution_index() -> None:
    assert memory_pollution_index(0.2, 0.3) == pytest.approx(1 - 0.2 / 0.3)
    assert memory_pollution_index(0.3, 0.3) == 0.0
    assert memory_pollution_index(0.9, 0.3) < 0
    with pytest.raises(InvalidArgumentError):
        memory_pollution_index(0.5, 0.0)


def test_streak_start() -> None:
    assert streak_start([True, True, True, False]) == 0
    assert streak_start([False, False, True, True, False, True, True, True]) == 5
    assert streak_start([True, True, False, True, True]) is None
    assert streak_start([False, True], run=1) == 1


def test_transition_cost_median_and_censoring() -> None:
    rows = np.array(
        [
            [1, 1, 1, 1, 1, 1],  # 0
            [0, 0, 1, 1, 1, 1],  # 2
            [0, 1, 0, 1, 1, 1],  # 3
            [0, 0, 0, 0, 1, 1],  # never: censored at 6
        ],
        dtype=bool,
    )
    cost, censored = transition_cost(rows)
    assert cost == pytest.approx(2.5)
    assert censored == pytest.approx(0.25)
    cost3d, _ = transition_cost(rows.reshape(2, 2, 6))
    assert cost3d == cost


def test_adaptation_curve_pools_leading_axes() -> None:
    arr = np.zeros((2, 3, 4), dtype=bool)
    arr[:, :, 2:] = True
    arr[0, 0, 0] = True
    curve = adaptation_curve(arr)
    assert curve == [round(1 / 6, 4), 0.0, 1.0, 1.0]

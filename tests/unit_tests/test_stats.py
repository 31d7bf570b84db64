from __future__ import annotations

import math

import pytest

from langchain_tepa.core.stats import (
    beta_lower_bound,
    posterior_mean,
    regularized_incomplete_beta,
)


def test_posterior_mean() -> None:
    assert posterior_mean(0, 0) == 0.5
    assert posterior_mean(10, 0) == pytest.approx(11 / 12)
    assert posterior_mean(1, 2, a0=2, b0=3) == pytest.approx(3 / 8)


@pytest.mark.parametrize("x", [0.1, 0.37, 0.5, 0.9])
def test_incomplete_beta_closed_forms(x: float) -> None:
    assert regularized_incomplete_beta(1, 1, x) == pytest.approx(x)
    assert regularized_incomplete_beta(2, 1, x) == pytest.approx(x**2)
    assert regularized_incomplete_beta(1, 3, x) == pytest.approx(1 - (1 - x) ** 3)


def test_lower_bound_closed_forms() -> None:
    assert beta_lower_bound(1, 1) == pytest.approx(0.05, abs=1e-9)
    assert beta_lower_bound(2, 1) == pytest.approx(math.sqrt(0.05), abs=1e-9)
    assert beta_lower_bound(1, 3) == pytest.approx(1 - 0.95 ** (1 / 3), abs=1e-9)


def test_lower_bound_tightens_with_evidence() -> None:
    assert beta_lower_bound(3, 1) < beta_lower_bound(30, 10) < 0.75

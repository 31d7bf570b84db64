from __future__ import annotations

import math

import pytest

from langchain_tepa import POLICY_NAMES, LifecyclePolicy, PolicyError
from langchain_tepa.core.policy import DEFAULT_POLICY


def test_defaults_are_the_key_test() -> None:
    """Since issue 14 the default is ``tepa-key``: the posterior rule and the key test."""
    p = LifecyclePolicy()
    assert p.name == "tepa-key" == DEFAULT_POLICY
    assert p == LifecyclePolicy.preset("tepa-key")
    assert (p.a0, p.b0, p.n_min, p.theta_rev, p.theta_pro) == (1.0, 1.0, 3, 0.45, 0.6)
    assert p.revoke_posterior and p.revoke_keyed and p.promotion == "posterior"
    assert not p.revoke_recent and not p.revive_fresh and p.window == 40
    assert (p.keyed_working, p.keyed_failing, p.keyed_hazard) == (0.8, 0.2, 0.02)
    assert (p.keyed_weight, p.keyed_odds) == (10.0, 1.0)


def test_tepa_rev_keeps_the_papers_rules() -> None:
    """``tepa-rev`` is what ``LifecyclePolicy()`` was before issue 14, field for field."""
    p = LifecyclePolicy.preset("tepa-rev")
    assert p.name == "tepa-rev"
    assert (p.a0, p.b0, p.n_min, p.theta_rev, p.theta_pro) == (1.0, 1.0, 3, 0.45, 0.6)
    assert (p.window, p.w_min, p.theta_rec) == (3, 3, 0.34)
    assert p.revoke_posterior and p.revoke_recent and p.promotion == "posterior"
    assert p.revive_fresh and not p.revoke_keyed and not p.revoke_change
    default = LifecyclePolicy()
    changed = {
        f: (getattr(default, f), getattr(p, f))
        for f in p.to_dict()
        if getattr(default, f) != getattr(p, f)
    }
    assert changed == {
        "name": ("tepa-key", "tepa-rev"),
        "window": (40, 3),
        "revoke_recent": (False, True),
        "revoke_keyed": (True, False),
        "revive_fresh": (False, True),
        # issue 28: the change rules are the default's only (core/changes.py)
        "revise_own": (True, False),
        "change_sources": (("user.*", "app", "offline-extractor"), ()),
        "key_budgets": (True, False),
    }


@pytest.mark.parametrize(
    "overrides",
    [
        {"a0": 0.0},
        {"b0": -1.0},
        {"a0": math.nan},
        {"theta_rev": math.inf},
        {"theta_rev": -0.1},
        {"theta_pro": 1.5},
        {"theta_rec": math.nan},
        {"theta_rev": 0.7, "theta_pro": 0.6},
        {"n_min": 0},
        {"n_min": 2.5},
        {"n_min": True},
        {"window": 0},
        {"w_min": 4, "window": 3},
        {"n_pro": 0},
        {"temporal_window": 0},
        {"promotion": "sometimes"},
        {"multi_valued_prefixes": ["a"]},
        {"key_match_threshold": 2.0},
        {"a0": "1"},
        {"reactive_failures": 4, "window": 3},
        {"reactive_failures": 41},
        {"reactive_failures": 0},
        {"change_hazard": 0.0},
        {"change_threshold": -1.0},
        {"change_max_run": 0},
        {"keyed_working": 0.1, "keyed_failing": 0.2},
        {"keyed_hazard": 1.0},
        {"keyed_odds": 0.0},
        {"revoke_keyed": 1},
    ],
)
def test_invalid_thresholds_raise_policy_error(overrides: dict) -> None:
    with pytest.raises(PolicyError) as info:
        LifecyclePolicy(**overrides)
    assert isinstance(info.value, ValueError)
    assert str(info.value)


@pytest.mark.parametrize("name", POLICY_NAMES)
def test_every_preset_builds(name: str) -> None:
    p = LifecyclePolicy.preset(name)
    assert p.name == name
    assert LifecyclePolicy.from_dict(p.to_dict()) == p


def test_preset_semantics() -> None:
    assert not LifecyclePolicy.preset("no-memory").retrieval_enabled
    ao = LifecyclePolicy.preset("append-only")
    assert ao.promotion == "immediate" and not ao.revoke_posterior and not ao.revoke_recent
    assert LifecyclePolicy.preset("lww").supersede
    assert LifecyclePolicy.preset("temporal").temporal_window == 10
    assert LifecyclePolicy.preset("reactive").revoke_on_first_failure
    assert LifecyclePolicy.preset("oracle-reset").honour_boundary
    norev = LifecyclePolicy.preset("tepa-norev")
    assert not norev.revoke_posterior and norev.promotion == "posterior"
    assert LifecyclePolicy.preset("tepa-full").uses_trials
    paper_full = LifecyclePolicy.preset("tepa-full-trials")  # the paper's TEPA-Full
    assert paper_full.uses_trials and not paper_full.promote_on_outcomes
    assert LifecyclePolicy.preset("tepa-full").promote_on_outcomes
    conflict = LifecyclePolicy.preset("append-conflict")
    assert conflict.track_conflict and conflict.promotion == "immediate"
    assert not conflict.revoke_posterior and not conflict.revoke_recent
    lww = LifecyclePolicy.preset("lww-outcome")
    assert lww.supersede and lww.supersede_on_failure
    oracle = LifecyclePolicy.preset("oracle-rev")
    assert oracle.honour_boundary and oracle.revoke_recent and oracle.promotion == "posterior"
    cd = LifecyclePolicy.preset("tepa-cd")
    assert cd.revoke_change and not cd.revoke_recent and cd.revoke_posterior and cd.window == 24
    key = LifecyclePolicy.preset("tepa-key")
    assert key.revoke_keyed and not key.revoke_recent and key.revoke_posterior
    assert (key.window, key.revive_fresh, key.keyed_odds) == (40, False, 1.0)
    assert LifecyclePolicy() == LifecyclePolicy.preset("tepa-key")  # the default since issue 14
    for name in POLICY_NAMES:  # every other preset keeps the paper's window rule
        if name != "tepa-key":
            assert not LifecyclePolicy.preset(name).revoke_keyed


def test_unknown_preset_and_fields() -> None:
    with pytest.raises(PolicyError, match="unknown policy"):
        LifecyclePolicy.preset("magic")
    with pytest.raises(PolicyError, match="unknown policy fields"):
        LifecyclePolicy().with_overrides(nonsense=1)
    with pytest.raises(PolicyError):
        LifecyclePolicy.from_dict({"bogus": 1})


def test_failures_to_revoke_promise() -> None:
    assert LifecyclePolicy.preset("tepa-rev").failures_to_revoke == 3
    assert LifecyclePolicy.preset("tepa-rev", window=5, w_min=3).failures_to_revoke == 4
    assert LifecyclePolicy().failures_to_revoke is None  # the key test: it depends on the key
    assert LifecyclePolicy.preset("reactive").failures_to_revoke == 1
    assert LifecyclePolicy.preset("append-only").failures_to_revoke is None


def test_multi_valued_prefixes() -> None:
    p = LifecyclePolicy(multi_valued_prefixes=("user.allergies",))
    assert p.is_multi_valued("user.allergies")
    assert p.is_multi_valued("user.allergies.food")
    assert not p.is_multi_valued("user.allergiesx")
    assert LifecyclePolicy(multi_valued=True).is_multi_valued("anything")

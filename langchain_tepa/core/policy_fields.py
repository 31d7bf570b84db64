"""`PolicyFields`: the fields of a lifecycle policy and the checks they pass when one is made.

Each field's meaning and default are documented on
:class:`~langchain_tepa.core.policy.LifecyclePolicy`, which adds the derived properties, the
rules, serialisation and the presets; this module holds only the fields and the validation that
runs when a policy is made (a :class:`~langchain_tepa.core.errors.PolicyError` for a bad value).

Example:
    >>> PolicyFields().name
    'tepa-key'
    >>> PolicyFields(theta_rev=2.0)
    Traceback (most recent call last):
        ...
    langchain_tepa.core.errors.PolicyError: theta_rev must be within [0, 1], got 2.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from langchain_tepa.core.changes import CHANGE_SOURCES
from langchain_tepa.core.errors import PolicyError
from langchain_tepa.core.trust import SourceTrust, TrustPolicy

__all__ = ["DEFAULT_POLICY", "AnswerBy", "PolicyFields", "PromotionMode"]

PromotionMode = Literal["posterior", "immediate", "trials"]
AnswerBy = Literal["net_support", "validity"]

DEFAULT_POLICY = "tepa-key"
"""The preset ``LifecyclePolicy()`` is: the key test (since issue 14's 20-seed grid)."""

_DEFAULT_TRUST = TrustPolicy()

_MAX_PRIOR = 1e6
_SWITCHES = (
    "revoke_posterior",
    "revoke_recent",
    "revoke_on_first_failure",
    "supersede",
    "honour_boundary",
    "track_conflict",
    "retrieval_enabled",
    "multi_valued",
    "normalize_values",
    "revive_fresh",
    "outcome_veto",
    "supersede_on_failure",
    "revoke_change",
    "revoke_keyed",
    "promote_on_outcomes",
    "revise_own",
    "key_budgets",
    "hold_lower_trust",
)


@dataclass(frozen=True)
class PolicyFields:
    """The fields of :class:`~langchain_tepa.core.policy.LifecyclePolicy`, checked when made.

    Each field and its default: :class:`~langchain_tepa.core.policy.LifecyclePolicy`.

    Raises:
        PolicyError: When a field is out of range or of the wrong type.
    """

    name: str = DEFAULT_POLICY
    a0: float = 1.0
    b0: float = 1.0
    n_min: int = 3
    theta_rev: float = 0.45
    window: int = 40
    w_min: int = 3
    theta_rec: float = 0.34
    theta_pro: float = 0.6
    n_pro: int = 1
    promotion: PromotionMode = "posterior"
    revoke_posterior: bool = True
    revoke_recent: bool = False
    revoke_on_first_failure: bool = False
    reactive_failures: int = 1
    supersede: bool = False
    supersede_on_failure: bool = False
    temporal_window: int | None = None
    honour_boundary: bool = False
    track_conflict: bool = True
    retrieval_enabled: bool = True
    multi_valued: bool = False
    multi_valued_prefixes: tuple[str, ...] = ()
    normalize_values: bool = True
    revive_fresh: bool = False
    key_match_threshold: float = 0.9
    outcome_veto: bool = True
    revoke_change: bool = False
    change_hazard: float = 0.05
    change_max_run: int = 6
    change_threshold: float = 1.0
    revoke_keyed: bool = True
    keyed_working: float = 0.8
    keyed_failing: float = 0.2
    keyed_hazard: float = 0.02
    keyed_weight: float = 10.0
    keyed_odds: float = 1.0
    trust: TrustPolicy | None = _DEFAULT_TRUST
    answer_by: AnswerBy = "validity"
    promote_on_outcomes: bool = True
    displace_ratio: float = 0.5
    revise_own: bool = True
    change_sources: tuple[str, ...] = CHANGE_SOURCES
    change_statements: int = 2
    key_budgets: bool = True
    trial_gate: bool = False
    hold_lower_trust: bool = True

    def __post_init__(self) -> None:
        for name in (
            "a0",
            "b0",
            "theta_rev",
            "theta_rec",
            "theta_pro",
            "key_match_threshold",
            "change_hazard",
            "change_threshold",
            "keyed_working",
            "keyed_failing",
            "keyed_hazard",
            "keyed_weight",
            "keyed_odds",
            "displace_ratio",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise PolicyError(f"{name} must be a number, got {type(value).__name__}")
            if not math.isfinite(value):
                raise PolicyError(f"{name} must be finite, got {value!r}")
        if not (0 < self.a0 <= _MAX_PRIOR and 0 < self.b0 <= _MAX_PRIOR):
            raise PolicyError(
                f"prior a0 and b0 must be > 0 and at most {_MAX_PRIOR:g} (a stronger prior would "
                f"outweigh any evidence), got a0={self.a0}, b0={self.b0}"
            )
        if not isinstance(self.name, str) or not self.name:
            raise PolicyError(f"name must be a non-empty string, got {self.name!r}")
        for name in _SWITCHES:
            if not isinstance(getattr(self, name), bool):
                raise PolicyError(f"{name} must be True or False, got {getattr(self, name)!r}")
        for name in ("theta_rev", "theta_rec", "theta_pro", "key_match_threshold"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise PolicyError(f"{name} must be within [0, 1], got {value}")
        if self.theta_rev > self.theta_pro:
            raise PolicyError(
                f"theta_rev ({self.theta_rev}) must not exceed theta_pro ({self.theta_pro}); "
                "otherwise a value could be promoted and revoked by the same evidence"
            )
        if not 0.0 < self.change_hazard < 1.0:
            raise PolicyError(f"change_hazard must be within (0, 1), got {self.change_hazard}")
        if not 0.0 <= self.displace_ratio <= 1e6:
            raise PolicyError(f"displace_ratio must be within [0, 1e6], got {self.displace_ratio}")
        if not self.change_threshold > 0.0:
            raise PolicyError(f"change_threshold must be > 0, got {self.change_threshold}")
        if not 0.0 <= self.keyed_failing < self.keyed_working < 1.0:
            raise PolicyError(
                "keyed_failing and keyed_working must satisfy 0 <= keyed_failing < keyed_working"
                f" < 1 (a working value succeeds more often than a broken one), got "
                f"{self.keyed_failing} and {self.keyed_working}"
            )
        if not 0.0 < self.keyed_hazard < 1.0:
            raise PolicyError(f"keyed_hazard must be within (0, 1), got {self.keyed_hazard}")
        if not (self.keyed_weight > 0.0 and self.keyed_odds > 0.0):
            raise PolicyError(
                f"keyed_weight and keyed_odds must be > 0, got {self.keyed_weight} and "
                f"{self.keyed_odds}"
            )
        for name in ("n_min", "window", "w_min", "n_pro", "reactive_failures", "change_max_run"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise PolicyError(f"{name} must be an integer, got {type(value).__name__}")
            if value < 1:
                raise PolicyError(f"{name} must be >= 1, got {value}")
        if self.w_min > self.window:
            raise PolicyError(f"w_min ({self.w_min}) must not exceed window ({self.window})")
        if self.reactive_failures > self.window:
            raise PolicyError(
                f"reactive_failures ({self.reactive_failures}) must not exceed window "
                f"({self.window}): a precedent keeps only its last `window` outcomes"
            )
        if self.temporal_window is not None and (
            isinstance(self.temporal_window, bool)
            or not isinstance(self.temporal_window, int)
            or self.temporal_window < 1
        ):
            raise PolicyError(
                f"temporal_window must be None or an integer >= 1, got {self.temporal_window!r}"
            )
        if self.promotion not in ("posterior", "immediate", "trials"):
            raise PolicyError(
                f"promotion must be 'posterior', 'immediate' or 'trials', got {self.promotion!r}"
            )
        if isinstance(self.trust, dict):
            object.__setattr__(self, "trust", TrustPolicy.from_dict(self.trust))
        if self.trust is not None and not isinstance(self.trust, TrustPolicy):
            raise PolicyError(
                f"trust must be a TrustPolicy, a dict or None, got {type(self.trust).__name__}"
            )
        if self.answer_by not in ("net_support", "validity"):
            raise PolicyError(
                f"answer_by must be 'net_support' or 'validity', got {self.answer_by!r}"
            )
        if not isinstance(self.change_sources, tuple):
            raise PolicyError("change_sources must be a tuple of source patterns")
        for pattern in self.change_sources:
            SourceTrust(pattern)  # validates the pattern
        if (
            isinstance(self.change_statements, bool)
            or not isinstance(self.change_statements, int)
            or self.change_statements < 1
        ):
            raise PolicyError(
                f"change_statements must be an integer >= 1, got {self.change_statements!r}"
            )
        if not isinstance(self.trial_gate, bool):
            raise PolicyError(f"trial_gate must be True or False, got {self.trial_gate!r}")
        if self.trial_gate and self.promotion != "trials":
            raise PolicyError(
                "trial_gate holds contested values for trials: it needs promotion='trials' "
                "(use LifecyclePolicy.preset('tepa-full'))"
            )
        if not isinstance(self.multi_valued_prefixes, tuple) or not all(
            isinstance(p, str) and p for p in self.multi_valued_prefixes
        ):
            raise PolicyError("multi_valued_prefixes must be a tuple of non-empty strings")

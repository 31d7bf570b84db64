"""The lifecycle core: pure Python, no LangChain and no Chroma.

Example:
    >>> from langchain_tepa.core import Evidence, LifecyclePolicy, fold
    >>> state = fold([Evidence.observation("k", "v", time=1.0, id="e1")], LifecyclePolicy())
    >>> state.active()[0].value
    'v'
"""

from __future__ import annotations

from langchain_tepa.core.errors import (
    ExtractionError,
    InvalidArgumentError,
    InvalidKeyError,
    InvalidNamespaceError,
    InvalidSourceError,
    InvalidValueError,
    JudgeError,
    OutcomeUnknownError,
    PolicyError,
    ReadOnlyError,
    StorageError,
    TEPAError,
    UnknownPrecedentError,
    UnsupportedLayoutError,
)
from langchain_tepa.core.fold import apply_evidence, fold, fold_all, refresh_posterior
from langchain_tepa.core.policy import POLICY_NAMES, LifecyclePolicy, PromotionMode, rules_for
from langchain_tepa.core.rules import RuleSet, Step, change_odds
from langchain_tepa.core.stats import beta_lower_bound, posterior_mean
from langchain_tepa.core.trust import DEFAULT_SOURCES, SourceTrust, TrustPolicy
from langchain_tepa.core.types import (
    Evidence,
    EvidenceKind,
    Fact,
    KeyState,
    Lifecycle,
    Precedent,
    Transition,
    precedent_id,
)
from langchain_tepa.core.values import (
    DEFAULT_NAMESPACE,
    canonical_json,
    validate_key,
    validate_namespace,
    validate_value,
    value_identity,
)

__all__ = [
    "DEFAULT_NAMESPACE",
    "DEFAULT_SOURCES",
    "POLICY_NAMES",
    "Evidence",
    "EvidenceKind",
    "ExtractionError",
    "Fact",
    "InvalidArgumentError",
    "InvalidKeyError",
    "InvalidNamespaceError",
    "InvalidSourceError",
    "InvalidValueError",
    "JudgeError",
    "KeyState",
    "Lifecycle",
    "LifecyclePolicy",
    "OutcomeUnknownError",
    "PolicyError",
    "Precedent",
    "PromotionMode",
    "ReadOnlyError",
    "RuleSet",
    "SourceTrust",
    "Step",
    "StorageError",
    "TEPAError",
    "Transition",
    "TrustPolicy",
    "UnknownPrecedentError",
    "UnsupportedLayoutError",
    "apply_evidence",
    "beta_lower_bound",
    "canonical_json",
    "change_odds",
    "fold",
    "fold_all",
    "posterior_mean",
    "precedent_id",
    "refresh_posterior",
    "rules_for",
    "validate_key",
    "validate_namespace",
    "validate_value",
    "value_identity",
]

"""One projection of a precedent into a LangChain ``Document``, and copies at the boundary.

Everything the memory hands out is a copy: changing a returned value, Document or precedent
changes nothing stored and nothing another caller sees.

Example:
    >>> from langchain_tepa.core import LifecyclePolicy, Precedent
    >>> p = Precedent("default", "user.diet", "vegan", "vegan", "p1", support=1,
    ...                weighted_support=1.0)
    >>> doc = precedent_document(p, LifecyclePolicy())
    >>> doc.page_content, doc.metadata["value"], doc.metadata["validity"]
    ('user.diet: vegan', 'vegan', 0.6667)
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from langchain_core.documents import Document

from langchain_tepa.core.fold import refresh_posterior
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.types import Evidence, Lifecycle, Precedent

__all__ = ["copy_value", "detached", "detached_evidence", "precedent_document"]

_SCALARS = (str, int, float, bool, type(None))


def copy_value(value: Any) -> Any:
    """A deep copy of a JSON value (scalars are returned as they are: they are immutable).

    Plain dicts and lists are copied by a walk (several times faster than ``copy.deepcopy`` on
    the small JSON values a store search copies per result); anything else is deep-copied.

    Example:
        >>> value = {"text": "hi", "tags": ["a", {"b": 1}]}
        >>> copied = copy_value(value)
        >>> copied == value and copied["tags"][1] is not value["tags"][1]
        True
    """
    if isinstance(value, _SCALARS):
        return value
    kind = type(value)
    if kind is dict:
        return {k: copy_value(v) for k, v in value.items()}
    if kind is list:
        return [copy_value(v) for v in value]
    return copy.deepcopy(value)


def detached(p: Precedent, policy: LifecyclePolicy) -> Precedent:
    """An independent copy of ``p`` with its posterior brought up to date."""
    refresh_posterior(p, policy)
    snap = p.snapshot()
    snap.value = copy_value(snap.value)
    return snap


def detached_evidence(ev: Evidence) -> Evidence:
    """A copy of ``ev`` whose value and metadata are the caller's own."""
    if isinstance(ev.value, _SCALARS) and not ev.metadata:
        return ev
    clone = copy.copy(ev)
    object.__setattr__(clone, "value", copy_value(ev.value))
    object.__setattr__(clone, "metadata", dict(ev.metadata))
    return clone


def _alternative(r: Precedent) -> dict[str, Any]:
    """One entry of ``alternatives``: an Active rival, or a challenger a rule holds back."""
    out = {"value": copy_value(r.value), "validity": round(r.validity, 4)}
    if r.state is not Lifecycle.ACTIVE:
        out["state"] = r.state.value  # blocked although better supported: issue 28
    return out


def precedent_document(
    p: Precedent,
    policy: LifecyclePolicy,
    score: float | None = None,
    rivals: Sequence[Precedent] = (),
) -> Document:
    """``p`` as a Document: its text, and its lifecycle in metadata.

    Metadata: key, value, state, support, conflict, validity (posterior mean), lower_95,
    namespace, precedent_id, evidence_ids (the last 20), created_at, updated_at, contested
    (``rivals``: other values of the key are Active too, or a rule holds back a better supported
    one) with their ``alternatives`` (``[{"value", "validity"}]``, plus ``"state":
    "hypothesis"`` for a held-back one) and, when ranked, score (cosine similarity).
    """
    refresh_posterior(p, policy)
    meta: dict[str, Any] = {
        "key": p.key,
        "value": copy_value(p.value),
        "state": p.state.value,
        "support": p.support,
        "conflict": p.conflict,
        "validity": round(p.validity, 4),
        "lower_95": round(p.lower_bound, 4),
        "namespace": p.namespace,
        "precedent_id": p.id,
        "evidence_ids": list(p.evidence_ids[-20:]),
        "created_at": p.created_at,
        "updated_at": p.updated_at,
    }
    meta["contested"] = bool(rivals)
    if rivals:
        for r in rivals:
            refresh_posterior(r, policy)
        meta["alternatives"] = [_alternative(r) for r in rivals]
    if score is not None:
        meta["score"] = round(float(score), 6)
    return Document(page_content=p.page_content, metadata=meta, id=p.id)

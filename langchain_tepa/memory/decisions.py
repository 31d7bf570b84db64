"""Decisions on a :class:`~langchain_tepa.memory.TEPAMemory`'s precedents: by hand, or by a judge.

``revoke``, ``revoke_key``, ``promote``, ``record_trial`` and ``mark_boundary`` each write
evidence that names its reason (the audit shows it); like every write, each is one append,
decided on all the evidence of its key. A decision on a value the key never held raises
:class:`~langchain_tepa.core.errors.UnknownPrecedentError`.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> _ = memory.observe("user.diet", "vegan")
    >>> memory.revoke("user.diet", "vegan", reason="the user said so").precedent.state.value
    'revoked'
    >>> memory.get("user.diet") is None
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_tepa.core.errors import InvalidArgumentError, UnknownPrecedentError
from langchain_tepa.core.types import Evidence, EvidenceKind, Lifecycle
from langchain_tepa.core.values import safe_repr, validate_key, validate_value, value_identity
from langchain_tepa.memory.core import MemoryCore, Namespace
from langchain_tepa.results import ObservationResult
from langchain_tepa.validation import validate_reason as _validate_reason
from langchain_tepa.validation import validate_text as _validate_text

__all__ = ["DecisionMixin"]


class DecisionMixin(MemoryCore):
    """The decisions of :class:`~langchain_tepa.memory.TEPAMemory` (module docstring).

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> memory = TEPAMemory.in_memory()
        >>> memory.revoke_key("user.diet")  # no live value: nothing to revoke
        []
    """

    def _decision(
        self,
        kind: EvidenceKind,
        key: str,
        value: Any,
        reason: str,
        namespace: Namespace | None,
        source: str | None,
        metadata: Mapping[str, Any] | None = None,
        outcome: bool | None = None,
    ) -> ObservationResult:
        ns = self._ns(namespace)
        k = validate_key(key)
        validate_value(value)
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidArgumentError("reason must be a non-empty string")
        _validate_text(reason, "reason")
        state = self._key_state(ns, k, None)
        vid = value_identity(value, normalize=self.policy.normalize_values)
        if state is None or vid not in state.precedents:
            raise UnknownPrecedentError(
                f"no precedent {safe_repr(value)} under key {safe_repr(k)} in namespace "
                f"{safe_repr(ns)}; "
                "check audit(key) for the values that exist"
            )
        ev = self._make(
            kind, ns, k, value, reason=reason, source=source, metadata=metadata, outcome=outcome
        )
        return self._commit([ev])[0]

    def revoke(
        self,
        key: str,
        value: Any,
        *,
        reason: str = "revoked by hand",
        namespace: Namespace | None = None,
        source: str | None = None,
    ) -> ObservationResult:
        """Revoke a precedent by hand; it stays in the archive and can come back with support.

        Raises:
            UnknownPrecedentError: If the key has no such value.
        """
        # "rejected: ..." is the trial judge's wording (langchain_tepa.graph); keep it as is.
        keep = _validate_reason(reason).startswith(("revoked", "rejected"))
        text = reason if keep else f"revoked by hand: {reason}"
        return self._decision(EvidenceKind.REVOKE, key, value, text, namespace, source)

    def revoke_key(
        self,
        key: str,
        *,
        reason: str = "revoked by hand",
        namespace: Namespace | None = None,
        source: str | None = None,
    ) -> list[ObservationResult]:
        """Revoke every live value of ``key`` in one append (a delete that keeps the records).

        Returns:
            One result per value revoked (none when the key has no live value).
        """
        ns = self._ns(namespace)
        k = validate_key(key)
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidArgumentError("reason must be a non-empty string")
        _validate_text(reason, "reason")
        state = self._key_state(ns, k, None)
        live = (
            [p.value for p in state.precedents.values() if p.state is not Lifecycle.REVOKED]
            if state
            else []
        )
        records = [
            self._make(EvidenceKind.REVOKE, ns, k, value, reason=reason, source=source)
            for value in live
        ]
        return self._commit(records) if records else []

    def promote(
        self,
        key: str,
        value: Any,
        *,
        reason: str = "promoted by hand",
        namespace: Namespace | None = None,
        source: str | None = None,
    ) -> ObservationResult:
        """Promote a precedent to Active by hand (or as the trial judge's decision).

        Raises:
            UnknownPrecedentError: If the key has no such value.
        """
        prefixed = _validate_reason(reason).startswith("promoted")
        text = reason if prefixed else f"promoted by hand: {reason}"
        return self._decision(EvidenceKind.PROMOTE, key, value, text, namespace, source)

    def record_trial(
        self,
        key: str,
        value: Any,
        positive: bool,
        *,
        trial_kind: str,
        namespace: Namespace | None = None,
        detail: str = "",
    ) -> ObservationResult:
        """Record a trial-by-execution result (audit evidence; it moves no counts).

        Raises:
            UnknownPrecedentError: If the key has no such value.
        """
        if not isinstance(positive, bool):
            raise InvalidArgumentError(f"positive must be True or False, got {safe_repr(positive)}")
        if not _validate_reason(trial_kind, "trial_kind"):
            raise InvalidArgumentError("trial_kind must not be empty, e.g. 'counterfactual'")
        if not isinstance(detail, str):
            raise InvalidArgumentError(f"detail must be a string, got {type(detail).__name__}")
        reason = f"trial {trial_kind}: {'positive' if positive else 'negative'}"
        if detail:
            reason += f" ({detail[:200]})"
        return self._decision(
            EvidenceKind.TRIAL,
            key,
            value,
            reason,
            namespace,
            None,
            metadata={"trial_kind": trial_kind},
            outcome=positive,
        )

    def mark_boundary(
        self, *, namespace: Namespace | None = None, key: str | None = None
    ) -> list[ObservationResult]:
        """Record a phase boundary on every key of ``namespace`` (or on ``key`` only).

        Only the oracle-reset baseline acts on it (it is told when the world changed); for every
        other policy it is an audit note.
        """
        ns = self._ns(namespace)
        only = validate_key(key) if key is not None else None
        self._check_open()
        with self._engine.reading([ns]) as states:
            keys = sorted(states[ns].keys)
        records = []
        for k in keys:
            if only is not None and k != only:
                continue
            eid, now = self._engine.next_id()
            records.append(
                Evidence(
                    id=eid,
                    namespace=ns,
                    key=k,
                    value=None,
                    kind=EvidenceKind.BOUNDARY,
                    time=now,
                    writer=self.writer,
                    reason="phase boundary",
                )
            )
        return self._commit(records) if records else []

"""The data of the lifecycle: lifecycle states, evidence records, transitions and precedents.

Example:
    >>> ev = Evidence.observation("user.diet", "vegan", time=1.0, id="e1")
    >>> ev.kind is EvidenceKind.OBSERVATION
    True
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from langchain_tepa.core.ledger import TrustLedger
from langchain_tepa.core.values import DEFAULT_NAMESPACE, canonical_json, short_hash

__all__ = [
    "TOP_TIER",
    "Evidence",
    "EvidenceKind",
    "Fact",
    "KeyState",
    "Lifecycle",
    "Precedent",
    "Transition",
    "answer_order",
    "new_transition",
    "precedent_id",
]


TOP_TIER = 3
"""The highest trust tier: sources that may correct, and vouched executions
(:mod:`langchain_tepa.core.precedence`)."""


class Lifecycle(str, Enum):
    """The state of a precedent. Only ``ACTIVE`` precedents are retrievable."""

    HYPOTHESIS = "hypothesis"
    ACTIVE = "active"
    REVOKED = "revoked"

    def __str__(self) -> str:
        return self.value


class EvidenceKind(str, Enum):
    """What an evidence record says.

    ``OBSERVATION`` asserts a value; ``OUTCOME`` reports that acting on a value worked or
    failed; ``TRIAL`` is a trial-by-execution result (audit only: it moves no counts);
    ``PROMOTE``/``REVOKE`` are decisions taken by hand or by the trial judge; ``BOUNDARY`` marks a
    phase boundary (only the oracle-reset baseline acts on it).
    """

    OBSERVATION = "observation"
    OUTCOME = "outcome"
    TRIAL = "trial"
    PROMOTE = "promote"
    REVOKE = "revoke"
    BOUNDARY = "boundary"

    def __str__(self) -> str:
        return self.value


_KINDS: dict[str, EvidenceKind] = {kind.value: kind for kind in EvidenceKind}


def precedent_id(namespace: str, key: str, value_id: str) -> str:
    """The stable id of the precedent of ``value_id`` under ``key`` in ``namespace``."""
    return "p" + short_hash(f"{namespace}\x1f{key}\x1f{value_id}", 31)


def _shared(text: Any) -> Any:
    """``text`` as the one interned string equal to it (anything else as it is)."""
    return sys.intern(text) if type(text) is str else text


@dataclass(frozen=True)
class Evidence:
    """An immutable evidence record: the source of truth of the lifecycle.

    Attributes:
        id: Unique id; with ``time`` it orders the evidence of a key.
        namespace: The tenant or scope (``"users.u1"``).
        key: The precedent key.
        value: The asserted or acted-on value (``None`` only for ``BOUNDARY``).
        kind: What the record says.
        outcome: ``True``/``False`` for outcomes and trials, else ``None``.
        time: Seconds since the epoch (or a benchmark's clock).
        writer: Which process or component wrote it.
        source: Who asserted it (a user, a tool, an extractor), for audit and poisoning checks.
        reason: Why a ``PROMOTE``/``REVOKE`` was taken.
        text: Free text the value came from, if any.
        metadata: Scalar metadata given by the caller.
    """

    id: str
    namespace: str
    key: str
    value: Any
    kind: EvidenceKind
    outcome: bool | None = None
    time: float = 0.0
    writer: str = ""
    source: str | None = None
    reason: str | None = None
    text: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def sort_key(self) -> tuple[float, str]:
        """Evidence of a key is folded in ``(time, id)`` order."""
        return (self.time, self.id)

    @classmethod
    def observation(
        cls,
        key: str,
        value: Any,
        *,
        time: float,
        id: str,
        namespace: str = DEFAULT_NAMESPACE,
        **extra: Any,
    ) -> Evidence:
        """Shorthand for an ``OBSERVATION`` record (mostly for tests and docs)."""
        return cls(
            id=id,
            namespace=namespace,
            key=key,
            value=value,
            kind=EvidenceKind.OBSERVATION,
            time=time,
            **extra,
        )

    @classmethod
    def outcome_of(
        cls,
        key: str,
        value: Any,
        success: bool,
        *,
        time: float,
        id: str,
        namespace: str = DEFAULT_NAMESPACE,
        **extra: Any,
    ) -> Evidence:
        """Shorthand for an ``OUTCOME`` record."""
        return cls(
            id=id,
            namespace=namespace,
            key=key,
            value=value,
            kind=EvidenceKind.OUTCOME,
            outcome=success,
            time=time,
            **extra,
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {
            "id": self.id,
            "namespace": self.namespace,
            "key": self.key,
            "value": self.value,
            "kind": self.kind.value,
            "outcome": self.outcome,
            "time": self.time,
            "writer": self.writer,
            "source": self.source,
            "reason": self.reason,
            "text": self.text,
            "metadata": dict(self.metadata),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Evidence:
        """Inverse of :meth:`to_dict`."""
        # Built without the frozen dataclass __init__ (one object.__setattr__ per field):
        # opening a memory reads every record, and this is about twice as fast. The source is
        # interned: the precedents, provenance and trust ledgers of a loaded namespace keep it,
        # and a few sources write thousands of records.
        ev = cls.__new__(cls)
        ev.__dict__.update(
            id=str(data["id"]),
            namespace=str(data["namespace"]),
            key=str(data["key"]),
            value=data.get("value"),
            kind=_KINDS.get(data["kind"]) or EvidenceKind(data["kind"]),
            outcome=data.get("outcome"),
            time=float(data["time"]),
            writer=str(data.get("writer") or ""),
            source=_shared(data.get("source")),
            reason=data.get("reason"),
            text=data.get("text"),
            metadata=dict(data.get("metadata") or {}),
        )
        return ev

    def to_json(self) -> str:
        """Canonical JSON of :meth:`to_dict`."""
        return canonical_json(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> Evidence:
        """Inverse of :meth:`to_json`."""
        return cls.from_dict(json.loads(text))


@dataclass(frozen=True)
class Transition:
    """A lifecycle transition and why it happened.

    Attributes:
        time: Time of the evidence that caused it.
        evidence_id: The evidence record that caused it.
        from_state: Previous state (``None`` when the precedent was created).
        to_state: New state.
        reason: Human-readable reason, e.g. ``"revoked: recent success 0/3 < 0.34"``.
    """

    time: float
    evidence_id: str
    from_state: Lifecycle | None
    to_state: Lifecycle
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {
            "time": self.time,
            "evidence_id": self.evidence_id,
            "from_state": self.from_state.value if self.from_state else None,
            "to_state": self.to_state.value,
            "reason": self.reason,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Transition:
        """Inverse of :meth:`to_dict`."""
        return cls(
            time=float(data["time"]),
            evidence_id=str(data["evidence_id"]),
            from_state=Lifecycle(data["from_state"]) if data.get("from_state") else None,
            to_state=Lifecycle(data["to_state"]),
            reason=str(data["reason"]),
        )


def new_transition(
    time: float,
    evidence_id: str,
    from_state: Lifecycle | None,
    to_state: Lifecycle,
    reason: str,
) -> Transition:
    """``Transition(time, evidence_id, from_state, to_state, reason)``, the same object.

    Built without the frozen dataclass ``__init__`` (one ``object.__setattr__`` per field, a
    third of the cost), as :meth:`Evidence.from_dict` is: the fold makes one or two per record,
    and a namespace's first touch folds all of its records.

    Example:
        >>> new_transition(1.0, "e1", None, Lifecycle.ACTIVE, "why") == Transition(
        ...     1.0, "e1", None, Lifecycle.ACTIVE, "why"
        ... )
        True
    """
    tr = Transition.__new__(Transition)
    tr.__dict__.update(
        time=time,
        evidence_id=evidence_id,
        from_state=from_state,
        to_state=to_state,
        reason=reason,
    )
    return tr


@dataclass
class Precedent:
    """A keyed precedent ``(key, value, support, conflict, state, created_at)`` and its record.

    Instances handed to callers are snapshots: changing them changes nothing stored.

    Attributes:
        namespace: Scope of the precedent.
        key: The key (``"user.pizza_topping"``).
        value: The value, in the form first seen.
        value_id: Identity of the value under the policy's normalisation.
        id: Stable id (``precedent_id``).
        state: Hypothesis, Active or Revoked.
        support: Support counted in the current epoch.
        conflict: Conflict counted in the current epoch.
        created_at: Time of the first evidence.
        updated_at: Time of the last evidence that touched it.
        last_support_at: Time of the last supporting evidence.
        validity: Posterior mean of Beta(a0 + support, b0 + conflict).
        lower_bound: 5% quantile of that posterior (a 95% credible lower bound).
        recent: Recent outcomes, oldest first (at most ``policy.window``).
        evidence_ids: Every evidence record that touched this precedent.
        transitions: Every state change with its reason.
        text: Free text the value came from, if any (first seen).
        lifetime_support: Support over all epochs.
        lifetime_conflict: Conflict over all epochs.
        last_support_seq: Position (in its key's evidence) of the last support.
        ever_active: Whether it has been Active before (for "re-promoted").
        source: Source of the first observation.
        weighted_support: Support in the current epoch, each record weighed by its source's
            trust (:mod:`langchain_tepa.core.trust`); what the posterior uses. Equal to
            ``support`` when the policy weighs nothing (``trust=None``).
        weighted_conflict: Conflict in the current epoch, weighed the same way.
        provenance: Where the weighted counts came from: ``label -> [support, conflict]``,
            a label being the asserting source (``"app"`` for evidence without one) or
            ``"outcomes"``.
        trusted_at: Time of the last support from a trusted (full-weight) source or a
            successful outcome: it breaks ties between equally supported values.
        standing: What the answer of a key is chosen by (highest first): the net support
            (``weighted_support - weighted_conflict``) under the trust presets, the validity
            under the paper's (``LifecyclePolicy.answer_by``).
        rank: The highest trust tier of what supports the value now (:data:`TOP_TIER` once a
            vouched execution of it succeeded; -1 when nothing supports it;
            :mod:`langchain_tepa.core.precedence`). It comes before ``standing`` in the answer
            order; 0 for every value under a policy that holds nothing back by trust.
    """

    namespace: str
    key: str
    value: Any
    value_id: str
    id: str
    state: Lifecycle = Lifecycle.HYPOTHESIS
    support: int = 0
    conflict: int = 0
    created_at: float = 0.0
    updated_at: float = 0.0
    last_support_at: float = 0.0
    validity: float = 0.5
    lower_bound: float = 0.0
    recent: list[bool] = field(default_factory=list)
    evidence_ids: list[str] = field(default_factory=list)
    transitions: list[Transition] = field(default_factory=list)
    text: str | None = None
    lifetime_support: int = 0
    lifetime_conflict: int = 0
    last_support_seq: int = 0
    ever_active: bool = False
    source: str | None = None
    weighted_support: float = 0.0
    weighted_conflict: float = 0.0
    provenance: dict[str, list[float]] = field(default_factory=dict)
    trusted_at: float = 0.0
    standing: float = 0.0
    rank: int = 0

    @property
    def observations(self) -> int:
        """Support plus conflict in the current epoch."""
        return self.support + self.conflict

    @property
    def net_support(self) -> float:
        """Weighted support minus weighted conflict (current epoch)."""
        return self.weighted_support - self.weighted_conflict

    def reset_counts(self) -> None:
        """Start a fresh epoch of counts (support, conflict, their weights and provenance)."""
        self.support = self.conflict = 0
        self.weighted_support = self.weighted_conflict = 0.0
        self.provenance = {}

    @property
    def is_active(self) -> bool:
        """Whether the precedent is retrievable."""
        return self.state is Lifecycle.ACTIVE

    @property
    def revocation(self) -> Transition | None:
        """The transition that revoked it, if it is Revoked now."""
        if self.state is not Lifecycle.REVOKED:
            return None
        for tr in reversed(self.transitions):
            if tr.to_state is Lifecycle.REVOKED:
                return tr
        return None

    @property
    def page_content(self) -> str:
        """The text that is embedded and shown for this precedent."""
        if self.text:
            return self.text
        shown = self.value if isinstance(self.value, str) else canonical_json(self.value)
        return f"{self.key}: {shown}"

    def snapshot(self) -> Precedent:
        """An independent copy."""
        # Built without the dataclass __init__ (a commit copies a precedent per record).
        copy = object.__new__(Precedent)
        fields = copy.__dict__
        fields.update(self.__dict__)
        fields["recent"] = list(self.recent)
        fields["evidence_ids"] = list(self.evidence_ids)
        fields["transitions"] = list(self.transitions)
        fields["provenance"] = {k: list(v) for k, v in self.provenance.items()}
        return copy

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (the materialised view)."""
        data = dict(self.__dict__)
        data["state"] = self.state.value
        data["recent"] = list(self.recent)
        data["evidence_ids"] = list(self.evidence_ids)
        data["transitions"] = [t.to_dict() for t in self.transitions]
        data["provenance"] = {k: list(v) for k, v in self.provenance.items()}
        return data

    def view(self) -> dict[str, Any]:
        """The stored view of this precedent: its lifecycle, without its full history.

        What storage keeps beside the evidence for tools that query it (state, counts,
        posterior, times, the number of evidence records and the last transition); the full
        history is a fold of the evidence (``TEPAMemory.audit``).
        """
        last = self.transitions[-1] if self.transitions else None
        return {
            "namespace": self.namespace,
            "key": self.key,
            "value": self.value,
            "value_id": self.value_id,
            "id": self.id,
            "state": self.state.value,
            "support": self.support,
            "conflict": self.conflict,
            "validity": self.validity,
            "lower_bound": self.lower_bound,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "last_support_at": self.last_support_at,
            "evidence": len(self.evidence_ids),
            "last_transition": last.to_dict() if last else None,
            "source": self.source,
        }

    @classmethod
    def from_view(cls, data: Mapping[str, Any]) -> Precedent:
        """A precedent from its :meth:`view` (the history holds the last transition only)."""
        last = data.get("last_transition")
        return cls(
            namespace=str(data["namespace"]),
            key=str(data["key"]),
            value=data["value"],
            value_id=str(data["value_id"]),
            id=str(data["id"]),
            state=Lifecycle(data["state"]),
            support=data["support"],
            conflict=data["conflict"],
            created_at=float(data["created_at"]),
            updated_at=float(data["updated_at"]),
            last_support_at=float(data.get("last_support_at", 0.0)),
            validity=float(data["validity"]),
            lower_bound=float(data["lower_bound"]),
            transitions=[Transition.from_dict(last)] if last else [],
            source=data.get("source"),
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Precedent:
        """Inverse of :meth:`to_dict`."""
        clean = dict(data)
        clean["state"] = Lifecycle(clean["state"])
        clean["transitions"] = [Transition.from_dict(t) for t in clean.get("transitions", [])]
        clean["recent"] = [bool(x) for x in clean.get("recent", [])]
        clean["evidence_ids"] = list(clean.get("evidence_ids", []))
        clean["provenance"] = {
            str(k): [float(x) for x in v] for k, v in (clean.get("provenance") or {}).items()
        }
        return cls(**clean)


def answer_order(p: Precedent) -> tuple[int, float, float, float, str]:
    """Sort key of the Active values of a key, best first: what a read answers with.

    Highest ``rank`` (the trust tier behind the value, :mod:`langchain_tepa.core.precedence`),
    then the highest ``standing`` (net support or validity, by the policy), then the latest
    support from a trusted source, then the latest support of any kind, then the id
    (deterministic).
    """
    return (-p.rank, -p.standing, -p.trusted_at, -p.last_support_at, p.id)


@dataclass
class KeyState:
    """Every precedent of one key in one namespace: the result of folding its evidence.

    Attributes:
        namespace: The scope.
        key: The key.
        precedents: Precedents by value identity, in creation order.
        seq: Evidence records folded so far.
        last_sort_key: ``(time, id)`` of the last record folded (for out-of-order detection).
        ledger: What recent assertions already counted, per source (repeats and caps of
            :class:`~langchain_tepa.core.trust.TrustPolicy`); ``None`` until a policy with
            trust folds an observation.
    """

    namespace: str
    key: str
    precedents: dict[str, Precedent] = field(default_factory=dict)
    seq: int = 0
    last_sort_key: tuple[float, str] = (float("-inf"), "")
    ledger: TrustLedger | None = None

    def active(self) -> list[Precedent]:
        """Active precedents, best first (:func:`answer_order`: standing, then trusted recency)."""
        act = [p for p in self.precedents.values() if p.state is Lifecycle.ACTIVE]
        return sorted(act, key=answer_order) if len(act) > 1 else act

    def snapshot(self) -> KeyState:
        """An independent deep copy."""
        return KeyState(
            namespace=self.namespace,
            key=self.key,
            precedents={k: p.snapshot() for k, p in self.precedents.items()},
            seq=self.seq,
            last_sort_key=self.last_sort_key,
            ledger=None if self.ledger is None else self.ledger.copy(),
        )


@dataclass(frozen=True)
class Fact:
    """A keyed observation before it is stored (what extractors return).

    Attributes:
        key: Canonical key (``"user.diet"``, ``"france.capital"``).
        value: The value.
        namespace: Scope (``None``: the memory's default).
        text: The text it was extracted from.
        source: Who asserted it.
        metadata: Scalar metadata.
        confidence: Extractor confidence in [0, 1].

    Example:
        >>> Fact("user.diet", "vegan").key
        'user.diet'
    """

    key: str
    value: Any
    namespace: str | None = None
    text: str | None = None
    source: str | None = None
    metadata: Mapping[str, Any] | None = None
    confidence: float = 1.0

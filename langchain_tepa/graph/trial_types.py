"""What a trial of TEPA-Full is: the candidate, the three kinds of trial, their results.

A *candidate* is a Hypothesis precedent waiting for promotion. A *trial* is one run of the
user's executor (their agent, a tool, a test harness) on a task with a given memory view: the
``(key, value)`` facts the agent would see. There are three kinds:

- **supportive**: the candidate is in the view; positive when the run succeeds.
  Example: the user now wants mushroom pizza; the agent orders with ``user.pizza_topping =
  mushroom`` in its context and the order is accepted.
- **counterfactual**: the same task with a competing value (the incumbent, an archived value,
  or no value at all) in place of the candidate; the executor runs twice (a *control* run with
  the candidate, the main run with the competitor); positive when the candidate succeeds and
  the competitor fails, so the candidate is what makes the difference.
  Example: ordering with ``pineapple`` (the old preference) is refused while ``mushroom`` is
  accepted.
- **polluted**: the candidate alongside stale, contradicting facts of the same key (the
  incumbent and the archive), older facts first; positive when the run still succeeds.
  Example: the context says ``pineapple`` (stale) and ``mushroom``; the agent asks, the user
  confirms mushroom, the order is accepted.

:mod:`langchain_tepa.graph.trials` chooses the candidates and builds their trials.

Example:
    >>> t = Trial("p1.supportive.0", TrialKind.SUPPORTIVE, "default", "user.diet", "vegan",
    ...           "plan dinner", (("user.diet", "vegan"),), value="vegan")
    >>> str(t.kind), t.lookup("user.diet")
    ('supportive', ['vegan'])
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal

from langchain_core.documents import Document

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.types import Lifecycle, Precedent
from langchain_tepa.core.values import canonical_json, value_identity

__all__ = ["Candidate", "FactPair", "Trial", "TrialKind", "TrialResult"]

FactPair = tuple[str, Any]


class TrialKind(str, Enum):
    """The three kinds of trial (see the module docstring for an example of each)."""

    SUPPORTIVE = "supportive"
    COUNTERFACTUAL = "counterfactual"
    POLLUTED = "polluted"

    def __str__(self) -> str:
        return self.value


def _show(value: Any) -> str:
    return value if isinstance(value, str) else canonical_json(value)


@dataclass(frozen=True)
class Candidate:
    """A precedent under test (a Hypothesis, or a Revoked value named explicitly).

    Attributes:
        namespace: Scope of the precedent.
        key: Its key.
        value: The value under test.
        precedent_id: The precedent's id (stable; used to name trials and reviews).
        state: Its lifecycle state when selected.
        support: Support in the current epoch.
        conflict: Conflict in the current epoch.
        source: Source of its first observation (``"attacker"``, ``"user"``...).

    Example:
        >>> Candidate("default", "user.diet", "vegan", "p1").label
        "user.diet = 'vegan'"
    """

    namespace: str
    key: str
    value: Any
    precedent_id: str
    state: str = Lifecycle.HYPOTHESIS.value
    support: int = 0
    conflict: int = 0
    source: str | None = None

    @property
    def label(self) -> str:
        """``key = 'value'`` for messages."""
        return f"{self.key} = {_show(self.value)!r}"

    @classmethod
    def from_precedent(cls, p: Precedent) -> Candidate:
        """The candidate of a precedent snapshot."""
        return cls(
            namespace=p.namespace,
            key=p.key,
            value=p.value,
            precedent_id=p.id,
            state=p.state.value,
            support=p.support,
            conflict=p.conflict,
            source=p.source,
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (graph state and checkpoints hold these)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Candidate:
        """Inverse of :meth:`to_dict`."""
        return cls(**{f.name: data[f.name] for f in dataclasses.fields(cls) if f.name in data})


@dataclass(frozen=True)
class Trial:
    """One trial: a task, the memory view the agent gets, and what the run is meant to show.

    The executor reads :attr:`task` and :attr:`facts` (or :meth:`documents` /
    :meth:`render`); :attr:`value` is the value of :attr:`key` placed in the view (``None`` when
    the key is left out, as in a counterfactual against "no memory").

    Attributes:
        id: Stable id, ``"<precedent id>.<kind>.<n>"``.
        kind: Supportive, counterfactual or polluted.
        namespace: Scope of the candidate.
        key: The key under test.
        candidate: The candidate value.
        task: What the agent is asked to do.
        facts: The memory view, ``(key, value)`` pairs in the order the agent sees them.
        value: The value of ``key`` this run is given (the competitor in a counterfactual).
        stale: Polluted trials: the stale values placed next to the candidate.
        control_facts: Counterfactual trials: the view of the control run (with the candidate).
        arm: ``"main"``, or ``"control"`` for the candidate run of a counterfactual.
        metadata: Anything a custom builder wants to pass to its executor (JSON values).

    Example:
        >>> t = Trial("p1.supportive.0", TrialKind.SUPPORTIVE, "default", "user.diet", "vegan",
        ...           "plan dinner", (("user.diet", "vegan"),), value="vegan")
        >>> t.lookup("user.diet")
        ['vegan']
    """

    id: str
    kind: TrialKind
    namespace: str
    key: str
    candidate: Any
    task: str
    facts: tuple[FactPair, ...]
    value: Any = None
    stale: tuple[Any, ...] = ()
    control_facts: tuple[FactPair, ...] | None = None
    arm: Literal["main", "control"] = "main"
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.kind, TrialKind):
            object.__setattr__(self, "kind", TrialKind(self.kind))
        object.__setattr__(self, "facts", tuple((str(k), v) for k, v in self.facts))
        if self.control_facts is not None:
            cf = tuple((str(k), v) for k, v in self.control_facts)
            object.__setattr__(self, "control_facts", cf)
        object.__setattr__(self, "stale", tuple(self.stale))

    @property
    def competitor(self) -> Any:
        """Counterfactual trials: the competing value (``None``: the key left out)."""
        return self.value if self.kind is TrialKind.COUNTERFACTUAL else None

    def lookup(self, key: str) -> list[Any]:
        """Every value the view holds for ``key``, in view order."""
        return [v for k, v in self.facts if k == key]

    def control(self) -> Trial:
        """The control run of a counterfactual: the same task with the candidate in the view.

        Raises:
            InvalidArgumentError: If this is not a counterfactual main run.
        """
        if self.kind is not TrialKind.COUNTERFACTUAL or self.control_facts is None:
            raise InvalidArgumentError("only counterfactual trials with control_facts have one")
        return dataclasses.replace(
            self, value=self.candidate, facts=self.control_facts, control_facts=None, arm="control"
        )

    def documents(self) -> list[Document]:
        """The view as Documents (metadata: key, value, role) for retrieval-style agents.

        Roles: ``"candidate"`` or ``"competitor"`` (the value of the key under test given to
        this run), ``"stale"`` (other values of that key) and ``"context"`` (other keys).
        """
        docs = []
        given = value_identity(self.value) if self.value is not None else None
        for k, v in self.facts:
            if k != self.key:
                role = "context"
            elif value_identity(v) == given:
                is_candidate = self.kind is not TrialKind.COUNTERFACTUAL or self.arm == "control"
                role = "candidate" if is_candidate else "competitor"
            else:
                role = "stale"
            docs.append(
                Document(
                    page_content=f"{k}: {_show(v)}", metadata={"key": k, "value": v, "role": role}
                )
            )
        return docs

    def render(self) -> str:
        """The task and the view as plain text (for an LLM prompt)."""
        lines = [f"Task: {self.task}", "Memory:"]
        lines += [f"- {k}: {_show(v)}" for k, v in self.facts] or ["- (nothing)"]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (graph state and ``Send`` payloads hold these)."""
        return {
            "id": self.id,
            "kind": self.kind.value,
            "namespace": self.namespace,
            "key": self.key,
            "candidate": self.candidate,
            "task": self.task,
            "facts": [[k, v] for k, v in self.facts],
            "value": self.value,
            "stale": list(self.stale),
            "control_facts": (
                None if self.control_facts is None else [[k, v] for k, v in self.control_facts]
            ),
            "arm": self.arm,
            "metadata": dict(self.metadata),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Trial:
        """Inverse of :meth:`to_dict`."""
        control = data.get("control_facts")
        return cls(
            id=str(data["id"]),
            kind=TrialKind(data["kind"]),
            namespace=str(data["namespace"]),
            key=str(data["key"]),
            candidate=data["candidate"],
            task=str(data["task"]),
            facts=tuple((str(k), v) for k, v in data.get("facts", [])),
            value=data.get("value"),
            stale=tuple(data.get("stale", ())),
            control_facts=None if control is None else tuple((str(k), v) for k, v in control),
            arm=data.get("arm", "main"),
            metadata=dict(data.get("metadata") or {}),
        )


@dataclass(frozen=True)
class TrialResult:
    """The result of one trial.

    Attributes:
        trial_id: The trial's id.
        kind: Its kind.
        positive: Whether it counts for the candidate (see :class:`TrialKind`).
        success: The executor's answer for the run with the candidate (``None`` if it failed
            to answer).
        competitor_success: Counterfactual trials: the answer for the competitor run.
        error: Why the executor gave no answer (raised, timed out, returned a non-bool).
        detail: One line for the audit trail.
        competitor: Counterfactual trials: the competing value (``None``: no value).

    Example:
        >>> TrialResult("p1.supportive.0", TrialKind.SUPPORTIVE, True, success=True).positive
        True
    """

    trial_id: str
    kind: TrialKind
    positive: bool
    success: bool | None = None
    competitor_success: bool | None = None
    error: str | None = None
    detail: str = ""
    competitor: Any = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, TrialKind):
            object.__setattr__(self, "kind", TrialKind(self.kind))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        data = dataclasses.asdict(self)
        data["kind"] = self.kind.value
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrialResult:
        """Inverse of :meth:`to_dict`."""
        return cls(**{f.name: data[f.name] for f in dataclasses.fields(cls) if f.name in data})

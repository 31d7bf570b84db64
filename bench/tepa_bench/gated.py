"""Trial-gated baselines (issue 39): a baseline's rule, plus the executor TEPA-Full gets.

Until issue 39 only TEPA-Full could test a value before serving it. A baseline given the same
executor, the same budget and the same price per trial can do that too:
:class:`ExecutorGate` wraps a baseline's memory (any preset: ``lww``, ``temporal*``,
``reactive*``) and, before each read the benchmark makes (where TEPA-Full's trials run):

* **adoption**: when the rule's answer (``get``) is a value that was not served before and
  whose newest record is a statement (nobody has acted on it since it was said), the value is
  tried: up to ``trials`` executions, one at a time, stopping once the verdict is settled. With
  ``need`` successes it is served; otherwise it is revoked (``revoke``, by hand) and the value
  served before is made Active again if the rule dropped it (``promote``, by hand). A value
  whose newest record is a successful execution (the agent acted on it and it worked) needs no
  trial: that execution was one.
* **recheck** (``recheck`` executions, 0: off): when the rule drops the served value and
  answers nothing (reactive forgetting's failures in a row, the temporal window's expiry), the
  dropped value is tried; a success makes it Active again (the failures were noise).

``lww+trial`` is the rule a skeptical reviewer wrote (issue 39): last-writer-wins that tries a
newly stated value once before it replaces the served one. ``trial-gated*`` is the tuned
variant: one of :data:`GATE_CANDIDATES` (six settings, the budget every tuned method gets),
chosen on tuning seeds by regret at the world's declared trial cost.

The gate sees what the memory's public API shows (``get``, ``history``, ``revoke``,
``promote``) and the executor's answers, nothing of the world: the benchmark passes an
``execute(namespace, key, value) -> bool`` that acts on the value and is charged like a
TEPA-Full trial (one interaction of the budget, a trial in the regret).

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> setting = GATED["lww+trial"]
    >>> memory = TEPAMemory.in_memory(policy=setting.policy())
    >>> _ = memory.observe("user.city", "Lisbon", source="user")
    >>> _ = memory.record_outcome("user.city", "Lisbon", True)
    >>> works = {"Lisbon"}
    >>> gate = ExecutorGate(memory, setting, lambda ns, key, value: value in works)
    >>> gate.check("user.city"), memory.get("user.city")   # acted on: no trial
    (0, 'Lisbon')
    >>> _ = memory.observe("user.city", "Oslo", source="user")   # a spoof: lww adopts it
    >>> gate.check("user.city"), memory.get("user.city")   # one trial, failed: not served
    (1, 'Lisbon')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.types import EvidenceKind, Lifecycle
from langchain_tepa.memory import TEPAMemory

__all__ = [
    "GATED",
    "GATE_CANDIDATES",
    "TUNED_GATE",
    "TUNING_FIRST_SEED",
    "ExecutorGate",
    "GateSetting",
    "add_seed_arguments",
    "check_disjoint",
    "gate_setting",
    "gates_for",
    "is_gated",
    "tune_gate",
]

_TUNED_BASES: dict[str, tuple[str, dict[str, Any]]] = {
    "reactive*": ("reactive", {"reactive_failures": 3}),
    "temporal*": ("temporal", {"temporal_window": 3}),
}
"""The tuned baselines a gate may wrap (the grid's tuned settings, as in the attack matrix)."""

Execute = Callable[[str | None, str, Any], bool]
"""``(namespace, key, value) -> success``: one charged execution of ``value``."""


@dataclass(frozen=True)
class GateSetting:
    """A trial-gated baseline: the rule it wraps and how it uses the executor.

    Attributes:
        base: The baseline's preset (``"lww"``) or tuned label (``"temporal*"``).
        trials: Executions at most before a newly stated value is served.
        need: Successes among them that adopt it.
        recheck: Executions of a value the rule dropped (answering nothing); a success
            restores it. 0: no recheck.

    Example:
        >>> GateSetting("temporal*", trials=2, need=1).label
        'temporal*+trial(2/1)'
    """

    base: str
    trials: int = 1
    need: int = 1
    recheck: int = 0

    def __post_init__(self) -> None:
        for name, low in (("trials", 1), ("need", 1), ("recheck", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InvalidArgumentError(f"{name} must be an integer >= {low}, got {value!r}")
        if self.need > self.trials:
            raise InvalidArgumentError(f"need ({self.need}) must not exceed trials ({self.trials})")
        self.policy()  # an unknown base fails here

    @property
    def label(self) -> str:
        """A readable name: the base, then the gate's numbers when they differ from 1/1."""
        shape = "" if (self.trials, self.need) == (1, 1) else f"({self.trials}/{self.need})"
        return f"{self.base}+trial{shape}" + (f"+recheck{self.recheck}" if self.recheck else "")

    def policy(self) -> LifecyclePolicy:
        """The wrapped baseline's policy."""
        name, overrides = _TUNED_BASES.get(self.base, (self.base, {}))
        policy = LifecyclePolicy.preset(name, **overrides)
        if policy.uses_trials:
            raise InvalidArgumentError(f"a gate wraps a baseline, not {self.base!r}")
        return policy

    def to_dict(self) -> dict[str, Any]:
        """The setting as JSON."""
        return {
            "base": self.base,
            "trials": self.trials,
            "need": self.need,
            "recheck": self.recheck,
            "label": self.label,
        }


GATED: dict[str, GateSetting] = {"lww+trial": GateSetting("lww")}
"""The fixed trial-gated baselines: last-writer-wins trying a new value once (issue 39)."""

TUNED_GATE = "trial-gated*"
"""The name of the tuned trial-gated baseline (its setting: one of :data:`GATE_CANDIDATES`)."""

GATE_CANDIDATES: tuple[GateSetting, ...] = (
    GateSetting("lww"),
    GateSetting("lww", trials=2, need=1),
    GateSetting("lww", trials=2, need=2),
    GateSetting("temporal*"),
    GateSetting("reactive*"),
    GateSetting("reactive*", recheck=1),
)
"""Six settings of the tuned variant (the budget of every tuned method of the grid): the
wrapped rule, the number of executions and the successes that adopt, the recheck."""


TUNING_FIRST_SEED = 2000
"""The tuning seeds of the trial-gated variant start here (reports use 0.., 1000.., 3000..)."""


def check_disjoint(first: int, count: int, tuning: int) -> None:
    """Refuse reported seeds ``first .. first + count - 1`` that overlap the gate's tuning seeds.

    Raises:
        InvalidArgumentError: On an overlap.
    """
    reported = set(range(first, first + count))
    tuned = set(range(TUNING_FIRST_SEED, TUNING_FIRST_SEED + tuning))
    if reported & tuned:
        raise InvalidArgumentError(
            f"the reported seeds {first}..{first + count - 1} overlap the trial-gated baseline's "
            f"tuning seeds {TUNING_FIRST_SEED}..{TUNING_FIRST_SEED + tuning - 1}; choose other "
            "seeds (--first-seed)"
        )


def tune_gate(
    score: Callable[[GateSetting, int], tuple[float, float]],
    seeds: int,
    cost: float,
    candidates: Sequence[GateSetting] = GATE_CANDIDATES,
) -> tuple[GateSetting, list[dict[str, Any]]]:
    """The candidate with the lowest mean regret on the tuning seeds, and every candidate's.

    Args:
        score: ``(setting, seed) -> (user-facing failures, trials)`` of one tuning run.
        seeds: Tuning seeds, from :data:`TUNING_FIRST_SEED`.
        cost: The world's declared trial cost (regret = failures + cost x trials).
        candidates: The settings tried (the first of equals wins).

    Example:
        >>> best, rows = tune_gate(lambda g, s: (g.trials, 0.0), 2, 0.25)
        >>> best.trials, len(rows)
        (1, 6)
    """
    if seeds < 1:
        raise InvalidArgumentError(f"the gate needs at least one tuning seed, got {seeds}")
    rows = []
    for setting in candidates:
        runs = [score(setting, TUNING_FIRST_SEED + i) for i in range(seeds)]
        regret = sum(f + cost * t for f, t in runs) / seeds
        rows.append({**setting.to_dict(), "regret": round(regret, 4)})
    best = min(range(len(rows)), key=lambda i: rows[i]["regret"])
    return candidates[best], rows


def add_seed_arguments(parser: Any, *, first_seed: int, tuning: int) -> None:
    """``--first-seed`` and ``--gate-tuning-seeds`` for a scenario with an executor."""
    parser.add_argument(
        "--first-seed",
        type=int,
        default=first_seed,
        help=f"first reported seed (default {first_seed}); seeds run first.. first + seeds - 1",
    )
    parser.add_argument(
        "--gate-tuning-seeds",
        type=int,
        default=tuning,
        help=f"tuning seeds of the trial-gated* baseline, from {TUNING_FIRST_SEED} (default "
        f"{tuning}; its six gates are tried there, the lowest regret at the declared cost wins)",
    )


def gates_for(
    policies: Sequence[str],
    tune: Callable[[int], tuple[GateSetting, list[dict[str, Any]]]],
    *,
    tuning_seeds: int,
    first_seed: int,
    seeds: int,
) -> tuple[dict[str, GateSetting], dict[str, Any] | None]:
    """The gates of the trial-gated baselines among ``policies``, tuning the tuned one.

    ``tune(seeds)`` tunes it on that many tuning seeds. Returns the gates by name and how the
    tuned one was chosen (``None`` when it is not run).

    Raises:
        InvalidArgumentError: If the reported seeds overlap the tuning seeds.
    """
    gates = {name: g for name, g in GATED.items() if name in policies}
    if TUNED_GATE not in policies:
        return gates, None
    check_disjoint(first_seed, seeds, tuning_seeds)
    best, rows = tune(tuning_seeds)
    gates[TUNED_GATE] = best
    info = {
        "seeds": [TUNING_FIRST_SEED, TUNING_FIRST_SEED + tuning_seeds - 1],
        "objective": "mean regret at the declared trial cost, with an executor",
        "candidates": rows,
        "chosen": best.to_dict(),
    }
    return gates, info


def is_gated(name: str) -> bool:
    """Whether a method name is a trial-gated baseline.

    ``lww+trial``, ``trial-gated*`` and the grid's ``trial-gated``.
    """
    return name in GATED or name.rstrip("*") == TUNED_GATE.rstrip("*")


def gate_setting(name: str, tuned: GateSetting | None = None) -> GateSetting:
    """The setting of a gated method (``tuned``: the chosen one for :data:`TUNED_GATE`).

    Raises:
        InvalidArgumentError: For an unknown name, or the tuned variant without a setting.
    """
    if name in GATED:
        return GATED[name]
    if name == TUNED_GATE:
        if tuned is None:
            raise InvalidArgumentError(f"{TUNED_GATE} needs its tuned setting (tune it first)")
        return tuned
    raise InvalidArgumentError(f"{name!r} is no trial-gated baseline; use {sorted(GATED)}")


class ExecutorGate:
    """The executor in a baseline's hands (module docstring): try a new value before serving it.

    Args:
        memory: The baseline's memory (its policy: :meth:`GateSetting.policy`).
        setting: How many executions, how many successes, the recheck.
        execute: ``(namespace, key, value) -> success``, one charged execution.
        room: ``(namespace, key) -> executions the budget still holds`` (``None``: no limit).
            With too little room the rule's answer is followed untried.

    Example:
        >>> ExecutorGate(TEPAMemory.in_memory(policy="lww"), GATED["lww+trial"],
        ...              lambda ns, key, value: True).executions
        0
    """

    def __init__(
        self,
        memory: TEPAMemory,
        setting: GateSetting,
        execute: Execute,
        room: Callable[[str | None, str], int] | None = None,
    ) -> None:
        self.memory = memory
        self.setting = setting
        self._execute = execute
        self._room = room
        self._served: dict[tuple[str | None, str], Any] = {}
        self.executions = 0

    def check(self, key: str, namespace: str | None = None) -> int:
        """Gate the rule's answer of ``key`` before a read; the executions it took."""
        mem, where = self.memory, (namespace, key)
        answer = mem.get(key, namespace=namespace)
        served = self._served.get(where)
        if answer == served:
            return 0
        if answer is None:
            used = self._recheck(key, namespace, served) if served is not None else 0
            if not used or mem.get(key, namespace=namespace) is None:
                self._served.pop(where, None)
            return used
        if self._acted_on(key, namespace, answer) or self._space(namespace, key) < self._cost():
            self._served[where] = answer
            return 0
        ok, used = self._try(namespace, key, answer, self.setting.trials, self.setting.need)
        if ok:
            self._served[where] = answer
            return used
        mem.revoke(
            key,
            answer,
            reason=f"revoked: failed its trial ({self.setting.label})",
            namespace=namespace,
        )
        if served is not None and mem.get(key, namespace=namespace) != served:
            mem.promote(
                key,
                served,
                reason=f"promoted: kept, the challenger failed its trial ({self.setting.label})",
                namespace=namespace,
            )
        if mem.get(key, namespace=namespace) != served:
            self._served.pop(where, None)
        return used

    def _recheck(self, key: str, namespace: str | None, served: Any) -> int:
        """Try the value the rule just dropped; a success restores it."""
        n = min(self.setting.recheck, self._space(namespace, key))
        if n < 1 or not self._revoked(key, namespace, served):
            return 0
        ok, used = self._try(namespace, key, served, n, 1)
        if ok:
            self.memory.promote(
                key,
                served,
                reason=f"promoted: its recheck succeeded ({self.setting.label})",
                namespace=namespace,
            )
        return used

    def _try(
        self, namespace: str | None, key: str, value: Any, trials: int, need: int
    ) -> tuple[bool, int]:
        """Up to ``trials`` executions: ``(adopted, executions)``.

        It stops once ``need`` successes are reached or out of reach.
        """
        wins = used = 0
        while used < trials and wins < need and wins + (trials - used) >= need:
            used += 1
            wins += bool(self._execute(namespace, key, value))
        self.executions += used
        return wins >= need, used

    def _cost(self) -> int:
        return self.setting.trials

    def _space(self, namespace: str | None, key: str) -> int:
        return 1 << 30 if self._room is None else int(self._room(namespace, key))

    def _revoked(self, key: str, namespace: str | None, value: Any) -> bool:
        audit = self.memory.audit(key, namespace=namespace)
        return any(p.value == value and p.state is Lifecycle.REVOKED for p in audit.precedents)

    def _acted_on(self, key: str, namespace: str | None, value: Any) -> bool:
        """Whether ``value``'s newest record is a successful execution (no statement since)."""
        for ev in reversed(self.memory.history(key, namespace=namespace)):
            if ev.value != value or ev.kind not in (EvidenceKind.OBSERVATION, EvidenceKind.OUTCOME):
                continue
            return ev.kind is EvidenceKind.OUTCOME and ev.outcome is True
        return False

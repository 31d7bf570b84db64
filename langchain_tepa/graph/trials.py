"""Trials of TEPA-Full: choosing the candidates and building their trials.

A *candidate* is a Hypothesis precedent waiting for promotion; :func:`select_candidates` finds
them and a :class:`TrialBuilder` (by default :class:`DefaultTrialBuilder`) makes each one's
trials. What a candidate, a trial (supportive, counterfactual or polluted) and a result are:
:mod:`langchain_tepa.graph.trial_types`, whose classes are importable from here too.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory(policy="tepa-full")
    >>> _ = memory.observe("user.pizza_topping", "mushroom")
    >>> candidate = select_candidates(memory, key="user.pizza_topping")[0]
    >>> [t.kind.value for t in DefaultTrialBuilder().build_trials(memory, candidate)]
    ['supportive', 'counterfactual']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from langchain_tepa.core.contest import successes
from langchain_tepa.core.errors import InvalidArgumentError, UnknownPrecedentError
from langchain_tepa.core.rules import Step
from langchain_tepa.core.trust import SupportPromotion
from langchain_tepa.core.types import Evidence, KeyState, Lifecycle, Precedent
from langchain_tepa.core.values import (
    safe_repr,
    validate_key,
    validate_namespace,
    validate_value,
    value_identity,
)
from langchain_tepa.graph.posterior import claimed_by_authority, newest_correction
from langchain_tepa.graph.trial_types import (
    Candidate,
    FactPair,
    Trial,
    TrialKind,
    TrialResult,
)

if TYPE_CHECKING:
    from langchain_tepa.memory import TEPAMemory

__all__ = [
    "Candidate",
    "DefaultTrialBuilder",
    "Trial",
    "TrialBuilder",
    "TrialKind",
    "TrialResult",
    "last_answers",
    "resolve_trial_builder",
    "select_candidates",
]


# ---------------------------------------------------------------------- candidates
def select_candidates(
    memory: TEPAMemory,
    *,
    key: str | None = None,
    namespace: str | None = None,
    candidates: Sequence[Any] | None = None,
    contenders_only: bool = False,
) -> list[Candidate]:
    """The candidates of one run: the Hypotheses of ``key``, or of every key of ``namespace``.

    Args:
        memory: The memory.
        key: Only this key (default: every key of the namespace).
        namespace: Scope (default: the memory's namespace).
        candidates: Explicit candidates instead: ``(key, value)`` pairs, dicts with ``key``,
            ``value`` (and optionally ``namespace``) or :class:`Candidate` objects. Each must
            exist; Active ones are skipped (nothing to promote).
        contenders_only: Only the Hypotheses that could become their key's answer: those
            TEPA-Rev's promotion rule would promote if assertions sufficed (believable on their
            own when the key has no Active value; better than the answer and backed in
            proportion when it has one), and every Hypothesis of a multi-valued key. A value
            the answer outweighs would only be tested to be turned down, and every trial is an
            execution. Under ``policy.trial_gate`` also the contested changes it holds: a
            Hypothesis that a source with change authority, or one that may correct, backs
            against the answer; and the *last answer of an empty key* (:func:`last_answers`).
            A one-off held for its source (``KeyAudit.one_offs``) that already worked when it
            was said is no contender. Explicit ``candidates`` are always taken.

    Returns:
        The candidates, by key and then creation order.

    Raises:
        UnknownPrecedentError: If an explicit candidate does not exist.
        InvalidArgumentError: On a malformed explicit candidate.
    """
    ns = memory.namespace if namespace is None else validate_namespace(namespace)
    if candidates is not None:
        return _explicit_candidates(memory, candidates, ns)
    if key is not None:
        precs = memory.audit(validate_key(key), namespace=ns).precedents
    else:
        precs = memory.precedents(namespace=ns)
    chosen = [p for p in precs if p.state is Lifecycle.HYPOTHESIS]
    if contenders_only:
        held = _one_offs(memory, key, ns, precs)
        chosen = [
            p
            for p in chosen
            if not (p.value_id in held and successes(p) > 1e-9) and _contends(memory, p, precs)
        ]
        chosen += last_answers(memory, precs, ns)
    chosen.sort(key=lambda p: (p.key, p.created_at, p.id))
    return [Candidate.from_precedent(p) for p in chosen]


def _one_offs(
    memory: TEPAMemory, key: str | None, namespace: str, precs: Sequence[Precedent]
) -> set[str]:
    """Value ids held as one-offs (:class:`~langchain_tepa.core.changes.OneOffHold`).

    One that already worked when it was said (the agent did what was asked) waits for its
    source to say it again, not for a trial: a trial would only show again that it works now,
    and the question is whether it lasts. One nobody has executed is tried like any contested
    claim.
    """
    keys = {key} if key is not None else {p.key for p in precs if p.state is Lifecycle.HYPOTHESIS}
    out: set[str] = set()
    for k in keys:
        out |= set(memory.audit(k, namespace=namespace).one_offs)
    return out


def last_answers(memory: TEPAMemory, precs: Sequence[Precedent], namespace: str) -> list[Precedent]:
    """The last answer of each single-valued key left with no Active value: a trial contender.

    When the executions of a key's answer fail, the rules revoke it (the recent window, the
    key test) and, with no other Active value, every read answers nothing: each one is a
    failure in front of the user. Two failures in a row are noise as often as a change, and
    only an execution tells them apart. So under TEPA-Full's trial gate the value that was the
    answer when the key emptied (Active until its revocation, its last execution failed) is a
    contender when a source with change authority, or one that may correct, claimed it: the
    user said it, its failures contest that claim, and the trials check it. A value the agent
    only found by acting on it has no claim but its executions, which said it no longer
    works: no trial (in the drift worlds, where nobody states the new value, trying the old
    one after every change cost more than it saved). A passing round restores the last answer
    at once; a rejection is a verdict that stands
    (:attr:`~langchain_tepa.results.KeyAudit.rejected`) until an execution clears it, so an
    empty key costs one decided round per revocation (an inconclusive round, kept, is tried
    again at the next run). A value revoked while its last execution succeeded (by hand, by a
    correction) is no candidate; nor is any value without the gate (``policy.trial_gate``),
    in a multi-valued key, or while its key has an Active value.

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> memory = TEPAMemory.in_memory(policy="tepa-full")
        >>> _ = memory.observe("shop.api", "v1", source="user")   # the user's claim
        >>> for ok in (True, True, True, False, False):   # two failures: noise or a change?
        ...     _ = memory.record_outcome("shop.api", "v1", ok)
        >>> memory.get("shop.api") is None                 # revoked: every read fails
        True
        >>> [p.value for p in last_answers(memory, memory.precedents(), "default")]
        ['v1']
    """
    if not memory.policy.trial_gate:
        return []
    by_key: dict[str, list[Precedent]] = {}
    for p in precs:
        by_key.setdefault(p.key, []).append(p)
    out: list[Precedent] = []
    for key, mine in by_key.items():
        if memory.policy.is_multi_valued(key) or any(p.state is Lifecycle.ACTIVE for p in mine):
            continue
        last: tuple[tuple[float, str], Precedent] | None = None
        for p in mine:
            t = p.transitions[-1] if p.transitions else None
            if (
                t is None
                or p.state is not Lifecycle.REVOKED
                or t.from_state is not Lifecycle.ACTIVE
                or not p.recent
                or p.recent[-1]
                or not claimed_by_authority(memory.policy, p)
            ):
                continue
            if last is None or (t.time, t.evidence_id) > last[0]:
                last = ((t.time, t.evidence_id), p)
        if (
            last is not None
            and last[1].value_id not in memory.audit(key, namespace=namespace).rejected
        ):
            out.append(last[1])
    return out


def _contends(memory: TEPAMemory, p: Precedent, precs: Sequence[Precedent]) -> bool:
    """Whether TEPA-Rev's rule would promote Hypothesis ``p`` if assertions sufficed.

    That is the promotion rule of the policy without TEPA-Full's demand for an execution
    (:class:`~langchain_tepa.core.trust.SupportPromotion` with ``require_outcome=False``): a
    value believable on its own, or better than the answer and backed in proportion. A trial
    then gathers the execution evidence the rule lacks. A value the rule would not promote
    anyway (the answer outweighs it) is no contender.
    """
    policy = memory.policy
    if policy.is_multi_valued(p.key):
        return True
    if policy.trial_gate and _held(memory, p, precs):
        return True
    rule = SupportPromotion(
        policy.theta_pro,
        policy.n_pro,
        by_net=policy.answer_by == "net_support",
        displace_ratio=policy.displace_ratio,
    )
    state = KeyState(p.namespace, p.key, {q.value_id: q for q in precs if q.key == p.key})
    step = Step(state, Evidence.observation(p.key, p.value, time=0.0, id="contender"))
    return rule.reason(p, step) is not None


def _held(memory: TEPAMemory, p: Precedent, precs: Sequence[Precedent]) -> bool:
    """Whether the trial gate holds ``p`` for trials: a contested change or correction.

    Under ``policy.trial_gate`` (:mod:`langchain_tepa.core.contest`) a Hypothesis without a
    successful outcome of its own, backed now (its current belief) by a source with change
    authority or one that may correct, in a key where another value has successes (Active or
    revoked since) waits for its trials: it is tested at its first statement. A correction the
    gate held stays a contender after its own first success (issue 39): the rules alone would
    leave it behind an answer with more successes, where the user's correction would have
    replaced it at once.
    """
    policy = memory.policy
    if not any(q.key == p.key and q.value_id != p.value_id and successes(q) > 1e-9 for q in precs):
        return False
    if not claimed_by_authority(policy, p):
        return False
    if successes(p) <= 1e-9:
        return True
    history = memory.history(p.key, namespace=p.namespace)
    return newest_correction(history, p.value_id, policy) is not None


def _explicit_candidates(
    memory: TEPAMemory, items: Sequence[Any], default_ns: str
) -> list[Candidate]:
    wanted: list[tuple[str, str, Any]] = []
    for item in items:
        if isinstance(item, Candidate):
            wanted.append((item.namespace, item.key, item.value))
        elif isinstance(item, Mapping) and "key" in item and "value" in item:
            wanted.append((item.get("namespace") or default_ns, item["key"], item["value"]))
        elif isinstance(item, tuple | list) and len(item) == 2:
            wanted.append((default_ns, item[0], item[1]))
        else:
            raise InvalidArgumentError(
                "each candidate must be a (key, value) pair, a dict with 'key' and 'value', "
                f"or a Candidate; got {safe_repr(item)}"
            )
    out: list[Candidate] = []
    for ns, k, v in wanted:
        key = validate_key(k)
        validate_value(v)
        vid = value_identity(v, normalize=memory.policy.normalize_values)
        audit = memory.audit(key, namespace=ns)
        found = [p for p in audit.precedents if p.value_id == vid]
        if not found:
            raise UnknownPrecedentError(
                f"no precedent {safe_repr(v)} under key {safe_repr(key)} in namespace "
                f"{safe_repr(audit.namespace)}; "
                "observe it first or check audit(key)"
            )
        if found[0].state is not Lifecycle.ACTIVE:
            out.append(Candidate.from_precedent(found[0]))
    return out


# ---------------------------------------------------------------------- builders
@runtime_checkable
class TrialBuilder(Protocol):
    """Builds the trials of one candidate.

    Any object with this method, or a plain callable ``(memory, candidate) -> Sequence[Trial]``,
    can be passed as ``trial_builder``.

    Example:
        >>> class OneTrial:
        ...     def build_trials(self, memory, candidate):
        ...         return []
        >>> isinstance(OneTrial(), TrialBuilder)
        True
    """

    def build_trials(self, memory: TEPAMemory, candidate: Candidate) -> Sequence[Trial]:
        """The trials of ``candidate`` (an empty sequence keeps it as a Hypothesis)."""
        ...


TrialBuilderLike = TrialBuilder | Callable[["TEPAMemory", Candidate], Sequence[Trial]]


def resolve_trial_builder(
    builder: TrialBuilderLike | None,
) -> Callable[[TEPAMemory, Candidate], Sequence[Trial]]:
    """A callable ``(memory, candidate) -> trials`` from a builder, a callable or ``None``."""
    if builder is None:
        return DefaultTrialBuilder().build_trials
    if isinstance(builder, TrialBuilder):
        return builder.build_trials
    if callable(builder):
        return builder
    raise InvalidArgumentError(
        "trial_builder must have a build_trials(memory, candidate) method or be a callable "
        f"(memory, candidate) -> list[Trial]; got {type(builder).__name__}"
    )


def _check_count(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidArgumentError(
            f"{name} must be an integer >= {minimum}, got {safe_repr(value)}"
        )
    return value


class DefaultTrialBuilder:
    """Derives the three kinds of trial from the candidate, the incumbent and the archive.

    For each task: ``repeats`` supportive trials; one counterfactual per competitor (the
    incumbent Active values of the key, then archived Revoked values, newest first, at most
    ``max_competitors``; when the key has no other value, the competitor of a new value is
    "no value": the key left out of the view, and a Revoked candidate, with nothing served
    while it is revoked, has no counterfactual; a Revoked competitor is marked
    ``competitor_revoked`` in the trial's metadata, so its arm runs even when the candidate
    fails, and a success there restores it); and one polluted trial holding the candidate
    next to up to ``max_stale`` stale values (skipped when the key has no other value).

    Every view also holds up to ``context_k`` other Active facts of the namespace, the ones most
    similar to the task, as the agent would retrieve them.

    Args:
        tasks: Task descriptions, or a callable ``candidate -> tasks``. Default: one task,
            ``"act on <key>"``.
        repeats: Supportive trials per task (more for non-deterministic agents).
        max_competitors: Counterfactual competitors per task.
        max_stale: Stale values in a polluted trial.
        context_k: Other facts in each view (0: only the key under test).

    Example:
        >>> builder = DefaultTrialBuilder(tasks=["order a pizza"], repeats=2)
        >>> builder.repeats
        2
    """

    def __init__(
        self,
        *,
        tasks: Sequence[str] | Callable[[Candidate], Sequence[str]] | None = None,
        repeats: int = 1,
        max_competitors: int = 2,
        max_stale: int = 3,
        context_k: int = 4,
    ) -> None:
        if tasks is not None and not callable(tasks):
            if isinstance(tasks, str) or not all(isinstance(t, str) and t for t in tasks):
                raise InvalidArgumentError("tasks must be a list of non-empty strings")
            tasks = list(tasks)
        self.tasks = tasks
        self.repeats = _check_count("repeats", repeats, 1)
        self.max_competitors = _check_count("max_competitors", max_competitors, 1)
        self.max_stale = _check_count("max_stale", max_stale, 0)
        self.context_k = _check_count("context_k", context_k, 0)

    def _tasks(self, candidate: Candidate) -> list[str]:
        if self.tasks is None:
            return [f"act on {candidate.key}"]
        tasks = list(self.tasks(candidate)) if callable(self.tasks) else list(self.tasks)
        if not tasks or not all(isinstance(t, str) and t for t in tasks):
            raise InvalidArgumentError(f"tasks for {candidate.label} must be non-empty strings")
        return tasks

    def _context(self, memory: TEPAMemory, candidate: Candidate, task: str) -> list[FactPair]:
        if self.context_k == 0:
            return []
        own = len(memory.audit(candidate.key, namespace=candidate.namespace).precedents)
        docs = memory.retrieve(task, k=self.context_k + own, namespace=candidate.namespace)
        facts = [(d.metadata["key"], d.metadata["value"]) for d in docs]
        return [f for f in facts if f[0] != candidate.key][: self.context_k]

    def build_trials(self, memory: TEPAMemory, candidate: Candidate) -> list[Trial]:
        """The supportive, counterfactual and polluted trials of ``candidate``."""
        audit = memory.audit(candidate.key, namespace=candidate.namespace)
        mine = value_identity(candidate.value, normalize=memory.policy.normalize_values)
        others = [p for p in audit.precedents if p.value_id != mine]
        incumbents = [p for p in audit.active if p.value_id != mine]
        archive = sorted(
            (p for p in others if p.state is Lifecycle.REVOKED),
            key=lambda p: (-(p.revocation.time if p.revocation else 0.0), p.id),
        )
        rivals = [p.value for p in [*incumbents, *archive]]
        # "no value" is the counterfactual of a new value; a Revoked candidate with no rival
        # is judged on its own trials (without it, the key already serves nothing)
        revived = candidate.state == Lifecycle.REVOKED.value
        competitors: list[Any] = rivals[: self.max_competitors] or ([] if revived else [None])
        revoked = {p.value_id for p in archive}
        norm = memory.policy.normalize_values
        # Oldest first, so the candidate (the newest claim) comes last in a polluted view.
        stale = list(reversed(rivals[: self.max_stale]))
        k, v = candidate.key, candidate.value
        trials: list[Trial] = []

        def add(kind: TrialKind, task: str, facts: list[FactPair], **kw: Any) -> None:
            n = sum(1 for t in trials if t.kind is kind)
            tid = f"{candidate.precedent_id}.{kind.value}.{n}"
            trials.append(Trial(tid, kind, candidate.namespace, k, v, task, tuple(facts), **kw))

        for task in self._tasks(candidate):
            ctx = self._context(memory, candidate, task)
            with_candidate = [*ctx, (k, v)]
            for _ in range(self.repeats):
                add(TrialKind.SUPPORTIVE, task, with_candidate, value=v)
            for rival in competitors:
                view = ctx if rival is None else [*ctx, (k, rival)]
                was_revoked = rival is not None and value_identity(rival, normalize=norm) in revoked
                add(
                    TrialKind.COUNTERFACTUAL,
                    task,
                    view,
                    value=rival,
                    control_facts=tuple(with_candidate),
                    metadata={"competitor_revoked": True} if was_revoked else {},
                )
            if stale:
                polluted = [*ctx, *((k, s) for s in stale), (k, v)]
                add(TrialKind.POLLUTED, task, polluted, value=v, stale=tuple(stale))
        return trials

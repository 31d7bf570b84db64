"""The steps of a TEPA-Full trial run, shared by the LangGraph subgraph and :func:`run_trials`.

``select -> build -> execute (parallel) -> judge (records every trial as evidence) ->
[review] -> apply``. The graph's nodes call these methods one by one (with ``Send`` fan-out,
checkpoints and ``interrupt``); :func:`run_trials` calls them in a loop, for benchmarks and
scripts that need no graph.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory(policy="tepa-full")
    >>> _ = memory.observe("user.pizza_topping", "mushroom")
    >>> works = lambda trial: trial.value == "mushroom"   # the world: mushroom is right
    >>> [d.action for d in run_trials(memory, works, key="user.pizza_topping")]
    ['promote']
    >>> memory.get("user.pizza_topping")
    'mushroom'
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.types import Lifecycle
from langchain_tepa.core.values import canonical_json, safe_repr, value_identity
from langchain_tepa.graph.executor import ExecutorLike, TrialExecutor
from langchain_tepa.graph.judge import DEFAULT_THRESHOLD, Decision, TrialJudge, review_decision
from langchain_tepa.graph.posterior import CandidateOdds, candidate_odds, check_trial_cost
from langchain_tepa.graph.trials import (
    Candidate,
    Trial,
    TrialBuilderLike,
    TrialKind,
    TrialResult,
    resolve_trial_builder,
    select_candidates,
)

if TYPE_CHECKING:
    from langchain_tepa.memory import TEPAMemory

__all__ = ["ReviewAnswer", "TrialRunner", "arun_trials", "run_trials"]

ReviewAnswer = bool | str | Mapping[str, bool | str]
_VERDICTS = {
    True: "approve",
    False: "reject",
    "approve": "approve",
    "approved": "approve",
    "reject": "reject",
    "rejected": "reject",
    "keep": "keep",
}


class TrialRunner:
    """Selects candidates, builds and runs their trials, judges, records and applies.

    Args:
        memory: The memory (usually with ``policy="tepa-full"``, where only trials promote).
        executor: The user's executor: a ``Runnable`` or callable (sync or async) taking a
            :class:`~langchain_tepa.graph.trials.Trial` and returning success.
        trial_builder: Builds the trials of a candidate (default:
            :class:`~langchain_tepa.graph.trials.DefaultTrialBuilder`).
        threshold: Fraction of positive trials needed to promote (inclusive).
        reject_below: Fraction under which a candidate is rejected (see
            :class:`~langchain_tepa.graph.judge.TrialJudge`).
        max_concurrency: Trials running at once.
        timeout_s: Seconds per trial (``None``: no limit); a timeout is a negative trial.
        supersede: On promotion in a single-valued key, revoke the Active values that failed
            where the candidate succeeded in a counterfactual trial.
        restore: When a candidate is not promoted, make Active again each Revoked value that
            succeeded in a counterfactual trial where the candidate failed: an incumbent that
            conflicting assertions revoked although it still works (default on).
        contenders_only: Test only Hypotheses that could become their key's answer (see
            :func:`~langchain_tepa.graph.trials.select_candidates`): fewer trials, each of
            which can change what the agent is told.
        sequential: Run each candidate's trials one at a time, those of one execution first
            (supportive, polluted, then counterfactual with its control run), and stop once
            no result of the rest can change the judge's decision
            (:meth:`~langchain_tepa.graph.judge.TrialJudge.settled`): every trial is an
            execution, and one that cannot change the verdict is not worth its cost. A
            candidate that can no longer be promoted is rejected at once (``hopeless`` in
            ``settled``: the rest could only keep it unserved), unless a counterfactual trial
            against a Revoked competitor is pending: that one may restore the competitor, so it
            runs. Only the trials run are recorded. Off by default (every trial runs, in
            parallel).
        trial_cost: What one trial costs relative to a wrong value served to the user, in
            (0, 1] (``None``: not declared, every built trial is run as before). Declared,
            it makes the trials sequential and decides from the odds that a candidate works
            (:mod:`~langchain_tepa.graph.posterior`): what the evidence settles is promoted
            without a trial (a trusted source's claim no execution contradicts; a correction
            right after the value it replaces failed, when a trial costs at least a fifth of
            a failure), and the trials stop once deciding costs less than the next one.

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> runner = TrialRunner(TEPAMemory.in_memory(policy="tepa-full"), lambda t: True)
        >>> runner.run()
        []
    """

    def __init__(
        self,
        memory: TEPAMemory,
        executor: ExecutorLike | TrialExecutor,
        *,
        trial_builder: TrialBuilderLike | None = None,
        threshold: float = DEFAULT_THRESHOLD,
        reject_below: float | None = None,
        max_concurrency: int = 4,
        timeout_s: float | None = None,
        supersede: bool = True,
        restore: bool = True,
        contenders_only: bool = False,
        sequential: bool = False,
        trial_cost: float | None = None,
    ) -> None:
        self.memory = memory
        self.executor = (
            executor
            if isinstance(executor, TrialExecutor)
            else TrialExecutor(executor, timeout_s=timeout_s, max_concurrency=max_concurrency)
        )
        self.judge = TrialJudge(threshold, reject_below)
        self._build = resolve_trial_builder(trial_builder)
        self.supersede = bool(supersede)
        self.restore = bool(restore)
        self.contenders_only = bool(contenders_only)
        self.trial_cost = check_trial_cost(trial_cost)
        self.sequential = bool(sequential) or self.trial_cost is not None

    # ------------------------------------------------------------------ steps
    def select(
        self,
        *,
        key: str | None = None,
        namespace: str | None = None,
        candidates: Sequence[Any] | None = None,
    ) -> list[Candidate]:
        """The candidates (see :func:`~langchain_tepa.graph.trials.select_candidates`)."""
        return select_candidates(
            self.memory,
            key=key,
            namespace=namespace,
            candidates=candidates,
            contenders_only=self.contenders_only,
        )

    def build(self, candidates: Sequence[Candidate]) -> list[Trial]:
        """Every trial of every candidate, checked (right key, unique ids).

        Raises:
            InvalidArgumentError: If the builder returns something else than trials of the
                candidate, or two trials share an id.
        """
        trials: list[Trial] = []
        seen: set[str] = set()
        for cand in candidates:
            built = self._build(self.memory, cand)
            for t in built:
                if not isinstance(t, Trial):
                    raise InvalidArgumentError(
                        f"the trial builder returned {type(t).__name__}; return Trial objects"
                    )
                if (t.namespace, t.key) != (cand.namespace, cand.key) or self._vid(
                    t.candidate
                ) != self._vid(cand.value):
                    raise InvalidArgumentError(
                        f"trial {safe_repr(t.id)} is not a trial of {cand.label}; set its "
                        "namespace, key "
                        "and candidate to the candidate's"
                    )
                if t.id in seen:
                    raise InvalidArgumentError(
                        f"two trials share the id {safe_repr(t.id)}; make ids unique"
                    )
                seen.add(t.id)
                trials.append(t)
        return trials

    def execute(self, trial: Trial) -> TrialResult:
        """Run one trial (errors and timeouts give a negative result)."""
        return self.executor.run(trial)

    async def aexecute(self, trial: Trial) -> TrialResult:
        """Async twin of :meth:`execute`."""
        return await self.executor.arun(trial)

    def decide(
        self,
        candidates: Sequence[Candidate],
        trials: Sequence[Trial],
        results: Sequence[TrialResult],
        *,
        record: bool = True,
    ) -> list[Decision]:
        """Judge each candidate from its results; first write every result as trial evidence.

        A trial without a result (it never ran) counts as negative.
        """
        by_id = {r.trial_id: r for r in results}
        evidence, _ = self._evidence(candidates)
        decisions = []
        for cand in candidates:
            mine = [t for t in trials if self._owner(t) == self._owner_of(cand)]
            if not mine and self._owner_of(cand) in evidence:
                decisions.append(self._settled_by_evidence(cand, evidence[self._owner_of(cand)]))
                continue
            ordered = [
                by_id.get(t.id)
                or TrialResult(t.id, t.kind, False, error="no result", detail="no result")
                for t in mine
            ]
            if record:
                for r in ordered:
                    self.memory.record_trial(
                        cand.key,
                        cand.value,
                        r.positive,
                        trial_kind=r.kind.value,
                        namespace=cand.namespace,
                        detail=r.detail,
                    )
            decisions.append(self.judge.judge(cand, ordered))
        return decisions

    def review(self, decisions: Sequence[Decision], answer: ReviewAnswer) -> list[Decision]:
        """Apply a reviewer's answer to the pending promotions of ``decisions``.

        Args:
            decisions: The judge's decisions.
            answer: ``"approve"``/``True``, ``"reject"``/``False`` or ``"keep"`` for every
                pending promotion, or a mapping from candidate precedent id to one of those.

        Raises:
            InvalidArgumentError: On an unknown verdict, or a mapping that misses a pending id.
        """
        pending = {d.candidate.precedent_id for d in decisions if d.action == "promote"}
        if isinstance(answer, Mapping):
            missing = pending - set(answer)
            if missing:
                raise InvalidArgumentError(
                    f"the review answer misses candidates {sorted(missing)}; give each pending "
                    "id 'approve', 'reject' or 'keep'"
                )
            verdicts = {pid: _verdict(answer[pid]) for pid in pending}
        else:
            verdict = _verdict(answer)
            verdicts = dict.fromkeys(pending, verdict)
        return [
            review_decision(d, verdicts[d.candidate.precedent_id]) if d.action == "promote" else d
            for d in decisions
        ]

    def apply(self, decision: Decision) -> Decision:
        """Write the decision: promote (and supersede beaten incumbents), revoke, or nothing.

        A candidate that is not promoted may still restore a wrongly revoked incumbent (see
        ``restore``).
        """
        cand = decision.candidate
        mem = self.memory
        superseded: list[Any] = []
        restored: list[Any] = []
        if decision.action == "promote":
            before = self._active(cand)
            mem.promote(cand.key, cand.value, reason=decision.reason, namespace=cand.namespace)
            single = not mem.policy.is_multi_valued(cand.key)
            if self.supersede and single:
                superseded = self._supersede(decision)
            if single and decision.total == 0 and decision.reason.startswith(_ON_EVIDENCE):
                superseded += self._replace(cand, decision)
            # under TEPA-Full's trial gate the promotion itself revokes the other Active values
            now = self._active(cand)
            superseded += [v for vid, v in before.items() if vid not in now and v not in superseded]
        elif decision.action == "reject":
            mem.revoke(cand.key, cand.value, reason=decision.reason, namespace=cand.namespace)
        if decision.action != "promote" and self.restore:
            restored = self._restore(decision)
        return dataclasses.replace(
            decision, applied=True, superseded=tuple(superseded), restored=tuple(restored)
        )

    def _active(self, cand: Candidate) -> dict[str, Any]:
        """The Active values of the candidate's key other than it, by value identity."""
        mine = self._vid(cand.value)
        return {
            p.value_id: p.value
            for p in self.memory.audit(cand.key, namespace=cand.namespace).active
            if p.value_id != mine
        }

    def _replace(self, cand: Candidate, decision: Decision) -> list[Any]:
        """A value adopted on the evidence replaces the key's other Active values."""
        out = []
        for value in self._active(cand).values():
            self.memory.revoke(
                cand.key,
                value,
                reason=f"revoked: {_shown(cand.value)} adopted on the evidence, without trials",
                namespace=cand.namespace,
            )
            out.append(value)
        return out

    def _odds(self, cand: Candidate) -> CandidateOdds | None:
        """The candidate's odds before its trials (``None``: no trial cost declared)."""
        if self.trial_cost is None:
            return None
        return candidate_odds(self.memory, cand)

    def _evidence(
        self, cands: Sequence[Candidate]
    ) -> tuple[dict[tuple[str, str, str], CandidateOdds], set[tuple[str, str, str]]]:
        """The candidates the evidence settles, and those that wait for the next run.

        Without a declared trial cost: none. A single-valued key adopts at most one value on
        the evidence per run (the likeliest); its other candidates wait (no trial), and are
        judged again against it at the next run.
        """
        if self.trial_cost is None:
            return {}, set()
        best: dict[tuple[str, str], tuple[Candidate, CandidateOdds]] = {}
        settled: dict[tuple[str, str, str], CandidateOdds] = {}
        for cand in cands:
            odds = candidate_odds(self.memory, cand)
            if odds.verdict(self.trial_cost) != "promote":
                continue
            if self.memory.policy.is_multi_valued(cand.key):
                settled[self._owner_of(cand)] = odds
                continue
            where = (cand.namespace, cand.key)
            if where not in best or odds.odds > best[where][1].odds:
                best[where] = (cand, odds)
        settled.update({self._owner_of(c): o for c, o in best.values()})
        waiting = {
            self._owner_of(c)
            for c in cands
            if (c.namespace, c.key) in best and self._owner_of(c) not in settled
        }
        return settled, waiting

    def _likeliest_first(self, cands: Sequence[Candidate]) -> list[Candidate]:
        """With a declared trial cost, the candidates likeliest to work first.

        By their odds before any trial, then the newest claim: a key that adopts one in this
        run does not try the others before its next read.
        """
        if self.trial_cost is None:
            return list(cands)
        newest: dict[tuple[str, str, str], float] = {}
        for where in {(c.namespace, c.key) for c in cands}:
            for p in self.memory.audit(where[1], namespace=where[0]).precedents:
                newest[(where[0], where[1], p.id)] = p.last_support_at or 0.0
        order = {
            id(c): (
                -candidate_odds(self.memory, c).odds,
                -newest.get((c.namespace, c.key, c.precedent_id), 0.0),
            )
            for c in cands
        }
        return sorted(cands, key=lambda c: order[id(c)])

    def _settled_by_evidence(self, cand: Candidate, odds: CandidateOdds) -> Decision:
        """A promotion without trials: the evidence settles the candidate."""
        assert self.trial_cost is not None
        chance = "" if odds.odds == float("inf") else f" (works with odds {odds.odds:.3g})"
        reason = (
            f"{_ON_EVIDENCE}: {odds.basis}{chance}; a trial costs {self.trial_cost:g} of a "
            "wrong answer"
        )
        return Decision(cand, "promote", reason, 0, 0, 0)

    def _restore(self, decision: Decision) -> list[Any]:
        """Promote the Revoked competitors that succeeded where the candidate failed."""
        cand = decision.candidate
        proven = {
            self._vid(r.competitor): r.competitor
            for r in decision.results
            if r.kind is TrialKind.COUNTERFACTUAL
            and r.competitor is not None
            and r.competitor_success is True
            and r.success is False
        }
        out = []
        for p in self.memory.audit(cand.key, namespace=cand.namespace).precedents:
            if p.value_id in proven and p.state is Lifecycle.REVOKED:
                self.memory.promote(
                    cand.key,
                    p.value,
                    reason=f"promoted: restored, it succeeded in a counterfactual trial where "
                    f"the challenger {_shown(cand.value)} failed",
                    namespace=cand.namespace,
                )
                out.append(p.value)
        return out

    def _supersede(self, decision: Decision) -> list[Any]:
        cand = decision.candidate
        beaten = {
            self._vid(r.competitor): r.competitor
            for r in decision.results
            if r.kind is TrialKind.COUNTERFACTUAL and r.positive and r.competitor is not None
        }
        out = []
        for p in self.memory.audit(cand.key, namespace=cand.namespace).active:
            if p.value_id in beaten and p.value_id != self._vid(cand.value):
                self.memory.revoke(
                    cand.key,
                    p.value,
                    reason=f"revoked: superseded by {_shown(cand.value)}, which succeeded in a "
                    "counterfactual trial where this value failed",
                    namespace=cand.namespace,
                )
                out.append(p.value)
        return out

    # ------------------------------------------------------------------ whole runs
    def run(
        self,
        *,
        key: str | None = None,
        namespace: str | None = None,
        candidates: Sequence[Any] | None = None,
        review: ReviewAnswer | None = None,
    ) -> list[Decision]:
        """One whole run without a graph (trials in a thread pool of ``max_concurrency``).

        Args:
            key: Only the Hypotheses of this key (default: every key of the namespace).
            namespace: Scope (default: the memory's namespace).
            candidates: Explicit candidates instead (see ``select_candidates``).
            review: A reviewer's answer applied to the promotions before they are written
                (the graph asks for it with ``interrupt`` instead).

        Returns:
            One applied decision per candidate.
        """
        cands = self.select(key=key, namespace=namespace, candidates=candidates)
        trials = self.build(cands)
        if self.sequential:
            trials, results = self._run_sequential(cands, trials)
        elif len(trials) <= 1 or self.executor.max_concurrency == 1:
            results = [self.execute(t) for t in trials]
        else:
            workers = min(self.executor.max_concurrency, len(trials))
            with concurrent.futures.ThreadPoolExecutor(workers, "tepa-trials") as pool:
                results = list(pool.map(self.execute, trials))
        decisions = self.decide(cands, trials, results)
        if review is not None:
            decisions = self.review(decisions, review)
        return [self.apply(d) for d in decisions]

    async def arun(
        self,
        *,
        key: str | None = None,
        namespace: str | None = None,
        candidates: Sequence[Any] | None = None,
        review: ReviewAnswer | None = None,
    ) -> list[Decision]:
        """Async twin of :meth:`run` (trials run as concurrent tasks)."""
        cands = await asyncio.to_thread(
            self.select, key=key, namespace=namespace, candidates=candidates
        )
        trials = await asyncio.to_thread(self.build, cands)
        if self.sequential:
            trials, results = await asyncio.to_thread(self._run_sequential, cands, trials)
        else:
            results = list(await asyncio.gather(*(self.aexecute(t) for t in trials)))
        decisions = await asyncio.to_thread(self.decide, cands, trials, results)
        if review is not None:
            decisions = self.review(decisions, review)
        return [await asyncio.to_thread(self.apply, d) for d in decisions]

    def execute_all(
        self, cands: Sequence[Candidate], trials: Sequence[Trial]
    ) -> tuple[list[Trial], list[TrialResult]]:
        """Run the trials of ``cands`` one at a time: the trials run and their results.

        With ``sequential`` each candidate's trials stop once its decision is settled; without,
        every trial runs. Pass both lists to :meth:`decide`.
        """
        if self.sequential:
            return self._run_sequential(cands, trials)
        return list(trials), [self.execute(t) for t in trials]

    def _run_sequential(
        self, cands: Sequence[Candidate], trials: Sequence[Trial]
    ) -> tuple[list[Trial], list[TrialResult]]:
        """Each candidate's trials, cheapest first, until its decision is settled."""
        ran: list[Trial] = []
        results: list[TrialResult] = []
        evidence, waiting = self._evidence(cands)
        adopted: set[tuple[str, str]] = set()
        for cand in self._likeliest_first(cands):
            where = (cand.namespace, cand.key)
            if where in adopted:
                continue  # its key adopted a value in this run: judged against it next time
            mine = sorted(
                (t for t in trials if self._owner(t) == self._owner_of(cand)),
                key=lambda t: _COST_ORDER[t.kind],
            )
            if self._owner_of(cand) in evidence or self._owner_of(cand) in waiting:
                continue  # the evidence settles it, or another value of its key: no trial
            odds = self._odds(cand)
            got: list[TrialResult] = []
            for i, trial in enumerate(mine):
                got.append(self.execute(trial))
                ran.append(trial)
                rest = mine[i + 1 :]
                if odds is not None and self.trial_cost is not None and rest:
                    verdict = odds.after([r.positive for r in got]).verdict(
                        self.trial_cost, tried=True
                    )
                    supported = any(r.positive and r.kind is TrialKind.SUPPORTIVE for r in got)
                    if verdict == "reject" or (verdict == "promote" and supported):
                        break
                # a pending arm against a Revoked competitor may restore it: it still runs
                hopeless = not any(t.metadata.get("competitor_revoked") for t in rest)
                kinds = [t.kind for t in rest]
                if rest and self.judge.settled(cand, got, kinds, hopeless=hopeless) is not None:
                    break
            if (
                odds is not None
                and not self.memory.policy.is_multi_valued(cand.key)
                and self.judge.judge(cand, got).action == "promote"
            ):
                adopted.add(where)
            results.extend(got)
        return ran, results

    # ------------------------------------------------------------------ helpers
    def _vid(self, value: Any) -> str:
        return value_identity(value, normalize=self.memory.policy.normalize_values)

    def _owner(self, trial: Trial) -> tuple[str, str, str]:
        return (trial.namespace, trial.key, self._vid(trial.candidate))

    def _owner_of(self, cand: Candidate) -> tuple[str, str, str]:
        return (cand.namespace, cand.key, self._vid(cand.value))


_ON_EVIDENCE = "promoted without trials"
"""The reason's opening of a promotion the evidence settled (``trial_cost`` declared)."""

_COST_ORDER = {TrialKind.SUPPORTIVE: 0, TrialKind.POLLUTED: 1, TrialKind.COUNTERFACTUAL: 2}
"""Sequential trials run in this order: one execution each, then two (a counterfactual trial
runs its control as well)."""


def _shown(value: Any) -> str:
    return repr(value) if isinstance(value, str) else canonical_json(value)


def _verdict(answer: object) -> str:
    if isinstance(answer, bool | str):
        key: bool | str = answer.strip().lower() if isinstance(answer, str) else answer
        if key in _VERDICTS:
            return _VERDICTS[key]
    raise InvalidArgumentError(
        "a review answer is 'approve' (or True), 'reject' (or False) or 'keep'; got "
        f"{safe_repr(answer)}"
    )


def run_trials(
    memory: TEPAMemory,
    executor: ExecutorLike,
    *,
    key: str | None = None,
    namespace: str | None = None,
    candidates: Sequence[Any] | None = None,
    trial_builder: TrialBuilderLike | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    reject_below: float | None = None,
    max_concurrency: int = 4,
    timeout_s: float | None = None,
    supersede: bool = True,
    restore: bool = True,
    contenders_only: bool = False,
) -> list[Decision]:
    """Run TEPA-Full trials once, synchronously, without a graph (benchmarks, scripts).

    The same steps as the graph of :func:`~langchain_tepa.graph.builder.build_trial_graph`:
    select the Hypotheses of ``key`` (or of every key of ``namespace``), build and run their
    trials, record every result as trial evidence, judge, and promote, keep or reject; a
    rejected candidate's counterfactual trials restore a revoked incumbent that succeeded where
    it failed (``restore``). Options as in :class:`TrialRunner`.

    Returns:
        One applied :class:`~langchain_tepa.graph.judge.Decision` per candidate (empty when
        there is no Hypothesis).

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> memory = TEPAMemory.in_memory(policy="tepa-full")
        >>> run_trials(memory, lambda trial: True)
        []
    """
    runner = TrialRunner(
        memory,
        executor,
        trial_builder=trial_builder,
        threshold=threshold,
        reject_below=reject_below,
        max_concurrency=max_concurrency,
        timeout_s=timeout_s,
        supersede=supersede,
        restore=restore,
        contenders_only=contenders_only,
    )
    return runner.run(key=key, namespace=namespace, candidates=candidates)


async def arun_trials(
    memory: TEPAMemory,
    executor: ExecutorLike,
    *,
    key: str | None = None,
    namespace: str | None = None,
    candidates: Sequence[Any] | None = None,
    trial_builder: TrialBuilderLike | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    reject_below: float | None = None,
    max_concurrency: int = 4,
    timeout_s: float | None = None,
    supersede: bool = True,
    restore: bool = True,
    contenders_only: bool = False,
) -> list[Decision]:
    """Async twin of :func:`run_trials`."""
    runner = TrialRunner(
        memory,
        executor,
        trial_builder=trial_builder,
        threshold=threshold,
        reject_below=reject_below,
        max_concurrency=max_concurrency,
        timeout_s=timeout_s,
        supersede=supersede,
        restore=restore,
        contenders_only=contenders_only,
    )
    return await runner.arun(key=key, namespace=namespace, candidates=candidates)

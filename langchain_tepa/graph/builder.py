"""`build_trial_graph`: TEPA-Full trial-by-execution as a LangGraph ``StateGraph``.

``select_candidates -> build_trials -> run_trial (one Send per trial, in parallel) -> judge ->
[review (interrupt)] -> apply``. Every node calls the matching step of
:class:`~langchain_tepa.graph.runner.TrialRunner`, so the graph and :func:`run_trials` decide
alike. The state holds only JSON values, so any checkpointer can save it.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory(policy="tepa-full")
    >>> _ = memory.observe("user.pizza_topping", "mushroom")
    >>> graph = build_trial_graph(memory, lambda trial: trial.value == "mushroom")
    >>> out = graph.invoke({"key": "user.pizza_topping"})
    >>> [(d["action"], d["reason"]) for d in out["decisions"]]
    [('promote', 'promoted: trials 2/2 positive (100% >= 60%), supportive success')]
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Annotated, Any, Literal

from langchain_core.runnables import RunnableLambda
from langgraph.graph import END, START, StateGraph
from langgraph.types import Overwrite, Send, interrupt
from typing_extensions import TypedDict

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.graph.executor import ExecutorLike, TrialExecutor
from langchain_tepa.graph.judge import DEFAULT_THRESHOLD, Decision
from langchain_tepa.graph.runner import TrialRunner
from langchain_tepa.graph.trials import Candidate, Trial, TrialBuilderLike, TrialResult

if TYPE_CHECKING:
    from langgraph.graph.state import CompiledStateGraph
    from langgraph.types import Checkpointer

    from langchain_tepa.memory import TEPAMemory

__all__ = [
    "TrialGraphInput",
    "TrialGraphOutput",
    "TrialGraphState",
    "TrialTask",
    "build_trial_graph",
]


class TrialGraphInput(TypedDict, total=False):
    """Input of the trial graph (every field optional).

    Attributes:
        key: Test only the Hypotheses of this key.
        namespace: Scope (default: the memory's namespace).
        candidates: Explicit candidates: ``[key, value]`` pairs or ``{"key", "value"}`` dicts.
    """

    key: str | None
    namespace: str | None
    candidates: list[Any] | None


class TrialGraphOutput(TypedDict, total=False):
    """Output of the trial graph: JSON dicts of candidates, trials, results and decisions.

    ``Decision.from_dict`` turns a decision back into an object.
    """

    selected: list[dict[str, Any]]
    trials: list[dict[str, Any]]
    results: list[dict[str, Any]]
    decisions: list[dict[str, Any]]


class TrialGraphState(TrialGraphInput, TrialGraphOutput, total=False):
    """The whole state; ``results`` accumulates the parallel ``run_trial`` writes."""

    results: Annotated[list[dict[str, Any]], operator.add]


class TrialTask(TypedDict):
    """The ``Send`` payload of one ``run_trial`` task."""

    trial: dict[str, Any]


def build_trial_graph(
    memory: TEPAMemory,
    executor: ExecutorLike,
    *,
    trial_builder: TrialBuilderLike | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    reject_below: float | None = None,
    max_concurrency: int = 4,
    timeout_s: float | None = None,
    require_approval: bool = False,
    supersede: bool = True,
    restore: bool = True,
    contenders_only: bool = False,
    checkpointer: Checkpointer = None,
    name: str = "tepa_full_trials",
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The TEPA-Full trial-by-execution graph over ``memory``.

    Args:
        memory: The memory whose Hypotheses are tested (``policy="tepa-full"`` makes trials the
            only way to promotion).
        executor: The user's executor: a LangChain ``Runnable`` or a callable, sync or
            ``async``, taking a :class:`~langchain_tepa.graph.trials.Trial` and returning
            success (``bool``).
        trial_builder: Builds each candidate's trials (default:
            :class:`~langchain_tepa.graph.trials.DefaultTrialBuilder`).
        threshold: Fraction of positive trials needed to promote (default 0.6; inclusive);
            at least one supportive success is needed as well.
        reject_below: Candidates under this fraction are rejected (revoked); see
            :class:`~langchain_tepa.graph.judge.TrialJudge`.
        max_concurrency: Trials running at once.
        timeout_s: Seconds per trial; a timeout (like an exception) is a negative trial.
        require_approval: Pause with ``interrupt`` before any promotion; resume with
            ``Command(resume="approve" | "reject" | "keep")`` or a dict from candidate
            precedent id to one of those. Needs a checkpointer: a saver here, ``True`` for the
            parent's when this graph is a subgraph node (or use :func:`tepa_full_node`).
        supersede: On promotion, revoke Active values beaten in a counterfactual trial.
        restore: When a candidate is not promoted, make Active again each Revoked value that
            succeeded in a counterfactual trial where the candidate failed (a wrongly revoked
            incumbent). On by default.
        contenders_only: Test only the Hypotheses that could become their key's answer.
        checkpointer: ``InMemorySaver()``, ``SqliteSaver(...)``, ... (``None``: none, or the
            parent graph's when used as a subgraph).
        name: The compiled graph's name.

    Returns:
        The compiled graph. Input: :class:`TrialGraphInput`; output: :class:`TrialGraphOutput`.

    Raises:
        InvalidArgumentError: On invalid options, or ``require_approval`` without a checkpointer.
    """
    if require_approval and checkpointer is None:
        raise InvalidArgumentError(
            "require_approval=True pauses the graph, which needs a checkpointer to resume: pass "
            "checkpointer=InMemorySaver() (or SqliteSaver, ...); as a subgraph pass "
            "checkpointer=True (the parent's), or use tepa_full_node"
        )
    return _compile(
        memory,
        executor,
        trial_builder=trial_builder,
        threshold=threshold,
        reject_below=reject_below,
        max_concurrency=max_concurrency,
        timeout_s=timeout_s,
        require_approval=require_approval,
        supersede=supersede,
        restore=restore,
        contenders_only=contenders_only,
        checkpointer=checkpointer,
        name=name,
    )


def _compile(
    memory: TEPAMemory,
    executor: ExecutorLike,
    *,
    trial_builder: TrialBuilderLike | None,
    threshold: float,
    reject_below: float | None,
    max_concurrency: int,
    timeout_s: float | None,
    require_approval: bool,
    supersede: bool,
    checkpointer: Checkpointer,
    name: str,
    restore: bool = True,
    contenders_only: bool = False,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    runner = TrialRunner(
        memory,
        TrialExecutor(executor, timeout_s=timeout_s, max_concurrency=max_concurrency),
        trial_builder=trial_builder,
        threshold=threshold,
        reject_below=reject_below,
        supersede=supersede,
        restore=restore,
        contenders_only=contenders_only,
    )

    def select_candidates(state: TrialGraphState) -> dict[str, Any]:
        cands = runner.select(
            key=state.get("key"),
            namespace=state.get("namespace"),
            candidates=state.get("candidates"),
        )
        return {
            "selected": [c.to_dict() for c in cands],
            "trials": [],
            "results": Overwrite([]),
            "decisions": [],
        }

    def build_trials(state: TrialGraphState) -> dict[str, Any]:
        cands = [Candidate.from_dict(c) for c in state.get("selected", [])]
        return {"trials": [t.to_dict() for t in runner.build(cands)]}

    def fan_out(state: TrialGraphState) -> list[Send] | Literal["judge"]:
        trials = state.get("trials", [])
        if not trials:
            return "judge"
        return [Send("run_trial", TrialTask(trial=t)) for t in trials]

    def run_trial(task: TrialTask) -> dict[str, Any]:
        result = runner.execute(Trial.from_dict(task["trial"]))
        return {"results": [result.to_dict()]}

    async def arun_trial(task: TrialTask) -> dict[str, Any]:
        result = await runner.aexecute(Trial.from_dict(task["trial"]))
        return {"results": [result.to_dict()]}

    def judge(state: TrialGraphState) -> dict[str, Any]:
        decisions = runner.decide(
            [Candidate.from_dict(c) for c in state.get("selected", [])],
            [Trial.from_dict(t) for t in state.get("trials", [])],
            [TrialResult.from_dict(r) for r in state.get("results", [])],
        )
        return {"decisions": [d.to_dict() for d in decisions]}

    def needs_review(state: TrialGraphState) -> Literal["review", "apply"]:
        pending = any(d["action"] == "promote" for d in state.get("decisions", []))
        return "review" if require_approval and pending else "apply"

    def review(state: TrialGraphState) -> dict[str, Any]:
        decisions = [Decision.from_dict(d) for d in state.get("decisions", [])]
        pending = [d for d in decisions if d.action == "promote"]
        answer = interrupt(
            {
                "question": "Promote these candidates to Active?",
                "answer_with": "'approve', 'reject', 'keep', or {precedent_id: verdict}",
                "promotions": [
                    {
                        "id": d.candidate.precedent_id,
                        "namespace": d.namespace,
                        "key": d.key,
                        "value": d.value,
                        "reason": d.reason,
                        "trials": [r.detail for r in d.results],
                    }
                    for d in pending
                ],
            }
        )
        return {"decisions": [d.to_dict() for d in runner.review(decisions, answer)]}

    def apply(state: TrialGraphState) -> dict[str, Any]:
        decisions = [Decision.from_dict(d) for d in state.get("decisions", [])]
        return {"decisions": [runner.apply(d).to_dict() for d in decisions]}

    graph = StateGraph(
        TrialGraphState, input_schema=TrialGraphInput, output_schema=TrialGraphOutput
    )
    graph.add_node("select_candidates", select_candidates)
    graph.add_node("build_trials", build_trials)
    graph.add_node("run_trial", RunnableLambda(run_trial, afunc=arun_trial, name="run_trial"))
    graph.add_node("judge", judge)
    graph.add_node("review", review)
    graph.add_node("apply", apply)
    graph.add_edge(START, "select_candidates")
    graph.add_edge("select_candidates", "build_trials")
    graph.add_conditional_edges("build_trials", fan_out, ["run_trial", "judge"])
    graph.add_edge("run_trial", "judge")
    graph.add_conditional_edges("judge", needs_review, ["review", "apply"])
    graph.add_edge("review", "apply")
    graph.add_edge("apply", END)
    return graph.compile(checkpointer=checkpointer, name=name)

"""TEPA-Full: trial-by-execution before promotion, as a LangGraph subgraph and node.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> from langchain_tepa.graph import build_trial_graph
    >>> memory = TEPAMemory.in_memory(policy="tepa-full")
    >>> _ = memory.observe("user.pizza_topping", "mushroom")
    >>> graph = build_trial_graph(memory, lambda trial: trial.value == "mushroom")
    >>> graph.invoke({"key": "user.pizza_topping"})["decisions"][0]["action"]
    'promote'
"""

from __future__ import annotations

from langchain_tepa.graph.builder import (
    TrialGraphInput,
    TrialGraphOutput,
    TrialGraphState,
    build_trial_graph,
)
from langchain_tepa.graph.executor import ExecutorLike, TrialExecutor, coerce_success
from langchain_tepa.graph.judge import DEFAULT_THRESHOLD, Decision, DecisionAction, TrialJudge
from langchain_tepa.graph.node import tepa_full_node
from langchain_tepa.graph.runner import ReviewAnswer, TrialRunner, arun_trials, run_trials
from langchain_tepa.graph.trials import (
    Candidate,
    DefaultTrialBuilder,
    Trial,
    TrialBuilder,
    TrialKind,
    TrialResult,
    select_candidates,
)

__all__ = [
    "DEFAULT_THRESHOLD",
    "Candidate",
    "Decision",
    "DecisionAction",
    "DefaultTrialBuilder",
    "ExecutorLike",
    "ReviewAnswer",
    "Trial",
    "TrialBuilder",
    "TrialExecutor",
    "TrialGraphInput",
    "TrialGraphOutput",
    "TrialGraphState",
    "TrialJudge",
    "TrialKind",
    "TrialResult",
    "TrialRunner",
    "arun_trials",
    "build_trial_graph",
    "coerce_success",
    "run_trials",
    "select_candidates",
    "tepa_full_node",
]

"""`tepa_full_node`: the trial graph as one node of an existing ``StateGraph``.

The node reads what to test from the parent's state (``tepa_key``, ``tepa_namespace``,
``tepa_candidates`` by default; with none of them, every Hypothesis of the namespace), runs the
trial subgraph (parallel trials, checkpoints and approval interrupts go through the parent's
checkpointer) and writes the decisions to ``tepa_decisions``.

Example:
    >>> from typing_extensions import TypedDict
    >>> from langgraph.graph import StateGraph, START, END
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory(policy="tepa-full")
    >>> class State(TypedDict, total=False):
    ...     tepa_key: str
    ...     tepa_decisions: list
    >>> def remember(state: State) -> State:
    ...     memory.observe("user.pizza_topping", "mushroom")
    ...     return {"tepa_key": "user.pizza_topping"}
    >>> builder = StateGraph(State)
    >>> _ = builder.add_node("remember", remember)
    >>> _ = builder.add_node("trials", tepa_full_node(memory, lambda t: t.value == "mushroom"))
    >>> _ = builder.add_edge(START, "remember")
    >>> _ = builder.add_edge("remember", "trials")
    >>> _ = builder.add_edge("trials", END)
    >>> builder.compile().invoke({})["tepa_decisions"][0]["action"]
    'promote'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableConfig, RunnableLambda

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.graph.builder import TrialGraphInput, _compile
from langchain_tepa.graph.executor import ExecutorLike
from langchain_tepa.graph.judge import DEFAULT_THRESHOLD

if TYPE_CHECKING:
    from langchain_tepa.memory import TEPAMemory

__all__ = ["tepa_full_node"]


def _field(state: Any, name: str) -> Any:
    if isinstance(state, Mapping):
        return state.get(name)
    return getattr(state, name, None)


def tepa_full_node(
    memory: TEPAMemory,
    executor: ExecutorLike,
    *,
    key: str | None = None,
    namespace: str | None = None,
    key_field: str = "tepa_key",
    namespace_field: str = "tepa_namespace",
    candidates_field: str = "tepa_candidates",
    output_field: str = "tepa_decisions",
    name: str = "tepa_full",
    **graph_kwargs: Any,
) -> RunnableLambda[Any, dict[str, Any]]:
    """A node (sync and async) that runs TEPA-Full trials inside a parent graph.

    Args:
        memory: The memory.
        executor: The user's executor (see :func:`~langchain_tepa.graph.build_trial_graph`).
        key: Key to test when the state names none (default: every key).
        namespace: Namespace when the state names none (default: the memory's).
        key_field: State field holding the key to test.
        namespace_field: State field holding the namespace.
        candidates_field: State field holding explicit candidates (``[key, value]`` pairs).
        output_field: State field the decisions (JSON dicts) are written to.
        name: The node runnable's name.
        **graph_kwargs: ``trial_builder``, ``threshold``, ``reject_below``,
            ``max_concurrency``, ``timeout_s``, ``require_approval``, ``supersede``,
            ``restore``, ``contenders_only`` of
            :func:`~langchain_tepa.graph.build_trial_graph` (the checkpointer is the parent's).

    Returns:
        A runnable to pass to ``StateGraph.add_node``.
    """
    if "checkpointer" in graph_kwargs:
        raise InvalidArgumentError(
            "tepa_full_node uses the parent graph's checkpointer; compile the parent with one"
        )
    for field_name in (key_field, namespace_field, candidates_field, output_field):
        if not isinstance(field_name, str) or not field_name:
            raise InvalidArgumentError("state field names must be non-empty strings")
    options: dict[str, Any] = {
        "trial_builder": None,
        "threshold": DEFAULT_THRESHOLD,
        "reject_below": None,
        "max_concurrency": 4,
        "timeout_s": None,
        "require_approval": False,
        "supersede": True,
        "restore": True,
        "contenders_only": False,
        "name": "tepa_full_trials",
    }
    unknown = set(graph_kwargs) - set(options)
    if unknown:
        raise InvalidArgumentError(f"unknown options {sorted(unknown)}; use {sorted(options)}")
    options.update(graph_kwargs)
    # No checkpointer of its own: invoked inside a node, the graph uses the parent's.
    graph = _compile(memory, executor, checkpointer=None, **options)

    def make_input(state: Any) -> TrialGraphInput:
        return TrialGraphInput(
            key=_field(state, key_field) or key,
            namespace=_field(state, namespace_field) or namespace,
            candidates=_field(state, candidates_field),
        )

    def node(state: Any, config: RunnableConfig) -> dict[str, Any]:
        out = graph.invoke(make_input(state), config)
        return {output_field: out.get("decisions", [])}

    async def anode(state: Any, config: RunnableConfig) -> dict[str, Any]:
        out = await graph.ainvoke(make_input(state), config)
        return {output_field: out.get("decisions", [])}

    return RunnableLambda(node, afunc=anode, name=name)

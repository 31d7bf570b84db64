"""Checkpoints, human approval (interrupt / resume), the node in a parent graph, the drawing."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command
from typing_extensions import TypedDict

from langchain_tepa import EvidenceKind, InvalidArgumentError, TEPAMemory
from langchain_tepa.graph import Trial, build_trial_graph, tepa_full_node

KEY = "user.pizza"


def works(trial: Trial) -> bool:
    values = trial.lookup(KEY)
    return bool(values) and values[-1] == "mushroom"


def make_memory(tick: Callable[[], float]) -> TEPAMemory:
    mem = TEPAMemory.in_memory(policy="tepa-full", clock=tick)
    mem.observe(KEY, "mushroom")
    return mem


def thread(name: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": name}}


def state_of(memory: TEPAMemory, value: str = "mushroom") -> str:
    return next(p.state.value for p in memory.audit(KEY).precedents if p.value == value)


@pytest.mark.parametrize(
    ("answer", "state", "reason_start"),
    [
        ("approve", "active", "promoted: trials 2/2 positive"),
        (True, "active", "promoted: trials 2/2 positive"),
        ("reject", "revoked", "rejected: reviewer declined the promotion (trials 2/2"),
        ("keep", "hypothesis", None),
    ],
)
def test_interrupt_then_resume(
    tick: Callable[[], float], answer: Any, state: str, reason_start: str | None
) -> None:
    memory = make_memory(tick)
    graph = build_trial_graph(memory, works, require_approval=True, checkpointer=InMemorySaver())
    out = graph.invoke({"key": KEY}, thread("t1"))
    (pause,) = out["__interrupt__"]
    (promotion,) = pause.value["promotions"]
    assert (promotion["key"], promotion["value"]) == (KEY, "mushroom")
    assert promotion["reason"] == "promoted: trials 2/2 positive (100% >= 60%), supportive success"
    assert graph.get_state(thread("t1")).next == ("review",)
    # Paused: trials are already on record, nothing is promoted yet.
    assert state_of(memory) == "hypothesis"
    assert sum(e.kind is EvidenceKind.TRIAL for e in memory.history(KEY)) == 2

    out = graph.invoke(Command(resume=answer), thread("t1"))
    (decision,) = out["decisions"]
    assert decision["applied"] is True
    assert state_of(memory) == state
    last = next(p for p in memory.audit(KEY).precedents).transitions[-1].reason
    if reason_start is not None:
        assert last.startswith(reason_start)
    assert graph.get_state(thread("t1")).next == ()
    # Resuming did not run the trials again.
    assert sum(e.kind is EvidenceKind.TRIAL for e in memory.history(KEY)) == 2


def test_resume_per_candidate(tick: Callable[[], float]) -> None:
    memory = make_memory(tick)
    memory.observe("user.city", "Lyon")
    graph = build_trial_graph(
        memory,
        lambda t: bool(t.lookup(t.key)),  # the agent needs the fact, any value will do
        require_approval=True,
        checkpointer=InMemorySaver(),
    )
    out = graph.invoke({}, thread("t"))
    ids = {p["key"]: p["id"] for p in out["__interrupt__"][0].value["promotions"]}
    out = graph.invoke(
        Command(resume={ids[KEY]: "approve", ids["user.city"]: "reject"}), thread("t")
    )
    assert {d["candidate"]["key"]: d["review"] for d in out["decisions"]} == {
        KEY: "approved",
        "user.city": "rejected",
    }
    assert memory.get(KEY) == "mushroom"
    assert memory.get("user.city") is None


def test_no_pause_without_promotion(tick: Callable[[], float]) -> None:
    memory = make_memory(tick)
    graph = build_trial_graph(
        memory, lambda t: False, require_approval=True, checkpointer=InMemorySaver()
    )
    out = graph.invoke({"key": KEY}, thread("t"))
    assert "__interrupt__" not in out
    assert out["decisions"][0]["action"] == "reject"


def test_sqlite_checkpoint_survives_a_restart(tmp_path: Path, tick: Callable[[], float]) -> None:
    sqlite_mod = pytest.importorskip(
        "langgraph.checkpoint.sqlite",
        reason="SqliteSaver is the optional package langgraph-checkpoint-sqlite (test extra)",
    )
    memory = make_memory(tick)
    path = tmp_path / "checkpoints.sqlite"
    calls: list[str] = []

    def executor(trial: Trial) -> bool:
        calls.append(trial.id)
        return works(trial)

    with sqlite3.connect(path, check_same_thread=False) as conn:
        graph = build_trial_graph(
            memory, executor, require_approval=True, checkpointer=sqlite_mod.SqliteSaver(conn)
        )
        assert "__interrupt__" in graph.invoke({"key": KEY}, thread("s"))
    ran = len(calls)

    # A new process would build the graph again over the same checkpoint file.
    with sqlite3.connect(path, check_same_thread=False) as conn:
        graph = build_trial_graph(
            memory, executor, require_approval=True, checkpointer=sqlite_mod.SqliteSaver(conn)
        )
        assert graph.get_state(thread("s")).next == ("review",)
        out = graph.invoke(Command(resume="approve"), thread("s"))
    assert out["decisions"][0]["review"] == "approved"
    assert memory.get(KEY) == "mushroom"
    assert len(calls) == ran  # the trials were not run again


def test_repeated_runs_on_one_thread_do_not_mix_results(tick: Callable[[], float]) -> None:
    memory = make_memory(tick)
    graph = build_trial_graph(memory, works, checkpointer=InMemorySaver())
    first = graph.invoke({"key": KEY}, thread("x"))
    assert len(first["results"]) == 2
    memory.observe(KEY, "olives")
    second = graph.invoke({"key": KEY}, thread("x"))
    assert [d["candidate"]["value"] for d in second["decisions"]] == ["olives"]
    assert len(second["results"]) == len(second["trials"]) == 3
    assert {r["trial_id"] for r in second["results"]} == {t["id"] for t in second["trials"]}


def test_nothing_to_test(tick: Callable[[], float]) -> None:
    memory = TEPAMemory.in_memory(policy="tepa-full", clock=tick)
    out = build_trial_graph(memory, works).invoke({})
    assert out["decisions"] == []


class ParentState(TypedDict, total=False):
    tepa_key: str
    tepa_decisions: list[dict[str, Any]]
    log: str


def parent_graph(memory: TEPAMemory, **kwargs: Any) -> Any:
    def remember(state: ParentState) -> ParentState:
        memory.observe(KEY, "mushroom")
        return {"tepa_key": KEY, "log": "remembered"}

    builder = StateGraph(ParentState)
    builder.add_node("remember", remember)
    builder.add_node("trials", tepa_full_node(memory, works, **kwargs))
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "trials")
    builder.add_edge("trials", END)
    return builder.compile(checkpointer=InMemorySaver())


def test_node_in_parent_graph_with_approval(tick: Callable[[], float]) -> None:
    memory = TEPAMemory.in_memory(policy="tepa-full", clock=tick)
    graph = parent_graph(memory, require_approval=True)
    out = graph.invoke({}, thread("p"))
    assert out["__interrupt__"][0].value["promotions"][0]["value"] == "mushroom"
    assert memory.get(KEY) is None
    out = graph.invoke(Command(resume="approve"), thread("p"))
    assert out["tepa_decisions"][0]["review"] == "approved"
    assert out["log"] == "remembered"
    assert memory.get(KEY) == "mushroom"


async def test_node_async_in_parent_graph(tick: Callable[[], float]) -> None:
    memory = TEPAMemory.in_memory(policy="tepa-full", clock=tick)
    out = await parent_graph(memory).ainvoke({}, thread("a"))
    assert out["tepa_decisions"][0]["action"] == "promote"
    assert memory.get(KEY) == "mushroom"


def test_node_rejects_its_own_checkpointer(tick: Callable[[], float]) -> None:
    memory = make_memory(tick)
    with pytest.raises(InvalidArgumentError, match="parent graph's checkpointer"):
        tepa_full_node(memory, works, checkpointer=InMemorySaver())


def test_mermaid_drawing(tick: Callable[[], float]) -> None:
    mermaid = build_trial_graph(make_memory(tick), works).get_graph().draw_mermaid()
    for edge in [
        "__start__ --> select_candidates",
        "select_candidates --> build_trials",
        "build_trials -.-> run_trial",
        "build_trials -.-> judge",
        "run_trial --> judge",
        "judge -.-> review",
        "judge -.-> apply",
        "review --> apply",
        "apply --> __end__",
    ]:
        assert edge in mermaid


def test_approval_needs_a_checkpointer(tick: Callable[[], float]) -> None:
    with pytest.raises(InvalidArgumentError, match="needs a checkpointer"):
        build_trial_graph(make_memory(tick), works, require_approval=True)


class SubState(TypedDict, total=False):
    key: str
    decisions: list[dict[str, Any]]


def test_compiled_graph_as_subgraph_node(tick: Callable[[], float]) -> None:
    memory = make_memory(tick)
    sub = build_trial_graph(memory, works, require_approval=True, checkpointer=True)
    builder = StateGraph(SubState)
    builder.add_node("trials", sub)
    builder.add_edge(START, "trials")
    builder.add_edge("trials", END)
    graph = builder.compile(checkpointer=InMemorySaver())
    assert "__interrupt__" in graph.invoke({"key": KEY}, thread("sub"))
    out = graph.invoke(Command(resume="reject"), thread("sub"))
    assert out["decisions"][0]["review"] == "rejected"
    assert state_of(memory) == "revoked"


def test_node_option_checks(tick: Callable[[], float]) -> None:
    with pytest.raises(InvalidArgumentError, match="unknown options"):
        tepa_full_node(make_memory(tick), works, treshold=0.7)
    with pytest.raises(InvalidArgumentError, match="field names"):
        tepa_full_node(make_memory(tick), works, output_field="")

"""The memory tools inside real agents: every failure reaches the model and the run completes.

A scripted chat model calls a memory tool with bad input (or on a failing memory), reads the
error in the tool message, and goes on. This runs through LangChain's ``create_agent`` and
through LangGraph's ``ToolNode`` with ``handle_tool_errors=False`` (the strictest setting: any
exception a tool lets out crashes the run), so the tools do not depend on the agent's settings.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from langchain_tepa import HashingEmbeddings, TEPAMemory
from langchain_tepa.tools import create_memory_tools
from tests.support.chat import ScriptedChatModel, tool_call


@pytest.fixture
def memory(tick: Callable[[], float]) -> TEPAMemory:
    return TEPAMemory.in_memory(embeddings=HashingEmbeddings(), clock=tick)


def strict_agent(model: ScriptedChatModel, memory: TEPAMemory) -> Any:
    """model -> tools -> model ... with a ToolNode that re-raises every tool exception."""
    node = ToolNode(create_memory_tools(memory), handle_tool_errors=False)

    def call_model(state: MessagesState) -> dict[str, list[AnyMessage]]:
        return {"messages": [model.invoke(state["messages"])]}

    def route(state: MessagesState) -> str:
        last = state["messages"][-1]
        return "tools" if isinstance(last, AIMessage) and last.tool_calls else END

    graph = StateGraph(MessagesState)
    graph.add_node("model", call_model)
    graph.add_node("tools", node)
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", route, ["tools", END])
    graph.add_edge("tools", "model")
    return graph.compile()


def tool_messages(messages: list[AnyMessage]) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage)]


def test_create_agent_model_reads_a_schema_error_and_retries(memory: TEPAMemory) -> None:
    model = ScriptedChatModel(
        script=[
            tool_call("remember", {"key": "user.diet"}, "c1"),  # no value: the schema refuses
            tool_call("remember", {"key": "user.diet", "value": "vegan"}, "c2"),
            AIMessage("Noted: you are vegan."),
        ]
    )
    agent = create_agent(model, create_memory_tools(memory))
    out = agent.invoke({"messages": [HumanMessage("I'm vegan, remember that.")]})

    first, second = tool_messages(out["messages"])
    assert first.status == "error"
    assert first.content == (
        "Invalid arguments for remember: value: Field required. "
        "Fix the arguments and call remember again."
    )
    assert second.status == "success"
    assert second.content.startswith("Remembered user.diet = 'vegan'")
    # The model's second turn was shown the error of its first call.
    assert model.seen[1][-1] == first
    assert out["messages"][-1].content == "Noted: you are vegan."
    assert memory.get("user.diet") == "vegan"
    assert memory.evidence_count() == 1  # the refused call stored nothing


async def test_create_agent_async_model_reads_a_memory_error(memory: TEPAMemory) -> None:
    memory.observe("user.diet", "vegan")
    model = ScriptedChatModel(
        script=[
            tool_call("forget", {"key": "user.diet", "value": "keto"}, "c1"),
            tool_call("recall", {"query": "diet", "k": 0}, "c2"),
            tool_call("recall", {"query": "diet"}, "c3"),
            AIMessage("You are vegan."),
        ]
    )
    agent = create_agent(model, create_memory_tools(memory))
    out = await agent.ainvoke({"messages": [HumanMessage("What do I eat?")]})

    unknown, bad_k, ok = tool_messages(out["messages"])
    assert unknown.status == "error"
    assert "no precedent 'keto' under key 'user.diet'" in unknown.content
    assert unknown.content.endswith("Call recall to see the stored values.")
    assert bad_k.status == "error"
    assert bad_k.content.startswith("k must be an integer from 1 to 1000, got 0")
    assert ok.status == "success"
    assert '"value": "vegan"' in ok.content
    assert out["messages"][-1].content == "You are vegan."
    assert memory.evidence_count() == 1


def _closed(memory: TEPAMemory, monkeypatch: pytest.MonkeyPatch) -> TEPAMemory:
    memory.close()
    return memory


def _read_only(memory: TEPAMemory, monkeypatch: pytest.MonkeyPatch) -> TEPAMemory:
    return TEPAMemory.in_memory(embeddings=HashingEmbeddings(), read_only=True)


def _server_down(memory: TEPAMemory, monkeypatch: pytest.MonkeyPatch) -> TEPAMemory:
    # What an untyped storage failure looks like from the tools (a raw connection error).
    def refuse(*args: object, **kwargs: object) -> None:
        raise ConnectionRefusedError("[Errno 111] Connection refused (127.0.0.1:8000)")

    for name in ("observe", "retrieve", "revoke"):
        monkeypatch.setattr(memory, name, refuse)
    return memory


def _as_is(memory: TEPAMemory, monkeypatch: pytest.MonkeyPatch) -> TEPAMemory:
    return memory


FAILURES = [
    # (name, memory setup, tool call, expected start of the message the model reads)
    (
        "schema: wrong type",
        _as_is,
        ("remember", {"key": "user.diet", "value": {"kind": "vegan"}}),
        "Invalid arguments for remember: value: Input should be a valid string "
        "(got {'kind': 'vegan'}). Fix the arguments and call remember again.",
    ),
    (
        "schema: k not a number",
        _as_is,
        ("recall", {"query": "diet", "k": "many"}),
        "Invalid arguments for recall: k: Input should be a valid integer",
    ),
    (
        "schema: missing query",
        _as_is,
        ("recall", {}),
        "Invalid arguments for recall: query: Field required.",
    ),
    (
        "memory: blank key",
        _as_is,
        ("remember", {"key": "  ", "value": "vegan"}),
        "key must not be empty or blank; pass a name such as 'user.diet'. "
        "Fix the arguments and call remember again.",
    ),
    (
        "memory: bad key prefix",
        _as_is,
        ("recall", {"query": "diet", "key_prefix": "bad\x07prefix"}),
        "key 'bad\\x07prefix' holds U+0007",
    ),
    (
        "memory: unknown precedent",
        _as_is,
        ("forget", {"key": "user.diet", "value": "keto"}),
        "no precedent 'keto' under key 'user.diet'",
    ),
    (
        "storage: read-only memory",
        _read_only,
        ("remember", {"key": "user.diet", "value": "vegan"}),
        "this TEPAMemory was opened with read_only=True",
    ),
    (
        "storage: closed memory",
        _closed,
        ("recall", {"query": "diet"}),
        "The memory failed: this TEPAMemory is closed; open a new one. "
        "Go on without it, or call recall again later.",
    ),
    (
        "storage: untyped failure",
        _server_down,
        ("remember", {"key": "user.diet", "value": "vegan"}),
        "The memory failed (ConnectionRefusedError: [Errno 111] Connection refused "
        "(127.0.0.1:8000)). Go on without it, or call remember again later.",
    ),
]


@pytest.mark.parametrize(
    ("setup", "call", "expected"),
    [f[1:] for f in FAILURES],
    ids=[f[0] for f in FAILURES],
)
@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_every_failure_reaches_the_model_under_a_strict_tool_node(
    memory: TEPAMemory,
    monkeypatch: pytest.MonkeyPatch,
    setup: Callable[[TEPAMemory, pytest.MonkeyPatch], TEPAMemory],
    call: tuple[str, dict[str, Any]],
    expected: str,
    mode: str,
) -> None:
    target = setup(memory, monkeypatch)
    model = ScriptedChatModel(script=[tool_call(*call, "c1"), AIMessage("I could not do it.")])
    agent = strict_agent(model, target)
    state = {"messages": [HumanMessage("go")]}
    out = agent.invoke(state) if mode == "sync" else await agent.ainvoke(state)

    (msg,) = tool_messages(out["messages"])
    assert msg.status == "error"
    assert msg.tool_call_id == "c1"
    assert msg.content.startswith(expected), msg.content
    assert model.seen[1][-1] == msg  # the model read it
    assert out["messages"][-1].content == "I could not do it."
    if setup is not _closed:  # a closed memory cannot be counted; it stored nothing either
        assert memory.evidence_count() == 0  # nothing stored by a refused call


def test_strict_tool_node_without_our_handling_would_crash(memory: TEPAMemory) -> None:
    """The reference: a plain tool that raises ends the same strict run with the exception."""
    from langchain_core.tools import tool

    @tool
    def remember(key: str, value: str) -> str:
        """Store a fact."""
        memory.observe(key, value)
        return "ok"

    node = ToolNode([remember], handle_tool_errors=False)
    graph = StateGraph(MessagesState)
    graph.add_node("tools", node)
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    call = tool_call("remember", {"key": "  ", "value": "vegan"}, "c1")
    with pytest.raises(ValueError, match="key must not be empty"):
        graph.compile().invoke({"messages": [call]})


def test_a_failing_summary_still_reports_the_stored_value(
    memory: TEPAMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_audit(*args: object, **kwargs: object) -> None:
        raise ConnectionResetError("audit read failed")

    monkeypatch.setattr(memory, "audit", broken_audit)
    model = ScriptedChatModel(
        script=[
            tool_call("remember", {"key": "user.diet", "value": "vegan"}, "c1"),
            AIMessage("ok"),
        ]
    )
    out = strict_agent(model, memory).invoke({"messages": [HumanMessage("I'm vegan")]})
    (msg,) = tool_messages(out["messages"])
    assert msg.status == "success"
    assert msg.content == "Remembered user.diet = 'vegan' (active, validity 0.67)."
    assert memory.get("user.diet") == "vegan"

"""Namespace templates in the agent tools (issue 29), as LangMem's tools have them.

``create_memory_tools(memory, namespace=("memories", "{langgraph_user_id}"))`` fills the label
from each run's config, so each user gets their own namespace; a run whose config lacks the
value raises ``NamespaceTemplateError`` (never a shared, literally named namespace) and stores
nothing. Malformed templates are typed errors when the tools are built.
"""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from langchain_tepa import HashingEmbeddings, InvalidNamespaceError, TEPAMemory
from langchain_tepa.core.errors import NamespaceTemplateError
from langchain_tepa.tools import NamespaceTemplate, create_memory_tools


def _memory() -> TEPAMemory:
    return TEPAMemory.in_memory(embeddings=HashingEmbeddings())


def _cfg(**values: object) -> dict[str, object]:
    return {"configurable": values}


def test_each_user_gets_their_own_namespace() -> None:
    memory = _memory()
    remember, recall, _ = create_memory_tools(memory, namespace=("memories", "{langgraph_user_id}"))
    remember.invoke({"key": "user.diet", "value": "vegan"}, _cfg(langgraph_user_id="alice"))
    remember.invoke({"key": "user.diet", "value": "keto"}, _cfg(langgraph_user_id="bob"))
    assert memory.answer("user.diet", namespace="memories.alice").value == "vegan"  # type: ignore[union-attr]
    assert memory.answer("user.diet", namespace="memories.bob").value == "keto"  # type: ignore[union-attr]
    assert "memories.{langgraph_user_id}" not in memory.namespaces()
    assert "vegan" in recall.invoke({"query": "diet"}, _cfg(langgraph_user_id="alice"))
    assert "keto" not in recall.invoke({"query": "diet"}, _cfg(langgraph_user_id="alice"))


async def test_async_calls_fill_the_template_too() -> None:
    memory = _memory()
    remember, recall, forget = create_memory_tools(memory, namespace="users.{user_id}")
    await remember.ainvoke({"key": "user.diet", "value": "vegan"}, _cfg(user_id=7))
    assert memory.answer("user.diet", namespace="users.7") is not None
    assert "vegan" in await recall.ainvoke({"query": "diet"}, _cfg(user_id=7))
    await forget.ainvoke({"key": "user.diet", "value": "vegan"}, _cfg(user_id=7))
    assert memory.answer("user.diet", namespace="users.7") is None


def test_a_placeholder_inside_a_label() -> None:
    memory = _memory()
    remember, _, _ = create_memory_tools(memory, namespace=("org", "user-{uid}"))
    remember.invoke({"key": "k", "value": "v"}, _cfg(uid="a1"))
    assert memory.namespaces() == ["org.user-a1"]


@pytest.mark.parametrize(
    "config",
    [None, {}, _cfg(), _cfg(langgraph_user_id=""), _cfg(langgraph_user_id=None), _cfg(other="x")],
)
def test_an_unfilled_template_is_a_typed_error_and_stores_nothing(config: object) -> None:
    memory = _memory()
    remember, recall, forget = create_memory_tools(
        memory, namespace=("memories", "{langgraph_user_id}")
    )
    for tool, args in (
        (remember, {"key": "k", "value": "v"}),
        (recall, {"query": "q"}),
        (forget, {"key": "k", "value": "v"}),
    ):
        with pytest.raises(NamespaceTemplateError, match="langgraph_user_id"):
            tool.invoke(args, config)  # type: ignore[arg-type]
    assert memory.namespaces() == []


def test_an_unfilled_template_fails_the_run_in_a_tool_node() -> None:
    memory = _memory()
    graph = StateGraph(MessagesState)
    graph.add_node(
        "tools",
        ToolNode(create_memory_tools(memory, namespace=("memories", "{langgraph_user_id}"))),
    )
    graph.add_edge(START, "tools")
    app = graph.compile()
    call = {"name": "remember", "args": {"key": "k", "value": "v"}, "id": "1", "type": "tool_call"}
    with pytest.raises(NamespaceTemplateError):
        app.invoke({"messages": [AIMessage("", tool_calls=[call])]}, _cfg())  # type: ignore[arg-type]
    assert memory.namespaces() == []
    out = app.invoke({"messages": [AIMessage("", tool_calls=[call])]}, _cfg(langgraph_user_id="u1"))  # type: ignore[arg-type]
    assert "Remembered" in out["messages"][-1].content
    assert memory.namespaces() == ["memories.u1"]


@pytest.mark.parametrize("value", ["a.b", True, 1.5, ["x"], "bad\nid"])
def test_a_bad_filled_value_is_a_typed_error(value: object) -> None:
    template = NamespaceTemplate(("memories", "{uid}"))
    with pytest.raises(NamespaceTemplateError):
        template.fill(_cfg(uid=value))


@pytest.mark.parametrize(
    "namespace",
    [("m", "{0}"), ("m", "{a.b}"), ("m", "{uid!r}"), ("m", "{uid:>3}"), ("m", "{"), ("m", "x}")],
)
def test_malformed_templates_are_typed_errors(namespace: tuple[str, ...]) -> None:
    with pytest.raises(InvalidNamespaceError):
        create_memory_tools(_memory(), namespace=namespace)


def test_fixed_namespaces_work_as_before() -> None:
    memory = _memory()
    remember, _, _ = create_memory_tools(memory, namespace=("users", "u1"))
    remember.invoke({"key": "k", "value": "v"})
    assert memory.namespaces() == ["users.u1"]
    assert NamespaceTemplate(("a", "{x}")).fields == ("x",)

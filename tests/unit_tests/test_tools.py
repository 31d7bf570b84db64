"""The agent memory tools: remember, recall, forget (sync and async)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool

from langchain_tepa import HashingEmbeddings, InvalidArgumentError, TEPAMemory
from langchain_tepa.tools import create_memory_tools


@pytest.fixture
def memory(tick: Callable[[], float]) -> TEPAMemory:
    return TEPAMemory.in_memory(embeddings=HashingEmbeddings(), clock=tick)


def by_name(tools: list[BaseTool]) -> dict[str, BaseTool]:
    return {t.name: t for t in tools}


def call(tool: BaseTool, args: dict) -> ToolMessage:
    """Invoke a tool as an agent does (with a tool call), returning the ToolMessage."""
    msg = tool.invoke({"type": "tool_call", "id": "c1", "name": tool.name, "args": args})
    assert isinstance(msg, ToolMessage)
    return msg


def test_tool_names_and_schemas(memory: TEPAMemory) -> None:
    tools = create_memory_tools(memory)
    assert [t.name for t in tools] == ["remember", "recall", "forget"]
    schemas = {t.name: t.tool_call_schema.model_json_schema() for t in tools}
    assert set(schemas["remember"]["required"]) == {"key", "value"}
    assert set(schemas["remember"]["properties"]) == {"key", "value", "text", "correction"}
    assert schemas["recall"]["required"] == ["query"]
    assert set(schemas["forget"]["required"]) == {"key", "value"}
    for t in tools:
        assert t.description
        assert t.coroutine is not None  # type: ignore[attr-defined]


def test_remember_then_change_revokes_the_old_value(memory: TEPAMemory) -> None:
    t = by_name(create_memory_tools(memory))
    first = call(t["remember"], {"key": "user.pizza_topping", "value": "pineapple"})
    assert "Remembered user.pizza_topping = 'pineapple' (active" in first.content
    second = call(t["remember"], {"key": "user.pizza_topping", "value": "mushroom"})
    assert "'mushroom'" in second.content
    assert "'pineapple' (0.50)" in second.content  # still Active after one conflict
    third = call(t["remember"], {"key": "user.pizza_topping", "value": "mushroom"})
    assert "Revoked now: 'pineapple'." in third.content
    assert "Active values of user.pizza_topping: 'mushroom'" in third.content

    recalled = call(t["recall"], {"query": "pizza topping"})
    facts = json.loads(recalled.content)
    assert [(f["key"], f["value"]) for f in facts] == [("user.pizza_topping", "mushroom")]
    assert facts[0]["support"] == 2
    assert [d.metadata["value"] for d in recalled.artifact] == ["mushroom"]
    evidence = memory.history("user.pizza_topping")
    assert {e.source for e in evidence} == {"agent"}


def test_recall_options_and_empty_result(memory: TEPAMemory) -> None:
    t = by_name(create_memory_tools(memory, k=1))
    assert json.loads(call(t["recall"], {"query": "anything"}).content) == []  # JSON
    memory.observe("user.diet", "vegan")
    memory.observe("user.home_city", "Oslo")
    memory.observe("acme.ceo", "Dana")
    one = json.loads(call(t["recall"], {"query": "user diet"}).content)
    assert len(one) == 1
    assert one[0]["value"] == "vegan"
    scoped = json.loads(call(t["recall"], {"query": "ceo", "k": 5, "key_prefix": "user"}).content)
    assert {f["key"] for f in scoped} == {"user.diet", "user.home_city"}


def test_forget_revokes_and_keeps_audit(memory: TEPAMemory) -> None:
    t = by_name(create_memory_tools(memory))
    call(t["remember"], {"key": "user.diet", "value": "vegan"})
    out = call(t["forget"], {"key": "user.diet", "value": "vegan", "reason": "user said so"})
    assert out.content.startswith("Forgot user.diet = 'vegan'")
    assert memory.get("user.diet") is None
    (prec,) = memory.audit("user.diet").precedents
    assert prec.state.value == "revoked"
    assert prec.revocation is not None
    assert "user said so" in prec.revocation.reason
    assert json.loads(call(t["recall"], {"query": "diet"}).content) == []


def test_errors_go_back_to_the_model_and_store_nothing(memory: TEPAMemory) -> None:
    t = by_name(create_memory_tools(memory))
    bad = call(t["remember"], {"key": "   ", "value": "x"})
    assert bad.status == "error"
    assert "key must not be empty" in bad.content
    assert "call remember again" in bad.content
    unknown = call(t["forget"], {"key": "user.diet", "value": "keto"})
    assert unknown.status == "error"
    assert "Call recall" in unknown.content
    bad_k = call(t["recall"], {"query": "x", "k": 0})
    assert bad_k.status == "error"
    assert "k must be" in bad_k.content
    assert memory.evidence_count() == 0


def test_namespaces(memory: TEPAMemory) -> None:
    alice = by_name(create_memory_tools(memory, namespace=("users", "alice")))
    bob = by_name(create_memory_tools(memory, namespace="users.bob"))
    call(alice["remember"], {"key": "user.diet", "value": "vegan"})
    call(bob["remember"], {"key": "user.diet", "value": "keto"})
    assert memory.get("user.diet", namespace="users.alice") == "vegan"
    assert memory.get("user.diet", namespace="users.bob") == "keto"
    assert json.loads(call(bob["recall"], {"query": "diet"}).content)[0]["value"] == "keto"
    assert memory.keys() == []  # the default namespace is untouched


@pytest.mark.parametrize(
    "kwargs",
    [{"namespace": "users..x"}, {"namespace": ()}, {"k": 0}, {"k": True}, {"source": ""}],
)
def test_bad_arguments(memory: TEPAMemory, kwargs: dict) -> None:
    with pytest.raises(InvalidArgumentError):
        create_memory_tools(memory, **kwargs)


async def test_async_tools(memory: TEPAMemory) -> None:
    t = by_name(create_memory_tools(memory))
    for value in ("tea", "coffee", "coffee"):
        await t["remember"].ainvoke({"key": "user.drink", "value": value})
    msg = await t["recall"].ainvoke(
        {"type": "tool_call", "id": "c2", "name": "recall", "args": {"query": "drink"}}
    )
    assert [f["value"] for f in json.loads(msg.content)] == ["coffee"]
    out = await t["forget"].ainvoke({"key": "user.drink", "value": "coffee"})
    assert out.startswith("Forgot")
    assert await memory.aget("user.drink") is None
    err = await t["forget"].ainvoke(
        {"type": "tool_call", "id": "c3", "name": "forget", "args": {"key": "x.y", "value": "z"}}
    )
    assert err.status == "error"

"""A LangChain agent (``create_agent`` + ``ChatOpenAI``) with TEPA memory tools, offline.

The chat model is the fake OpenAI server driven by a small rule-based script: it calls
``remember`` when the user states a pizza topping, ``recall`` when asked to order, and its final
answer is built from the ``recall`` tool message it finds in the request, so the answer can
only be right if the data went agent -> tool -> TEPA -> tool message -> model.

Each conversation is a fresh thread: the preference survives only through TEPA.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_openai import ChatOpenAI

from langchain_tepa import HashingEmbeddings, TEPAMemory
from langchain_tepa.tools import create_memory_tools
from tests.support.fake_openai import (
    FakeOpenAI,
    Spec,
    last_user_text,
    messages,
    tool_call,
    tool_results,
)

KEY = "user.pizza_topping"
SYSTEM = "You are a pizza ordering assistant. Use remember/recall for the user's preferences."
STATED = re.compile(r"\b(?:love|switched to|now want|want)\s+(\w+)", re.IGNORECASE)


def scripted_model(request: dict[str, Any]) -> Spec:
    """What a tool-using model would do, decided from the conversation in the request."""
    last = messages(request)[-1]
    if last["role"] == "tool":
        result = tool_results(request)[-1]
        if result["name"] == "remember":
            return "Noted."
        if result["name"] == "recall":
            content = result["content"]
            if not content.startswith("["):
                return "I don't know your topping yet. Which one would you like?"
            facts = [f for f in json.loads(content) if f["key"] == KEY]
            if not facts:
                return "I don't know your topping yet. Which one would you like?"
            best = max(facts, key=lambda f: f["validity"])
            return f"Ordering a {best['value']} pizza for you."
        raise AssertionError(f"unexpected tool {result['name']}")
    user = last_user_text(request)
    if "order" in user.lower():
        return tool_call("recall", query="pizza topping preference", key_prefix="user")
    stated = STATED.search(user)
    if stated:
        return tool_call("remember", key=KEY, value=stated.group(1).lower(), text=user)
    return "How can I help?"


@pytest.fixture
def agent_setup(
    fake_openai: FakeOpenAI, tick: Callable[[], float]
) -> Callable[[str], tuple[Any, TEPAMemory]]:
    fake_openai.handler = scripted_model

    def make(policy: str) -> tuple[Any, TEPAMemory]:
        memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings(), policy=policy, clock=tick)
        llm = ChatOpenAI(
            model="gpt-4o-mini", base_url=fake_openai.base_url, api_key="test", max_retries=0
        )
        tools = create_memory_tools(memory, namespace=("users", "u1"))
        return create_agent(llm, tools, system_prompt=SYSTEM), memory

    return make


def say(agent: Any, text: str) -> str:
    """One user turn in a fresh thread; the agent's final answer."""
    out = agent.invoke(
        {"messages": [{"role": "user", "content": text}]},
        {"configurable": {"thread_id": uuid.uuid4().hex}},
    )
    return str(out["messages"][-1].content)


def recall_contents(server: FakeOpenAI) -> list[str]:
    """Content of the recall tool messages the model received, per request that had one last."""
    out = []
    for req in server.chat_requests:
        if messages(req)[-1]["role"] == "tool":
            res = tool_results(req)[-1]
            if res["name"] == "recall":
                out.append(res["content"])
    return out


def test_agent_learns_then_updates_a_preference(
    agent_setup: Callable[[str], tuple[Any, TEPAMemory]], fake_openai: FakeOpenAI
) -> None:
    agent, memory = agent_setup("tepa-rev")
    ns = "users.u1"

    assert say(agent, "Please order a pizza.") == (
        "I don't know your topping yet. Which one would you like?"
    )
    assert say(agent, "I love pineapple on my pizza.") == "Noted."
    assert memory.get(KEY, namespace=ns) == "pineapple"
    assert say(agent, "Order a pizza, please.") == "Ordering a pineapple pizza for you."

    # The preference changes; a second statement gives the evidence to retire the old one.
    assert say(agent, "I switched to mushroom, no more pineapple.") == "Noted."
    assert say(agent, "Yes, I now want mushroom every time.") == "Noted."
    answer = say(agent, "Order my usual pizza.")
    assert answer == "Ordering a mushroom pizza for you."

    # What the model saw from recall last: the new value only.
    last_recall = json.loads(recall_contents(fake_openai)[-1])
    assert [(f["key"], f["value"]) for f in last_recall] == [(KEY, "mushroom")]
    audit = memory.audit(KEY, namespace=ns)
    assert [(p.value, p.state.value) for p in audit.precedents] == [
        ("pineapple", "revoked"),
        ("mushroom", "active"),
    ]

    # What the agent sent to the model: the system prompt and our three tools.
    first = fake_openai.chat_requests[0]
    assert first["model"] == "gpt-4o-mini"
    assert first["messages"][0] == {"role": "system", "content": SYSTEM}
    assert [t["function"]["name"] for t in first["tools"]] == ["remember", "recall", "forget"]
    # And the tool calls came back as tool messages of the right tools.
    remembered = [
        r["content"]
        for req in fake_openai.chat_requests
        for r in tool_results(req)
        if r["name"] == "remember"
    ]
    assert any("Revoked now: 'pineapple'" in c for c in remembered)
    assert fake_openai.failures == []


def test_without_revocation_the_stale_value_is_still_recalled(
    agent_setup: Callable[[str], tuple[Any, TEPAMemory]], fake_openai: FakeOpenAI
) -> None:
    """Control: under append-only nothing is retired, so recall still offers pineapple (as the
    contested alternative of the key's answer)."""
    agent, memory = agent_setup("append-only")
    for text in (
        "I love pineapple on my pizza.",
        "I switched to mushroom, no more pineapple.",
        "Yes, I now want mushroom every time.",
    ):
        assert say(agent, text) == "Noted."
    say(agent, "Order my usual pizza.")
    facts = json.loads(recall_contents(fake_openai)[-1])
    values = {f["value"] for f in facts} | {
        a["value"] for f in facts for a in f.get("alternatives", [])
    }
    assert values == {"pineapple", "mushroom"}
    assert all(f["contested"] for f in facts if f["key"] == KEY)
    assert [p.state.value for p in memory.audit(KEY, namespace="users.u1").precedents] == [
        "active",
        "active",
    ]


async def test_agent_async_path(
    agent_setup: Callable[[str], tuple[Any, TEPAMemory]], fake_openai: FakeOpenAI
) -> None:
    agent, memory = agent_setup("tepa-rev")
    for text in ("I love olives.", "I switched to basil.", "I now want basil."):
        out = await agent.ainvoke({"messages": [{"role": "user", "content": text}]})
        assert out["messages"][-1].content == "Noted."
    out = await agent.ainvoke({"messages": [{"role": "user", "content": "Order one."}]})
    assert out["messages"][-1].content == "Ordering a basil pizza for you."
    assert await memory.aget(KEY, namespace="users.u1") == "basil"
    assert isinstance(fake_openai.chat_requests[-1]["messages"][-2]["tool_calls"], list)

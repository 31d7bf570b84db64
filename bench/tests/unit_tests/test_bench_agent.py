"""The benchmark prompt, the offline agent's rule and the chat-model agents."""

from __future__ import annotations

import collections
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from langchain_tepa import TEPAMemory
from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench.agent import (
    ChatModelAgent,
    OfflineAgent,
    openai_agent,
    parse_prompt,
    parse_reply,
    render_prompt,
)
from tepa_bench.world import Task
from tests.support.fake_openai import FakeOpenAI, Text, last_user_text

TASK = Task("export.sales.format", "Export the sales dataset.", ("csv", "json", "tsv"))


def doc(
    value: str, validity: float, support: int = 3, *, key: str = TASK.key, state: str = "active"
) -> Document:
    meta = {
        "key": key,
        "value": value,
        "state": state,
        "validity": validity,
        "support": support,
        "conflict": 1,
    }
    return Document(page_content=f"{key}: {value}", metadata=meta)


def test_prompt_round_trip() -> None:
    prompt = render_prompt(TASK, [doc("json", 0.8, 4), doc("csv", 0.55, 9)])
    view = parse_prompt(prompt)
    assert view.key == TASK.key
    assert view.actions == TASK.actions
    assert [(p.action, p.validity, p.support, p.state) for p in view.precedents] == [
        ("json", 0.8, 4, "active"),
        ("csv", 0.55, 9, "active"),
    ]
    assert "Possible actions: csv, json, tsv" in prompt


def test_prompt_from_a_real_memory_shows_its_metadata() -> None:
    memory = TEPAMemory.in_memory(policy="tepa-rev")
    for _ in range(3):
        memory.record_outcome(TASK.key, "tsv", True)
    docs = memory.retrieve(TASK.text, k=4, key_prefix=TASK.key)
    view = parse_prompt(render_prompt(TASK, docs))
    assert [(p.action, p.support) for p in view.precedents] == [("tsv", 3)]
    assert view.precedents[0].validity == pytest.approx(0.8)


def test_rule_follows_the_highest_usable_validity() -> None:
    agent = OfflineAgent(seed=0)
    assert agent.choose(render_prompt(TASK, [doc("csv", 0.6), doc("json", 0.9)])) == "json"
    # Ties in validity: more support wins, then the first listed.
    assert agent.choose(render_prompt(TASK, [doc("csv", 0.7, 2), doc("tsv", 0.7, 5)])) == "tsv"
    assert agent.choose(render_prompt(TASK, [doc("csv", 0.7, 5), doc("tsv", 0.7, 5)])) == "csv"
    assert agent.explorations == 0


@pytest.mark.parametrize(
    "docs",
    [
        [],
        [doc("csv", 0.49)],  # evidence leans against it
        [doc("csv", 0.9, key="export.other.format")],  # another mechanism
        [doc("xml", 0.9)],  # not a possible action
        [doc("csv", 0.9, state="revoked")],
    ],
)
def test_rule_explores_uniformly_without_usable_evidence(docs: list[Document]) -> None:
    agent = OfflineAgent(seed=1)
    prompt = render_prompt(TASK, docs)
    counts = collections.Counter(agent.choose(prompt) for _ in range(600))
    assert set(counts) == set(TASK.actions)
    assert all(150 < c < 250 for c in counts.values())
    assert agent.explorations == 600


def test_parse_prompt_rejects_foreign_text() -> None:
    with pytest.raises(InvalidArgumentError):
        parse_prompt("what should I do?")


def test_parse_reply() -> None:
    assert parse_reply("ACTION: json", TASK.actions) == "json"
    assert parse_reply("Thinking...\naction: `TSV`.", TASK.actions) == "tsv"
    assert parse_reply("ACTION: xml", TASK.actions) is None
    assert parse_reply("csv", TASK.actions) is None


def test_chat_model_agent_falls_back_to_exploring_on_invalid_replies() -> None:
    model = FakeListChatModel(responses=["ACTION: tsv", "no idea", "ACTION: xml"])
    agent = ChatModelAgent(model, seed=2)
    prompt = render_prompt(TASK, [])
    assert agent.choose(prompt) == "tsv"
    assert agent.choose(prompt) in TASK.actions
    assert agent.choose(prompt) in TASK.actions
    assert agent.invalid_replies == 2
    assert agent.calls == 3


def _follow_rule(request: dict[str, Any]) -> Text:
    """A scripted model that follows the prompt's instruction (as an LLM would)."""
    view = parse_prompt(last_user_text(request))
    return Text(f"ACTION: {view.best() or view.actions[-1]}")


def test_openai_agent_talks_to_an_openai_compatible_server() -> None:
    with FakeOpenAI(handler=_follow_rule) as server:
        agent = openai_agent(model="gpt-4o-mini", base_url=server.base_url, api_key="test")
        assert agent.choose(render_prompt(TASK, [doc("json", 0.9)])) == "json"
        assert agent.choose(render_prompt(TASK, [])) == "tsv"
        sent = [last_user_text(r) for r in server.chat_requests]
    assert len(sent) == 2
    assert "Possible actions: csv, json, tsv" in sent[0]
    assert "action=json" in sent[0]
    assert agent.invalid_replies == 0

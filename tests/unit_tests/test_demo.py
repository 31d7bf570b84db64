"""The agent of ``make demo`` answers from what its memory serves, over any ``BaseStore``."""

from __future__ import annotations

import pytest
from langgraph.store.memory import InMemoryStore

from langchain_tepa import HashingEmbeddings, TEPAStore
from langchain_tepa.demo import build_agent, converse

EMB = HashingEmbeddings()
INDEX = {"dims": 384, "embed": EMB, "fields": ["content"]}
TALK = [
    ("t1", "My favourite colour is red."),
    ("t2", "My favourite colour is now yellow."),
    ("t3", "Which colour do I like?"),
]


def test_the_answer_is_what_the_memory_served() -> None:
    store = TEPAStore.in_memory(index=INDEX, embeddings=EMB)
    turns = converse(build_agent(store), TALK, user_id="bo")
    assert [t.tool for t in turns] == ["save_memory", "save_memory", "search_memories"]
    assert [i["content"] for i in turns[2].served] == ["My favourite colour is now yellow."]
    assert turns[2].answer.startswith("Yellow, going by what you told me")
    # the memories are under the user id of the run's config, keyed by random uuids
    assert {i.key for i in store.search(("memories", "bo"))} == {turns[1].saved}
    assert store.search(("memories", "ana")) == []


def test_over_langgraphs_store_the_stale_memory_is_served_too() -> None:
    turns = converse(build_agent(InMemoryStore(index=INDEX)), TALK)
    served = [i["content"] for i in turns[2].served]
    assert sorted(served) == ["My favourite colour is now yellow.", "My favourite colour is red."]


def test_a_question_before_any_memory_is_answered_as_unknown() -> None:
    (turn,) = converse(build_agent(InMemoryStore()), [("t1", "What colour?")])
    assert turn.served == []
    assert turn.answer.startswith("I don't know yet")


def test_the_tools_need_the_user_id_of_the_runs_config() -> None:
    with pytest.raises(ValueError, match="user_id"):
        converse(build_agent(InMemoryStore()), [("t1", "I like tea.")], user_id="")


def test_the_demos_judge_takes_the_change_back_and_keeps_the_rental() -> None:
    from langchain_tepa.demo import show_judged

    judged = show_judged().split("scripted judge model:")[1]
    assert "-> serves ['I signed up at BeFit last week.']" in judged
    assert "serves ['I rented a Fiat 500 for the holiday.', 'I drive a Honda Civic.']" in judged
    assert "judged by ScriptedJudgeModel: 'a new gym'" in judged

"""The model path of free-text items: a judge decides what a new memory replaces (issue 37).

A scripted chat model (``tests.support.judges.TableJudgeModel``) answers the judge's prompt
from a table, so these tests pin what the model is shown, how its answer is read, and how a
verdict becomes evidence: taken back, kept, vetoed, undone, held back, failed and retried.
``test_openai_path.py``-style checks against the local OpenAI-compatible server are at the end.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_openai import ChatOpenAI
from langgraph.store.base import PutOp

from langchain_tepa import (
    HashingEmbeddings,
    InvalidArgumentError,
    JudgeError,
    ReplacementJudge,
    TEPAMemory,
    TEPAStore,
    TEPAVectorStore,
)
from langchain_tepa.extraction.judge import Candidate, JudgeRequest, Statement
from langchain_tepa.memory.claims import claims_namespace
from langchain_tepa.memory.verdicts import slot_key
from tests.support.fake_openai import Error, FakeOpenAI, Text
from tests.support.judges import TableJudgeModel

NS = ("memories", "u1")
MNS = "memories.u1"
LISBON = "I live in Lisbon."
OSLO = "I moved to Oslo last month."
BACK = "I'm back in Lisbon for good."
DOG = "I have a dog called Rex."
CAT = "We also adopted a cat."
ROME = "I might move to Rome next year."

RELATIONS = {
    (OSLO, LISBON): "replaces",
    (BACK, OSLO): "replaces",
    (BACK, LISBON): "restates",
    (CAT, DOG): "adds",
    (ROME, LISBON): "replaces",  # the model reads the hedge right in its flags, not its relation
}


def _store(tick: Callable[[], float], model: Any, **kwargs: Any) -> TEPAStore:
    emb = HashingEmbeddings()
    return TEPAStore.in_memory(
        index={"dims": 384, "embed": emb, "fields": ["content"]},
        embeddings=emb,
        judge=model,
        clock=tick,
        **kwargs,
    )


def _put(store: TEPAStore, key: str, text: str) -> None:
    store.put(NS, key, {"content": text})


def _served(store: TEPAStore, *keys: str) -> list[bool]:
    return [store.get(NS, k) is not None for k in keys]


@pytest.fixture
def model() -> TableJudgeModel:
    return TableJudgeModel(relations=RELATIONS, flags={ROME: ["hypothetical"]})


@pytest.fixture
def store(tick: Callable[[], float], model: TableJudgeModel) -> TEPAStore:
    return _store(tick, model)


# ---------------------------------------------------------------------- the prompt
def test_the_second_write_of_a_change_shows_the_model_the_earlier_memory(
    store: TEPAStore, model: TableJudgeModel
) -> None:
    _put(store, "a", LISBON)
    assert model.seen == []  # nothing earlier: no call
    _put(store, "b", OSLO)
    (body,) = model.seen
    assert body["new"] == [{"id": "n1", "text": OSLO}]
    assert body["earlier"] == [{"id": "c1", "text": LISBON, "served": True}]


def test_the_prompt_is_bounded(tick: Callable[[], float]) -> None:
    model = TableJudgeModel()
    judge = ReplacementJudge(model, max_candidates=2, max_chars=40)
    store = _store(tick, judge)
    for i in range(5):
        _put(store, f"k{i}", f"Fact number {i} about my life " + "and more " * 20)
    body = model.seen[-1]
    assert len(body["earlier"]) == 2
    assert all(len(c["text"]) <= 40 for c in body["earlier"] + body["new"])


def test_candidates_sharing_a_claim_key_come_first(tick: Callable[[], float]) -> None:
    """An old memory told with other words than the new one is still shown first."""
    model = TableJudgeModel()
    store = _store(tick, ReplacementJudge(model, max_candidates=1))
    _put(store, "gym", "I train at PureGym.")  # cosine 0.23 with the new text
    for i, text in enumerate(["Is it now? My cat is fit.", "Now is my time: BeFit is a word."]):
        _put(store, f"x{i}", text)  # cosine 0.38 and 0.54, no shared claim key
    _put(store, "new", "My gym is BeFit now.")
    assert [c["text"] for c in model.seen[-1]["earlier"]] == ["I train at PureGym."]


# ---------------------------------------------------------------------- verdicts as evidence
def test_replaces_takes_the_earlier_memory_back_with_the_models_reason(store: TEPAStore) -> None:
    _put(store, "a", LISBON)
    _put(store, "b", OSLO)
    assert _served(store, "a", "b") == [False, True]
    reason = store.audit(NS, "a").precedents[0].revocation
    assert reason is not None
    assert reason.reason == (
        f"superseded: item b replaces it (judged by TableJudgeModel: 'replaces: {LISBON}')"
    )
    # The verdict is a claim record: its source is the writer, the model is named in it.
    records = store.memory.history(slot_key("a"), namespace=claims_namespace(MNS))
    judged = [ev for ev in records if ev.metadata.get("relation") == "replaces"]
    assert [(ev.source, ev.metadata["judge"], ev.metadata["correction"]) for ev in judged] == [
        ("langgraph-store", "TableJudgeModel", True)
    ]


def test_adds_and_unrelated_keep_both(store: TEPAStore) -> None:
    _put(store, "dog", DOG)
    _put(store, "cat", CAT)
    _put(store, "home", LISBON)
    assert _served(store, "dog", "cat", "home") == [True, True, True]


@pytest.mark.parametrize("flag", ["temporary", "hypothetical", "about_someone_else", "history"])
def test_a_hedge_never_takes_anything_back(tick: Callable[[], float], flag: str) -> None:
    model = TableJudgeModel(relations=RELATIONS, flags={OSLO: [flag]})
    store = _store(tick, model)
    _put(store, "a", LISBON)
    _put(store, "b", OSLO)
    assert _served(store, "a", "b") == [True, True]
    assert store.memory.history("b", namespace=MNS)[-1].metadata["judge_flags"] == flag


@pytest.mark.parametrize(("confidence", "taken"), [(0.5, False), (0.51, True)])
def test_a_confidence_of_one_half_never_takes_back(
    tick: Callable[[], float], confidence: float, taken: bool
) -> None:
    store = _store(tick, TableJudgeModel(relations=RELATIONS, confidence=confidence))
    _put(store, "a", LISBON)
    _put(store, "b", OSLO)
    assert _served(store, "a") == [not taken]


def test_with_a_judge_the_offline_rules_hide_nothing_on_their_own(
    tick: Callable[[], float],
) -> None:
    """The offline extractor reads "I moved to Oslo" as a change; the model says unrelated."""
    store = _store(tick, TableJudgeModel())
    _put(store, "a", LISBON)
    _put(store, "b", OSLO)
    assert _served(store, "a", "b") == [True, True]
    assert TEPAStore.in_memory().memory.judge is None  # without one, the offline claims decide


def test_with_a_judge_only_its_verdicts_mark_a_memory(tick: Callable[[], float]) -> None:
    """No offline "possibly superseded" mark: only a held-back "replaces" marks (contested)."""
    store = _store(tick, TableJudgeModel())  # every pair: unrelated
    _put(store, "a", LISBON)
    _put(store, "b", "I live in Paris.")  # offline alone: "a" possibly superseded by "b"
    found = store.search(NS, query="where do I live", limit=3)
    assert [i.key for i in found if "possibly_superseded_by" in i.dict()] == []
    store = _store(tick, TableJudgeModel(relations=RELATIONS))
    _put(store, "a", LISBON)
    TEPAStore(store.memory, index=store.index_config, source="agent").put(
        NS, "b", {"content": OSLO}
    )
    marks = {i.key: i.dict().get("possibly_superseded_by") for i in store.search(NS, limit=3)}
    assert marks["b"] is None
    assert [m["item"] for m in marks["a"]] == ["b"]


def test_restating_the_old_value_undoes_the_replacement(
    store: TEPAStore, model: TableJudgeModel
) -> None:
    _put(store, "a", LISBON)
    _put(store, "b", OSLO)
    _put(store, "c", BACK)
    assert model.seen[-1]["earlier"][0] == {"id": "c1", "text": LISBON, "served": False}
    assert _served(store, "a", "b", "c") == [True, False, True]
    transitions = store.audit(NS, "a").precedents[0].transitions
    assert transitions[-1].reason.startswith("restored")


def test_deleting_the_replacing_memory_brings_the_old_one_back(store: TEPAStore) -> None:
    _put(store, "a", LISBON)
    _put(store, "b", OSLO)
    store.delete(NS, "b")
    assert _served(store, "a", "b") == [True, False]


def test_a_low_trust_writer_cannot_take_a_memory_back(tick: Callable[[], float]) -> None:
    """The verdict is the writer's evidence, weighed by the writer's trust like any other."""
    store = _store(tick, TableJudgeModel(relations=RELATIONS))
    _put(store, "a", LISBON)
    web = TEPAStore(store.memory, index=store.index_config, source="web.example.org")
    web.put(NS, "b", {"content": OSLO})
    assert _served(store, "a") == [True]  # web content alone revokes nothing (docs/trust.md)
    slot = store.memory.audit(slot_key("a"), namespace=claims_namespace(MNS))
    assert [p.value for p in slot.active] == ["a"]


def test_an_agents_replace_is_held_back_until_the_user_confirms(
    tick: Callable[[], float],
) -> None:
    """The agent (it may not correct, and ranks below the store's writer) only asserts."""
    store = _store(tick, TableJudgeModel(relations=RELATIONS))
    _put(store, "a", LISBON)
    agent = TEPAStore(store.memory, index=store.index_config, source="agent")
    agent.put(NS, "b", {"content": OSLO})
    assert _served(store, "a", "b") == [True, True]  # contested: both shown, nothing lost
    slot = store.memory.audit(slot_key("a"), namespace=claims_namespace(MNS))
    assert [p.value for p in slot.active] == ["a"]
    assert [p.value for p in slot.precedents if p.value_id in slot.held] == ["b"]


def test_a_batch_is_one_call_and_judges_its_own_items(
    store: TEPAStore, model: TableJudgeModel
) -> None:
    store.batch([PutOp(NS, "a", {"content": LISBON}), PutOp(NS, "b", {"content": OSLO})])
    (body,) = model.seen
    assert [n["id"] for n in body["new"]] == ["n1", "n2"]
    assert _served(store, "a", "b") == [False, True]


# ---------------------------------------------------------------------- a failing model
@pytest.mark.parametrize("fail", ["raise", "malformed", "sleep"])
def test_a_failing_model_loses_nothing_and_takes_nothing_back(
    tick: Callable[[], float], fail: str, caplog: pytest.LogCaptureFixture
) -> None:
    model = TableJudgeModel(relations=RELATIONS)
    store = _store(tick, ReplacementJudge(model, timeout_s=0.2))
    _put(store, "a", LISBON)
    model.fail = fail
    with caplog.at_level(logging.WARNING, logger="langchain_tepa"):
        _put(store, "b", OSLO)
    assert _served(store, "a", "b") == [True, True]
    error = store.memory.history("b", namespace=MNS)[-1].metadata["judge_error"]
    assert "TableJudgeModel" in error
    assert any("unjudged" in r.getMessage() for r in caplog.records)
    # A later call retries the judgement.
    model.fail = None
    assert store.rejudge(NS) == 1
    assert _served(store, "a", "b") == [False, True]
    assert store.rejudge(NS) == 0


def test_unknown_candidate_ids_are_ignored(
    tick: Callable[[], float], caplog: pytest.LogCaptureFixture
) -> None:
    store = _store(tick, TableJudgeModel(fail="unknown"))
    _put(store, "a", LISBON)
    with caplog.at_level(logging.WARNING, logger="langchain_tepa"):
        _put(store, "b", OSLO)
    assert _served(store, "a", "b") == [True, True]
    assert any("not shown" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("fail", ["raise", "unknown"])
def test_strict_raises_a_typed_error_and_stores_nothing(
    tick: Callable[[], float], fail: str
) -> None:
    model = TableJudgeModel(relations=RELATIONS)
    store = _store(tick, ReplacementJudge(model, strict=True))
    _put(store, "a", LISBON)
    model.fail = fail
    with pytest.raises(JudgeError):
        _put(store, "b", OSLO)
    assert _served(store, "a", "b") == [True, False]


def test_rejudge_without_a_judge_is_refused() -> None:
    with pytest.raises(JudgeError, match="no judge"):
        TEPAStore.in_memory().rejudge(NS)


def test_bad_judges_are_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="chat model"):
        TEPAMemory.in_memory(judge=object())  # type: ignore[arg-type]
    llm = GenericFakeChatModel(messages=iter([]))
    for kwargs in ({"timeout_s": 0}, {"max_candidates": 0}, {"max_chars": 5}, {"strict": 1}):
        with pytest.raises(InvalidArgumentError):
            ReplacementJudge(llm, **kwargs)


def test_answers_are_parsed_strictly() -> None:
    request = JudgeRequest([Statement("n1", OSLO)], [Candidate("c1", LISBON)])

    def judge(text: str) -> ReplacementJudge:
        return ReplacementJudge(GenericFakeChatModel(messages=iter([AIMessage(text)])))

    fenced = '```json\n{"verdicts": [{"candidate": "c1", "relation": "replaces", ' + (
        '"confidence": 2}]}\n```'
    )
    (got,) = judge(fenced).judge(request)  # one memory's object, fenced: read; 2 -> 1
    assert (got.id, got.verdicts[0].confidence) == ("n1", 1.0)
    for bad in ('{"memories": [{"id": "n1", "verdicts": [{"candidate": "c1"}]}]}', "[1, 2"):
        with pytest.raises(JudgeError, match=r"form|JSON"):
            judge(bad).judge(request)
    empty = judge('{"memories": []}').judge(request)
    assert empty[0].verdicts == ()  # a memory the answer leaves out: nothing related


# ---------------------------------------------------------------------- async twins
async def test_async_writes_await_the_models_ainvoke(
    tick: Callable[[], float], model: TableJudgeModel
) -> None:
    store = _store(tick, model)
    await store.aput(NS, "a", {"content": LISBON})
    await store.aput(NS, "b", {"content": OSLO})
    assert model.async_calls == 1
    assert [await store.aget(NS, k) is not None for k in ("a", "b")] == [False, True]


async def test_async_timeout_and_arejudge(tick: Callable[[], float]) -> None:
    model = TableJudgeModel(relations=RELATIONS)
    store = _store(tick, ReplacementJudge(model, timeout_s=0.2))
    await store.aput(NS, "a", {"content": LISBON})
    model.fail = "sleep"
    await store.aput(NS, "b", {"content": OSLO})
    assert _served(store, "a", "b") == [True, True]
    model.fail = None
    assert await store.arejudge(NS) == 1
    assert _served(store, "a", "b") == [False, True]


async def test_vector_store_documents_are_judged_async(model: TableJudgeModel) -> None:
    memory = TEPAMemory.in_memory(judge=model)
    docs = TEPAVectorStore(memory, namespace=MNS)
    await docs.aadd_texts([LISBON], ids=["a"])
    await docs.aadd_texts([OSLO], ids=["b"])
    assert model.async_calls == 1
    assert [d.page_content for d in await docs.asimilarity_search("where do I live", k=5)] == [OSLO]
    assert await docs.arejudge() == 0


def test_vector_store_documents_are_judged(model: TableJudgeModel) -> None:
    docs = TEPAVectorStore(TEPAMemory.in_memory(judge=model), namespace=MNS)
    docs.add_texts([LISBON, DOG], ids=["a", "d"])
    docs.add_texts([OSLO], ids=["b"])
    assert sorted(d.page_content for d in docs.similarity_search("where", k=5)) == [DOG, OSLO]


# ---------------------------------------------------------------------- a real client
def _chat(server: FakeOpenAI) -> ChatOpenAI:
    return ChatOpenAI(model="gpt-4o-mini", base_url=server.base_url, api_key="t", max_retries=0)


def test_chat_openai_as_the_judge(tick: Callable[[], float], fake_openai: FakeOpenAI) -> None:
    answer = TableJudgeModel(relations=RELATIONS)
    fake_openai.handler = lambda request: Text(
        answer.answer(__import__("json").loads(request["messages"][-1]["content"]))
    )
    store = _store(tick, _chat(fake_openai))
    _put(store, "a", LISBON)
    _put(store, "b", OSLO)
    assert _served(store, "a", "b") == [False, True]
    (request,) = fake_openai.chat_requests
    system, human = request["messages"]
    assert system["role"] == "system" and "replaces" in system["content"]
    assert LISBON in human["content"] and OSLO in human["content"]


def test_chat_openai_errors_cost_nothing(
    tick: Callable[[], float], fake_openai: FakeOpenAI
) -> None:
    store = _store(tick, _chat(fake_openai))
    _put(store, "a", LISBON)
    fake_openai.add(Error(500, "overloaded"))
    _put(store, "b", OSLO)
    assert _served(store, "a", "b") == [True, True]


def test_the_async_path_of_a_real_client(fake_openai: FakeOpenAI) -> None:
    answer = TableJudgeModel(relations=RELATIONS)
    fake_openai.handler = lambda request: Text(
        answer.answer(__import__("json").loads(request["messages"][-1]["content"]))
    )
    memory = TEPAMemory.in_memory(judge=_chat(fake_openai))
    docs = TEPAVectorStore(memory, namespace=MNS)

    async def run() -> list[str]:
        await docs.aadd_texts([LISBON], ids=["a"])
        await docs.aadd_texts([OSLO], ids=["b"])
        return [d.page_content for d in await docs.asimilarity_search("live", k=5)]

    assert asyncio.run(run()) == [OSLO]


def test_the_judged_path_on_embedded_chroma(tmp_path: Any, model: TableJudgeModel) -> None:
    """The same verdicts over a persistent store, and after reopening it."""
    emb = HashingEmbeddings()
    index: Any = {"dims": 384, "embed": emb, "fields": ["content"]}
    store = TEPAStore.from_path(tmp_path, index=index, embeddings=emb, judge=model)
    _put(store, "a", LISBON)
    _put(store, "b", OSLO)
    assert _served(store, "a", "b") == [False, True]
    store.memory.close()
    again = TEPAStore.from_path(tmp_path, index=index, embeddings=emb, judge=model)
    _put(again, "c", BACK)
    assert model.seen[-1]["earlier"][0] == {"id": "c1", "text": LISBON, "served": False}
    assert _served(again, "a", "b", "c") == [True, False, True]
    again.memory.close()


def test_an_item_written_again_is_judged_without_itself(
    store: TEPAStore, model: TableJudgeModel
) -> None:
    _put(store, "a", LISBON)
    _put(store, "b", DOG)
    _put(store, "a", OSLO)  # the same item, new content
    assert [c["text"] for c in model.seen[-1]["earlier"]] == [DOG]
    assert _served(store, "a", "b") == [True, True]
    assert store.get(NS, "a").value == {"content": OSLO}

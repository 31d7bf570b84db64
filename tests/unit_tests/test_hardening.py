"""Source names, typed errors and the smaller items clients found (issue 38).

Each test is a reproduction from the issue over the public API; each failed on the code before
it: source names took zero-width, bidi and control characters; a 5,000-deep list as ``k``,
``limit`` or ``namespace`` raised ``RecursionError`` while the error message was built; a
5,000-digit int key raised a plain ``ValueError`` in ``TEPAStore.get``/``delete`` and ``2**64``
was stored as ``"18446744073709551616"``; ``recall`` answered plain text when nothing matched; a
failing claim extractor was only logged; a store reopened with an index of other ``dims``
silently lost its items' scores.
"""

from __future__ import annotations

import asyncio
import json
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from langgraph.store.base import GetOp, PutOp, SearchOp

from langchain_tepa import (
    ExtractionError,
    Fact,
    HashingEmbeddings,
    InvalidKeyError,
    InvalidSourceError,
    PolicyError,
    SourceTrust,
    TEPAError,
    TEPAMemory,
    TEPAStore,
    TEPAVectorStore,
    create_memory_tools,
)
from langchain_tepa.core.errors import ExtractionWarning, IndexMismatchWarning
from langchain_tepa.core.values import safe_repr
from tests.support.snapshot import stored_state


def memory() -> TEPAMemory:
    return TEPAMemory.in_memory(embeddings=HashingEmbeddings())


def nested(depth: int = 5000) -> list[Any]:
    out: list[Any] = []
    for _ in range(depth):
        out = [out]
    return out


BAD_SOURCES = [
    "user\u200b",  # shows as "user" in the audit
    "user.\u200b",  # matched "user.*": could write corrections
    "user\u202e",
    "user\u2066x",
    "user\x07",
    "us\x00er",
    " user",
    "user ",
    "",
    "   ",
    "outcomes",  # the provenance label of executions
    "u" * 257,
    5,
    b"user",
    ["user"],
]


# ---------------------------------------------------------------------- source names
@pytest.mark.parametrize("source", BAD_SOURCES, ids=safe_repr)
def test_source_names_are_checked_like_keys(source: Any) -> None:
    mem = memory()
    mem.observe("user.city", "Lisbon", source="user")
    before = stored_state(mem)
    calls: list[Callable[[], object]] = [
        lambda: mem.observe("user.city", "Oslo", source=source, correction=True),
        lambda: mem.record_outcome("user.city", "Oslo", True, source=source),
        lambda: mem.observe_many([Fact("user.city", "Oslo", source=source)]),
        lambda: mem.add_texts(["I live in Oslo."], source=source),
        lambda: mem.revoke_key("user.city", source=source),
        lambda: asyncio.run(mem.aobserve("user.city", "Oslo", source=source)),
    ]
    for call in calls:
        with pytest.raises(InvalidSourceError):
            call()
    assert stored_state(mem) == before  # nothing stored
    assert mem.get("user.city") == "Lisbon"


@pytest.mark.parametrize("source", ["user\u200b", "agent\u202e", "outcomes", "", None])
def test_adapters_check_their_source_names(source: Any) -> None:
    mem = memory()
    for make in (
        lambda: TEPAStore(mem, source=source),
        lambda: TEPAVectorStore(memory=mem, source=source),
        lambda: create_memory_tools(mem, source=source),
    ):
        with pytest.raises(InvalidSourceError):
            make()


def test_valid_source_names_still_work() -> None:
    mem = memory()
    for source in ("user", "user.web_form", "tool.search.v2", "llm.gpt-4o", "ünïcødé", "app"):
        mem.observe("k", "v", source=source)
    assert {e.source for e in mem.history("k")} == {
        "user",
        "user.web_form",
        "tool.search.v2",
        "llm.gpt-4o",
        "ünïcødé",
        "app",
    }


def test_trust_patterns_refuse_invisible_characters() -> None:
    with pytest.raises(PolicyError, match="ZERO WIDTH"):
        SourceTrust("user\u200b.*")


# ---------------------------------------------------------------------- typed errors
@pytest.mark.parametrize("bad", [nested(), {"a": nested()}, 10**5000, -(10**5000)], ids=safe_repr)
def test_no_error_message_recurses_or_overflows(bad: Any) -> None:
    mem = memory()
    mem.observe("user.city", "Lisbon")
    store = TEPAStore(mem)
    vectors = TEPAVectorStore(memory=mem, namespace="docs")
    vectors.add_texts(["pizza"])
    calls: list[Callable[[], object]] = [
        lambda: mem.retrieve("city", k=bad),
        lambda: mem.get("user.city", namespace=bad),
        lambda: mem.get(bad),
        lambda: mem.observe("k", bad),
        lambda: mem.record_trial("user.city", "Lisbon", bad, trial_kind="counterfactual"),
        lambda: mem.similarity("city", ["x"], namespace=bad),
        lambda: store.search(("u",), limit=bad),
        lambda: store.search(bad),
        lambda: store.get(("u",), bad),
        lambda: store.delete(("u",), bad),
        lambda: store.put(("u",), bad, {"v": 1}),
        lambda: store.put(("u",), "k", {"v": bad}),
        lambda: store.put((bad,), "k", {"v": 1}),  # a label LangGraph's own check would repr
        lambda: store.audit(bad, "k"),
        lambda: store.audit(("u",), bad),
        lambda: store.list_namespaces(prefix=(bad,)),
        lambda: store.search(("u",), filter={"a": bad}),  # recursed in its check (fuzz)
        lambda: store.batch([SearchOp(("u",), filter={"a": [bad]})]),
        lambda: store.batch([GetOp(("u",), bad)]),
        lambda: store.batch([GetOp((bad,), "k")]),
        lambda: store.batch([SearchOp(("u",), limit=bad)]),
        lambda: asyncio.run(store.aget(("u",), bad)),
        lambda: asyncio.run(store.abatch([GetOp(("u",), bad)])),
        lambda: vectors.max_marginal_relevance_search("pizza", k=bad),
        lambda: vectors.max_marginal_relevance_search("pizza", fetch_k=bad),
        lambda: vectors.max_marginal_relevance_search("pizza", lambda_mult=bad),
        lambda: vectors.similarity_search("pizza", filter={"a": bad}),
        lambda: TEPAMemory.in_memory(namespace=bad),
    ]
    messages = []
    for call in calls:
        try:
            call()  # a huge int is a valid limit or filter operand (5 calls): accepted
        except TEPAError as exc:  # anything else is the untyped error this test is about
            messages.append(str(exc))
    assert len(messages) >= len(calls) - (5 if isinstance(bad, int) else 0)
    assert all(0 < len(m) < 2000 for m in messages)


@pytest.mark.parametrize("bad", [nested(), 10**5000], ids=safe_repr)
def test_the_tools_answer_an_error_for_unprintable_arguments(bad: Any) -> None:
    remember, recall, forget = create_memory_tools(memory())
    for tool, args in (
        (remember, {"key": "k", "value": bad}),
        (remember, {"key": bad, "value": "v"}),
        (recall, {"query": "x", "k": bad}),
        (forget, {"key": "k", "value": "v", "reason": bad}),
    ):
        call = {"type": "tool_call", "id": "c", "name": tool.name, "args": args}
        reply = tool.invoke(call)
        assert reply.status == "error" and "Invalid arguments" in reply.content


@pytest.mark.parametrize("key", [10**5000, 2**64, 3, None, b"k", ("k",)], ids=safe_repr)
def test_store_keys_must_be_strings_in_every_method(key: Any) -> None:
    store = TEPAStore.in_memory()
    store.put(("u",), "18446744073709551616", {"v": 1})
    for call in (
        lambda: store.get(("u",), key),
        lambda: store.put(("u",), key, {"v": 2}),
        lambda: store.delete(("u",), key),
        lambda: store.batch([GetOp(("u",), key)]),
        lambda: store.batch([PutOp(("u",), key, {"v": 2})]),
        lambda: asyncio.run(store.aget(("u",), key)),
        lambda: asyncio.run(store.aput(("u",), key, {"v": 2})),
        lambda: asyncio.run(store.adelete(("u",), key)),
    ):
        with pytest.raises(InvalidKeyError, match="must be strings"):
            call()
    assert store.get(("u",), "18446744073709551616").value == {"v": 1}  # untouched


# ---------------------------------------------------------------------- the smaller items
def test_recall_answers_json_when_nothing_matches() -> None:
    _, recall, _ = create_memory_tools(memory())
    reply = recall.invoke(
        {"type": "tool_call", "id": "c", "name": "recall", "args": {"query": "x"}}
    )
    assert json.loads(reply.content) == [] and reply.status == "success"
    assert json.loads(asyncio.run(recall.ainvoke({"query": "x"}))) == []


class _Broken:
    def extract(self, text: str) -> list[Fact]:
        raise ExtractionError("the model timed out")


def test_a_failed_claim_extraction_is_surfaced_not_only_logged() -> None:
    mem = TEPAMemory.in_memory(embeddings=HashingEmbeddings(), extractor=_Broken())
    store = TEPAStore(mem)
    with pytest.warns(ExtractionWarning, match="model timed out"):
        store.put(("u",), "a", {"text": "I live in Lisbon."})
    item = store.get(("u",), "a")
    assert item is not None and item.value == {"text": "I live in Lisbon."}  # the put stands
    (ev,) = mem.history("a", namespace="u")
    assert ev.metadata["claims_error"] == "ExtractionError: the model timed out"
    with pytest.warns(ExtractionWarning):
        asyncio.run(store.aput(("u",), "b", {"text": "I live in Oslo."}))
    vectors = TEPAVectorStore(memory=mem, namespace="docs", claims=True)
    with pytest.warns(ExtractionWarning):
        vectors.add_texts(["I live in Paris."])


def test_an_index_of_other_dims_warns_on_reopen() -> None:
    mem = memory()
    first = TEPAStore(mem, index={"dims": 384, "embed": HashingEmbeddings()})
    first.put(("u",), "k", {"text": "pizza margherita"})
    again = TEPAStore(mem, index={"dims": 384, "embed": HashingEmbeddings()})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert again.search(("u",), query="pizza")[0].score is not None  # same index: quiet
    other = TEPAStore(mem, index={"dims": 256, "embed": HashingEmbeddings(size=256)})
    with pytest.warns(IndexMismatchWarning, match=r"\[384\] dimensions.*dims 256"):
        (item,) = other.search(("u",), query="pizza")
    assert item.score is None  # what the warning is about
    with warnings.catch_warnings():  # once per namespace and store
        warnings.simplefilter("error")
        other.search(("u",), query="pizza")

"""Copies at every boundary: nothing a caller gives or gets is shared with the memory (issue 17).

One memory with every adapter over it (``TEPAStore`` with and without an index,
``TEPAVectorStore``, the agent tools, the retriever). Writes are made with nested dicts and lists
(values, metadata, facts, namespaces given as lists, store values and ops, documents, ids, tool
arguments); reads return values, Documents, precedents, audits, histories, items, vectors and
results. Then *every* object given and every object returned is mutated in place, recursively
(dict entries added and changed, lists appended to, Document contents, metadata and ids,
precedent counts and lists, item values). Afterwards:

* everything the memory and its adapters answer is what they answered before the mutations;
* what is stored is unchanged (``stored_state``);
* a memory reopened on the same store answers exactly the same.

Run on the in-process store (reopened: a new ``TEPAMemory`` on the same storage object) and on
an embedded persistent Chroma folder (reopened: ``from_path`` after ``close``), sync and async.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import enum
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.messages import ToolMessage
from langgraph.store.base import GetOp, Item, PutOp, SearchOp

from langchain_tepa import (
    Fact,
    HashingEmbeddings,
    TEPAMemory,
    TEPARetriever,
    TEPAStore,
    TEPAVectorStore,
)
from langchain_tepa.tools import create_memory_tools
from tests.support.snapshot import stored_state

NS = ["users", "u1"]  # a list namespace: the memory must not keep the caller's list
INDEX = {"dims": 384, "embed": HashingEmbeddings(), "fields": ["text", "tags[*]"]}


# ---------------------------------------------------------------- mutation
def scramble(obj: Any, seen: set[int] | None = None) -> None:
    """Mutate ``obj`` in place, recursively, wherever Python lets a caller."""
    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(obj, str | bytes | int | float | bool | enum.Enum):
        return
    seen.add(id(obj))
    if isinstance(obj, dict):
        for k in list(obj):
            scramble(obj[k], seen)
            if isinstance(obj[k], str | int | float | bool):
                obj[k] = "mutated"
        obj["__mutated__"] = ["x"]
    elif isinstance(obj, list):
        for i, v in enumerate(list(obj)):
            scramble(v, seen)
            if isinstance(v, str | int | float | bool):
                obj[i] = "mutated"
        obj.append("__mutated__")
    elif isinstance(obj, tuple | set | frozenset):
        for v in obj:
            scramble(v, seen)
    elif isinstance(obj, Document):
        scramble(obj.metadata, seen)
        obj.page_content, obj.id = "mutated", "mutated"
    elif isinstance(obj, ToolMessage):
        scramble(obj.artifact, seen)
        obj.content = "mutated"
    elif isinstance(obj, Item):  # also SearchItem
        scramble(obj.value, seen)
        obj.key = "mutated"
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        frozen = type(obj).__dataclass_params__.frozen  # type: ignore[attr-defined]
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            scramble(value, seen)
            if not frozen and isinstance(value, int | float | str) and not isinstance(value, bool):
                setattr(obj, f.name, 999 if isinstance(value, int | float) else "mutated")


# ---------------------------------------------------------------- the memory and its adapters
class Subject:
    def __init__(self, memory: TEPAMemory) -> None:
        self.memory = memory
        self.store = TEPAStore(memory)
        self.indexed = TEPAStore(memory, index=INDEX)  # type: ignore[arg-type]
        self.vectors = TEPAVectorStore(memory, namespace="docs.ev")
        self.tools = {t.name: t for t in create_memory_tools(memory, namespace=("users", "u1"))}
        self.retriever = TEPARetriever(memory=memory, k=10, namespace="users.u1")


def _tool(subject: Subject, name: str, args: dict[str, Any]) -> Any:
    call = {"type": "tool_call", "id": "c1", "name": name, "args": args}
    return subject.tools[name].invoke(call)


def write(s: Subject, given: list[Any], got: list[Any]) -> None:
    """Writes through every surface with mutable inputs; keeps the inputs and the results."""
    m = s.memory
    profile = {"name": "Ada", "langs": ["py", "c"], "nested": {"a": [1, {"b": 2}]}}
    meta = {"origin": "chat", "turn": 3}
    given += [profile, meta, NS]
    got.append(m.observe("user.profile", profile, namespace=NS, metadata=meta, text="Ada codes"))
    got.append(m.observe("user.profile", profile, namespace=NS))
    got.append(m.record_outcome("user.profile", profile, True, namespace=NS, metadata=meta))
    facts = [
        ("user.diet", "vegan"),
        ("user.tags", ["a", "b"]),
        Fact("user.prefs", {"theme": ["dark"]}, namespace=NS, metadata={"m": 1}),
        ("user.diet", "omnivore"),
    ]
    given.append(facts)
    got.append(m.observe_many(facts))
    other = {"name": "Bob", "langs": []}
    given.append(other)
    got.append(m.observe("user.profile", other, namespace=NS))
    got.append(m.revoke("user.profile", other, namespace=NS, reason="wrong person"))
    got.append(m.promote("user.profile", profile, namespace=NS))
    got.append(asyncio.run(m.aobserve("user.city", {"name": "Oslo", "zip": [1, 2]}, namespace=NS)))
    # The LangGraph store: put, batch of mixed ops, an indexed put with an index list.
    item = {"text": "mushroom pizza", "tags": ["food", "pizza"], "stars": {"n": 5}}
    given.append(item)
    s.store.put(("users", "u1"), "pref", item)
    index_paths = ["text"]
    given.append(index_paths)
    second = {"text": "tax return", "tags": ["admin"], "deep": [[1], {"x": [2]}]}
    given.append(second)
    s.indexed.put(("docs",), "a", second, index=index_paths)
    ops = [
        PutOp(("docs",), "b", {"text": "green tea", "tags": ["drink"]}),
        PutOp(("users", "u1"), "pref2", {"list": [1, 2, {"x": 3}]}),
        GetOp(("docs",), "a"),
        SearchOp(("docs",), query="pizza", limit=5),
    ]
    given.append(ops)
    given.extend(op.value for op in ops if isinstance(op, PutOp))
    got.append(s.indexed.batch(ops))
    # The vector store: documents with nested metadata, texts with metadatas and ids.
    docs = [
        Document("pizza margherita", metadata={"src": {"kind": "chat", "n": [1]}}, id="p"),
        Document("The user is vegan", metadata={"key": "user.diet", "value": "vegan"}),
    ]
    ids = ["p", "user.diet#" + _fact_pid(m)]
    given += [docs, ids]
    got.append(s.vectors.add_documents(docs, ids=ids))
    metadatas = [{"src": ["mail"], "n": {"k": 1}}, {"src": ["wiki"]}]
    text_ids = ["t1", "t2"]
    given += [metadatas, text_ids]
    got.append(s.vectors.add_texts(["tax forms", "green tea"], metadatas, ids=text_ids))
    # The tools.
    args = {"key": "user.sport", "value": "tennis", "text": "I play tennis"}
    given.append(args)
    got.append(_tool(s, "remember", args))


def _fact_pid(memory: TEPAMemory) -> str:
    from langchain_tepa.core.types import precedent_id
    from langchain_tepa.core.values import value_identity

    vid = value_identity("vegan", normalize=memory.policy.normalize_values)
    return precedent_id("docs.ev", "user.diet", vid)


def read(s: Subject, given: list[Any], got: list[Any]) -> None:
    """Reads through every surface; keeps every result (and the inputs of the reads)."""
    m = s.memory
    vector = m.embeddings.embed_query("what does the user eat?")
    given.append(vector)
    for ns in ("users.u1", "default", "docs", "docs.ev"):
        keys = m.keys(namespace=ns)
        got.append(keys)
        for key in keys:
            got += [
                m.get(key, namespace=ns),
                m.answer(key, namespace=ns),
                m.audit(key, namespace=ns),
                m.history(key, namespace=ns),
            ]
        precedents = m.precedents(namespace=ns)
        got += [
            precedents,
            m.retrieve("user profile diet", k=20, namespace=ns),
            m.retrieve("user", k=20, namespace=ns, all_values=True),
            m.retrieve_by_vector(vector, k=20, namespace=ns),
            m.active_documents(namespace=ns),
            m.answers(namespace=ns),
            m.answer_rows(namespace=ns),
            [row.value for row in m.answer_rows(namespace=ns)],
            m.views(namespace=ns),
            m.vectors([p.id for p in precedents], namespace=ns),
            m.similarity("diet", [p.id for p in precedents], namespace=ns),
            asyncio.run(m.aget("user.profile", namespace=ns)),
            asyncio.run(m.aretrieve("profile", 5, namespace=ns)),
        ]
    got += [list(m.iter_precedents()), m.namespaces()]
    got += [
        s.store.get(("users", "u1"), "pref"),
        s.store.get(("users", "u1"), "user.profile"),
        s.store.search(("users",), limit=50),
        s.store.search(("users",), query="pizza", limit=50),
        s.store.list_namespaces(),
        s.store.audit(("users", "u1"), "pref"),
        s.indexed.search(("docs",), query="pizza", limit=10),
        s.indexed.batch([GetOp(("docs",), "a"), SearchOp(("docs",), query="tea")]),
        asyncio.run(s.store.aget(("users", "u1"), "pref")),
        s.vectors.similarity_search("pizza", k=5),
        s.vectors.similarity_search_with_score("vegan", k=5),
        s.vectors.similarity_search_by_vector(vector, k=5),
        s.vectors.max_marginal_relevance_search("pizza", k=3, fetch_k=5),
        s.vectors.get_by_ids(["p", "t1", "t2"]),
        asyncio.run(s.vectors.asimilarity_search("tea", k=2)),
        _tool(s, "recall", {"query": "what does the user like?", "k": 10}),
        s.retriever.invoke("profile"),
        asyncio.run(s.retriever.ainvoke("diet")),
    ]


def observed(s: Subject) -> Any:
    """Everything the memory and its adapters answer, as a deep copy (safe to keep)."""
    m = s.memory
    out: dict[str, Any] = {"namespaces": m.namespaces()}
    for ns in out["namespaces"]:
        keys = m.keys(namespace=ns)
        precedents = m.precedents(namespace=ns)
        out[ns] = {
            "keys": keys,
            "get": {k: m.get(k, namespace=ns) for k in keys},
            "audit": {k: [p.to_dict() for p in m.audit(k, namespace=ns).precedents] for k in keys},
            "history": {k: [e.to_json() for e in m.history(k, namespace=ns)] for k in keys},
            "retrieve": [
                (d.id, d.page_content, d.metadata)
                for d in m.retrieve("user profile pizza", k=50, namespace=ns, all_values=True)
            ],
            "answers": [p.to_dict() for p in m.answers(namespace=ns)],
            "rows": [
                (r.id, r.key, r.namespace, r.created_at, r.updated_at, r.last_evidence, r.value)
                for r in m.answer_rows(namespace=ns)
            ],
            "vectors": m.vectors([p.id for p in precedents], namespace=ns),
        }
    out["store"] = [
        (i.namespace, i.key, i.value, i.score) for i in s.store.search((), query="pizza", limit=100)
    ]
    out["indexed"] = [
        (i.namespace, i.key, i.value, i.score)
        for i in s.indexed.search(("docs",), query="pizza", limit=100)
    ]
    out["vectorstore"] = [
        (d.id, d.page_content, d.metadata)
        for d in s.vectors.get_by_ids(["p", "t1", "t2", "user.diet#" + _fact_pid(m)])
    ]
    return copy.deepcopy(out)


# ---------------------------------------------------------------- the test
Opener = Callable[[], TEPAMemory]


@pytest.fixture(params=["in-process", "persistent"])
def open_memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    opened: list[TEPAMemory] = []
    if request.param == "in-process":
        storage = TEPAMemory.in_memory().storage

        def opener() -> TEPAMemory:
            mem = TEPAMemory(storage, embeddings=HashingEmbeddings())
            opened.append(mem)
            return mem
    else:

        def opener() -> TEPAMemory:
            for mem in opened:
                mem.close()
            mem = TEPAMemory.from_path(tmp_path / "chroma", embeddings=HashingEmbeddings())
            opened.append(mem)
            return mem

    yield opener
    for mem in opened:
        mem.close()


def test_mutating_everything_given_and_returned_changes_nothing(open_memory: Opener) -> None:
    subject = Subject(open_memory())
    given: list[Any] = []
    got: list[Any] = []
    write(subject, given, got)
    before = observed(subject)
    stored = stored_state(subject.memory)
    read(subject, given, got)
    assert observed(subject) == before  # reading changed nothing

    scramble(given)
    scramble(got)

    assert observed(subject) == before, "a mutated input or output changed what the memory answers"
    assert stored_state(subject.memory) == stored
    reopened = Subject(open_memory())
    assert observed(reopened) == before, "a memory reopened on the same store differs"


def test_the_mutation_reaches_everything() -> None:
    """The test's own check: scramble really changes the kinds of objects the calls return."""
    p = {"a": [1, {"b": 2}]}
    doc = Document("x", metadata={"k": [1]}, id="d")
    item = Item(value={"v": [1]}, key="k", namespace=("n",), created_at=None, updated_at=None)  # type: ignore[arg-type]
    mem = TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    result = mem.observe("k", {"v": [1]})
    audit = mem.audit("k")
    scramble([p, doc, item, result, audit])
    assert p == {
        "a": ["mutated", {"b": "mutated", "__mutated__": ["x"]}, "__mutated__"],
        "__mutated__": ["x"],
    }
    assert (doc.page_content, doc.id, doc.metadata["k"][-1]) == (
        "mutated",
        "mutated",
        "__mutated__",
    )
    assert item.value["v"][-1] == "__mutated__" and item.key == "mutated"
    assert result.evidence.value["v"][-1] == "__mutated__"
    assert result.precedent is not None and result.precedent.support == 999
    assert audit.precedents[-1] == "__mutated__"

"""Hostile input for the fuzz tests: strategies, the surfaces under test, and the checks.

One memory and every adapter over it (a :class:`Subject`): the memory, ``TEPAStore`` without
and with an ``IndexConfig``, ``TEPAVectorStore`` in both update modes, the agent tools of
``create_memory_tools`` and the retriever. A :class:`Call` names one public call on one of them
with its arguments (its ``repr`` is what hypothesis prints for a failing example); the
strategies draw valid arguments about three times in four and hostile ones otherwise (control
characters, lone surrogates, megabyte texts, NaN, huge integers, wrong types, sets, look-alike
namespaces, unknown operations).

:class:`Checker` runs calls and checks what ``tests/unit_tests/test_fuzz.py`` and
``tests/integration_tests/test_fuzz_server.py`` promise:

* it succeeds, or it raises a :class:`~langchain_tepa.TEPAError` with a message (a tool answers
  with a ``ToolMessage`` of status ``"error"`` whose text says what went wrong, and logs no
  unexpected failure); anything else is an *untyped error*;
* a rejected call changes nothing stored (:func:`~tests.support.snapshot.stored_state` before
  and after, buffered views written first).

Untyped errors that match a :data:`KNOWN_BUGS` entry (each shown by a strict ``xfail`` test in
``tests/unit_tests/test_known_bugs.py``) are counted apart; any other one fails the test.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from types import MappingProxyType
from typing import Any

from hypothesis import strategies as st
from langchain_core.documents import Document
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from langgraph.store.base import GetOp, ListNamespacesOp, MatchCondition, PutOp, SearchOp

from langchain_tepa import (
    Fact,
    HashingEmbeddings,
    TEPAError,
    TEPAMemory,
    TEPARetriever,
    TEPAStore,
    TEPAVectorStore,
)
from langchain_tepa.core.fold import fold_all
from langchain_tepa.core.values import safe_repr
from langchain_tepa.tools import create_memory_tools
from tests.support.snapshot import stored_state
from tests.support.stored import stored_evidence

__all__ = [
    "DEEP",
    "KNOWN_BUGS",
    "VALID_KEYS",
    "VALID_NS",
    "Call",
    "Checker",
    "KnownBug",
    "Subject",
    "Tally",
    "assert_consistent",
    "big_text",
    "facts",
    "hostile_str",
    "json_like",
    "key",
    "make_subject",
    "memory_calls",
    "metadata",
    "mostly",
    "namespace",
    "scalar",
    "source",
    "surface_calls",
    "text",
    "valid_calls",
    "value",
]

VALID_KEYS = ["user.diet", "user.city", "tool.format", "k"]
VALID_NS = ["default", "users.u1", "users.u10"]
DIMS = 384  # HashingEmbeddings

# ---------------------------------------------------------------- hostile values
_weird = st.sampled_from(
    [
        "",
        " ",
        "\x00",
        "a\x00b",
        "\ud800",
        "x\udfffy",
        "\n",
        "k\t",
        "\u202eevil",
        "\u200b",
        "\x7f",
        "a" * 300,
        ".",
        "a..b",
        "tepa_state",
        "null",
        "{}",
        "\ufeff",
        "\U0010ffff",
        "\ue000",
    ]
)
_surrogate_text = st.tuples(st.text(max_size=20), st.sampled_from(["", "\ud800", "\udc00"])).map(
    "".join
)
_any_text = st.text(alphabet=st.characters(codec=None), max_size=40)
hostile_str = st.one_of(_weird, _surrogate_text, _any_text)
big_text = st.builds(
    lambda n, c: c * n,
    st.sampled_from([1_000, 20_000, 64 * 1024 + 1]),
    st.sampled_from(["a", "\x01", "é", "\u2028"]),
)


def _nested(depth: int) -> list[Any]:
    out: list[Any] = []
    for _ in range(depth):
        out = [out]
    return out


DEEP = _nested(5000)
"""A list nested 5,000 deep: building an error message with its ``repr`` recursed (issue 38).
The strategies build theirs when drawn: hypothesis shows its strategies with ``repr``."""
scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    hostile_str,
    st.binary(max_size=8),
    st.just(object()),
    st.just({1, 2}),
    st.builds(_nested, st.just(5000)),  # built when drawn: hypothesis reprs its strategies
    st.builds(lambda d: {"a": _nested(d)}, st.just(5000)),
    st.builds(lambda e: 10**e, st.sampled_from([5000, 20])),  # 5,000 digits, and 10 ** 20
    st.just(2**64),
)
json_like = st.recursive(
    scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(hostile_str, st.integers()), inner, max_size=4),
    ),
    max_leaves=10,
)


def mostly(valid: st.SearchStrategy[Any], *hostile: st.SearchStrategy[Any]) -> Any:
    """Valid about three times in four, so that accepted calls build up state too."""
    bad = st.one_of(*hostile)
    return st.sampled_from([True, True, True, False]).flatmap(lambda ok: valid if ok else bad)


key = mostly(st.sampled_from(VALID_KEYS), hostile_str, scalar)
value = mostly(st.sampled_from(["vegan", "Paris", "csv", 3, [1, 2], {"a": 1}]), json_like, big_text)
namespace = mostly(st.one_of(st.none(), st.sampled_from(VALID_NS)), hostile_str, scalar)
text = mostly(st.one_of(st.none(), st.text(max_size=30)), hostile_str, big_text, scalar)
metadata = mostly(
    st.one_of(st.none(), st.fixed_dictionaries({"origin": st.sampled_from(["chat", "tool"])})),
    st.dictionaries(st.one_of(hostile_str, st.integers()), scalar, max_size=5),
    st.just({f"m{i}": i for i in range(70)}),
    scalar,
)
source = mostly(
    st.sampled_from([None, "user", "tool.search", "web"]),
    hostile_str,
    st.sampled_from(["user\u200b", "user.\u200b", "user\u202e", "outcomes", " user", "u\x00"]),
    scalar,
)
k_value = st.one_of(
    st.integers(min_value=-5, max_value=1100),
    st.sampled_from([0, 1, 1000, 1001, 2**63]),
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
    hostile_str,
)
fact_item = st.one_of(
    st.tuples(key, value),
    st.tuples(key),
    st.tuples(key, value, namespace),
    st.builds(Fact, key, value, namespace=namespace, text=text, source=source, metadata=metadata),
    scalar,
)
facts = st.one_of(st.lists(fact_item, max_size=4), scalar)
reason = st.one_of(st.just("by hand"), hostile_str, scalar)
as_of = mostly(
    st.one_of(st.none(), st.sampled_from([0.0, 1e12, datetime(2020, 1, 1), "@last"])),
    st.sampled_from(
        [
            float("nan"),
            float("inf"),
            -1e300,
            datetime.max.replace(tzinfo=timezone.utc),
            datetime.min,
            True,
            "no-such-evidence",
        ]
    ),
    scalar,
)
_VALID_VECTOR = HashingEmbeddings().embed_query("what does the user eat?")
vector = mostly(
    st.just(_VALID_VECTOR),
    st.just(_VALID_VECTOR[:-1]),
    st.just([float("nan")] * DIMS),
    st.just([True] * DIMS),
    st.just([0.0] * DIMS),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=4),
    st.just(["a"] * DIMS),
    scalar,
)
precedent_ids = mostly(
    st.sampled_from([["@first"], ["@all"], [], ["@first", "nope"]]),
    st.lists(st.one_of(hostile_str, scalar), max_size=3),
    scalar,
)


# ---------------------------------------------------------------- the subject
@dataclass
class Subject:
    """One memory and every adapter over it (they share its storage, so one snapshot)."""

    memory: TEPAMemory
    store: TEPAStore
    indexed: TEPAStore
    vectors: TEPAVectorStore
    replacing: TEPAVectorStore
    tools: dict[str, BaseTool]
    retriever: TEPARetriever


_SEED_FACTS = [
    ("user.diet", "vegan"),
    ("user.diet", "omnivore"),
    ("user.city", "Paris"),
    ("tool.format", "csv"),
    ("k", 3),
]


def make_subject(memory: TEPAMemory, *, seed: bool = True) -> Subject:
    """Every adapter over ``memory``; with ``seed``, a few facts, items and documents in it."""
    index = {"dims": DIMS, "embed": HashingEmbeddings(), "fields": ["text"]}
    subject = Subject(
        memory=memory,
        store=TEPAStore(memory),
        indexed=TEPAStore(memory, index=index),  # type: ignore[arg-type]
        vectors=TEPAVectorStore(memory, namespace="docs.ev"),
        replacing=TEPAVectorStore(memory, namespace="docs.rep", update="replace"),
        tools={t.name: t for t in create_memory_tools(memory, namespace=("users", "u1"))},
        retriever=TEPARetriever(memory=memory, k=3),
    )
    if seed:
        memory.observe_many(_SEED_FACTS)
        for ns in VALID_NS[1:]:
            memory.observe("user.diet", "vegan", namespace=ns)
        subject.store.put(("users", "u1"), "pref", {"text": "mushroom pizza", "stars": 5})
        subject.indexed.put(("docs",), "a", {"text": "pizza margherita", "stars": 4})
        subject.indexed.put(("docs",), "b", {"text": "tax return", "stars": 2}, ttl=60)
        subject.vectors.add_texts(["pizza margherita", "tax forms"], ids=["p", "t"])
        subject.replacing.add_texts(["opening hours 9 to 17"], ids=["hours"])
    return subject


# ---------------------------------------------------------------- calls
class _Omit:
    def __repr__(self) -> str:
        return "OMIT"


OMIT: Any = _Omit()


def _opt(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.just(OMIT), strategy)


def _resolve(subject: Subject, arg: Any, ns: Any) -> Any:
    """Placeholders that need the subject: ``"@first"``/``"@all"`` precedent ids, ``"@last"``."""
    if isinstance(arg, list) and any(a in ("@first", "@all") for a in arg if isinstance(a, str)):
        try:
            ids = [p.id for p in subject.memory.precedents(namespace=ns)]
        except TEPAError:
            ids = []
        out: list[Any] = []
        for a in arg:
            if a == "@first":
                out.extend(ids[:1])
            elif a == "@all":
                out.extend(ids)
            else:
                out.append(a)
        return out
    if arg == "@last":
        try:
            history = subject.memory.history("user.diet", namespace=ns)
        except TEPAError:
            history = []
        return history[-1].id if history else "no-evidence-yet"
    return arg


def _short(x: object, limit: int = 120) -> str:
    text = safe_repr(x)  # an integer over Python's 4,300-digit limit, a 5,000-deep list
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class Call:
    """One public call: ``getattr(subject.<target>, method)(*args, **kwargs)``.

    ``mode`` is ``"sync"``, ``"async"`` (the coroutine is run with ``asyncio.run``) or
    ``"tool"`` (``subject.tools[method].invoke(<a tool call with args[0] as arguments>)``).
    """

    surface: str
    target: str
    method: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    mode: str = "sync"

    @property
    def name(self) -> str:
        return f"{self.target}.{self.method}"

    def __repr__(self) -> str:
        shown = [_short(a) for a in self.args]
        shown += [f"{k}={_short(v)}" for k, v in self.kwargs.items()]
        return f"{self.name}({', '.join(shown)})"

    def run(self, subject: Subject) -> Any:
        kwargs = {k: v for k, v in self.kwargs.items() if v is not OMIT}
        extra = kwargs.pop("**", {})  # options splatted into the call (search kwargs)
        kwargs.update(extra if isinstance(extra, dict) else {})
        ns = kwargs.get("namespace")
        ns = ns if isinstance(ns, str) else None
        args = tuple(_resolve(subject, a, ns) for a in self.args if a is not OMIT)
        kwargs = {k: _resolve(subject, v, ns) for k, v in kwargs.items()}
        if self.mode == "tool":
            call = {"type": "tool_call", "id": "c1", "name": self.method, "args": args[0]}
            return subject.tools[self.method].invoke(call)
        if self.target == "TEPARetriever":
            return TEPARetriever(memory=subject.memory, **kwargs).invoke("diet")
        fn = getattr(getattr(subject, self.target), self.method)
        if self.mode == "async":
            return asyncio.run(fn(*args, **kwargs))
        return fn(*args, **kwargs)


def call(
    surface: str,
    target: str,
    method: str,
    *args: st.SearchStrategy[Any],
    mode: str = "sync",
    **kwargs: st.SearchStrategy[Any],
) -> st.SearchStrategy[Call]:
    """A strategy of :class:`Call` with arguments drawn from ``args`` and ``kwargs``."""
    return st.builds(
        lambda a, k: Call(surface, target, method, tuple(a), dict(k), mode),
        st.tuples(*args),
        st.fixed_dictionaries(kwargs),
    )


def _mem(method: str, *args: Any, mode: str = "sync", **kwargs: Any) -> st.SearchStrategy[Call]:
    return call("memory", "memory", method, *args, mode=mode, **kwargs)


key_prefix = st.one_of(st.none(), key)

memory_calls = st.one_of(
    _mem("observe", key, value, text=text, namespace=namespace, metadata=metadata, source=source),
    _mem(
        "record_outcome",
        key,
        value,
        st.one_of(st.booleans(), scalar),
        namespace=namespace,
        metadata=metadata,
    ),
    _mem("observe_many", facts),
    _mem("revoke", key, value, reason=reason, namespace=namespace),
    _mem("revoke_key", key, reason=_opt(reason), namespace=namespace, source=_opt(source)),
    _mem("promote", key, value, reason=reason, namespace=namespace),
    _mem(
        "record_trial",
        key,
        value,
        st.one_of(st.booleans(), scalar),
        trial_kind=st.one_of(st.just("counterfactual"), hostile_str, scalar),
        detail=st.one_of(st.just(""), hostile_str, scalar),
    ),
    _mem(
        "retrieve",
        st.one_of(st.just("diet"), hostile_str, scalar),
        k_value,
        namespace=namespace,
        key_prefix=key_prefix,
        as_of=_opt(as_of),
        all_values=_opt(st.one_of(st.booleans(), scalar)),
    ),
    _mem("retrieve_by_vector", vector, k_value, namespace=namespace, key_prefix=_opt(key_prefix)),
    _mem("vectors", precedent_ids, namespace=namespace),
    _mem(
        "similarity",
        st.one_of(st.just("diet"), vector, hostile_str),
        precedent_ids,
        namespace=namespace,
    ),
    _mem("get", key, namespace=namespace, as_of=_opt(as_of)),
    _mem("answer", key, namespace=namespace, as_of=_opt(as_of)),
    _mem("answers", namespace=namespace, key_prefix=_opt(key_prefix), as_of=_opt(as_of)),
    _mem("audit", key, namespace=namespace, as_of=_opt(as_of)),
    _mem("history", key, namespace=namespace),
    _mem("keys", namespace=namespace, as_of=_opt(as_of)),
    _mem("namespaces", _opt(namespace), active_only=_opt(st.one_of(st.booleans(), scalar))),
    _mem("precedents", namespace=namespace),
    _mem("views", namespace=namespace),
    _mem("evidence_count", namespace=namespace),
    _mem("active_documents", namespace=namespace, key_prefix=key_prefix, as_of=_opt(as_of)),
    _mem("mark_boundary", namespace=namespace),
    _mem(
        "add_texts",
        st.one_of(
            st.lists(
                st.one_of(st.just("I live in Paris. My diet is vegan."), hostile_str, scalar),
                max_size=3,
            ),
            scalar,
        ),
        namespace=namespace,
        source=source,
    ),
    _mem("aobserve", key, value, namespace=namespace, mode="async"),
    _mem("aretrieve", st.one_of(st.just("diet"), hostile_str), k_value, mode="async"),
    _mem("aretrieve_by_vector", vector, k_value, namespace=namespace, mode="async"),
    _mem("avectors", precedent_ids, namespace=namespace, mode="async"),
    _mem("aget", key, namespace=namespace, mode="async"),
    _mem("arevoke_key", key, namespace=namespace, mode="async"),
    st.just(Call("memory", "memory", "reconcile")),
)

# ---------------------------------------------------------------- the LangGraph store
store_ns = mostly(
    st.sampled_from([("users", "u1"), ("users", "u10"), ("docs",), ("default",), ["users", "u1"]]),
    st.lists(hostile_str, max_size=3).map(tuple),
    st.sampled_from([(), ("a.b",), ("langgraph", "x"), ("ok", 1), ("",), "users", None]),
    scalar,
)
store_key = mostly(st.sampled_from(["pref", "user.diet", "a", "b"]), hostile_str, scalar)
store_value = mostly(
    st.sampled_from(
        [
            {"text": "mushroom pizza", "stars": 5},
            {"text": "tax return", "stars": 2},
            {"value": "vegan"},
            {"text": "nul \x00 inside", "stars": 1},
            {"nested": {"text": "deep"}, "tags": ["a", "b"]},
        ]
    ),
    st.dictionaries(st.one_of(hostile_str, st.integers()), json_like, max_size=4),
    st.builds(lambda t: {"text": t}, st.one_of(hostile_str, big_text)),
    st.just(MappingProxyType({"text": "read-only mapping"})),
    st.just({"big": 10**5000}),
    json_like,
)
index_arg = st.one_of(
    st.just(OMIT),
    st.sampled_from([None, False, ["text"], ["$"], ["nested.text"], ["tags[*]"]]),
    st.sampled_from([[""], "text", [1], True, ("text",)]),
)
ttl_arg = st.one_of(
    st.just(OMIT),
    st.sampled_from([None, 1, 0.5, 60]),
    st.sampled_from([-1, 0, float("nan"), float("inf"), "5", True, 10**400]),
)
store_filter = mostly(
    st.sampled_from(
        [None, {"stars": {"$gt": 2}}, {"text": "tax return"}, {"stars": {"$ne": 5}}, {}]
    ),
    st.sampled_from(
        [
            {"a": {"$foo": 1}},
            {"a": {"$gt": "x"}},
            {1: 2},
            "x",
            {"a": {"$gt": 1, "b": 2}},
            {"$and": [1]},
        ]
    ),
    json_like,
)
store_query = mostly(
    st.sampled_from([None, "pizza", "tax", ""]),
    hostile_str,
    big_text,
    st.just("q" * 1_000_001),
    scalar,
)
count = mostly(st.integers(0, 20), st.integers(-3, -1), scalar)
match_path = mostly(
    st.sampled_from([("users",), ("users", "*"), ("docs",), ("*",)]),
    st.lists(hostile_str, max_size=2).map(tuple),
    scalar,
)
ops = st.one_of(
    st.builds(GetOp, store_ns, store_key, st.one_of(st.booleans(), scalar)),
    st.builds(
        lambda ns, k, v, ix, ttl: PutOp(
            ns, k, v, None if ix is OMIT else ix, None if ttl is OMIT else ttl
        ),
        store_ns,
        store_key,
        st.one_of(store_value, st.none()),
        index_arg,
        ttl_arg,
    ),
    st.builds(SearchOp, store_ns, store_filter, count, count, store_query, st.booleans()),
    st.builds(
        lambda kind, path, depth, lim, off: ListNamespacesOp(
            (MatchCondition(kind, path),), depth, lim, off
        ),
        st.sampled_from(["prefix", "suffix"]),
        match_path,
        st.one_of(st.none(), count),
        count,
        count,
    ),
    st.sampled_from(["unknown op", 5, None, ("get", "x")]),
)
op_list = mostly(st.lists(ops, min_size=1, max_size=5), st.lists(ops, max_size=5), scalar)


def _store_calls(target: str) -> st.SearchStrategy[Call]:
    def c(method: str, *args: Any, mode: str = "sync", **kwargs: Any) -> st.SearchStrategy[Call]:
        return call("store", target, method, *args, mode=mode, **kwargs)

    return st.one_of(
        c("put", store_ns, store_key, store_value, index_arg, ttl=ttl_arg),
        c("get", store_ns, store_key, refresh_ttl=_opt(st.booleans()), as_of=_opt(as_of)),
        c(
            "search",
            store_ns,
            query=_opt(store_query),
            filter=_opt(store_filter),
            limit=_opt(count),
            offset=_opt(count),
            as_of=_opt(as_of),
        ),
        c("delete", store_ns, store_key),
        c(
            "list_namespaces",
            prefix=_opt(match_path),
            suffix=_opt(match_path),
            max_depth=_opt(st.one_of(st.none(), count)),
            limit=_opt(count),
            offset=_opt(count),
        ),
        c("batch", op_list),
        c("batch", op_list),
        c("abatch", op_list, mode="async"),
        c("aput", store_ns, store_key, store_value, mode="async"),
        c("asearch", store_ns, query=_opt(store_query), mode="async"),
        c("audit", store_ns, store_key),
    )


store_calls = st.one_of(_store_calls("store"), _store_calls("indexed"))

# ---------------------------------------------------------------- the vector store
doc_text = st.one_of(
    st.sampled_from(["pizza margherita", "tax forms", "opening hours 8 to 16", ""]),
    hostile_str,
    big_text,
)
doc_meta = mostly(
    st.sampled_from(
        [
            {},
            {"source": "chat"},
            {"key": "user.diet", "value": "vegan"},
            {"n": [1, 2], "nested": {"a": None}},
        ]
    ),
    st.dictionaries(hostile_str, json_like, max_size=3),
    st.sampled_from(
        [
            {"key": 5},
            {"key": "user.diet"},
            {"key": "bad key\x00", "value": 1},
            {"x": float("nan")},
            {1: "int key"},
        ]
    ),
)
doc_id = mostly(st.sampled_from([None, "p", "t", "hours", "new"]), hostile_str)


def _document(text_: str, meta: Any, id_: Any) -> Document:
    try:
        return Document(page_content=text_, metadata=meta, id=id_)
    except Exception:  # a Document pydantic refuses is not ours to test
        return Document(page_content=text_)


document = st.builds(_document, doc_text, doc_meta, doc_id)
documents = mostly(
    st.lists(document, min_size=1, max_size=3),
    st.lists(st.one_of(document, scalar), max_size=3),
    st.just("a string"),
    scalar,
)
doc_ids = mostly(
    st.lists(st.sampled_from(["p", "t", "hours", "new", "nope"]), min_size=1, max_size=3),
    st.lists(st.one_of(hostile_str, scalar), max_size=3),
    st.just("p"),
    scalar,
)


def _nested_filter(depth: int) -> dict[str, Any]:
    out: dict[str, Any] = {"a": 1}
    for _ in range(depth):
        out = {"$or": [out]}
    return out


metadata_filter = mostly(
    st.sampled_from(
        [
            {"source": "chat"},
            {"key": {"$in": ["user.diet", "user.city"]}},
            {"n": {"$ne": 3}},
            {"value": {"$nin": ["vegan"]}},
            {"$or": [{"source": "chat"}, {"x": {"$gte": 0.5}}]},
            {"$and": [{"source": {"$eq": "chat"}}, {"year": {"$lt": 2000}}]},
        ]
    ),
    st.sampled_from(
        [
            {},
            {"$and": []},
            {"$bogus": 1},
            {"a": {"$gt": "x"}},
            {"a": {"$in": []}},
            {"a": {"$eq": [1]}},
            {"a": {"$like": 1}},
            {"a": {"$gt": float("nan")}},
            {1: "int"},
        ]
    ),
    st.builds(lambda d: {"$and": [_nested_filter(d)]}, st.sampled_from([40, 5000])),
    json_like,
    scalar,
)
"""Metadata filters: valid ones with every operator, malformed ones, nested past any limit."""


search_kwargs = mostly(
    st.sampled_from([{}, {"key_prefix": "doc"}, {"key_prefix": "user"}]),
    st.builds(lambda f: {"filter": f}, metadata_filter),
    st.sampled_from([{"key_prefix": ""}, {"key_prefix": 5}, {"bogus": 1}]),
)
lambda_mult = mostly(st.floats(0.0, 1.0), st.floats(allow_nan=True), scalar)


def _vs_calls(target: str) -> st.SearchStrategy[Call]:
    def c(method: str, *args: Any, mode: str = "sync", **kwargs: Any) -> st.SearchStrategy[Call]:
        return call("vectorstore", target, method, *args, mode=mode, **kwargs)

    query = mostly(st.sampled_from(["pizza", "tax", "opening hours"]), hostile_str, scalar)
    return st.one_of(
        c("add_documents", documents, ids=_opt(doc_ids)),
        c(
            "add_texts",
            mostly(st.lists(doc_text, min_size=1, max_size=3), scalar, st.lists(scalar)),
            _opt(st.one_of(st.none(), st.lists(doc_meta, max_size=3), scalar)),
            ids=_opt(st.one_of(st.none(), doc_ids)),
        ),
        c("similarity_search", query, _opt(k_value), **{"**": _opt(search_kwargs)}),
        c("similarity_search_with_score", query, _opt(k_value)),
        c("similarity_search_by_vector", vector, _opt(k_value)),
        c("similarity_search_with_score_by_vector", vector, _opt(k_value)),
        c(
            "similarity_search_with_relevance_scores",
            query,
            _opt(k_value),
            score_threshold=_opt(st.floats(0.0, 1.0)),
        ),
        c(
            "max_marginal_relevance_search",
            query,
            k_value,
            k_value,
            lambda_mult,
            filter=_opt(metadata_filter),
        ),
        c(
            "max_marginal_relevance_search_by_vector",
            vector,
            k_value,
            k_value,
            lambda_mult,
            filter=_opt(metadata_filter),
        ),
        c("delete", _opt(doc_ids)),
        c("get_by_ids", doc_ids),
        c("aadd_documents", documents, mode="async"),
        c("asimilarity_search", query, _opt(k_value), filter=_opt(metadata_filter), mode="async"),
        c("amax_marginal_relevance_search_by_vector", vector, mode="async"),
        c("adelete", _opt(doc_ids), mode="async"),
    )


vectorstore_calls = st.one_of(_vs_calls("vectors"), _vs_calls("replacing"))

# ---------------------------------------------------------------- tools and the retriever
_tool_value = mostly(st.sampled_from(["vegan", "Paris", "csv"]), hostile_str, big_text, scalar)
_tool_key = mostly(st.sampled_from(VALID_KEYS), hostile_str, scalar)


def _tool_args(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    extra = st.sampled_from([{}, {}, {}, {"bogus": 1}])
    return st.builds(
        lambda d, e: {**{k: v for k, v in d.items() if v is not OMIT}, **e},
        st.fixed_dictionaries({k: _opt(v) if k != "key" else v for k, v in fields.items()}),
        extra,
    )


def _tool(name: str, args: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[Call]:
    return st.builds(lambda a: Call("tools", "tools", name, (a,), {}, "tool"), args)


tool_calls = st.one_of(
    _tool("remember", _tool_args(key=_tool_key, value=_tool_value, text=text)),
    _tool(
        "recall",
        _tool_args(
            query=mostly(st.just("diet"), hostile_str, scalar), k=k_value, key_prefix=key_prefix
        ),
    ),
    _tool("forget", _tool_args(key=_tool_key, value=_tool_value, reason=reason)),
)
retriever_calls = st.one_of(
    call(
        "retriever",
        "retriever",
        "invoke",
        mostly(st.just("what does the user eat?"), hostile_str, big_text, scalar),
        k=_opt(k_value),
        namespace=_opt(namespace),
        key_prefix=_opt(key_prefix),
        bogus=st.sampled_from([OMIT, OMIT, OMIT, 1]),
    ),
    call("retriever", "retriever", "ainvoke", st.just("diet"), k=_opt(k_value), mode="async"),
    call(
        "retriever",
        "TEPARetriever",
        "__init__",
        k=_opt(k_value),
        namespace=_opt(namespace),
        key_prefix=_opt(key_prefix),
    ),
)

# ---------------------------------------------------------------- valid calls
# Calls with valid arguments that each need storage: with the server stopped, every one fails.
_k = st.sampled_from(VALID_KEYS)
_v = st.sampled_from(["vegan", "Paris", "csv", "keto", 3, [1, 2], {"a": 1}])
_ns = st.sampled_from([None, *VALID_NS])
_q = st.sampled_from(["diet", "what does the user eat?", "pizza", "city"])
_items = st.sampled_from([("users", "u1"), ("users", "u10"), ("docs",)])
_item = st.fixed_dictionaries(
    {"text": st.sampled_from(["pizza", "tax", "tea"]), "n": st.integers(0, 9)}
)
_doc_ids = st.lists(st.sampled_from(["p", "t", "hours", "new"]), min_size=1, max_size=3)
_texts = st.lists(
    st.sampled_from(["pizza margherita", "tax forms", "green tea"]), min_size=1, max_size=3
)
_k_ok = st.integers(1, 20)
_doc_meta_ok = st.fixed_dictionaries(
    {"genre": st.sampled_from(["sf", "crime"]), "year": st.integers(1930, 2020)}
)
_filter_ok = st.sampled_from(
    [
        {"genre": "sf"},
        {"year": {"$gte": 1970}},
        {"genre": {"$in": ["sf", "crime"]}, "year": {"$lt": 1990}},
        {"$or": [{"genre": {"$ne": "sf"}}, {"year": {"$lte": 1950}}]},
        {"$and": [{"genre": {"$nin": ["crime"]}}, {"year": {"$gt": 1900}}]},
    ]
)
_vs = st.sampled_from(["vectors", "replacing"])
_st = st.sampled_from(["store", "indexed"])


def _valid(
    surface: str, target: Any, method: str, *args: Any, mode: str = "sync", **kwargs: Any
) -> st.SearchStrategy[Call]:
    targets = target if isinstance(target, st.SearchStrategy) else st.just(target)
    return st.builds(
        lambda t, a, k: Call(surface, t, method, tuple(a), dict(k), mode),
        targets,
        st.tuples(*args),
        st.fixed_dictionaries(kwargs),
    )


valid_calls = st.one_of(
    _valid("memory", "memory", "observe", _k, _v, namespace=_ns),
    _valid("memory", "memory", "observe_many", st.lists(st.tuples(_k, _v), min_size=1, max_size=3)),
    _valid("memory", "memory", "record_outcome", _k, _v, st.booleans(), namespace=_ns),
    _valid("memory", "memory", "revoke", _k, _v, namespace=_ns),
    _valid("memory", "memory", "revoke_key", _k, namespace=_ns),
    _valid("memory", "memory", "promote", _k, _v, namespace=_ns),
    _valid("memory", "memory", "retrieve", _q, _k_ok, namespace=_ns),
    _valid("memory", "memory", "retrieve_by_vector", st.just(_VALID_VECTOR), _k_ok, namespace=_ns),
    _valid("memory", "memory", "vectors", st.just(["@first"]), namespace=_ns),
    _valid("memory", "memory", "get", _k, namespace=_ns),
    _valid("memory", "memory", "answer", _k, namespace=_ns),
    _valid("memory", "memory", "answers", namespace=_ns),
    _valid("memory", "memory", "audit", _k, namespace=_ns),
    _valid("memory", "memory", "history", _k, namespace=_ns),
    _valid("memory", "memory", "keys", namespace=_ns),
    _valid("memory", "memory", "namespaces", active_only=st.booleans()),
    _valid("memory", "memory", "precedents", namespace=_ns),
    _valid("memory", "memory", "views", namespace=_ns),
    _valid("memory", "memory", "evidence_count", namespace=_ns),
    _valid("memory", "memory", "active_documents", namespace=_ns),
    _valid("memory", "memory", "mark_boundary", namespace=_ns),
    _valid("memory", "memory", "add_texts", st.just(["My diet is vegan."]), namespace=_ns),
    _valid("memory", "memory", "reconcile"),
    _valid("memory", "memory", "aobserve", _k, _v, namespace=_ns, mode="async"),
    _valid("memory", "memory", "aretrieve", _q, _k_ok, mode="async"),
    _valid("store", _st, "put", _items, _k, _item),
    _valid("store", _st, "get", _items, _k),
    _valid("store", _st, "search", _items, query=st.one_of(st.none(), _q), limit=_k_ok),
    _valid("store", _st, "delete", _items, _k),
    _valid("store", _st, "list_namespaces", max_depth=st.one_of(st.none(), st.integers(1, 3))),
    _valid(
        "store",
        _st,
        "batch",
        st.lists(
            st.one_of(
                st.builds(lambda n, k, v: PutOp(n, k, v), _items, _k, _item),
                st.builds(lambda n, k: GetOp(n, k), _items, _k),
                st.builds(lambda n, q: SearchOp(n, query=q), _items, st.one_of(st.none(), _q)),
            ),
            min_size=1,
            max_size=4,
        ),
    ),
    _valid(
        "store",
        _st,
        "abatch",
        st.lists(st.builds(lambda n, k: GetOp(n, k), _items, _k), min_size=1, max_size=3),
        mode="async",
    ),
    _valid("store", _st, "aput", _items, _k, _item, mode="async"),
    _valid("vectorstore", _vs, "add_texts", _texts),
    _valid("vectorstore", _vs, "add_texts", st.just(["one text"]), ids=st.just(["n1"])),
    _valid(
        "vectorstore",
        _vs,
        "add_texts",
        st.lists(st.sampled_from(["Dune", "The Big Sleep", "Neuromancer"]), min_size=3, max_size=3),
        st.lists(_doc_meta_ok, min_size=3, max_size=3),
    ),
    _valid("vectorstore", _vs, "similarity_search", _q, _k_ok),
    _valid("vectorstore", _vs, "similarity_search", _q, _k_ok, filter=_filter_ok),
    _valid("vectorstore", _vs, "max_marginal_relevance_search", _q, _k_ok, filter=_filter_ok),
    _valid("vectorstore", _vs, "similarity_search_with_score", _q, _k_ok),
    _valid("vectorstore", _vs, "similarity_search_by_vector", st.just(_VALID_VECTOR), _k_ok),
    _valid("vectorstore", _vs, "max_marginal_relevance_search", _q, _k_ok, _k_ok),
    _valid("vectorstore", _vs, "delete", _doc_ids),
    _valid("vectorstore", _vs, "get_by_ids", _doc_ids),
    _valid("vectorstore", _vs, "asimilarity_search", _q, mode="async"),
    _valid("vectorstore", _vs, "aadd_texts", _texts, mode="async"),
    st.builds(
        lambda k, v: Call("tools", "tools", "remember", ({"key": k, "value": v},), {}, "tool"),
        _k,
        st.sampled_from(["vegan", "keto", "Paris"]),
    ),
    st.builds(
        lambda q, k: Call("tools", "tools", "recall", ({"query": q, "k": k},), {}, "tool"),
        _q,
        _k_ok,
    ),
    st.builds(
        lambda k, v: Call("tools", "tools", "forget", ({"key": k, "value": v},), {}, "tool"),
        _k,
        st.sampled_from(["vegan", "Paris"]),
    ),
    _valid("retriever", "retriever", "invoke", _q, k=_k_ok),
    _valid("retriever", "retriever", "ainvoke", _q, mode="async"),
)
"""Calls with valid arguments on every surface, each of which reads or writes storage."""


surface_calls = st.one_of(
    memory_calls,
    store_calls,
    store_calls,
    vectorstore_calls,
    tool_calls,
    retriever_calls,
    valid_calls,
)
"""Calls over every surface (the LangGraph store drawn twice as often: it has two configs),
and calls with valid arguments only (so that state builds up on every surface)."""


# ---------------------------------------------------------------- known bugs
@dataclass(frozen=True)
class KnownBug:
    """An untyped error already reported (shown by a strict xfail test), counted apart.

    It matches a call named in ``calls`` that raised an exception of the class ``error``
    (defined in a module starting with ``module``) whose message matches ``message``.
    """

    calls: frozenset[str]
    error: str
    message: str
    test: str
    module: str = ""

    def matches(self, name: str, exc: BaseException) -> bool:
        return (
            name in self.calls
            and type(exc).__name__ == self.error
            and type(exc).__module__.startswith(self.module)
            and re.search(self.message, str(exc)) is not None
        )


def _names(targets: tuple[str, ...], methods: tuple[str, ...]) -> frozenset[str]:
    return frozenset(f"{t}.{m}" for t in targets for m in methods)


_STORES = ("store", "indexed")
_STORE_METHODS = (
    "put",
    "get",
    "search",
    "delete",
    "list_namespaces",
    "aput",
    "aget",
    "asearch",
    "adelete",
    "alist_namespaces",
)
_KNOWN_TESTS = "tests/unit_tests/test_known_bugs.py::"
KNOWN_BUGS: list[KnownBug] = []
"""Untyped errors reported and not yet fixed (each a strict ``xfail`` test): none today."""


# ---------------------------------------------------------------- checks
@dataclass
class Tally:
    """What a fuzz run did, per surface and in total (the reliability figures)."""

    counts: Counter[str] = field(default_factory=Counter)
    known: Counter[str] = field(default_factory=Counter)

    def add(self, surface: str, outcome: str) -> None:
        self.counts["calls"] += 1
        self.counts[outcome] += 1
        self.counts[f"{surface}_calls"] += 1
        self.counts[f"{surface}_{outcome}"] += 1

    def figures(self) -> dict[str, int]:
        out = dict(self.counts)
        out.setdefault("untyped_errors", 0)
        out.setdefault("changes_from_rejected_calls", 0)
        out["known_bug_hits"] = sum(self.known.values())
        return out


class _Captured(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def _tool_failures() -> Iterator[_Captured]:
    """Failures the tools log when they met an error that was not the library's own."""
    handler = _Captured()
    logger = logging.getLogger("langchain_tepa.tools")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def _message_text(result: ToolMessage) -> str:
    content = result.content
    return content if isinstance(content, str) else repr(content)


def outcome_of(subject: Subject, c: Call) -> tuple[str, BaseException | str | None]:
    """``("accepted" | "rejected" | "untyped", the error or the tool's error text)``."""
    with _tool_failures() as logged:
        try:
            result = c.run(subject)
        except TEPAError as exc:
            return "rejected", exc
        except Exception as exc:  # any other error: untyped
            return "untyped", exc
    if c.mode == "tool":
        assert isinstance(result, ToolMessage), f"{c!r} gave {type(result).__name__}"
        failed = [r for r in logged.records if r.exc_info]
        if failed:
            exc_info = failed[0].exc_info
            assert exc_info is not None
            return "untyped", exc_info[1]
        if result.status == "error":
            return "rejected", _message_text(result)
    return "accepted", None


class Checker:
    """Runs calls on one subject and checks the fuzz properties (module docstring).

    What is stored is read once after every call (``dump``, :func:`stored_state` by default)
    and compared with the state before the call when the call was rejected. With
    ``dump=None`` (a stopped server) nothing is compared.

    Args:
        subject: The memory and its adapters.
        tally: Where the outcomes are counted.
        dump: What is stored (``None``: not compared).
    """

    def __init__(
        self,
        subject: Subject,
        tally: Tally,
        dump: Callable[[TEPAMemory], Any] | None = stored_state,
    ) -> None:
        self.subject = subject
        self.tally = tally
        self.dump = dump
        self.state = dump(subject.memory) if dump is not None else None

    def __call__(self, c: Call) -> tuple[str, BaseException | str | None]:
        """Run ``c``; returns its outcome and the error (or a tool's error text)."""
        outcome, error = outcome_of(self.subject, c)
        if outcome == "untyped":
            assert isinstance(error, BaseException)
            known = [b for b in KNOWN_BUGS if b.matches(c.name, error)]
            if not known:
                self.tally.add(c.surface, "untyped_errors")
                raise AssertionError(
                    f"{c!r} raised {type(error).__name__}: {error!r:.300}"
                ) from error
            self.tally.known[known[0].test] += 1
            outcome = "known_bug"
        self.tally.add(c.surface, outcome)
        if outcome in ("rejected", "known_bug"):
            assert str(error).strip(), f"{c!r} was refused without a message"
        if self.dump is None:
            return outcome, error
        before, self.state = self.state, self.dump(self.subject.memory)
        if outcome in ("rejected", "known_bug") and self.state != before:
            self.tally.counts["changes_from_rejected_calls"] += 1
            raise AssertionError(f"rejected {c!r} changed what is stored: {error!r:.300}")
        return outcome, error


def assert_consistent(memory: TEPAMemory) -> None:
    """The memory's precedents equal a refold of the stored evidence."""
    fold = fold_all(stored_evidence(memory.storage), memory.policy)
    want = {
        p.id: (p.state, p.support, p.conflict) for s in fold.values() for p in s.precedents.values()
    }
    got = {p.id: (p.state, p.support, p.conflict) for p in memory.iter_precedents()}
    assert got == want

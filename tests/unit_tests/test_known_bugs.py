"""Untyped errors the fuzz found in code owned elsewhere: each case is a strict ``xfail``.

Every case here calls the public API with bad input and expects what the library promises (a
:class:`~langchain_tepa.TEPAError` whose message says what to fix); today each raises a raw
Python or LangGraph error instead. They are strict: when a fix lands, the case passes, the
``xfail`` turns into a failure, and the case's mark (and its entry in
``tests/support/fuzzing.py`` ``KNOWN_BUGS``, which lets the fuzz count these errors apart
instead of failing on them) must be removed.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any

import pytest
from langgraph.store.base import InvalidNamespaceError as LangGraphNamespaceError

from langchain_tepa import HashingEmbeddings, TEPAError, TEPAMemory, TEPAStore
from tests.support.snapshot import stored_state


@pytest.fixture
def memory() -> TEPAMemory:
    mem = TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    mem.observe("user.diet", "vegan")
    return mem


@pytest.fixture
def store() -> TEPAStore:
    s = TEPAStore.in_memory()
    s.put(("users", "u1"), "pref", {"v": 1})
    return s


def _refused(target: Any, call: Callable[[Any], object]) -> None:
    memory = target.memory if isinstance(target, TEPAStore) else target
    before = stored_state(memory)
    with pytest.raises(TEPAError) as info:
        call(target)
    assert str(info.value).strip()
    assert stored_state(memory) == before


def _bug(reason: str, raises: type[BaseException]) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, reason=reason, raises=raises)


_IDS = _bug(
    "langchain_tepa/memory/reading.py: vectors() and similarity() iterate and hash `ids` "
    "without checking it is a list of strings: TypeError ('int' object is not iterable, "
    "unhashable type: 'list')",
    TypeError,
)
_STR_IDS = _bug(
    "langchain_tepa/memory/reading.py: vectors('p0') reads a str as a list of one-character "
    "ids and returns {} instead of refusing it",
    pytest.fail.Exception,
)


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda m: m.vectors(5), id="vectors-int", marks=_IDS),
        pytest.param(lambda m: m.vectors(None), id="vectors-none", marks=_IDS),
        pytest.param(lambda m: m.vectors([["a"]]), id="vectors-nested", marks=_IDS),
        pytest.param(lambda m: m.vectors("p0"), id="vectors-str", marks=_STR_IDS),
        pytest.param(lambda m: asyncio.run(m.avectors(5)), id="avectors-int", marks=_IDS),
        pytest.param(lambda m: m.similarity("diet", 5), id="similarity-int", marks=_IDS),
        pytest.param(lambda m: m.similarity("diet", [{}]), id="similarity-dict", marks=_IDS),
    ],
)
def test_ids_that_are_not_a_list_of_strings_are_refused(
    memory: TEPAMemory, call: Callable[[TEPAMemory], object]
) -> None:
    _refused(memory, call)


@_bug(
    "langchain_tepa/memory/reading.py: similarity() turns a vector query with `float(x)` "
    "unchecked: ValueError (could not convert string to float) instead of the "
    "InvalidArgumentError retrieve_by_vector gives for the same vector",
    ValueError,
)
def test_similarity_refuses_a_vector_of_non_numbers(memory: TEPAMemory) -> None:
    ids = [p.id for p in memory.precedents()]
    _refused(memory, lambda m: m.similarity(["a"] * 384, ids))


@_bug(
    "langchain_tepa/memory/reading.py: similarity() does not check that a vector query is "
    "finite (retrieve_by_vector does): a NaN vector gives a score of 0.0 for every id instead "
    "of an InvalidArgumentError",
    pytest.fail.Exception,
)
def test_similarity_refuses_a_vector_that_is_not_finite(memory: TEPAMemory) -> None:
    ids = [p.id for p in memory.precedents()]
    _refused(memory, lambda m: m.similarity([float("nan")] * 384, ids))


@_bug(
    "langchain_tepa/state/vectors.py unit_rows: the query is cast to float32 before it is "
    "scaled, so a finite vector with components beyond float32's range (1e39) becomes inf and "
    "every score NaN (retrieve_by_vector ranks by NaN and returns NaN scores, with numpy "
    "RuntimeWarnings); scaling in float64 first (cosine ignores length) would keep it finite",
    AssertionError,
)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_a_finite_vector_beyond_float32_still_ranks(memory: TEPAMemory) -> None:
    memory.observe("user.city", "Paris")
    vector = [x * 1e39 for x in memory.embeddings.embed_query("what does the user eat?")]
    scores = [d.metadata["score"] for d in memory.retrieve_by_vector(vector, k=2)]
    assert scores and all(math.isfinite(s) for s in scores), scores


_HUGE = 10**400
_AS_OF = _bug(
    "langchain_tepa/memory/core.py MemoryCore._point: `float(as_of)` of an integer too large "
    "for a float raises OverflowError (int too large to convert to float)",
    OverflowError,
)


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda m: m.get("user.diet", as_of=_HUGE), id="get", marks=_AS_OF),
        pytest.param(lambda m: m.retrieve("diet", as_of=_HUGE), id="retrieve", marks=_AS_OF),
        pytest.param(lambda m: m.audit("user.diet", as_of=_HUGE), id="audit", marks=_AS_OF),
        pytest.param(lambda m: m.keys(as_of=_HUGE), id="keys", marks=_AS_OF),
        pytest.param(
            lambda m: TEPAStore(m).get(("default",), "user.diet", as_of=_HUGE),
            id="store-get",
            marks=_AS_OF,
        ),
    ],
)
def test_as_of_with_a_huge_integer_is_refused(
    memory: TEPAMemory, call: Callable[[TEPAMemory], object]
) -> None:
    _refused(memory, call)


_LANGGRAPH_NS = _bug(
    "langchain_tepa/store/store.py: TEPAStore inherits BaseStore.put/get/search/delete/"
    "list_namespaces (and async twins), whose own namespace check runs before TEPAStore's and "
    "raises LangGraph's InvalidNamespaceError, not the StoreNamespaceError (a TEPAError) that "
    "batch() raises for the same namespace",
    LangGraphNamespaceError,
)


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda s: s.put(("a.b",), "k", {"v": 1}), id="put-dot", marks=_LANGGRAPH_NS),
        pytest.param(lambda s: s.put((), "k", {"v": 1}), id="put-empty", marks=_LANGGRAPH_NS),
        pytest.param(
            lambda s: s.put(("langgraph", "x"), "k", {"v": 1}), id="put-root", marks=_LANGGRAPH_NS
        ),
        pytest.param(lambda s: s.put(("ok", 1), "k", {"v": 1}), id="put-int", marks=_LANGGRAPH_NS),
        pytest.param(lambda s: s.put(None, "k", {"v": 1}), id="put-none", marks=_LANGGRAPH_NS),
        pytest.param(lambda s: s.get(("a.b",), "k"), id="get-dot", marks=_LANGGRAPH_NS),
        pytest.param(lambda s: s.search(("a.b",)), id="search-dot", marks=_LANGGRAPH_NS),
        pytest.param(lambda s: s.delete(("a.b",), "k"), id="delete-dot", marks=_LANGGRAPH_NS),
        pytest.param(
            lambda s: s.list_namespaces(prefix=("",)), id="list-empty-label", marks=_LANGGRAPH_NS
        ),
        pytest.param(
            lambda s: asyncio.run(s.aput(("a.b",), "k", {"v": 1})),
            id="aput-dot",
            marks=_LANGGRAPH_NS,
        ),
    ],
)
def test_store_methods_refuse_namespaces_with_a_typed_error(
    store: TEPAStore, call: Callable[[TEPAStore], object]
) -> None:
    _refused(store, call)


_NOT_SEQUENCES = _bug(
    "langchain_tepa/store/store.py: a namespace, list_namespaces suffix/prefix or batch ops "
    "that is not a sequence reaches tuple()/list()/iteration unchecked: TypeError "
    "('int' object is not iterable)",
    TypeError,
)


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda s: s.get(5, "k"), id="get-int", marks=_NOT_SEQUENCES),
        pytest.param(lambda s: s.get(5, "k", as_of=1.0), id="get-as-of", marks=_NOT_SEQUENCES),
        pytest.param(lambda s: s.search(5, as_of=1.0), id="search-as-of", marks=_NOT_SEQUENCES),
        pytest.param(lambda s: s.list_namespaces(suffix=5), id="list-int", marks=_NOT_SEQUENCES),
        pytest.param(lambda s: s.batch(None), id="batch-none", marks=_NOT_SEQUENCES),
        pytest.param(lambda s: asyncio.run(s.abatch(5)), id="abatch-int", marks=_NOT_SEQUENCES),
    ],
)
def test_store_refuses_namespaces_and_batches_that_are_not_sequences(
    store: TEPAStore, call: Callable[[TEPAStore], object]
) -> None:
    _refused(store, call)


@_bug(
    "langchain_tepa/store/ttl.py validate_ttl: `float(ttl)` of an integer too large for a "
    "float raises OverflowError (int too large to convert to float)",
    OverflowError,
)
def test_store_refuses_a_huge_integer_ttl(store: TEPAStore) -> None:
    _refused(store, lambda s: s.put(("users", "u1"), "k", {"v": 1}, ttl=_HUGE))

"""Bad input the fuzz found at the edges of the public API, each refused with a typed error.

Every case calls the public API with bad input and expects what the library promises (a
:class:`~langchain_tepa.TEPAError` whose message says what to fix, and nothing stored changed);
the fuzz found each raising a raw Python or LangGraph error (or a wrong answer) before it was
fixed. ``tests/support/fuzzing.py`` ``KNOWN_BUGS`` is where a new one would be counted apart,
with a strict ``xfail`` here, until it is fixed.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any

import pytest

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


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda m: m.vectors(5), id="vectors-int"),
        pytest.param(lambda m: m.vectors(None), id="vectors-none"),
        pytest.param(lambda m: m.vectors([["a"]]), id="vectors-nested"),
        pytest.param(lambda m: m.vectors("p0"), id="vectors-str"),
        pytest.param(lambda m: asyncio.run(m.avectors(5)), id="avectors-int"),
        pytest.param(lambda m: m.similarity("diet", 5), id="similarity-int"),
        pytest.param(lambda m: m.similarity("diet", [{}]), id="similarity-dict"),
    ],
)
def test_ids_that_are_not_a_list_of_strings_are_refused(
    memory: TEPAMemory, call: Callable[[TEPAMemory], object]
) -> None:
    _refused(memory, call)


def test_similarity_refuses_a_vector_of_non_numbers(memory: TEPAMemory) -> None:
    ids = [p.id for p in memory.precedents()]
    _refused(memory, lambda m: m.similarity(["a"] * 384, ids))


def test_similarity_refuses_a_vector_that_is_not_finite(memory: TEPAMemory) -> None:
    ids = [p.id for p in memory.precedents()]
    _refused(memory, lambda m: m.similarity([float("nan")] * 384, ids))


def test_a_finite_vector_beyond_float32_still_ranks(memory: TEPAMemory) -> None:
    memory.observe("user.city", "Paris")
    vector = [x * 1e39 for x in memory.embeddings.embed_query("what does the user eat?")]
    scores = [d.metadata["score"] for d in memory.retrieve_by_vector(vector, k=2)]
    assert scores and all(math.isfinite(s) for s in scores), scores


_HUGE = 10**400


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda m: m.get("user.diet", as_of=_HUGE), id="get"),
        pytest.param(lambda m: m.retrieve("diet", as_of=_HUGE), id="retrieve"),
        pytest.param(lambda m: m.audit("user.diet", as_of=_HUGE), id="audit"),
        pytest.param(lambda m: m.keys(as_of=_HUGE), id="keys"),
        pytest.param(
            lambda m: TEPAStore(m).get(("default",), "user.diet", as_of=_HUGE),
            id="store-get",
        ),
    ],
)
def test_as_of_with_a_huge_integer_is_refused(
    memory: TEPAMemory, call: Callable[[TEPAMemory], object]
) -> None:
    _refused(memory, call)


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda s: s.put(("a.b",), "k", {"v": 1}), id="put-dot"),
        pytest.param(lambda s: s.put((), "k", {"v": 1}), id="put-empty"),
        pytest.param(lambda s: s.put(("langgraph", "x"), "k", {"v": 1}), id="put-root"),
        pytest.param(lambda s: s.put(("ok", 1), "k", {"v": 1}), id="put-int"),
        pytest.param(lambda s: s.put(None, "k", {"v": 1}), id="put-none"),
        pytest.param(lambda s: s.get(("a.b",), "k"), id="get-dot"),
        pytest.param(lambda s: s.search(("a.b",)), id="search-dot"),
        pytest.param(lambda s: s.delete(("a.b",), "k"), id="delete-dot"),
        pytest.param(lambda s: s.list_namespaces(prefix=("",)), id="list-empty-label"),
        pytest.param(
            lambda s: asyncio.run(s.aput(("a.b",), "k", {"v": 1})),
            id="aput-dot",
        ),
    ],
)
def test_store_methods_refuse_namespaces_with_a_typed_error(
    store: TEPAStore, call: Callable[[TEPAStore], object]
) -> None:
    _refused(store, call)


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda s: s.get(5, "k"), id="get-int"),
        pytest.param(lambda s: s.get(5, "k", as_of=1.0), id="get-as-of"),
        pytest.param(lambda s: s.search(5, as_of=1.0), id="search-as-of"),
        pytest.param(lambda s: s.list_namespaces(suffix=5), id="list-int"),
        pytest.param(lambda s: s.batch(None), id="batch-none"),
        pytest.param(lambda s: asyncio.run(s.abatch(5)), id="abatch-int"),
    ],
)
def test_store_refuses_namespaces_and_batches_that_are_not_sequences(
    store: TEPAStore, call: Callable[[TEPAStore], object]
) -> None:
    _refused(store, call)


def test_store_refuses_a_huge_integer_ttl(store: TEPAStore) -> None:
    _refused(store, lambda s: s.put(("users", "u1"), "k", {"v": 1}, ttl=_HUGE))


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda vs: vs.delete([{1, 2}]), id="delete-set"),
        pytest.param(lambda vs: asyncio.run(vs.adelete([{1, 2}])), id="adelete-set"),
        pytest.param(lambda vs: vs.get_by_ids([["p0"]]), id="get_by_ids-list"),
    ],
)
def test_vector_store_refuses_unhashable_ids(
    memory: TEPAMemory, call: Callable[[Any], object]
) -> None:
    """Found by the fuzz on the trust branch: an unhashable id raised a bare TypeError."""
    from langchain_tepa import TEPAVectorStore

    vs = TEPAVectorStore(memory)
    before = stored_state(memory)
    with pytest.raises(TEPAError, match="ids must be strings"):
        call(vs)
    assert stored_state(memory) == before

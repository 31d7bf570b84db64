"""The fuzz of every surface through a real ``chroma run`` server: up, then stopped, then back.

The calls, strategies and checks are those of ``tests/unit_tests/test_fuzz.py`` (in
``tests/support/fuzzing.py``): the memory, ``TEPAStore`` without and with an index,
``TEPAVectorStore`` in both update modes, the agent tools and the retriever, all over one memory.

* **Server up** (the session's server): every call succeeds or is refused with a typed error
  (a tool: an error message), and a refused call changes nothing stored. Each sequence runs on
  a fresh collection prefix whose collections are dropped afterwards.
* **Server stopped** (a server of the test's own, ``stop()``): every call with valid arguments
  fails with ``StorageUnavailableError`` naming the server's address (a tool answers with an
  error message naming it); calls with hostile arguments fail with a typed error, or are
  answered without storage (a read of a namespace or key that cannot exist). After
  ``restart()`` the storage holds exactly what it held before the stop, and the same memory and
  adapters work again.

The call counts are printed with ``-s`` and appended to ``$TEPA_RELIABILITY_FIGURES``.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from langchain_tepa import HashingEmbeddings, TEPAMemory
from langchain_tepa.core.errors import StorageUnavailableError
from tests.integration_tests.conftest import ChromaServer, unique_prefix
from tests.support.figures import report_figures
from tests.support.fuzzing import (
    Call,
    Checker,
    Subject,
    Tally,
    assert_consistent,
    make_subject,
    surface_calls,
    valid_calls,
)
from tests.support.snapshot import stored_state

_SETTINGS: dict[str, Any] = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}


def _drop_collections(client: Any, prefix: str) -> None:
    for collection in client.list_collections():
        name = getattr(collection, "name", collection)
        if str(name).startswith(prefix + "_"):
            client.delete_collection(str(name))


def test_fuzz_every_surface_with_the_server_up(chroma_server: ChromaServer) -> None:
    tally = Tally()
    client = chroma_server.client()

    @settings(max_examples=45, **_SETTINGS)
    @given(sequence=st.lists(surface_calls, min_size=6, max_size=14))
    def check(sequence: list[Call]) -> None:
        tally.counts["sequences"] += 1
        prefix = unique_prefix("fz")
        memory = TEPAMemory.from_client(
            client, prefix=prefix, shards=1, embeddings=HashingEmbeddings()
        )
        try:
            subject = make_subject(memory)
            checker = Checker(subject, tally)
            for c in sequence:
                checker(c)
            assert_consistent(memory)
        finally:
            memory.close()
            _drop_collections(client, prefix)

    check()
    report_figures("fuzz-server-up", tally.figures())


def _check_unavailable(subject: Subject, c: Call, address: str, tally: Tally) -> None:
    """A valid call with the server stopped: StorageUnavailableError naming the address."""
    outcome, error = Checker(subject, tally, dump=None)(c)
    assert outcome == "rejected", f"{c!r} did not fail with the server stopped ({outcome})"
    if c.mode == "tool":
        assert isinstance(error, str) and address in error, f"{c!r}: {error!r:.300}"
    else:
        assert isinstance(error, StorageUnavailableError), f"{c!r}: {error!r:.300}"
        assert address in str(error), f"{c!r}: {error}"
    tally.counts["unavailable_with_address"] += 1


_AFTER_RESTART = [
    Call("memory", "memory", "observe", ("user.diet", "keto")),
    Call("memory", "memory", "get", ("user.city",)),
    Call("memory", "memory", "retrieve", ("diet",)),
    Call("store", "store", "put", (("users", "u1"), "back", {"text": "back again"})),
    Call("store", "store", "get", (("users", "u1"), "back")),
    Call("store", "indexed", "search", (("docs",),), {"query": "pizza"}),
    Call("vectorstore", "vectors", "add_texts", (["after the restart"],), {"ids": ["r"]}),
    Call("vectorstore", "vectors", "max_marginal_relevance_search", ("restart",)),
    Call("tools", "tools", "remember", ({"key": "user.city", "value": "Oslo"},), {}, "tool"),
    Call("tools", "tools", "recall", ({"query": "city"},), {}, "tool"),
    Call("retriever", "retriever", "invoke", ("diet",)),
]


def test_fuzz_every_surface_with_the_server_stopped(own_server: ChromaServer) -> None:
    tally = Tally()
    memory = TEPAMemory.from_client(
        own_server.client(), prefix=unique_prefix("down"), embeddings=HashingEmbeddings()
    )
    subject = make_subject(memory)
    before = stored_state(memory)
    address = f"127.0.0.1:{own_server.port}"
    own_server.stop()
    answered: set[str] = set()

    @settings(max_examples=1500, **_SETTINGS)
    @given(
        drawn=st.one_of(
            st.tuples(st.just(True), valid_calls),
            st.tuples(st.just(False), surface_calls),
        )
    )
    def check(drawn: tuple[bool, Call]) -> None:
        valid, c = drawn
        if valid:
            _check_unavailable(subject, c, address, tally)
            return
        outcome, _ = Checker(subject, tally, dump=None)(c)
        if outcome == "accepted":  # hostile input a read can answer without storage
            answered.add(c.name)

    check()
    own_server.restart()
    assert stored_state(memory) == before, "calls made while the server was stopped wrote"
    checker = Checker(subject, Tally())
    for c in _AFTER_RESTART:
        outcome, error = checker(c)
        assert outcome == "accepted", f"{c!r} after the restart: {error!r:.300}"
    assert_consistent(memory)
    figures = {**tally.figures(), "answered_without_storage": tally.counts["accepted"]}
    report_figures("fuzz-server-stopped", {**figures, "answered_calls": sorted(answered)})
    memory.close()

"""Drop-in parity with LangGraph's stores (issue 29).

- ``distance_type`` ``"inner_product"`` and ``"l2"`` score as ``PostgresStore`` does (the dot
  product; minus the Euclidean distance, of the vectors as stored), best first, with several
  vectors per item scored by their best, in process and after reopening a persistent store.
- SqliteStore's ``text_fields`` is an alias of ``fields`` (kept in ``index_config``); both with
  different paths is a typed error.
- ``ttl["sweep_interval_minutes"]`` may be a fraction of a minute; 0, negatives, ``inf`` and
  bools are typed errors.
- ``sweep_ttl`` / ``start_ttl_sweeper`` / ``stop_ttl_sweeper`` results can be awaited (code
  written for ``AsyncSqliteStore``/``AsyncPostgresStore``), and have ``a``-prefixed twins.
- ``put(..., index=False)`` that changes a value keeps the key's vectors (the new value is found
  by the old text, as in ``PostgresStore``); a put with new texts replaces them.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings

from langchain_tepa import HashingEmbeddings, InvalidArgumentError, TEPAStore

NS = ("docs",)


class FixedEmbeddings(Embeddings):
    """Texts name their vectors: ``"1,2"`` embeds as ``[1.0, 2.0]`` (not unit length)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return [float(x) for x in text.split(",")]


def _index(distance: str, **extra: Any) -> Any:
    return {
        "dims": 2,
        "embed": FixedEmbeddings(),
        "fields": ["v"],
        "distance_type": distance,
        **extra,
    }


def _expected(distance: str, query: list[float], vec: list[float]) -> float:
    q, v = np.array(query), np.array(vec)
    if distance == "cosine":
        return float(q @ v / (np.linalg.norm(q) * np.linalg.norm(v)))
    if distance == "inner_product":
        return float(q @ v)
    return -float(np.linalg.norm(q - v))


VECS = {"a": "3,4", "b": "1,0", "c": "-2,0.5", "d": "10,10"}


def _fill(store: TEPAStore) -> None:
    for key, text in VECS.items():
        store.put(NS, key, {"v": text})


@pytest.mark.parametrize("distance", ["cosine", "inner_product", "l2"])
@pytest.mark.parametrize("query", ["1,0", "3,3.9", "-1,-1"])
def test_scores_and_order_as_postgres_store(distance: str, query: str) -> None:
    store = TEPAStore.in_memory(index=_index(distance))
    _fill(store)
    hits = store.search(NS, query=query, limit=10)
    q = FixedEmbeddings().embed_query(query)
    want = {k: _expected(distance, q, FixedEmbeddings().embed_query(t)) for k, t in VECS.items()}
    assert {h.key: h.score for h in hits} == pytest.approx(want, abs=1e-6)
    assert [h.key for h in hits] == sorted(want, key=lambda k: -want[k])
    assert store.index_config is not None and store.index_config["distance_type"] == distance  # type: ignore[typeddict-item]


@pytest.mark.parametrize("distance", ["inner_product", "l2"])
def test_scores_survive_a_reopen(tmp_path: Path, distance: str) -> None:
    store = TEPAStore.from_path(tmp_path, index=_index(distance))
    _fill(store)
    before = [(h.key, h.score) for h in store.search(NS, query="2,1", limit=10)]
    store.memory.close()
    again = TEPAStore.from_path(tmp_path, index=_index(distance))
    after = [(h.key, h.score) for h in again.search(NS, query="2,1", limit=10)]
    assert [k for k, _ in after] == [k for k, _ in before]
    assert [s for _, s in after] == pytest.approx([s for _, s in before], abs=1e-4)
    again.memory.close()


@pytest.mark.parametrize("distance", ["inner_product", "l2"])
def test_several_vectors_per_item_score_by_the_best(distance: str) -> None:
    store = TEPAStore.in_memory(index={**_index(distance), "fields": ["v", "w"]})
    store.put(NS, "two", {"v": "0,1", "w": "5,0"})
    store.put(NS, "one", {"v": "4,0"})
    hits = store.search(NS, query="5,0", limit=2)
    best = max(_expected(distance, [5, 0], [0, 1]), _expected(distance, [5, 0], [5, 0]))
    assert [h.key for h in hits] == ["two", "one"]
    assert hits[0].score == pytest.approx(best)


@pytest.mark.parametrize("distance", ["manhattan", "hamming", "L2", 3])
def test_other_distances_are_typed_errors(distance: object) -> None:
    with pytest.raises(InvalidArgumentError, match="distance_type"):
        TEPAStore.in_memory(index=_index(distance))  # type: ignore[arg-type]


def test_text_fields_is_an_alias_of_fields() -> None:
    embed = HashingEmbeddings()
    store = TEPAStore.in_memory(index={"dims": 384, "embed": embed, "text_fields": ["title"]})
    assert store.index_config is not None
    assert store.index_config["fields"] == ["title"]
    assert store.index_config["text_fields"] == ["title"]  # type: ignore[typeddict-item]
    store.put(NS, "a", {"title": "mushroom pizza", "body": "tax return"})
    store.put(NS, "b", {"title": "tax return", "body": "mushroom pizza"})
    assert [h.key for h in store.search(NS, query="mushroom pizza", limit=1)] == ["a"]
    same = {"dims": 384, "embed": embed, "fields": ["t"], "text_fields": ["t"]}
    assert TEPAStore.in_memory(index=same).index_config["fields"] == ["t"]  # type: ignore[index]
    plain = TEPAStore.in_memory(index={"dims": 384, "embed": embed})
    assert plain.index_config is not None and "text_fields" not in plain.index_config


def test_fields_and_text_fields_that_differ_are_a_typed_error() -> None:
    index = {"dims": 384, "embed": HashingEmbeddings(), "fields": ["a"], "text_fields": ["b"]}
    with pytest.raises(InvalidArgumentError, match="text_fields"):
        TEPAStore.in_memory(index=index)  # type: ignore[arg-type]


def test_a_fractional_sweep_interval_is_accepted_and_sweeps() -> None:
    store = TEPAStore.in_memory(ttl={"default_ttl": 0.2 / 60, "sweep_interval_minutes": 0.25 / 60})
    assert store.ttl_config is not None and store.ttl_config["sweep_interval_minutes"] == 0.25 / 60
    store.put(NS, "k", {"v": 1})
    handle = store.start_ttl_sweeper()
    try:
        deadline = time.monotonic() + 5
        while (
            time.monotonic() < deadline
            and store.audit(NS, "k").precedents[0].state.value == "active"
        ):
            time.sleep(0.05)
        assert store.audit(NS, "k").precedents[0].state.value == "revoked"  # by the sweeper
    finally:
        assert store.stop_ttl_sweeper(timeout=5)
    assert handle.done()


@pytest.mark.parametrize("minutes", [0, -1, float("inf"), float("nan"), True, "1"])
def test_bad_sweep_intervals_are_typed_errors(minutes: object) -> None:
    with pytest.raises(InvalidArgumentError, match="sweep_interval_minutes"):
        TEPAStore.in_memory(ttl={"sweep_interval_minutes": minutes})  # type: ignore[typeddict-item]
    store = TEPAStore.in_memory()
    with pytest.raises(InvalidArgumentError, match="sweep_interval_minutes"):
        store.start_ttl_sweeper(minutes)  # type: ignore[arg-type]


async def test_sweeper_methods_can_be_awaited_as_on_the_async_stores() -> None:
    store = TEPAStore.in_memory(ttl={"default_ttl": 0.05 / 60, "sweep_interval_minutes": 1})
    await store.aput(NS, "k", {"v": 1})
    handle = await store.start_ttl_sweeper()
    assert not handle.done()
    await asyncio.sleep(0.1)
    assert await store.sweep_ttl() == 1
    assert await store.asweep_ttl() == 0
    assert await store.stop_ttl_sweeper() is True
    assert handle.done()
    again = await store.astart_ttl_sweeper(0.5)
    assert await store.astop_ttl_sweeper(timeout=5) is True
    assert again.done()


def test_sweeper_results_behave_as_before_in_sync_code() -> None:
    store = TEPAStore.in_memory(ttl={"default_ttl": 0.05 / 60})
    store.put(NS, "k", {"v": 1})
    time.sleep(0.1)
    count = store.sweep_ttl()
    assert count == 1 and isinstance(count, int) and count + 1 == 2
    stopped = store.stop_ttl_sweeper()
    assert stopped and stopped == True  # noqa: E712 (a bool-like result)
    assert repr(stopped) == "True"


def _indexed() -> TEPAStore:
    return TEPAStore.in_memory(
        index={"dims": 384, "embed": HashingEmbeddings(), "fields": ["text"]}
    )


def test_put_index_false_that_changes_a_value_keeps_the_keys_vectors() -> None:
    store = _indexed()
    store.put(NS, "a", {"text": "mushroom pizza"})
    store.put(NS, "b", {"text": "tax return"})
    store.put(NS, "a", {"text": "a plain note", "n": 2}, index=False)
    hits = store.search(NS, query="mushroom pizza", limit=2)
    assert hits[0].key == "a" and hits[0].value == {"text": "a plain note", "n": 2}
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)  # still the old text's vector
    # A later put with texts replaces them.
    store.put(NS, "a", {"text": "garden tools"})
    assert store.search(NS, query="garden tools", limit=1)[0].key == "a"
    scores = {h.key: h.score for h in store.search(NS, query="mushroom pizza", limit=2)}
    assert scores["a"] is not None and scores["a"] < 0.9


def test_put_index_false_of_a_new_key_is_not_scored() -> None:
    store = _indexed()
    store.put(NS, "a", {"text": "mushroom pizza"}, index=False)
    (hit,) = store.search(NS, query="mushroom pizza")
    assert hit.key == "a" and hit.score is None

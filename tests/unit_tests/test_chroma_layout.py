"""The Chroma layout: evidence pages, one record per precedent, repairs and older layouts."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest

from langchain_tepa import HashingEmbeddings, Lifecycle, TEPAMemory
from langchain_tepa.core.errors import StorageError
from langchain_tepa.storage.chroma import ChromaStorage, StoredPlace, _nk


def _memory(client: Any, prefix: str, **kwargs: Any) -> TEPAMemory:
    return TEPAMemory.from_client(client, prefix=prefix, embeddings=HashingEmbeddings(), **kwargs)


def _prefix() -> str:
    return "t" + uuid.uuid4().hex[:12]


def _changed_topping(memory: TEPAMemory) -> None:
    memory.observe("user.pizza_topping", "pineapple")
    memory.observe_many([("user.pizza_topping", "mushroom")] * 2 + [("user.diet", "vegan")])
    memory.flush()


def _seeded(client: Any) -> tuple[str, TEPAMemory, ChromaStorage]:
    """A Chroma memory holding a changed preference (its prefix, the memory, its storage)."""
    prefix = _prefix()
    memory = _memory(client, prefix)
    _changed_topping(memory)
    assert isinstance(memory.storage, ChromaStorage)
    return prefix, memory, memory.storage


def test_one_evidence_page_per_append_and_counting_reads_ids(
    ephemeral_client: Any, tick: Callable[[], float]
) -> None:
    memory = _memory(ephemeral_client, _prefix(), clock=tick)
    _changed_topping(memory)
    storage = memory.storage
    assert isinstance(storage, ChromaStorage)
    pages = storage._evidence.get(include=["metadatas"])
    assert sorted(m["tepa_count"] for m in pages["metadatas"]) == [1, 3]
    assert all(
        pid.startswith(f"p#{m['tepa_count']}#")
        for pid, m in zip(pages["ids"], pages["metadatas"], strict=True)
    )
    assert storage.count_evidence() == memory.evidence_count() == 4
    # Filters select pages in Chroma and records in Python: history sees only its key.
    history = memory.history("user.pizza_topping")
    assert [ev.value for ev in history] == ["pineapple", "mushroom", "mushroom"]
    assert [ev.key for ev in storage.load_evidence(namespace="default", since=2.0)] == [
        "user.pizza_topping",
        "user.pizza_topping",
        "user.diet",
    ]
    assert storage.load_evidence(namespace="elsewhere") == []


def test_an_id_already_in_a_page_is_refused_and_nothing_is_written(ephemeral_client: Any) -> None:
    memory = _memory(ephemeral_client, _prefix())
    _changed_topping(memory)
    stored = memory.storage.load_evidence()
    fresh = ChromaStorage(ephemeral_client, prefix=memory.storage.prefix)  # type: ignore[attr-defined]
    with pytest.raises(StorageError, match="already stored"):
        fresh.append_evidence([stored[2]])
    assert fresh.load_evidence() == stored


def test_each_precedent_is_stored_once_where_its_state_puts_it(ephemeral_client: Any) -> None:
    memory = _memory(ephemeral_client, _prefix())
    _changed_topping(memory)
    storage = memory.storage
    assert isinstance(storage, ChromaStorage)
    places = storage.precedent_places()
    by_value = {p.value: p for p in memory.precedents()}
    assert places[by_value["pineapple"].id] == StoredPlace(
        active=False, archived=by_value["pineapple"].state
    )
    assert places[by_value["mushroom"].id] == StoredPlace(active=True, archived=None)
    assert places[by_value["vegan"].id] == StoredPlace(active=True, archived=None)
    # The retrievable-set record carries the full lifecycle metadata too.
    live = storage._active_collection("default").get(include=["metadatas"])
    assert {m["tepa_state"] for m in live["metadatas"]} == {"active"}
    assert {m["tepa_value"] for m in live["metadatas"]} == {'"mushroom"', '"vegan"'}
    # load_precedents reads both places and equals the fold.
    stored = sorted((p.to_dict() for p in storage.load_precedents()), key=lambda d: d["id"])
    assert stored == sorted((p.to_dict() for p in memory.precedents()), key=lambda d: d["id"])


def test_a_record_left_in_both_places_is_repaired_on_open(ephemeral_client: Any) -> None:
    prefix, memory, storage = _seeded(ephemeral_client)
    mushroom = next(p for p in memory.precedents() if p.value == "mushroom")
    pineapple = next(p for p in memory.precedents() if p.value == "pineapple")
    live = storage._active_collection("default")
    # A crash in the middle of two moves: mushroom copied to the archive (stale state),
    # pineapple copied back to the retrievable set, neither deleted from its old place.
    got = live.get(ids=[mushroom.id], include=["embeddings", "metadatas"])
    storage._archive.add(
        ids=got["ids"],
        embeddings=got["embeddings"],
        metadatas=[{**got["metadatas"][0], "tepa_state": "revoked"}],
    )
    old = storage._archive.get(ids=[pineapple.id], include=["embeddings", "metadatas"])
    live.add(ids=old["ids"], embeddings=old["embeddings"], metadatas=old["metadatas"])
    memory.close()

    reopened = _memory(ephemeral_client, prefix)
    # Opening reads the archive: mushroom, Active but archived, is moved back at once.
    places = reopened.storage.precedent_places()  # type: ignore[attr-defined]
    assert places[mushroom.id] == StoredPlace(active=True, archived=None)
    # Pineapple's stale retrievable-set entry goes before the namespace's first query,
    # and retrieval never shows it (it is checked against the in-process index anyway).
    assert places[pineapple.id] == StoredPlace(active=True, archived=pineapple.state)
    docs = reopened.retrieve("pizza topping", k=10)
    assert [d.metadata["value"] for d in docs if d.metadata["key"] == "user.pizza_topping"] == [
        "mushroom"
    ]
    places = reopened.storage.precedent_places()  # type: ignore[attr-defined]
    assert places[pineapple.id] == StoredPlace(active=False, archived=pineapple.state)
    assert reopened.reconcile().repaired_views == 0


def test_an_active_record_lost_before_its_first_write_is_rebuilt_at_first_query(
    ephemeral_client: Any,
) -> None:
    prefix = _prefix()
    memory = _memory(ephemeral_client, prefix)
    _changed_topping(memory)
    vegan = next(p for p in memory.precedents() if p.value == "vegan")
    memory.storage._active_collection("default").delete(ids=[vegan.id])  # type: ignore[attr-defined]
    memory.close()
    reopened = _memory(ephemeral_client, prefix)
    assert vegan.id not in reopened.storage.active_ids("default")  # type: ignore[attr-defined]
    assert [
        d.metadata["value"] for d in reopened.retrieve("diet", k=1, key_prefix="user.diet")
    ] == ["vegan"]
    assert reopened.storage.precedent_places()[vegan.id] == StoredPlace(active=True, archived=None)  # type: ignore[attr-defined]


def test_a_store_of_layout_1_is_migrated_on_open(ephemeral_client: Any) -> None:
    """Layout 1: one evidence record each, an archive of every state, id-only active sets."""
    prefix, memory, storage = _seeded(ephemeral_client)
    records = storage.load_evidence()
    want = {p.id: p.to_dict() for p in memory.precedents()}
    vectors = {}
    for col in [storage._archive, storage._active_collection("default")]:
        got = col.get(include=["embeddings", "metadatas"])
        for pid, emb, meta in zip(got["ids"], got["embeddings"], got["metadatas"], strict=True):
            vectors[pid] = (list(emb), {k: v for k, v in meta.items() if k != "tepa_key_path"})
    memory.close()
    for name in [f"{prefix}_evidence", f"{prefix}_archive"]:
        ephemeral_client.delete_collection(name)
    live = storage._active_collection("default")
    live.delete(ids=live.get(include=[])["ids"])
    evidence = ephemeral_client.create_collection(f"{prefix}_evidence", embedding_function=None)
    evidence.add(
        ids=[ev.id for ev in records],
        embeddings=[[1.0]] * len(records),
        metadatas=[
            {
                "tepa_json": ev.to_json(),
                "tepa_nk": _nk(ev.namespace, ev.key),
                "tepa_namespace": ev.namespace,
                "tepa_time": ev.time,
            }
            for ev in records
        ],
    )
    archive = ephemeral_client.create_collection(f"{prefix}_archive", embedding_function=None)
    archive.add(
        ids=list(vectors),
        embeddings=[v for v, _ in vectors.values()],
        metadatas=[m for _, m in vectors.values()],
    )
    active = [pid for pid, (_, m) in vectors.items() if m["tepa_state"] == "active"]
    live.add(
        ids=active,
        embeddings=[vectors[pid][0] for pid in active],
        metadatas=[{"tepa_key_path": ["user"]} for _ in active],
    )

    reopened = _memory(ephemeral_client, prefix)
    assert reopened.evidence_count() == len(records)
    assert {p.id: p.to_dict() for p in reopened.storage.load_precedents()} == want
    places = reopened.storage.precedent_places()  # type: ignore[attr-defined]
    assert {pid for pid, place in places.items() if place.active} == set(active)
    assert all(place.archived is None for pid, place in places.items() if pid in active)
    assert [
        d.metadata["value"]
        for d in reopened.retrieve("pizza", k=10, key_prefix="user.pizza_topping")
    ] == ["mushroom"]
    reopened.observe("user.diet", "vegan")
    assert [ev.key for ev in reopened.history("user.diet")] == ["user.diet"] * 2


def test_a_large_append_is_split_into_pages_written_by_one_add(ephemeral_client: Any) -> None:
    """Chroma refuses a record with thousands of list entries; pages keep 1,000 at most."""
    memory = _memory(ephemeral_client, _prefix())
    storage = memory.storage
    assert isinstance(storage, ChromaStorage)
    calls: list[int] = []
    add = storage._evidence.add

    def counting_add(**kwargs: Any) -> Any:
        calls.append(len(kwargs["ids"]))
        return add(**kwargs)

    storage._evidence.add = counting_add  # type: ignore[method-assign]
    facts = [(f"item.k{i % 40}", f"v{i % 7}") for i in range(2500)]
    results = memory.observe_many(facts)
    assert calls == [3]  # three pages, one add
    pages = storage._evidence.get(include=["metadatas"])["metadatas"]
    assert sorted(m["tepa_count"] for m in pages) == [500, 1000, 1000]
    assert memory.evidence_count() == 2500
    assert [ev.id for ev in storage.load_evidence()] == [r.evidence.id for r in results]
    assert len(memory.history("item.k3")) == len([f for f in facts if f[0] == "item.k3"])


def test_a_move_of_a_record_found_nowhere_embeds_it_again(ephemeral_client: Any) -> None:
    """Two writers moving one record in opposite directions can both delete it."""
    memory = _memory(ephemeral_client, _prefix())
    memory.observe("user.pizza_topping", "pineapple")
    storage = memory.storage
    assert isinstance(storage, ChromaStorage)
    pineapple = memory.precedents()[0]
    storage._active_collection("default").delete(ids=[pineapple.id])  # the other writer's delete
    memory.revoke("user.pizza_topping", "pineapple", reason="changed my mind")
    assert storage.precedent_places()[pineapple.id] == StoredPlace(
        active=False, archived=Lifecycle.REVOKED
    )
    got = storage._archive.get(ids=[pineapple.id], include=["embeddings"])
    assert list(got["embeddings"][0]) == pytest.approx(
        HashingEmbeddings().embed_documents([pineapple.page_content])[0]
    )
    # Without a way to embed, the storage says what to do instead of guessing.
    storage.reembed = None
    memory.promote("user.pizza_topping", "pineapple", reason="back again")
    storage._active_collection("default").delete(ids=[pineapple.id])
    with pytest.raises(StorageError, match="reconcile"):
        memory.revoke("user.pizza_topping", "pineapple", reason="no")

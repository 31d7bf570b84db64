"""``TEPAMemory.write_many``: facts and key revocations in one append, folded like one by one."""

from __future__ import annotations

import random
import uuid
from typing import Any

import chromadb
import pytest
from chromadb.config import Settings

from langchain_tepa import Fact, HashingEmbeddings, InvalidArgumentError, TEPAMemory
from langchain_tepa.memory import RevokeKey


def _open(backend: str) -> TEPAMemory:
    if backend == "memory":
        return TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    return TEPAMemory.from_client(
        client, prefix=f"wm{uuid.uuid4().hex[:10]}", embeddings=HashingEmbeddings()
    )


def _state(memory: TEPAMemory) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for ns in memory.namespaces():
        for key in memory.keys(namespace=ns):
            audit = memory.audit(key, namespace=ns)
            out[f"{ns}/{key}"] = (
                memory.get(key, namespace=ns),
                sorted(
                    (repr(p.value), p.state.value, p.support, p.conflict) for p in audit.precedents
                ),
            )
    return out


def _one_by_one(memory: TEPAMemory, writes: list[Fact | RevokeKey]) -> None:
    for w in writes:
        if isinstance(w, RevokeKey):
            memory.revoke_key(w.key, namespace=w.namespace, reason=w.reason, source=w.source)
        else:
            memory.observe(w.key, w.value, namespace=w.namespace)


@pytest.mark.parametrize("backend", ["memory", "chroma"])
def test_a_batch_folds_like_its_writes_one_by_one(backend: str) -> None:
    rng = random.Random(11)
    for _ in range(6):
        batched, single = _open(backend), _open(backend)
        for _ in range(3):
            writes: list[Fact | RevokeKey] = []
            for _ in range(rng.randint(1, 25)):
                ns = rng.choice(["u1", "u2", "users.u3"])
                key = rng.choice(["a", "b", "c.d"])
                if rng.random() < 0.3:
                    writes.append(RevokeKey(key, namespace=ns, reason="deleted"))
                else:
                    writes.append(Fact(key, rng.choice([1, 2, {"x": 1}]), namespace=ns))
            batched.write_many(writes)
            _one_by_one(single, writes)
            assert _state(batched) == _state(single)


def test_a_batch_is_one_append() -> None:
    memory = _open("memory")
    memory.observe("k", 1, namespace="u1")
    before = memory.evidence_count(namespace="u1")
    results = memory.write_many(
        [Fact("k", 2, namespace="u1"), RevokeKey("k", namespace="u1"), Fact("j", 3, namespace="u1")]
    )
    # k=2 observed, then both live values of k revoked, then j observed.
    assert [r.evidence.kind.value for r in results] == [
        "observation",
        "revoke",
        "revoke",
        "observation",
    ]
    assert memory.evidence_count(namespace="u1") == before + 4
    assert memory.get("k", namespace="u1") is None
    assert memory.get("j", namespace="u1") == 3


def test_revoking_what_holds_nothing_writes_nothing() -> None:
    memory = _open("chroma")
    assert memory.write_many([RevokeKey("k", namespace="never.written")]) == []
    assert memory.namespaces() == []
    assert memory.write_many([]) == []


def test_an_invalid_write_stores_nothing() -> None:
    memory = _open("memory")
    with pytest.raises(InvalidArgumentError):
        memory.write_many([Fact("k", 1), Fact("", 2)])
    with pytest.raises(InvalidArgumentError):
        memory.write_many([Fact("k", 1), RevokeKey("k", source=123)])  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        RevokeKey("k", reason=" ")
    with pytest.raises(InvalidArgumentError):
        memory.write_many("k")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        memory.write_many([Fact("k", 1)], items=[None, None])
    assert memory.namespaces() == []


async def test_awrite_many() -> None:
    memory = _open("memory")
    await memory.awrite_many([Fact("k", 1), RevokeKey("k"), Fact("j", 2)])
    assert memory.get("k") is None
    assert memory.get("j") == 2


def test_a_store_batch_of_puts_and_deletes_is_one_append() -> None:
    from langgraph.store.base import GetOp, PutOp

    from langchain_tepa import TEPAStore

    store = TEPAStore.in_memory()
    storage = store.memory.storage
    commits: list[int] = []
    original = storage.commit

    def counting(commit: Any) -> None:
        commits.append(len(commit.writes))
        original(commit)

    storage.commit = counting  # type: ignore[method-assign]
    ns = ("users", "u1")
    store.put(ns, "a", {"v": 0})
    commits.clear()
    ops = [
        PutOp(ns, "a", {"v": 1}),
        PutOp(ns, "b", {"v": 2}),
        PutOp(ns, "a", None),
        PutOp(("users", "u2"), "c", {"v": 3}),
        PutOp(ns, "b", None),
        PutOp(ns, "b", {"v": 4}),
        PutOp(ns, "d", None),  # a delete of nothing
    ]
    store.batch(ops)
    assert commits == [2]  # one append, one write per namespace
    got = store.batch([GetOp(ns, "a"), GetOp(ns, "b"), GetOp(("users", "u2"), "c")])
    assert got[0] is None
    assert got[1] is not None and got[1].value == {"v": 4}
    assert got[2] is not None and got[2].value == {"v": 3}
    assert store.audit(ns, "a").precedents[0].state.value == "revoked"

"""The TEPAMemory facade on the in-process store and on ephemeral Chroma."""

from __future__ import annotations

import json
import math
import uuid
from pathlib import Path

import pytest

from langchain_tepa import (
    EvidenceKind,
    Fact,
    HashingEmbeddings,
    InvalidArgumentError,
    InvalidKeyError,
    InvalidNamespaceError,
    InvalidValueError,
    Lifecycle,
    LifecyclePolicy,
    StorageError,
    TEPAError,
    TEPAMemory,
    UnknownPrecedentError,
)
from tests.support.stored import stored_evidence, stored_view_dicts, stored_views


def dump(memory: TEPAMemory) -> tuple:
    """Everything stored: evidence (from storage) and precedents (index and views)."""
    evidence = [e.to_dict() for e in stored_evidence(memory.storage)]
    index = [p.to_dict() for p in memory.precedents()]
    views = sorted(stored_view_dicts(memory.storage).values(), key=lambda d: d["id"])
    return evidence, index, views


def test_observe_contradict_revoke_repromote(any_memory: TEPAMemory) -> None:
    m = any_memory
    r = m.observe("user.pizza_topping", "pineapple")
    assert r.precedent is not None and r.precedent.state is Lifecycle.ACTIVE
    assert r.evidence.kind is EvidenceKind.OBSERVATION
    # two sources contradict it (one source repeating itself would count with diminishing
    # weight: see test_trust.py)
    m.observe("user.pizza_topping", "mushroom", source="user")
    m.observe("user.pizza_topping", "mushroom", source="langgraph-store")
    assert m.get("user.pizza_topping") == "mushroom"
    audit = m.audit("user.pizza_topping")
    assert [p.state.value for p in audit.precedents] == ["revoked", "active"]
    revoked = audit.revoked[0]
    assert revoked.revocation is not None
    assert revoked.revocation.reason.startswith("revoked: validity")
    assert revoked.revocation.evidence_id in {e.id for e in m.history("user.pizza_topping")}
    docs = m.retrieve("what pizza should I order?", k=4)
    assert [d.metadata["value"] for d in docs] == ["mushroom"]
    assert docs[0].metadata["state"] == "active"
    assert set(docs[0].metadata) >= {
        "key",
        "value",
        "state",
        "support",
        "conflict",
        "validity",
        "precedent_id",
        "evidence_ids",
    }
    # pineapple comes back with support: revived, then re-promoted
    for source in ("user", "langgraph-store", "vectorstore"):
        m.observe("user.pizza_topping", "pineapple", source=source)
    reasons = [t.reason for t in m.audit("user.pizza_topping").precedents[0].transitions]
    assert "revived: new support after revocation" in reasons
    assert any(r.startswith("re-promoted") for r in reasons)
    assert m.get("user.pizza_topping") == "pineapple"


def test_outcomes_revoke_and_promote(any_memory: TEPAMemory) -> None:
    m = any_memory
    for _ in range(10):
        m.record_outcome("tool.export_format", "csv", True)
    for _ in range(2):
        m.record_outcome("tool.export_format", "csv", False)
    assert m.get("tool.export_format") is None
    m.record_outcome("tool.export_format", "json", True)
    assert m.get("tool.export_format") == "json"
    assert [d.metadata["value"] for d in m.retrieve("export format", k=5)] == ["json"]


def test_retrieve_never_returns_revoked_and_respects_scopes(any_memory: TEPAMemory) -> None:
    m = any_memory
    m.observe("user.diet", "vegan", namespace="users.u1")
    m.observe("user.diet", "omnivore", namespace="users.u10")
    m.observe("app.theme", "dark", namespace="users.u1")
    docs = m.retrieve("diet", k=10, namespace="users.u1")
    assert {d.metadata["value"] for d in docs} == {"vegan", "dark"}
    assert all(d.metadata["namespace"] == "users.u1" for d in docs)
    docs = m.retrieve("diet", k=10, namespace="users.u1", key_prefix="user")
    assert [d.metadata["value"] for d in docs] == ["vegan"]
    assert m.retrieve("diet", k=10, namespace="users.u1", key_prefix="use") == []
    m.revoke("user.diet", "vegan", namespace="users.u1", reason="user asked")
    assert [d.metadata["value"] for d in m.retrieve("diet", k=10, namespace="users.u1")] == ["dark"]
    assert m.audit("user.diet", namespace="users.u1").precedents[0].transitions[-1].reason == (
        "revoked by hand: user asked"
    )
    assert m.namespaces() == ["users.u1", "users.u10"]
    assert m.keys(namespace="users.u1") == ["app.theme", "user.diet"]


def test_manual_promote_and_unknown_precedent(any_memory: TEPAMemory) -> None:
    m = any_memory
    m.observe("k", "a")
    m.revoke("k", "a")
    assert m.get("k") is None
    m.promote("k", "a")
    assert m.get("k") == "a"
    before = dump(m)
    with pytest.raises(UnknownPrecedentError) as info:
        m.revoke("k", "zzz")
    assert isinstance(info.value, LookupError) and "audit" in str(info.value)
    with pytest.raises(UnknownPrecedentError):
        m.promote("nope", "a")
    assert dump(m) == before


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda m: m.observe("", "v"), InvalidKeyError),
        (lambda m: m.observe("   ", "v"), InvalidKeyError),
        (lambda m: m.observe(42, "v"), InvalidKeyError),
        (lambda m: m.observe("k\x00", "v"), InvalidKeyError),
        (lambda m: m.observe("k", None), InvalidValueError),
        (lambda m: m.observe("k", object()), InvalidValueError),
        (lambda m: m.observe("k", {"a": {1, 2}}), InvalidValueError),
        (lambda m: m.observe("k", math.nan), InvalidValueError),
        (lambda m: m.observe("k", math.inf), InvalidValueError),
        (lambda m: m.observe("k", "\ud800"), InvalidValueError),
        (lambda m: m.observe("k", {1: "x"}), InvalidValueError),
        (lambda m: m.observe("k", "v", namespace="a..b"), InvalidNamespaceError),
        (lambda m: m.observe("k", "v", namespace=""), InvalidNamespaceError),
        (lambda m: m.observe("k", "v", namespace="a\nb"), InvalidNamespaceError),
        (lambda m: m.observe("k", "v", namespace=" a"), InvalidNamespaceError),
        (lambda m: m.observe("k", "v", metadata={"x": [1]}), InvalidArgumentError),
        (lambda m: m.observe("k", "v", metadata={"tepa_state": "x"}), InvalidArgumentError),
        (lambda m: m.observe("k", "v", text=3), InvalidArgumentError),
        (lambda m: m.record_outcome("k", "v", 1), InvalidArgumentError),
        (lambda m: m.retrieve("q", k=0), InvalidArgumentError),
        (lambda m: m.retrieve("q", k=True), InvalidArgumentError),
        (lambda m: m.retrieve(None), InvalidArgumentError),
        (lambda m: m.observe_many([("k", "ok"), ("k", None)]), InvalidValueError),
    ],
)
def test_bad_input_raises_typed_error_and_stores_nothing(
    any_memory: TEPAMemory, call, error
) -> None:
    m = any_memory
    m.observe("k", "v")
    m.record_outcome("k", "v", True)
    before = dump(m)
    with pytest.raises(error) as info:
        call(m)
    assert isinstance(info.value, TEPAError)
    assert str(info.value)
    assert dump(m) == before


def test_policy_argument_validation() -> None:
    with pytest.raises(TEPAError):
        TEPAMemory.in_memory(policy="nonsense")
    with pytest.raises(InvalidArgumentError):
        TEPAMemory.in_memory(policy=3)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        TEPAMemory.in_memory(flush_every=0)
    m = TEPAMemory.in_memory(policy="append-only", embeddings=HashingEmbeddings())
    assert m.policy.name == "append-only"


def test_no_memory_policy_retrieves_nothing() -> None:
    m = TEPAMemory.in_memory(policy="no-memory", embeddings=HashingEmbeddings())
    m.observe("k", "v")
    assert m.retrieve("k") == []
    assert m.get("k") is None
    assert m.evidence_count() == 1


def test_multi_valued_get_returns_list() -> None:
    policy = LifecyclePolicy(multi_valued_prefixes=("user.allergies",))
    m = TEPAMemory.in_memory(policy=policy, embeddings=HashingEmbeddings())
    m.observe("user.allergies", "nuts")
    m.observe("user.allergies", "milk")
    assert sorted(m.get("user.allergies")) == ["milk", "nuts"]


def test_observe_many_and_texts(any_memory: TEPAMemory) -> None:
    results = any_memory.observe_many([("a.b", 1), Fact("a.c", "x", text="a c is x", source="doc")])
    assert len(results) == 2
    assert any_memory.get("a.b") == 1
    assert any_memory.history("a.c")[0].source == "doc"


def test_reconcile_is_idempotent(any_memory: TEPAMemory) -> None:
    m = any_memory
    for i in range(30):
        m.observe(f"k{i % 4}", f"v{i % 3}")
        m.record_outcome(f"k{i % 4}", f"v{(i + 1) % 3}", i % 2 == 0)
    before = [p.to_dict() for p in m.precedents()]
    first = m.reconcile()
    assert first.evidence == 60 and first.keys == 4
    assert [p.to_dict() for p in m.precedents()] == before
    second = m.reconcile()
    assert second.repaired_views == 0 and second.repaired_active == 0
    assert [p.to_dict() for p in m.precedents()] == before


def test_mark_boundary_only_resets_oracle(tick) -> None:
    oracle = TEPAMemory.in_memory(policy="oracle-reset", embeddings=HashingEmbeddings(), clock=tick)
    tepa = TEPAMemory.in_memory(embeddings=HashingEmbeddings(), clock=tick)
    for m in (oracle, tepa):
        m.observe("k", "A")
        m.mark_boundary()
    assert oracle.get("k") is None
    assert tepa.get("k") == "A"


def test_persistent_reopen_gives_same_audit(tmp_path: Path) -> None:
    path = tmp_path / "mem"
    m = TEPAMemory.from_path(path, embeddings=HashingEmbeddings())
    m.observe("user.pizza_topping", "pineapple")
    m.observe("user.pizza_topping", "mushroom")
    m.observe("user.pizza_topping", "mushroom")
    m.record_outcome("tool.fmt", "csv", True)
    audits = {k: m.audit(k).precedents for k in m.keys()}
    docs = [d.metadata["value"] for d in m.retrieve("pizza", k=5)]
    m.close()
    with pytest.raises(StorageError):
        m.observe("k", "v")
    again = TEPAMemory.from_path(path, embeddings=HashingEmbeddings())
    assert {k: again.audit(k).precedents for k in again.keys()} == audits
    assert [d.metadata["value"] for d in again.retrieve("pizza", k=5)] == docs


def test_views_of_a_writer_that_stopped_are_rewritten_by_the_next_reader(tmp_path: Path) -> None:
    """A writer that dies with views still buffered: the next reader of the namespace, once
    the writer has been silent for twice the flush interval, rewrites them (no reconcile)."""
    import time

    import chromadb
    from chromadb.config import Settings

    client = chromadb.PersistentClient(
        path=str(tmp_path / "db"), settings=Settings(anonymized_telemetry=False)
    )
    prefix = "c" + uuid.uuid4().hex[:8]
    writer = TEPAMemory.from_client(
        client, prefix=prefix, embeddings=HashingEmbeddings(), flush_interval_s=60
    )
    writer.observe("user.pizza_topping", "pineapple")
    writer.observe("user.pizza_topping", "mushroom", source="user")
    writer.observe("user.pizza_topping", "mushroom", source="langgraph-store")
    assert stored_views(writer.storage) == []  # buffered, and the writer "dies" here
    reader = TEPAMemory.from_client(
        client, prefix=prefix, embeddings=HashingEmbeddings(), flush_interval_s=0.05
    )
    time.sleep(0.15)
    assert reader.get("user.pizza_topping") == "mushroom"  # the read notices and schedules
    reader.flush()
    views = {p.value: p for p in stored_views(reader.storage)}
    assert {v: p.state.value for v, p in views.items()} == {
        "pineapple": "revoked",
        "mushroom": "active",
    }
    assert stored_view_dicts(reader.storage) == {p.id: p.view() for p in reader.precedents()}


async def test_async_twins(any_memory: TEPAMemory) -> None:
    m = any_memory
    await m.aobserve("user.tone", "formal")
    await m.arecord_outcome("user.tone", "formal", True)
    assert await m.aget("user.tone") == "formal"
    docs = await m.aretrieve("tone", k=2)
    assert docs[0].metadata["value"] == "formal"
    assert (await m.aaudit("user.tone")).precedents[0].support == 2
    assert len(await m.ahistory("user.tone")) == 2
    await m.arevoke("user.tone", "formal")
    await m.apromote("user.tone", "formal")
    await m.aobserve_many([("user.lang", "fr")])
    report = await m.areconcile()
    assert report.evidence == 5
    await m.aflush()


def test_repr_and_context_manager() -> None:
    with TEPAMemory.in_memory(embeddings=HashingEmbeddings()) as m:
        m.observe("k", "v")
        assert "tepa-key" in repr(m)  # the default policy


def test_views_carry_the_lifecycle_in_metadata(chroma_memory: TEPAMemory) -> None:
    """Audit and archive queries can filter Chroma on the lifecycle fields of the views."""
    m = chroma_memory
    m.observe("user.pizza_topping", "pineapple")
    m.observe("user.pizza_topping", "mushroom", source="user")
    m.observe("user.pizza_topping", "mushroom", source="langgraph-store")
    m.flush()
    storage = m.storage
    shard = storage.layout.shard("default")  # type: ignore[attr-defined]
    col = storage.collection(storage.layout.view_collection(shard), create=False)  # type: ignore[attr-defined]
    got = col.get(
        where={"$and": [{"tepa_ns": "default"}, {"tepa_state": "revoked"}]}, include=["metadatas"]
    )
    assert len(got["ids"]) == 1
    meta = got["metadatas"][0]
    assert meta["tepa_key"] == "user.pizza_topping" and meta["tepa_ns"] == "default"
    view = json.loads(meta["tepa_view"])
    assert view["value"] == "pineapple"
    assert (view["support"], view["conflict"]) == (1, 2)
    assert view["validity"] == pytest.approx(0.4)
    assert view["created_at"] <= view["updated_at"]
    assert view["last_transition"]["reason"].startswith("revoked: validity")
    active = col.get(
        where={"$and": [{"tepa_ns": "default"}, {"tepa_state": "active"}]}, include=["metadatas"]
    )["metadatas"]
    assert [json.loads(a["tepa_view"])["value"] for a in active] == ["mushroom"]

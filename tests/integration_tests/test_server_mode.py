"""The foundation behaviours against a real ``chroma run`` server (HttpClient and AsyncHttpClient).

Two layers: the facade tests of ``tests/unit_tests/test_memory.py`` that take the ``any_memory``
fixture are run again on a server-backed memory, and the scenarios below check server-specific
paths (a second client reopening the memory, namespaces sharing one server, the async client).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

import pytest

from langchain_tepa import (
    EvidenceKind,
    HashingEmbeddings,
    Lifecycle,
    LifecyclePolicy,
    TEPAMemory,
    UnknownPrecedentError,
)
from langchain_tepa.storage.chroma import AsyncChromaStorage
from tests.integration_tests.conftest import ChromaServer, unique_prefix
from tests.support.stored import stored_evidence, stored_view_dicts
from tests.unit_tests import test_memory as foundation

KEY = "user.pizza_topping"


def _foundation_tests() -> list[tuple[str, Callable[..., Any]]]:
    found = []
    for name, fn in vars(foundation).items():
        if name.startswith("test_") and callable(fn):
            params = list(inspect.signature(fn).parameters)
            if params == ["any_memory"]:
                found.append((name, fn))
    return found


FOUNDATION = _foundation_tests()


def test_the_foundation_suite_was_found() -> None:
    assert len(FOUNDATION) >= 5, [n for n, _ in FOUNDATION]


@pytest.mark.parametrize("name", [n for n, _ in FOUNDATION])
async def test_foundation_behaviour_on_server(name: str, server_memory: TEPAMemory) -> None:
    fn = dict(FOUNDATION)[name]
    if inspect.iscoroutinefunction(fn):
        await fn(server_memory)
    else:
        await asyncio.to_thread(fn, server_memory)


def _dump(mem: TEPAMemory) -> tuple[Any, ...]:
    evidence = [e.to_dict() for e in stored_evidence(mem.storage)]
    index = [p.to_dict() for p in mem.precedents()]
    views = sorted(stored_view_dicts(mem.storage).values(), key=lambda d: d["id"])
    return evidence, index, views


def _scenario(mem: TEPAMemory) -> None:
    """Observe, contradict, revoke, re-promote, by hand too; Active-only retrieval; history."""
    assert mem.observe(KEY, "pineapple").precedent.state is Lifecycle.ACTIVE  # type: ignore[union-attr]
    mem.observe(KEY, "mushroom")
    mem.observe(KEY, "mushroom")
    audit = mem.audit(KEY)
    assert [(p.value, p.state) for p in audit.precedents] == [
        ("pineapple", Lifecycle.REVOKED),
        ("mushroom", Lifecycle.ACTIVE),
    ]
    assert audit.revoked[0].revocation is not None
    # the same source restated its change: the default's change point (issue 28)
    assert audit.revoked[0].revocation.reason.endswith("(change point)")
    docs = mem.retrieve("which pizza topping?", k=10)
    assert [d.metadata["value"] for d in docs] == ["mushroom"]
    for _ in range(3):
        mem.observe(KEY, "pineapple")
    reasons = [t.reason for t in mem.audit(KEY).precedents[0].transitions]
    assert "revived: new support after revocation" in reasons
    assert any(r.startswith("re-promoted") for r in reasons)
    assert mem.get(KEY) == "pineapple"
    # failures revoke through the recent window; by hand too
    mem.record_outcome(KEY, "pineapple", False)
    mem.record_outcome(KEY, "pineapple", False)
    mem.record_outcome(KEY, "pineapple", False)
    assert "pineapple" not in [d.metadata["value"] for d in mem.retrieve("pizza", k=10)]
    mem.revoke(KEY, "mushroom", reason="user changed their mind")
    assert mem.retrieve("pizza", k=10) == []
    mem.promote(KEY, "mushroom", reason="confirmed")
    assert [d.metadata["value"] for d in mem.retrieve("pizza", k=10)] == ["mushroom"]
    with pytest.raises(UnknownPrecedentError):
        mem.revoke(KEY, "anchovy")
    history = mem.history(KEY)
    assert [e.kind for e in history].count(EvidenceKind.OUTCOME) == 3
    assert [e.sort_key for e in history] == sorted(e.sort_key for e in history)
    assert history[-1].kind is EvidenceKind.PROMOTE
    rows = mem.audit(KEY).rows()
    assert {r["value"]: r["state"] for r in rows} == {"pineapple": "revoked", "mushroom": "active"}


def test_scenario_then_reopen_from_another_client(chroma_server: ChromaServer) -> None:
    prefix = unique_prefix("srv")
    mem = chroma_server.memory(prefix)
    _scenario(mem)
    report = mem.reconcile()
    assert (report.repaired_views, report.repaired_active) == (0, 0)
    before = _dump(mem)
    audit = mem.audit(KEY)
    mem.close()
    again = chroma_server.memory(prefix)  # a new HttpClient: nothing but the server's data
    assert _dump(again) == before
    assert again.audit(KEY) == audit
    assert [d.metadata["value"] for d in again.retrieve("pizza", k=10)] == ["mushroom"]
    again.close()


def test_namespaces_and_memories_share_one_server(chroma_server: ChromaServer) -> None:
    prefix = unique_prefix("ns")
    mem = chroma_server.memory(prefix)
    other = chroma_server.memory(unique_prefix("ns"))  # another memory on the same server
    mem.observe("user.diet", "vegan", namespace="users.u1")
    mem.observe("user.diet", "omnivore", namespace="users.u10")
    other.observe("user.diet", "pescatarian", namespace="users.u1")
    assert mem.get("user.diet", namespace="users.u1") == "vegan"
    assert mem.get("user.diet", namespace="users.u10") == "omnivore"
    assert other.get("user.diet", namespace="users.u1") == "pescatarian"
    got = {d.metadata["value"] for d in mem.retrieve("diet", k=10, namespace="users.u1")}
    assert got == {"vegan"}
    assert mem.audit("user.diet", namespace="users.u1").evidence_count == 1
    assert mem.namespaces() == ["users.u1", "users.u10"]
    mem.close()
    other.close()


def test_trials_policy_on_server(chroma_server: ChromaServer) -> None:
    mem = chroma_server.memory(policy=LifecyclePolicy.preset("tepa-full"))
    mem.observe("tool.api_version", "v2")
    assert mem.get("tool.api_version") is None  # a Hypothesis until a trial promotes it
    mem.record_trial("tool.api_version", "v2", True, trial_kind="counterfactual")
    mem.promote("tool.api_version", "v2", reason="promoted: trial passed")
    assert mem.get("tool.api_version") == "v2"
    assert mem.reconcile().repaired_views == 0
    mem.close()


async def test_async_http_client_runs_the_same_scenario(chroma_server: ChromaServer) -> None:
    client = await chroma_server.async_client()
    prefix = unique_prefix("asy")
    mem = await TEPAMemory.afrom_client(client, prefix=prefix, embeddings=HashingEmbeddings())
    assert isinstance(mem.storage, AsyncChromaStorage)
    await asyncio.to_thread(_scenario, mem)
    # the a-methods, on the async client, while the event loop keeps running
    await mem.aobserve("user.tone", "formal")
    await mem.arecord_outcome("user.tone", "formal", True)
    assert await mem.aget("user.tone") == "formal"
    assert [d.metadata["value"] for d in await mem.aretrieve("tone", k=1)] == ["formal"]
    assert len(await mem.ahistory("user.tone")) == 2
    report = await mem.areconcile()
    assert (report.repaired_views, report.repaired_active) == (0, 0)
    before = await asyncio.to_thread(_dump, mem)
    # The same data through the synchronous HttpClient, and through a new async client.
    sync = chroma_server.memory(prefix)
    assert _dump(sync) == before
    sync.close()
    again = await TEPAMemory.afrom_client(
        await chroma_server.async_client(), prefix=prefix, embeddings=HashingEmbeddings()
    )
    assert await asyncio.to_thread(_dump, again) == before
    mem.close()
    again.close()


def test_async_client_from_sync_code(chroma_server: ChromaServer) -> None:
    import chromadb
    from chromadb.config import Settings

    # The un-awaited coroutine is accepted too: it is awaited on the private loop.
    coro = chromadb.AsyncHttpClient(
        host=chroma_server.host,
        port=chroma_server.port,
        settings=Settings(anonymized_telemetry=False),
    )
    mem = TEPAMemory.from_client(coro, prefix=unique_prefix("asy"), embeddings=HashingEmbeddings())
    mem.observe("user.city", "Lyon")
    assert mem.get("user.city") == "Lyon"
    assert [d.metadata["value"] for d in mem.retrieve("city", k=1)] == ["Lyon"]
    mem.close()

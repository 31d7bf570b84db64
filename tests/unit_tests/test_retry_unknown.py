"""Idempotent retry after an unknown outcome (issue 29).

A write whose connection broke raises ``OutcomeUnknownError`` carrying the write's idempotency
id; ``memory.retry(error)`` sends the same pages under the same ids, so whether the first
attempt stored all of it, part of it or nothing, its evidence is stored once and its support
counts once (in process, after reopening, in memory and in Chroma).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Literal

import pytest

from langchain_tepa import HashingEmbeddings, InvalidArgumentError, TEPAMemory
from langchain_tepa.core.errors import OutcomeUnknownError
from langchain_tepa.core.types import Fact
from langchain_tepa.storage import InMemoryStorage
from tests.support.failing import lose_next_reply


def _support(memory: TEPAMemory, key: str, value: str, namespace: str | None = None) -> int:
    audit = memory.audit(key, namespace=namespace) if namespace else memory.audit(key)
    (p,) = [p for p in audit.precedents if p.value == value]
    return p.support


def _lost_write(memory: TEPAMemory, stored: Literal["all", "part", "none"]) -> OutcomeUnknownError:
    lose_next_reply(memory.storage, stored=stored)
    with pytest.raises(OutcomeUnknownError) as info:
        memory.observe("user.diet", "vegan")
    return info.value


@pytest.mark.parametrize("stored", ["all", "none"])
def test_a_retry_in_process_counts_the_evidence_once(stored: Literal["all", "none"]) -> None:
    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    memory.observe("user.diet", "vegan")
    err = _lost_write(memory, stored)
    assert err.retryable and err.write_id is not None and len(err.evidence_ids) == 1
    memory.retry(err)
    assert memory.evidence_count() == 2
    assert _support(memory, "user.diet", "vegan") == 2
    assert [ev.id for ev in memory.history("user.diet")].count(err.evidence_ids[0]) == 1
    memory.retry(err)  # a second retry of the same write changes nothing
    assert memory.evidence_count() == 2 and _support(memory, "user.diet", "vegan") == 2
    memory.observe("user.diet", "vegan")  # and the memory writes on normally
    assert _support(memory, "user.diet", "vegan") == 3


@pytest.mark.parametrize("stored", ["all", "none"])
def test_a_retry_on_chroma_stores_each_record_once(
    tmp_path: Path, stored: Literal["all", "none"]
) -> None:
    with TEPAMemory.from_path(tmp_path, embeddings=HashingEmbeddings()) as memory:
        memory.observe("user.diet", "vegan")
        err = _lost_write(memory, stored)
        err.retry()  # the error's own retry: the same as memory.retry(err)
        assert _support(memory, "user.diet", "vegan") == 2
    with TEPAMemory.from_path(tmp_path, embeddings=HashingEmbeddings()) as memory:
        assert memory.evidence_count() == 2
        assert _support(memory, "user.diet", "vegan") == 2
        assert len(memory.history("user.diet")) == 2


def test_a_write_stored_in_part_is_completed_once(tmp_path: Path) -> None:
    with TEPAMemory.from_path(tmp_path, embeddings=HashingEmbeddings()) as memory:
        layout = memory.storage.layout  # type: ignore[attr-defined]
        names = [f"u{i}" for i in range(40)]
        a = names[0]
        b = next(n for n in names if layout.shard(n) != layout.shard(a))
        memory.observe_many([Fact("user.diet", "vegan", namespace=ns) for ns in (a, b)])
        lose_next_reply(memory.storage, stored="part")
        with pytest.raises(OutcomeUnknownError) as info:
            memory.observe_many([Fact("user.diet", "vegan", namespace=ns) for ns in (a, b)])
        stored_now = [_support(memory, "user.diet", "vegan", ns) for ns in (a, b)]
        assert sorted(stored_now) == [1, 2]  # one shard's page was stored, the other's not
        memory.retry(info.value)
        assert [_support(memory, "user.diet", "vegan", ns) for ns in (a, b)] == [2, 2]
    with TEPAMemory.from_path(tmp_path, embeddings=HashingEmbeddings()) as memory:
        assert memory.evidence_count() == 4
        assert [_support(memory, "user.diet", "vegan", ns) for ns in (a, b)] == [2, 2]


def test_a_retry_after_another_write_is_refused() -> None:
    memory = TEPAMemory.in_memory(embeddings=HashingEmbeddings())
    err = _lost_write(memory, "none")
    memory.observe("user.city", "Oslo")
    with pytest.raises(InvalidArgumentError, match="not this memory's last append"):
        memory.retry(err)
    assert memory.history("user.diet") == []  # read, then write again what is missing


def test_only_the_memory_that_raised_it_retries() -> None:
    storage = InMemoryStorage()
    memory = TEPAMemory(storage=storage, embeddings=HashingEmbeddings())
    other = TEPAMemory(storage=storage, embeddings=HashingEmbeddings())
    err = _lost_write(memory, "all")
    with pytest.raises(InvalidArgumentError, match="memory whose write raised it"):
        other.retry(err)
    with pytest.raises(InvalidArgumentError, match="no append of evidence"):
        OutcomeUnknownError("a view write broke").retry()
    with pytest.raises(InvalidArgumentError, match="carries no write of this memory"):
        memory.retry(OutcomeUnknownError("a view write broke"))
    asyncio.run(memory.aretry(err))
    assert _support(memory, "user.diet", "vegan") == 1

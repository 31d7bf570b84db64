"""Chroma's pool of loaded HNSW indexes: its size per shard, and the warning on a low limit."""

from __future__ import annotations

import logging
import resource
from pathlib import Path

import pytest

from langchain_tepa.storage.chroma import local
from langchain_tepa.storage.chroma.local import (
    SAFE_INDEXES_PER_SHARD,
    index_pool_per_shard,
    open_persistent_client,
)


@pytest.mark.parametrize(
    ("open_files", "per_shard"),
    [(20000, 62), (4096, 12), (3200, 10), (1024, 3), (640, 2), (256, 1), (0, 1)],
)
def test_pool_per_shard_is_a_fifth_of_the_limit_over_64_shards(
    open_files: int, per_shard: int
) -> None:
    assert index_pool_per_shard(open_files) == per_shard


def test_pool_per_shard_reads_this_process_s_limit() -> None:
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    expected = None if soft == resource.RLIM_INFINITY else max(1, soft // 5 // 64)
    assert index_pool_per_shard() == expected


def test_chroma_sizes_its_pool_as_the_arithmetic_assumes(tmp_path: Path) -> None:
    client, lock = open_persistent_client(tmp_path / "db")
    try:
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        assert client._server.hnsw_cache_size == soft // 5  # chromadb/api/rust.py
    finally:
        lock.release()


def _open_with_limit(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, folder: Path, limit: int
) -> list[str]:
    monkeypatch.setattr(local, "_open_file_limit", lambda: limit)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="langchain_tepa"):
        _client, lock = open_persistent_client(folder)
        lock.release()
    return [r.getMessage() for r in caplog.records if "index pool" in r.getMessage()]


def test_a_low_open_file_limit_warns_once_per_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(local, "_POOL_CHECKED", False)
    (message,) = _open_with_limit(monkeypatch, caplog, tmp_path / "a", 1024)
    assert "ulimit -n 1024" in message
    assert "3 HNSW index(es) per shard" in message
    assert "ulimit -n 4096" in message and "chroma run" in message
    assert _open_with_limit(monkeypatch, caplog, tmp_path / "b", 1024) == []


def test_a_sufficient_open_file_limit_does_not_warn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(local, "_POOL_CHECKED", False)
    limit = SAFE_INDEXES_PER_SHARD * 64 * 5
    assert _open_with_limit(monkeypatch, caplog, tmp_path / "db", limit) == []
    monkeypatch.setattr(local, "_POOL_CHECKED", False)
    assert len(_open_with_limit(monkeypatch, caplog, tmp_path / "db", limit - 5 * 64)) == 1

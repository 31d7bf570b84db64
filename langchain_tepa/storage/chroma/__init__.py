"""Chroma storage: embedded (``PersistentClient``), in-process, or a ``chroma run`` server.

Example:
    >>> import chromadb
    >>> from chromadb.config import Settings
    >>> client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    >>> open_chroma_storage(client, prefix="doc_pkg").layout.version
    5
"""

from __future__ import annotations

from typing import Any

from langchain_tepa.storage.chroma.async_client import AsyncChromaStorage, is_async_client
from langchain_tepa.storage.chroma.backend import ChromaStorage
from langchain_tepa.storage.chroma.layout import Layout
from langchain_tepa.storage.chroma.local import (
    JOURNAL_MODES,
    FolderLock,
    open_persistent_client,
    open_server_client,
    set_journal_mode,
)

__all__ = [
    "JOURNAL_MODES",
    "AsyncChromaStorage",
    "ChromaStorage",
    "FolderLock",
    "Layout",
    "is_async_client",
    "open_chroma_storage",
    "open_persistent_client",
    "open_server_client",
    "set_journal_mode",
]


def open_chroma_storage(
    client: Any,
    *,
    prefix: str = "tepa",
    shards: int | None = None,
    dedicated_at: int | None = None,
    read_only: bool = False,
) -> ChromaStorage:
    """A :class:`ChromaStorage` (or :class:`AsyncChromaStorage` for an async client)."""
    cls = AsyncChromaStorage if is_async_client(client) else ChromaStorage
    return cls(client, prefix=prefix, shards=shards, dedicated_at=dedicated_at, read_only=read_only)

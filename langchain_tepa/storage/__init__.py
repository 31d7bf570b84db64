"""Storage backends: Chroma (embedded, persistent, HTTP server) and in-process.

Example:
    >>> from langchain_tepa.storage import InMemoryStorage, StorageBackend
    >>> isinstance(InMemoryStorage(), StorageBackend)
    True
"""

from __future__ import annotations

from langchain_tepa.storage.base import (
    Commit,
    NamespaceWrite,
    PageRequest,
    StorageBackend,
    as_backend,
    key_path,
)
from langchain_tepa.storage.chroma import AsyncChromaStorage, ChromaStorage
from langchain_tepa.storage.memory import InMemoryStorage

__all__ = [
    "AsyncChromaStorage",
    "ChromaStorage",
    "Commit",
    "InMemoryStorage",
    "NamespaceWrite",
    "PageRequest",
    "StorageBackend",
    "as_backend",
    "key_path",
]

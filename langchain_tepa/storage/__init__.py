"""Storage backends: Chroma (embedded, persistent, HTTP server) and in-process.

Example:
    >>> from langchain_tepa.storage import InMemoryStorage, StorageBackend
    >>> isinstance(InMemoryStorage(), StorageBackend)
    True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from langchain_tepa.core.values import safe_repr
from langchain_tepa.storage.base import (
    Commit,
    NamespaceWrite,
    PageRequest,
    StorageBackend,
    as_backend,
    key_path,
)
from langchain_tepa.storage.memory import InMemoryStorage

if TYPE_CHECKING:
    from langchain_tepa.storage.chroma import AsyncChromaStorage as AsyncChromaStorage
    from langchain_tepa.storage.chroma import ChromaStorage as ChromaStorage

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


def __getattr__(name: str) -> object:
    """``ChromaStorage`` and ``AsyncChromaStorage`` import the Chroma backend on first use."""
    if name in ("ChromaStorage", "AsyncChromaStorage"):
        return getattr(importlib.import_module("langchain_tepa.storage.chroma"), name)
    raise AttributeError(f"module {safe_repr(__name__)} has no attribute {safe_repr(name)}")


def __dir__() -> list[str]:
    """The module's names, the lazy ones included."""
    return sorted(set(globals()) | set(__all__))

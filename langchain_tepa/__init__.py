"""langchain-tepa: revocable evidence memory for LangChain and LangGraph agents.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> memory.observe("user.diet", "vegan").precedent.state.value
    'active'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from langchain_tepa.core import (
    POLICY_NAMES,
    Evidence,
    EvidenceKind,
    ExtractionError,
    Fact,
    InvalidArgumentError,
    InvalidKeyError,
    InvalidNamespaceError,
    InvalidSourceError,
    InvalidValueError,
    JudgeError,
    Lifecycle,
    LifecyclePolicy,
    OutcomeUnknownError,
    PolicyError,
    Precedent,
    SourceTrust,
    StorageError,
    TEPAError,
    Transition,
    TrustPolicy,
    UnknownPrecedentError,
)
from langchain_tepa.embeddings import HashingEmbeddings, default_embeddings
from langchain_tepa.memory import TEPAMemory
from langchain_tepa.memory.adapters import register_adapter
from langchain_tepa.results import KeyAudit, ObservationResult, ReconcileReport
from langchain_tepa.storage.base import StorageBackend
from langchain_tepa.storage.memory import InMemoryStorage

if TYPE_CHECKING:
    from langchain_tepa.classic import TEPAConversationMemory as TEPAConversationMemory
    from langchain_tepa.extraction import LLMFactExtractor as LLMFactExtractor
    from langchain_tepa.extraction import ReplacementJudge as ReplacementJudge
    from langchain_tepa.retriever import TEPARetriever as TEPARetriever
    from langchain_tepa.storage.chroma import ChromaStorage as ChromaStorage
    from langchain_tepa.store import TEPAStore as TEPAStore
    from langchain_tepa.tools import create_memory_tools as create_memory_tools
    from langchain_tepa.vectorstore import TEPAVectorStore as TEPAVectorStore

__version__ = "0.1.0"

# Submodules an eager import used to bind as attributes of the package.
_SUBMODULES = frozenset({"extraction", "retriever", "store", "vectorstore"})

# Public names whose modules are heavy, by module: imported on first use (issue 30).
_LAZY = {
    "ChromaStorage": "langchain_tepa.storage.chroma",
    "LLMFactExtractor": "langchain_tepa.extraction",
    "ReplacementJudge": "langchain_tepa.extraction",
    "TEPAConversationMemory": "langchain_tepa.classic",
    "TEPARetriever": "langchain_tepa.retriever",
    "TEPAStore": "langchain_tepa.store",
    "TEPAVectorStore": "langchain_tepa.vectorstore",
    "create_memory_tools": "langchain_tepa.tools",
}


def _lazy(name: str) -> Any:
    return getattr(importlib.import_module(_LAZY[name]), name)


def _adapter(cls: str) -> Callable[..., object]:
    """``factory(memory, **kwargs)`` of the adapter class ``cls``, imported when first made."""
    return lambda memory, **kwargs: _lazy(cls)(memory=memory, **kwargs)


register_adapter("retriever", _adapter("TEPARetriever"))
register_adapter("store", _adapter("TEPAStore"))
register_adapter("classic", _adapter("TEPAConversationMemory"))
register_adapter("vectorstore", _adapter("TEPAVectorStore"))

__all__ = [
    "POLICY_NAMES",
    "ChromaStorage",
    "Evidence",
    "EvidenceKind",
    "ExtractionError",
    "Fact",
    "HashingEmbeddings",
    "InMemoryStorage",
    "InvalidArgumentError",
    "InvalidKeyError",
    "InvalidNamespaceError",
    "InvalidSourceError",
    "InvalidValueError",
    "JudgeError",
    "KeyAudit",
    "LLMFactExtractor",
    "Lifecycle",
    "LifecyclePolicy",
    "ObservationResult",
    "OutcomeUnknownError",
    "PolicyError",
    "Precedent",
    "ReconcileReport",
    "ReplacementJudge",
    "SourceTrust",
    "StorageBackend",
    "StorageError",
    "TEPAError",
    "TEPAMemory",
    "TEPARetriever",
    "TEPAStore",
    "TEPAVectorStore",
    "Transition",
    "TrustPolicy",
    "UnknownPrecedentError",
    "__version__",
    "create_memory_tools",
    "default_embeddings",
]


def __getattr__(name: str) -> object:
    """Public names whose modules are heavy are imported on first use (issue 30).

    ``import langchain_tepa`` imports neither chromadb, the OpenAI client, langgraph's store,
    langchain-core's retriever machinery nor the extractors; ``from langchain_tepa import
    TEPAStore`` (or ``langchain_tepa.TEPAStore``) imports the module that defines it then.
    """
    if name in _LAZY:
        return _lazy(name)
    if name in _SUBMODULES:  # ``langchain_tepa.store`` worked without importing it before
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'langchain_tepa' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names, the lazy ones included."""
    return sorted(set(globals()) | set(__all__) | set(_LAZY))

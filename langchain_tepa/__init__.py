"""langchain-tepa: revocable evidence memory for LangChain and LangGraph agents.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> memory.observe("user.diet", "vegan").precedent.state.value
    'active'
"""

from __future__ import annotations

import importlib
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
    InvalidValueError,
    Lifecycle,
    LifecyclePolicy,
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
    from langchain_tepa.retriever import TEPARetriever as TEPARetriever
    from langchain_tepa.storage.chroma import ChromaStorage as ChromaStorage
    from langchain_tepa.store import TEPAStore as TEPAStore
    from langchain_tepa.vectorstore import TEPAVectorStore as TEPAVectorStore

__version__ = "0.1.0"

# Submodules an eager import used to bind as attributes of the package.
_SUBMODULES = frozenset({"extraction", "retriever", "store", "vectorstore"})


def _retriever(memory: TEPAMemory, **kwargs: Any) -> object:
    from langchain_tepa.retriever import TEPARetriever

    return TEPARetriever(memory=memory, **kwargs)


def _store(memory: TEPAMemory, **kwargs: Any) -> object:
    from langchain_tepa.store import TEPAStore

    return TEPAStore(memory=memory, **kwargs)


def _classic(memory: TEPAMemory, **kwargs: Any) -> object:
    from langchain_tepa.classic import TEPAConversationMemory

    return TEPAConversationMemory(memory=memory, **kwargs)


def _vectorstore(memory: TEPAMemory, **kwargs: Any) -> object:
    from langchain_tepa.vectorstore import TEPAVectorStore

    return TEPAVectorStore(memory=memory, **kwargs)


register_adapter("retriever", _retriever)
register_adapter("store", _store)
register_adapter("classic", _classic)
register_adapter("vectorstore", _vectorstore)

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
    "InvalidValueError",
    "KeyAudit",
    "LLMFactExtractor",
    "Lifecycle",
    "LifecyclePolicy",
    "ObservationResult",
    "PolicyError",
    "Precedent",
    "ReconcileReport",
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
    "default_embeddings",
]


def __getattr__(name: str) -> object:
    """Public names whose modules are heavy are imported on first use (issue 30).

    ``import langchain_tepa`` imports neither chromadb, the OpenAI client, langgraph's store,
    langchain-core's retriever machinery nor the extractors; ``from langchain_tepa import
    TEPAStore`` (or ``langchain_tepa.TEPAStore``) imports the module that defines it then.
    """
    if name == "ChromaStorage":
        from langchain_tepa.storage.chroma import ChromaStorage

        return ChromaStorage
    if name == "LLMFactExtractor":
        from langchain_tepa.extraction import LLMFactExtractor

        return LLMFactExtractor
    if name == "TEPARetriever":
        from langchain_tepa.retriever import TEPARetriever

        return TEPARetriever
    if name == "TEPAStore":
        from langchain_tepa.store import TEPAStore

        return TEPAStore
    if name == "TEPAVectorStore":
        from langchain_tepa.vectorstore import TEPAVectorStore

        return TEPAVectorStore
    if name == "TEPAConversationMemory":
        from langchain_tepa.classic import TEPAConversationMemory

        return TEPAConversationMemory
    if name in _SUBMODULES:  # ``langchain_tepa.store`` worked without importing it before
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'langchain_tepa' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names, the lazy ones included."""
    return sorted(set(globals()) | set(__all__) | {"TEPAConversationMemory"})

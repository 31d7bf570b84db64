"""langchain-tepa: revocable evidence memory for LangChain and LangGraph agents.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> memory.observe("user.diet", "vegan").precedent.state.value
    'active'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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
from langchain_tepa.extraction import LLMFactExtractor
from langchain_tepa.memory import TEPAMemory
from langchain_tepa.memory.adapters import register_adapter
from langchain_tepa.results import KeyAudit, ObservationResult, ReconcileReport
from langchain_tepa.retriever import TEPARetriever
from langchain_tepa.storage import ChromaStorage, InMemoryStorage, StorageBackend
from langchain_tepa.store import TEPAStore
from langchain_tepa.vectorstore import TEPAVectorStore

__version__ = "0.1.0"


def _classic(memory: TEPAMemory, **kwargs: object) -> object:
    from langchain_tepa.classic import TEPAConversationMemory

    return TEPAConversationMemory(memory=memory, **kwargs)


register_adapter("retriever", lambda memory, **kw: TEPARetriever(memory=memory, **kw))
register_adapter("store", lambda memory, **kw: TEPAStore(memory=memory, **kw))
register_adapter("classic", _classic)
register_adapter("vectorstore", lambda memory, **kw: TEPAVectorStore(memory=memory, **kw))

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


if TYPE_CHECKING:
    from langchain_tepa.classic import TEPAConversationMemory as TEPAConversationMemory


def __getattr__(name: str) -> object:
    """Lazy attribute: ``TEPAConversationMemory`` imports langchain-classic only when used."""
    if name == "TEPAConversationMemory":
        from langchain_tepa.classic import TEPAConversationMemory

        return TEPAConversationMemory
    raise AttributeError(f"module 'langchain_tepa' has no attribute {name!r}")

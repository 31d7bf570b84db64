"""langchain-tepa: revocable evidence memory for LangChain and LangGraph agents.

Every public name is imported on first use (PEP 562), so ``import langchain_tepa`` costs almost
nothing and ``from langchain_tepa import TEPAStore`` imports what ``TEPAStore`` needs and no
more: not chromadb until a store is opened on Chroma, not the OpenAI client, not the extractors.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> memory.observe("user.diet", "vegan").precedent.state.value
    'active'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langchain_tepa.classic import TEPAConversationMemory as TEPAConversationMemory
    from langchain_tepa.core import POLICY_NAMES as POLICY_NAMES
    from langchain_tepa.core import Evidence as Evidence
    from langchain_tepa.core import EvidenceKind as EvidenceKind
    from langchain_tepa.core import ExtractionError as ExtractionError
    from langchain_tepa.core import Fact as Fact
    from langchain_tepa.core import InvalidArgumentError as InvalidArgumentError
    from langchain_tepa.core import InvalidKeyError as InvalidKeyError
    from langchain_tepa.core import InvalidNamespaceError as InvalidNamespaceError
    from langchain_tepa.core import InvalidSourceError as InvalidSourceError
    from langchain_tepa.core import InvalidValueError as InvalidValueError
    from langchain_tepa.core import JudgeError as JudgeError
    from langchain_tepa.core import Lifecycle as Lifecycle
    from langchain_tepa.core import LifecyclePolicy as LifecyclePolicy
    from langchain_tepa.core import OutcomeUnknownError as OutcomeUnknownError
    from langchain_tepa.core import PolicyError as PolicyError
    from langchain_tepa.core import Precedent as Precedent
    from langchain_tepa.core import SourceTrust as SourceTrust
    from langchain_tepa.core import StorageError as StorageError
    from langchain_tepa.core import TEPAError as TEPAError
    from langchain_tepa.core import Transition as Transition
    from langchain_tepa.core import TrustPolicy as TrustPolicy
    from langchain_tepa.core import UnknownPrecedentError as UnknownPrecedentError
    from langchain_tepa.embeddings import HashingEmbeddings as HashingEmbeddings
    from langchain_tepa.embeddings import default_embeddings as default_embeddings
    from langchain_tepa.extraction import LLMFactExtractor as LLMFactExtractor
    from langchain_tepa.extraction import ReplacementJudge as ReplacementJudge
    from langchain_tepa.memory import TEPAMemory as TEPAMemory
    from langchain_tepa.results import KeyAudit as KeyAudit
    from langchain_tepa.results import ObservationResult as ObservationResult
    from langchain_tepa.results import ReconcileReport as ReconcileReport
    from langchain_tepa.retriever import TEPARetriever as TEPARetriever
    from langchain_tepa.storage.base import StorageBackend as StorageBackend
    from langchain_tepa.storage.chroma import ChromaStorage as ChromaStorage
    from langchain_tepa.storage.memory import InMemoryStorage as InMemoryStorage
    from langchain_tepa.store import TEPAStore as TEPAStore
    from langchain_tepa.tools import create_memory_tools as create_memory_tools
    from langchain_tepa.vectorstore import TEPAVectorStore as TEPAVectorStore

__version__ = "0.1.0"

# Submodules an eager import used to bind as attributes of the package.
_SUBMODULES = frozenset({"extraction", "retriever", "store", "vectorstore"})

_CORE = [
    "POLICY_NAMES",
    "Evidence",
    "EvidenceKind",
    "ExtractionError",
    "Fact",
    "InvalidArgumentError",
    "InvalidKeyError",
    "InvalidNamespaceError",
    "InvalidSourceError",
    "InvalidValueError",
    "JudgeError",
    "Lifecycle",
    "LifecyclePolicy",
    "OutcomeUnknownError",
    "PolicyError",
    "Precedent",
    "SourceTrust",
    "StorageError",
    "TEPAError",
    "Transition",
    "TrustPolicy",
    "UnknownPrecedentError",
]

# Every public name, by the module that defines it: imported on first use.
_LAZY = {
    **dict.fromkeys(_CORE, "langchain_tepa.core"),
    "ChromaStorage": "langchain_tepa.storage.chroma",
    "HashingEmbeddings": "langchain_tepa.embeddings",
    "InMemoryStorage": "langchain_tepa.storage.memory",
    "KeyAudit": "langchain_tepa.results",
    "LLMFactExtractor": "langchain_tepa.extraction",
    "ObservationResult": "langchain_tepa.results",
    "ReconcileReport": "langchain_tepa.results",
    "ReplacementJudge": "langchain_tepa.extraction",
    "StorageBackend": "langchain_tepa.storage.base",
    "TEPAConversationMemory": "langchain_tepa.classic",
    "TEPAMemory": "langchain_tepa.memory",
    "TEPARetriever": "langchain_tepa.retriever",
    "TEPAStore": "langchain_tepa.store",
    "TEPAVectorStore": "langchain_tepa.vectorstore",
    "create_memory_tools": "langchain_tepa.tools",
    "default_embeddings": "langchain_tepa.embeddings",
}

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
    """A public name, imported from its module on first use (and kept in the package)."""
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:  # ``langchain_tepa.store`` worked without importing it before
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'langchain_tepa' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names, the lazy ones included."""
    return sorted(set(globals()) | set(__all__) | set(_LAZY))

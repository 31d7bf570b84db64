from __future__ import annotations

import langchain_tepa
from langchain_tepa import core

EXPECTED_ALL = [
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


def test_llm_fact_extractor_is_importable_from_the_root() -> None:
    from langchain_tepa import LLMFactExtractor, extraction

    assert LLMFactExtractor is extraction.LLMFactExtractor


def test_errors_and_the_memory_tools_are_importable_from_the_root() -> None:
    """Issue 38: clients reached for these at the root and found nothing."""
    from langchain_tepa import InvalidSourceError, OutcomeUnknownError, create_memory_tools
    from langchain_tepa.core.errors import StorageUnavailableError
    from langchain_tepa.tools import create_memory_tools as tools_factory

    assert create_memory_tools is tools_factory
    assert issubclass(OutcomeUnknownError, StorageUnavailableError)
    assert issubclass(InvalidSourceError, ValueError)


def test_all_is_pinned() -> None:
    assert sorted(langchain_tepa.__all__) == sorted(EXPECTED_ALL)
    for name in langchain_tepa.__all__:
        assert hasattr(langchain_tepa, name)


def test_core_imports_neither_langchain_nor_chroma() -> None:
    import ast
    from pathlib import Path

    folder = Path(core.__file__).parent
    for path in folder.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert not name.startswith(("langchain_core", "langgraph", "chromadb", "numpy")), (
                    f"{path.name} imports {name}"
                )
                if name.startswith("langchain_tepa"):
                    assert name.startswith("langchain_tepa.core"), f"{path.name} imports {name}"

"""``import langchain_tepa`` leaves the heavy dependencies alone until they are used (issue 30).

Each check runs a fresh interpreter: this test process has imported everything already. The
import time itself is a benchmark (docs/performance.md, "Import time"), not a test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import langchain_tepa

ROOT = Path(langchain_tepa.__file__).resolve().parent.parent
HEAVY = ("chromadb", "openai", "langchain_openai", "langgraph.store.sqlite")


def _modules_after(code: str) -> set[str]:
    """The names in ``sys.modules`` of a fresh interpreter after running ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        timeout=120,
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_import_langchain_tepa_imports_neither_chromadb_nor_openai() -> None:
    loaded = _modules_after("import langchain_tepa")
    assert "langchain_tepa" in loaded
    for name in HEAVY:
        assert name not in loaded, f"import langchain_tepa imported {name}"


def test_the_in_memory_quickstart_needs_neither() -> None:
    loaded = _modules_after(
        "from langchain_tepa import TEPAMemory\n"
        "m = TEPAMemory.in_memory()\n"
        "m.observe('user.diet', 'vegan')\n"
        "m.retrieve('diet')"
    )
    for name in HEAVY:
        assert name not in loaded, f"an in-memory memory imported {name}"


def test_lazy_names_resolve_to_their_modules() -> None:
    from langchain_tepa import (
        ChromaStorage,
        LLMFactExtractor,
        TEPARetriever,
        TEPAStore,
        TEPAVectorStore,
        storage,
    )
    from langchain_tepa.extraction import llm
    from langchain_tepa.retriever import TEPARetriever as Retriever
    from langchain_tepa.storage.chroma import AsyncChromaStorage, backend
    from langchain_tepa.store import store
    from langchain_tepa.vectorstore import TEPAVectorStore as VectorStore

    assert ChromaStorage is backend.ChromaStorage is storage.ChromaStorage
    assert storage.AsyncChromaStorage is AsyncChromaStorage
    assert LLMFactExtractor is llm.LLMFactExtractor
    assert TEPARetriever is Retriever
    assert TEPAStore is store.TEPAStore
    assert TEPAVectorStore is VectorStore
    assert {"ChromaStorage", "TEPAStore", "TEPAConversationMemory"} <= set(dir(langchain_tepa))
    assert "AsyncChromaStorage" in dir(storage)


def test_building_a_chroma_memory_imports_chromadb(tmp_path: Path) -> None:
    loaded = _modules_after(
        "from langchain_tepa import TEPAMemory\n"
        f"m = TEPAMemory.from_path({str(tmp_path)!r})\n"
        "m.close()"
    )
    assert "chromadb" in loaded


def test_an_unknown_name_is_an_attribute_error() -> None:
    import pytest

    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        langchain_tepa.Nope  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        langchain_tepa.storage.Nope  # noqa: B018

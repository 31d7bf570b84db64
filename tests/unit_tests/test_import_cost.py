"""``import langchain_tepa`` leaves the heavy dependencies alone until they are used (issue 30).

Each check runs a fresh interpreter: this test process has imported everything already. The
import time itself is a benchmark (docs/performance.md, "Import time"), not a test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import langchain_tepa

ROOT = Path(langchain_tepa.__file__).resolve().parent.parent
HEAVY = ("chromadb", "openai", "langchain_openai", "langgraph.store.sqlite")
# The extractors (issue 30: the offline one's pattern tables cost 0.5 s of CPU then; issue 37's
# rules, about 0.07 s): a program that never extracts does not import them.
EXTRACTORS = ("langchain_tepa.extraction.offline", "langchain_tepa.extraction.user")


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
    for name in (*HEAVY, *EXTRACTORS):
        assert name not in loaded, f"an in-memory memory imported {name}"


def test_a_first_write_without_text_builds_no_extractor() -> None:
    # The default embeddings read their own word lists (langchain_tepa/lexical.py), not the
    # extractors. When reading them imported the whole extraction package, a store's first put
    # paid the extractors' 0.5 s of CPU between its TTL stamp and its write: 11 s of wall on a
    # loaded machine, and LangGraph's test_search_namespace_like_metacharacters (6 s TTL) found
    # its first item expired.
    loaded = _modules_after(
        "from langchain_tepa import TEPAStore\n"
        "store = TEPAStore.in_memory(ttl={'default_ttl': 0.1})\n"
        "store.put(('user_1',), 'k', {'v': 1})\n"
        "store.search(('user_1',))\n"
        "import langchain_tepa.extraction"
    )
    assert "langchain_tepa.lexical" in loaded
    for name in EXTRACTORS:
        assert name not in loaded, f"a store's first put imported {name}"


def test_the_extraction_packages_names_resolve_to_their_modules() -> None:
    import langchain_tepa.extraction as extraction
    from langchain_tepa.extraction import offline, resolution

    assert extraction.OfflineFactExtractor is offline.OfflineFactExtractor
    assert extraction.normalize_key_part is offline.normalize_key_part
    assert extraction.KeyResolver is resolution.KeyResolver
    assert extraction.resolution_text is resolution.resolution_text
    assert set(extraction.__all__) <= set(dir(extraction))
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        extraction.Nope  # noqa: B018


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
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        langchain_tepa.Nope  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        langchain_tepa.storage.Nope  # noqa: B018

"""Fact extraction: free text to keyed observations.

The extractors are imported on first use: the offline extractor's pattern tables cost about
half a second of CPU to build, which neither ``import langchain_tepa`` nor a program that never
extracts (the embeddings read :mod:`langchain_tepa.extraction.lexical` only) should pay.

Example:
    >>> from langchain_tepa.extraction import FactExtractor
    >>> FactExtractor.__name__
    'FactExtractor'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from langchain_tepa.extraction.base import (
    ExtractionReport,
    Fact,
    FactExtractor,
    ReportingFactExtractor,
    Unextracted,
    UnextractedReason,
    aextract_report,
    extract_report,
)

if TYPE_CHECKING:
    from langchain_tepa.extraction.judge import ReplacementJudge as ReplacementJudge
    from langchain_tepa.extraction.llm import LLMFactExtractor as LLMFactExtractor
    from langchain_tepa.extraction.offline import OfflineFactExtractor as OfflineFactExtractor
    from langchain_tepa.extraction.offline import normalize_key_part as normalize_key_part
    from langchain_tepa.extraction.resolution import KeyResolver as KeyResolver
    from langchain_tepa.extraction.resolution import resolution_text as resolution_text

__all__ = [
    "ExtractionReport",
    "Fact",
    "FactExtractor",
    "KeyResolver",
    "LLMFactExtractor",
    "OfflineFactExtractor",
    "ReplacementJudge",
    "ReportingFactExtractor",
    "Unextracted",
    "UnextractedReason",
    "aextract_report",
    "extract_report",
    "normalize_key_part",
    "resolution_text",
    "resolve_extractor",
]

# Public name -> the module that defines it (imported when the name is first read).
_LAZY = {
    "LLMFactExtractor": "llm",
    "ReplacementJudge": "judge",
    "OfflineFactExtractor": "offline",
    "normalize_key_part": "offline",
    "KeyResolver": "resolution",
    "resolution_text": "resolution",
}


def __getattr__(name: str) -> object:
    """The extractors and key resolution, imported from their modules on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later reads are plain attribute reads
    return value


def __dir__() -> list[str]:
    """The module's names, the lazy ones included."""
    return sorted(set(globals()) | set(__all__))


def resolve_extractor(extractor: FactExtractor | None) -> FactExtractor:
    """The given extractor, or the default offline one."""
    if extractor is not None:
        return extractor
    from langchain_tepa.extraction.offline import OfflineFactExtractor

    return OfflineFactExtractor()

"""Fact extraction: free text to keyed observations.

Example:
    >>> from langchain_tepa.extraction import FactExtractor
    >>> FactExtractor.__name__
    'FactExtractor'
"""

from __future__ import annotations

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
from langchain_tepa.extraction.llm import LLMFactExtractor
from langchain_tepa.extraction.offline import OfflineFactExtractor, normalize_key_part
from langchain_tepa.extraction.resolution import KeyResolver, resolution_text

__all__ = [
    "ExtractionReport",
    "Fact",
    "FactExtractor",
    "KeyResolver",
    "LLMFactExtractor",
    "OfflineFactExtractor",
    "ReportingFactExtractor",
    "Unextracted",
    "UnextractedReason",
    "aextract_report",
    "extract_report",
    "normalize_key_part",
    "resolution_text",
    "resolve_extractor",
]


def resolve_extractor(extractor: FactExtractor | None) -> FactExtractor:
    """The given extractor, or the default offline one."""
    if extractor is not None:
        return extractor
    from langchain_tepa.extraction.offline import OfflineFactExtractor

    return OfflineFactExtractor()

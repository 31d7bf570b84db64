"""The fact-extractor protocol: free text -> keyed facts.

Example:
    >>> class Colon:
    ...     def extract(self, text: str) -> list[Fact]:
    ...         key, _, value = text.partition(":")
    ...         return [Fact(key.strip(), value.strip(), text=text)] if value else []
    >>> isinstance(Colon(), FactExtractor)
    True
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from langchain_tepa.core.types import Fact

__all__ = ["Fact", "FactExtractor"]


@runtime_checkable
class FactExtractor(Protocol):
    """Anything with ``extract(text) -> list[Fact]`` (and optionally ``aextract``)."""

    def extract(self, text: str) -> list[Fact]:
        """Facts stated in ``text`` (an empty list when none)."""
        ...

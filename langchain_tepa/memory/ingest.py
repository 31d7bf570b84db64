"""Free text into keyed facts for :meth:`TEPAMemory.add_texts`: extraction and key resolution.

Example:
    >>> from langchain_tepa import HashingEmbeddings, LifecyclePolicy
    >>> ingest = TextIngest(HashingEmbeddings(), LifecyclePolicy(), None)
    >>> facts, skipped = ingest.extract(["The capital of Peru is Lima.", "Hmm."], "default", None)
    >>> [(f.key, f.value) for f in facts], skipped
    ([('peru.capital', 'Lima')], ['Hmm. (not stored: no known sentence shape)'])
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.embeddings import Embeddings

from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.types import Fact
from langchain_tepa.core.values import validate_key

if TYPE_CHECKING:
    from langchain_tepa.extraction.base import FactExtractor

__all__ = ["TextIngest"]

_log = logging.getLogger("langchain_tepa")
_MAX_RESOLVER_NAMESPACES = 1024


class TextIngest:
    """Extraction with the memory's extractor, then key resolution per namespace.

    Args:
        embeddings: Embeddings used to compare keys.
        policy: Supplies ``key_match_threshold``.
        extractor: The fact extractor (default: the offline extractor).
    """

    def __init__(
        self, embeddings: Embeddings, policy: LifecyclePolicy, extractor: FactExtractor | None
    ) -> None:
        self._embeddings = embeddings
        self._policy = policy
        self._extractor = extractor
        self._resolver: Any = None
        self._lock = threading.Lock()

    def extract(
        self, texts: Sequence[str], namespace: str, source: str | None
    ) -> tuple[list[Fact], list[str]]:
        """Facts of ``texts`` (keys validated) and what could not be extracted, with why."""
        from langchain_tepa.extraction import extract_report, resolve_extractor

        extractor = resolve_extractor(self._extractor)
        facts: list[Fact] = []
        skipped: list[str] = []
        for text in texts:
            report = extract_report(extractor, text)
            skipped.extend(str(u) for u in report.unextracted)
            for fact in report.facts:
                facts.append(
                    Fact(
                        key=validate_key(fact.key),
                        value=fact.value,
                        namespace=namespace,
                        text=fact.text or text,
                        source=source or fact.source,
                        metadata=fact.metadata,
                        confidence=fact.confidence,
                    )
                )
        if skipped:
            _log.warning(
                "add_texts stored nothing for %d sentence(s): %s",
                len(skipped),
                "; ".join(t[:120] for t in skipped[:5]),
            )
        return facts, skipped

    def _key_resolver(self) -> Any:
        from langchain_tepa.extraction.resolution import KeyResolver

        if self._resolver is None:
            self._resolver = KeyResolver(self._embeddings, self._policy.key_match_threshold)
        return self._resolver

    def resolve(self, namespace: str, facts: list[Fact], known: Sequence[str]) -> list[Fact]:
        """Map new keys onto similar stored keys (``known``) of the same namespace."""
        if not facts:
            return facts
        with self._lock:
            resolver = self._key_resolver()
            if len(resolver._known) > _MAX_RESOLVER_NAMESPACES:  # bounded like the state cache
                self._resolver = None
                resolver = self._key_resolver()
            resolver.register(namespace, known)
            mapped = resolver.resolve_many(namespace, [f.key for f in facts])
        out = []
        for fact, key in zip(facts, mapped, strict=True):
            if key != fact.key:
                meta = {**(fact.metadata or {}), "extracted_key": fact.key}
                fact = Fact(
                    key, fact.value, namespace, fact.text, fact.source, meta, fact.confidence
                )
            out.append(fact)
        return out

    def registered(self, namespace: str, keys: Sequence[str]) -> None:
        """Remember keys just stored, so later calls resolve onto them."""
        if keys:
            with self._lock:
                self._key_resolver().register(namespace, keys)

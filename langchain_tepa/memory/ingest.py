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
from collections.abc import Mapping, Sequence
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
        self,
        texts: Sequence[str],
        namespace: str,
        source: str | None,
        known_keys: Sequence[str] | None = None,
        *,
        warn: bool = True,
    ) -> tuple[list[Fact], list[str]]:
        """Facts of ``texts`` (keys validated) and what could not be extracted, with why.

        With ``known_keys`` (the namespace's stored keys), an extractor that has
        ``extract_with_keys(text, known_keys)`` (``LLMFactExtractor``) is given them, so it can
        reuse their names; an extractor that reports what it skipped (the offline one) is
        read through its report, and key resolution (:meth:`resolve`) does the rest. With
        ``warn`` (the default, ``add_texts``), sentences that gave nothing are logged as a
        warning; the claims of free-text items pass ``False`` (an item without claims is a
        plain memory, not a loss).
        """
        from langchain_tepa.extraction import extract_report, resolve_extractor
        from langchain_tepa.extraction.base import ExtractionReport

        extractor = resolve_extractor(self._extractor)
        with_keys = getattr(extractor, "extract_with_keys", None)
        use_keys = (
            known_keys is not None
            and callable(with_keys)
            and not callable(getattr(extractor, "extract_report", None))
        )
        facts: list[Fact] = []
        skipped: list[str] = []
        for text in texts:
            if use_keys:
                assert callable(with_keys)
                assert known_keys is not None
                found = list(with_keys(text, list(known_keys)))
                report = ExtractionReport(found, [])
                if not found and text.strip():
                    report = extract_report(_NoFact(), text)
            else:
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
        if skipped and warn:
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

    def resolve(
        self,
        namespace: str,
        facts: list[Fact],
        known: Sequence[str],
        values: Mapping[str, Any] | None = None,
    ) -> list[Fact]:
        """Map the facts' keys onto the namespace's keys (``known``), in two steps.

        1. The attribute families' rules (:func:`~langchain_tepa.extraction.resolution.\
resolve_families`): ``user.lives_in`` and ``user.current_city`` become ``user.home_city`` (or
           the stored key of that family); a claim that names no attribute but the value it
           replaces (``metadata["previous_value"]``, "switched from X to Y") lands on the one
           stored key whose current value (``values``: key -> current value, optional) is X.
        2. Key similarity (:class:`~langchain_tepa.extraction.resolution.KeyResolver`): a new
           key close to a stored key of the same subject (``key_match_threshold``) takes it.

        A moved fact keeps its extracted key in ``metadata["extracted_key"]``; a fact whose
        key is a multi-valued family (pets, languages, ...) gets ``metadata["multi_valued"]``.
        """
        if not facts:
            return facts
        from langchain_tepa.extraction.resolution import is_family_key, resolve_families

        previous = [(f.metadata or {}).get("previous_value") for f in facts]
        metas = [f.metadata or {} for f in facts]
        rename = [bool(m.get("family") or m.get("extractor") == "llm") for m in metas]
        corrections = [bool(m.get("correction")) for m in metas]
        ruled = resolve_families(
            [f.key for f in facts],
            known,
            previous=previous,
            values=values,
            rename=rename,
            corrections=corrections,
        )
        with self._lock:
            resolver = self._key_resolver()
            if len(resolver._known) > _MAX_RESOLVER_NAMESPACES:  # bounded like the state cache
                self._resolver = None
                resolver = self._key_resolver()
            resolver.register(namespace, known)
            free = [i for i, (key, _) in enumerate(ruled) if not is_family_key(key)]
            mapped = [key for key, _ in ruled]  # a family's key is final: its rules decided
            for i, key in zip(
                free, resolver.resolve_many(namespace, [ruled[i][0] for i in free]), strict=True
            ):
                mapped[i] = key
        out = []
        for fact, (ruled_key, multi), key in zip(facts, ruled, mapped, strict=True):
            meta = dict(fact.metadata or {})
            if ruled_key != fact.key:
                meta.pop("multi_valued", None)  # the key it landed on decides
            if multi:
                meta["multi_valued"] = True
            if key != fact.key:
                meta["extracted_key"] = fact.key
            if key != fact.key or meta != (fact.metadata or {}):
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


class _NoFact:
    """An extractor that finds nothing: reports a text that gave no fact with ``no_fact``."""

    def extract(self, text: str) -> list[Fact]:
        return []

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
        """Map the facts' keys onto the namespace's keys (``known``), in three steps.

        1. The attribute families' rules (:func:`~langchain_tepa.extraction.resolution.\
resolve_families`): ``user.lives_in`` and ``user.moved_to`` become ``user.home_city`` (or the
           stored key of that family); a fact whose ``metadata["previous_value"]`` is the
           current value of a stored key (``values``: key -> current value, optional) lands on
           that key.
        2. Key similarity (:class:`~langchain_tepa.extraction.resolution.KeyResolver`): a new
           key close to a stored key of the same subject (``key_match_threshold``) takes it.
        3. Attribute-text similarity: a key still new is compared by its fact's
           ``metadata["attribute_text"]`` with the attribute texts of keys resolved before.

        A moved fact keeps its extracted key in ``metadata["extracted_key"]``; a fact whose
        key is a multi-valued family (pets, hobbies, ...) gets ``metadata["multi_valued"]``.
        """
        if not facts:
            return facts
        from langchain_tepa.extraction.resolution import is_family_key, resolve_families

        previous = [(f.metadata or {}).get("previous_value") for f in facts]
        metas = [f.metadata or {} for f in facts]
        rename = [bool(m.get("family") or m.get("extractor") == "llm") for m in metas]
        ruled = resolve_families(
            [f.key for f in facts], known, previous=previous, values=values, rename=rename
        )
        attributes = [(f.metadata or {}).get("attribute_text") for f in facts]
        with self._lock:
            resolver = self._key_resolver()
            if len(resolver._known) > _MAX_RESOLVER_NAMESPACES:  # bounded like the state cache
                self._resolver = None
                resolver = self._key_resolver()
            resolver.register(namespace, known)
            free = [i for i, (key, _) in enumerate(ruled) if not is_family_key(key)]
            mapped = [key for key, _ in ruled]  # a family's key is final: its rules decided
            for i, key in zip(
                free,
                resolver.resolve_many(
                    namespace,
                    [ruled[i][0] for i in free],
                    [a if isinstance(a := attributes[i], str) else None for i in free],
                ),
                strict=True,
            ):
                mapped[i] = key if not _generic_onto_family(ruled[i][0], key) else ruled[i][0]
            self._changes(namespace, facts, mapped, set(known), values or {}, resolver)
            _same_value(facts, mapped, set(known), values or {})
            _specialised(facts, mapped, set(known), values or {})
            resolver.register_attributes(
                namespace,
                [(k, a) for k, a in zip(mapped, attributes, strict=True) if isinstance(a, str)],
            )
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

    @staticmethod
    def _changes(
        namespace: str,
        facts: list[Fact],
        mapped: list[str],
        known: set[str],
        values: Mapping[str, Any],
        resolver: Any,
    ) -> None:
        """Step 4: a change claim on a key still unknown lands on the known key it changes.

        Only claims that say their value changed ("now", "switched", "UPDATE:") and whose key
        no step resolved are moved, onto a known key of the same subject chosen by
        :func:`~langchain_tepa.extraction.resolution.change_target` (``mapped`` is updated).
        """
        from langchain_tepa.extraction.resolution import change_target

        groups = resolver._attributes.get(namespace, {})
        for i, (fact, key) in enumerate(zip(facts, mapped, strict=True)):
            meta = fact.metadata or {}
            if key in known or "." not in key or not meta.get("correction"):
                continue
            parent = key.rsplit(".", 1)[0]
            if parent != "user":
                continue
            texts: dict[str, list[str]] = {k: [] for k in known if k.rsplit(".", 1)[0] == parent}
            group = groups.get(parent)
            if group is not None:
                for text, owner in group.by_text.items():
                    if owner in texts:
                        texts[owner].append(text)
            attribute = meta.get("attribute_text")
            target = change_target(
                key, attribute if isinstance(attribute, str) else None, fact.value, texts, values
            )
            if target is not None:
                mapped[i] = target

    def registered(self, namespace: str, keys: Sequence[str]) -> None:
        """Remember keys just stored, so later calls resolve onto them."""
        if keys:
            with self._lock:
                self._key_resolver().register(namespace, keys)


def _generic_onto_family(own: str, target: str) -> bool:
    """Whether a marked generic verb key (``user.does_watch``) would land on a family's key.

    The extractor marked it because a family's key is its verb's name and the sentence is no
    claim of that family ("I watch Netflix" beside ``user.watch``, "I work nights" beside
    "I work at Acme"): no similarity of key or attribute text may bring it back onto one.

    Example:
        >>> _generic_onto_family("user.does_watch", "user.watch")
        True
        >>> _generic_onto_family("user.does_watch", "user.watches")
        False
    """
    from langchain_tepa.extraction.families import is_generic_relation, key_family

    return target != own and is_generic_relation(own) and key_family(target) is not None


def _same_value(
    facts: list[Fact], mapped: list[str], known: set[str], values: Mapping[str, Any]
) -> None:
    """Step 5: a repeated value lands on the known key that holds it.

    A user's claim on a key still unknown (not a single-valued family's) whose value is the
    current value of one known single-valued key of the same subject lands on that key
    (``mapped`` is updated).

    The same value said again is the same attribute ("USER PROFILE - sport: lacrosse", then
    "User is into lacrosse"): the repeat supports the stored claim instead of starting a key
    that a later change of the attribute would leave behind.

    Example:
        >>> f = Fact(key="user.usually_flies", value="Aer Lingus")
        >>> mapped = ["user.usually_flies"]
        >>> _same_value([f], mapped, {"user.airline"}, {"user.airline": "Aer Lingus"})
        >>> mapped
        ['user.airline']
    """
    from langchain_tepa.extraction.families import key_family

    for i, (fact, key) in enumerate(zip(facts, mapped, strict=True)):
        if key in known or "." not in key or not isinstance(fact.value, str):
            continue
        own = key_family(key)
        if own is not None and not own.multi_valued:
            continue  # a single-valued family's key is the attribute's name: it stays
        parent = key.rsplit(".", 1)[0]
        if parent != "user":
            continue
        wanted = fact.value.strip().casefold()
        hits = []
        for k in known:
            if k.rsplit(".", 1)[0] != parent or k not in values:
                continue
            fam = key_family(k)
            if fam is not None and fam.multi_valued:
                continue
            if isinstance(values[k], str) and values[k].strip().casefold() == wanted:
                hits.append(k)
        if len(hits) == 1:
            mapped[i] = hits[0]


def _specialised(
    facts: list[Fact], mapped: list[str], known: set[str], values: Mapping[str, Any]
) -> None:
    """Step 6: a general attribute lands on the known specific one it names, when values agree.

    "User's team is Feyenoord" after "football team: Galatasaray": the family ``team`` is
    unknown in the namespace, the known family ``football_team`` is a kind of ``team`` (its
    name ends with it), both values are names and the value can be one of the specific
    attribute (its type and vocabulary: "Mei" is no password manager), so the claim is about
    the football team. A work team's value ("growth") is a word, not a name, and stays apart.

    Example:
        >>> mapped = ["user.team"]
        >>> known = {"user.football_team"}
        >>> _specialised([Fact(key="user.team", value="Feyenoord")], mapped, known,
        ...              {"user.football_team": "Galatasaray"})
        >>> mapped
        ['user.football_team']
    """
    from langchain_tepa.extraction.families import FAMILIES, key_family
    from langchain_tepa.extraction.resolution import value_kind
    from langchain_tepa.extraction.values import value_fits, vocab_value

    for i, (fact, key) in enumerate(zip(facts, mapped, strict=True)):
        if key in known or not key.startswith("user.") or key.count(".") != 1:
            continue
        family = FAMILIES.get(key.rsplit(".", 1)[-1])
        if family is None or family.multi_valued:
            continue
        hits = []
        for k in known:
            if not k.startswith("user.") or k.count(".") != 1 or k not in values:
                continue
            other = key_family(k)
            if other is None or other is family or other.multi_valued:
                continue
            specific = other.name.endswith("_" + family.name)  # football_team: a team
            typed = value_fits(other.name, str(fact.value)) and (
                not other.vocab or vocab_value(str(fact.value), other.name, other.vocab)
            )
            if specific and typed and value_kind(values[k]) == value_kind(fact.value):
                hits.append(k)  # and the value can be one ("Mei" is no password manager)
        if len(hits) == 1:
            mapped[i] = hits[0]


class _NoFact:
    """An extractor that finds nothing: reports a text that gave no fact with ``no_fact``."""

    def extract(self, text: str) -> list[Fact]:
        return []

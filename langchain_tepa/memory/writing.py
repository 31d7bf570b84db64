"""Writing to a :class:`~langchain_tepa.memory.TEPAMemory`: observations, outcomes, decisions.

Every write is one append of immutable evidence, decided on all the evidence of its keys (the
namespace is caught up first).

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> TEPAMemory.in_memory().observe("user.diet", "vegan").precedent.state.value
    'active'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.types import (
    Evidence,
    EvidenceKind,
    Fact,
    KeyState,
    Lifecycle,
    precedent_id,
)
from langchain_tepa.core.values import (
    safe_repr,
    validate_key,
    validate_value,
    value_identity,
    value_key,
)
from langchain_tepa.memory.batch import Decision, RevokeKey
from langchain_tepa.memory.core import Namespace
from langchain_tepa.memory.decisions import DecisionMixin
from langchain_tepa.memory.engine import Deferred
from langchain_tepa.memory.items import validate_items
from langchain_tepa.results import ObservationResult, TextsResult
from langchain_tepa.validation import as_fact as _as_fact
from langchain_tepa.validation import iterate_items as _iterate
from langchain_tepa.validation import validate_source as _validate_source
from langchain_tepa.validation import validate_text as _validate_text

__all__ = ["WritingMixin"]


def _with_correction(
    metadata: Mapping[str, Any] | None, correction: object
) -> Mapping[str, Any] | None:
    """``metadata`` with ``correction: True`` added when ``correction`` is set."""
    if not isinstance(correction, bool):
        raise InvalidArgumentError(f"correction must be True or False, got {safe_repr(correction)}")
    if not correction:
        return metadata
    if metadata is not None and not isinstance(metadata, Mapping):
        return metadata  # validation refuses it with the usual message
    return {**(metadata or {}), "correction": True}


def _own_key(fact: Fact, policy: LifecyclePolicy) -> Fact:
    """``fact`` under :func:`value_key` when its extractor marked it multi-valued.

    Unless the policy declares its key multi-valued already.
    """
    if (fact.metadata or {}).get("multi_valued") and not policy.is_multi_valued(fact.key):
        return dataclasses.replace(fact, key=value_key(fact.key, fact.value))
    return fact


class WritingMixin(DecisionMixin):
    """The writing calls of :class:`~langchain_tepa.memory.TEPAMemory`.

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> len(TEPAMemory.in_memory().observe_many([("a", 1), ("b", 2)]))
        2
    """

    def observe(
        self,
        key: str,
        value: Any,
        *,
        text: str | None = None,
        namespace: Namespace | None = None,
        metadata: Mapping[str, Any] | None = None,
        source: str | None = None,
        correction: bool = False,
    ) -> ObservationResult:
        """Assert that ``key`` has ``value``.

        Same key and value adds support; same key and another value adds conflict to the other
        values (single-valued keys). A new value starts as a Hypothesis. How much the assertion
        counts depends on its source (``policy.trust``: one source repeating itself counts with
        diminishing weight, a ``web`` page little).

        Args:
            key: The key (``"user.pizza_topping"``).
            value: A JSON-serialisable value, not ``None`` (copied: later changes to the
                caller's object change nothing stored).
            text: Free text the value came from; it is embedded for retrieval.
            namespace: Scope (default: the memory's namespace).
            metadata: Scalar metadata kept with the evidence.
            source: Who asserted it (``"user"``, ``"tool.search"``, ``"web"``; ``None``: the
                application itself).
            correction: The statement corrects the key ("it is mushroom now"). From a source
                the policy trusts to correct (``user``, the application, ...), the value becomes
                Active at once and the key's other values are revoked, the audit naming the
                correction; from any other source, or under a baseline policy, it counts as a
                plain assertion. Stored as ``metadata["correction"] = True`` (which a ``Fact``
                from the offline extractor carries for "now", "instead", "no longer",
                "anymore" statements).

        Returns:
            The evidence written, the precedent and the transitions it caused.

        Raises:
            InvalidArgumentError: On bad input; nothing is stored then.

        Example:
            >>> from langchain_tepa import TEPAMemory
            >>> memory = TEPAMemory.in_memory()
            >>> _ = memory.observe("user.pizza_topping", "pineapple", source="user")
            >>> result = memory.observe("user.pizza_topping", "mushroom", source="user",
            ...                         correction=True)
            >>> [t.reason for t in result.transitions][-1]
            "revoked: corrected by user to 'mushroom' (correction)"
        """
        ev = self._make(
            EvidenceKind.OBSERVATION,
            namespace,
            key,
            value,
            text=text,
            metadata=_with_correction(metadata, correction),
            source=source,
        )
        return self._commit([ev])[0]

    def record_outcome(
        self,
        key: str,
        value: Any,
        success: bool,
        *,
        namespace: Namespace | None = None,
        metadata: Mapping[str, Any] | None = None,
        source: str | None = None,
        text: str | None = None,
    ) -> ObservationResult:
        """Report that acting on ``value`` for ``key`` worked (``success=True``) or failed.

        A success adds support (and, for single-valued keys, conflict to the other values);
        a failure adds conflict. Both go into the value's recent-outcome window.

        Raises:
            InvalidArgumentError: If ``success`` is not a bool, or on bad key/value.
        """
        if not isinstance(success, bool):
            raise InvalidArgumentError(f"success must be True or False, got {safe_repr(success)}")
        ev = self._make(
            EvidenceKind.OUTCOME,
            namespace,
            key,
            value,
            outcome=success,
            text=text,
            metadata=metadata,
            source=source,
        )
        return self._commit([ev])[0]

    def observe_many(
        self,
        facts: Iterable[Fact | tuple[str, Any]],
        *,
        items: Sequence[Mapping[str, Sequence[Sequence[float]]] | None] | None = None,
    ) -> list[ObservationResult]:
        """Observe many facts in one append (bulk ingestion; namespaces may differ).

        Args:
            facts: :class:`~langchain_tepa.core.types.Fact` objects or ``(key, value)`` pairs.
            items: For adapters that store their own vectors or payloads with what they observe
                (``TEPAStore``'s index and TTL): ``items[i]`` maps a space name to the vectors
                stored with fact ``i``, in the same append (``None``: nothing for that fact).
                See :class:`~langchain_tepa.memory.VectorSpace`.

        Raises:
            InvalidArgumentError: If any fact is invalid, or ``items`` has another length than
                ``facts``; then none is stored.
        """
        if items is None or isinstance(facts, str | bytes | Mapping):
            return self._observe_facts(facts)  # (the latter raises the usual error)
        listed = list(_iterate(facts, "facts"))
        given = [None if entry is None else validate_items(entry) for entry in items]
        if len(given) != len(listed):
            raise InvalidArgumentError(
                f"items must give one entry per fact ({len(listed)}), got {len(given)}"
            )
        per_fact = iter(given)
        return self._observe_facts(listed, lambda ev: next(per_fact))

    def _observe_facts(
        self,
        facts: Iterable[Fact | tuple[str, Any]],
        items: Callable[[Evidence], Mapping[str, Sequence[Sequence[float]]] | None] | None = None,
    ) -> list[ObservationResult]:
        """Validate every fact, then observe them in one append.

        ``items`` gives, for a record, the item vectors to store with it (``space -> vectors``):
        the vector-space API of adapters (:class:`VectorSpace`).
        """
        if isinstance(facts, str | bytes | Mapping):
            raise InvalidArgumentError(
                f"facts must be a list of Fact or (key, value) pairs, got {type(facts).__name__}"
            )
        records = [self._observation(_as_fact(item)) for item in _iterate(facts, "facts")]
        if not records:
            return []
        stored: dict[str, dict[str, dict[str, Sequence[Sequence[float]]]]] = {}
        if items is not None:
            for ev in records:
                for space, vectors in (items(ev) or {}).items():
                    owner = precedent_id(
                        ev.namespace,
                        ev.key,
                        value_identity(ev.value, normalize=self.policy.normalize_values),
                    )
                    stored.setdefault(ev.namespace, {}).setdefault(space, {})[owner] = vectors
        self._check_open()
        folded = self._engine.commit(records, stored or None)
        return [self._result(f) for f in folded]

    def write_many(
        self,
        writes: Iterable[Fact | RevokeKey | Decision | tuple[str, Any]],
        *,
        items: Sequence[Mapping[str, Sequence[Sequence[float]]] | None] | None = None,
    ) -> list[ObservationResult]:
        """Observe facts and revoke keys in one append, folded in the order given.

        A :class:`~langchain_tepa.memory.batch.RevokeKey` revokes the values its key holds at
        its place in the batch, values observed earlier in the batch included: the result is
        what the writes made one at a time would give, stored as one append. A
        :class:`~langchain_tepa.memory.batch.Decision` promotes or revokes one value there, and
        writes nothing when the key holds no such value or it is in that state already.

        Args:
            writes: Facts (or ``(key, value)`` pairs), ``RevokeKey`` and ``Decision`` entries.
            items: As for :meth:`observe_many`: ``items[i]`` for ``writes[i]`` (``None`` for a
                revocation).

        Returns:
            One result per record written (a revocation gives one per value it revoked).

        Raises:
            InvalidArgumentError: If any write is invalid, or ``items`` has another length than
                ``writes``; then nothing is stored.

        Example:
            >>> from langchain_tepa import Fact, TEPAMemory
            >>> from langchain_tepa.memory.batch import Decision, RevokeKey
            >>> memory = TEPAMemory.in_memory()
            >>> _ = memory.observe("a", 1)
            >>> _ = memory.write_many([RevokeKey("a"), Fact("a", 2), Fact("b", 3)])
            >>> memory.get("a"), memory.get("b")
            (2, 3)
        """
        if isinstance(writes, str | bytes | Mapping):
            raise InvalidArgumentError(
                f"writes must be a list of Fact, RevokeKey or (key, value) pairs, got "
                f"{type(writes).__name__}"
            )
        listed = list(_iterate(writes, "writes"))
        given = None if items is None else [None if e is None else validate_items(e) for e in items]
        if given is not None and len(given) != len(listed):
            raise InvalidArgumentError(
                f"items must give one entry per write ({len(listed)}), got {len(given)}"
            )
        entries: list[Evidence | Deferred] = []
        stored: dict[str, dict[str, dict[str, Sequence[Sequence[float]]]]] = {}
        for i, item in enumerate(listed):
            if isinstance(item, RevokeKey):
                _validate_text(item.reason, "reason")
                entries.append(self._revocation(item))
                continue
            if isinstance(item, Decision):
                _validate_text(item.reason, "reason")
                entries.append(self._decided(item))
                continue
            ev = self._observation(_as_fact(item))
            entries.append(ev)
            for space, vectors in ((given[i] if given else None) or {}).items():
                owner = precedent_id(
                    ev.namespace,
                    ev.key,
                    value_identity(ev.value, normalize=self.policy.normalize_values),
                )
                stored.setdefault(ev.namespace, {}).setdefault(space, {})[owner] = vectors
        if not entries:
            return []
        self._check_open()
        folded = self._engine.commit(entries, stored or None)
        return [self._result(f) for f in folded]

    def _observation(self, fact: Fact) -> Evidence:
        return self._make(
            EvidenceKind.OBSERVATION,
            fact.namespace,
            fact.key,
            fact.value,
            text=fact.text,
            metadata=fact.metadata,
            source=fact.source,
        )

    def _revocation(self, item: RevokeKey) -> Deferred:
        ns = self._ns(item.namespace)
        src = _validate_source(item.source)

        def make(state: KeyState) -> list[Evidence]:
            return [
                self._make(
                    EvidenceKind.REVOKE, ns, item.key, p.value, reason=item.reason, source=src
                )
                for p in state.precedents.values()
                if p.state is not Lifecycle.REVOKED
            ]

        return Deferred(ns, item.key, make)

    def _decided(self, item: Decision) -> Deferred:
        ns = self._ns(item.namespace)
        src = _validate_source(item.source)
        vid = value_identity(validate_value(item.value), normalize=self.policy.normalize_values)
        wanted = Lifecycle.ACTIVE if item.promote else Lifecycle.REVOKED
        kind = EvidenceKind.PROMOTE if item.promote else EvidenceKind.REVOKE

        def make(state: KeyState) -> list[Evidence]:
            p = state.precedents.get(vid)
            if p is None or p.state is wanted:
                return []
            return [self._make(kind, ns, item.key, p.value, reason=item.reason, source=src)]

        return Deferred(ns, item.key, make)

    def add_facts(self, facts: Iterable[Fact | tuple[str, Any]]) -> list[ObservationResult]:
        """Observe already-keyed facts (alias of :meth:`observe_many`)."""
        return self.observe_many(facts)

    def add_texts(
        self,
        texts: Iterable[str] | str,
        *,
        namespace: Namespace | None = None,
        source: str | None = None,
    ) -> TextsResult:
        """Extract keyed facts from free text and observe them (bulk).

        Uses the memory's extractor (the offline pattern extractor by default). New keys close
        to a stored key of the same subject are stored under that key (key resolution).

        Args:
            texts: A list of texts (a single string is taken as one text).
            namespace: Scope (default: the memory's namespace).
            source: Who said it.

        Returns:
            A list of observation results (one per extracted fact) whose ``skipped``
            attribute lists the texts (or sentences) nothing could be extracted from; those
            are also logged as warnings.
        """
        ns = self._ns(namespace)
        items = [texts] if isinstance(texts, str) else list(_iterate(texts, "texts"))
        for text in items:
            if not isinstance(text, str):
                raise InvalidArgumentError(
                    f"texts must be strings, got {type(text).__name__}; pass a list of strings"
                )
            _validate_text(text)
        src = _validate_source(source)
        known, values = self._known(ns)
        facts, skipped = self._ingest.extract(items, ns, src, known)
        facts = [_own_key(f, self.policy) for f in self._ingest.resolve(ns, facts, known, values)]
        results = self.observe_many(facts) if facts else []
        self._ingest.registered(ns, [f.key for f in facts])
        return TextsResult(results, skipped)

    def extract_claims(
        self,
        texts: Sequence[str],
        *,
        namespace: Namespace | None = None,
        source: str | None = None,
    ) -> list[list[Fact]]:
        """The keyed claims each text makes, resolved onto the namespace's keys (nothing written).

        What :meth:`add_texts` would observe, per text: the memory's extractor reads each text,
        then new keys close to a stored key of ``namespace`` (or to a key of an earlier text
        of this call) are mapped onto it. Adapters that store free-text items use it to link an
        item to its claims (:mod:`langchain_tepa.memory.claims`).

        Args:
            texts: The texts.
            namespace: The namespace whose keys claims resolve onto.
            source: Who said it (kept on each fact).

        Returns:
            One list of facts per text (empty when a text makes no claim).

        Example:
            >>> from langchain_tepa import TEPAMemory
            >>> memory = TEPAMemory.in_memory()
            >>> [[f.key for f in facts] for facts in memory.extract_claims(["I'm vegan.", "Hi."])]
            [['user.diet'], []]
        """
        ns = self._ns(namespace)
        listed = list(_iterate(texts, "texts"))
        for text in listed:
            if not isinstance(text, str):
                raise InvalidArgumentError(f"texts must be strings, got {type(text).__name__}")
            _validate_text(text)
        src = _validate_source(source)
        known, values = self._known(ns)
        per_text = [self._ingest.extract([text], ns, src, known, warn=False)[0] for text in listed]
        flat = [f for facts in per_text for f in facts]
        if not flat:
            return [[] for _ in listed]
        resolved = iter(self._ingest.resolve(ns, flat, known, values))
        return [[next(resolved) for _ in facts] for facts in per_text]

    def _known(self, ns: str) -> tuple[list[str], dict[str, Any]]:
        """The keys of ``ns`` and each key's answer (key resolution reads both)."""
        with self._engine.reading([ns]) as states:
            keys = states[ns].keys
            values = {}
            for key, ks in keys.items():
                active = ks.active()
                if active:
                    values[key] = active[0].value
            return list(keys), values

    def resolve_keys(self, keys: Sequence[str], *, namespace: Namespace | None = None) -> list[str]:
        """The key each of ``keys`` would be stored under by key resolution (nothing written).

        A key already known in ``namespace`` stays itself; a new key close to a known key of the
        same subject (the policy's ``key_match_threshold``) maps onto it. The agent tools use it
        so that a model's ad-hoc key (``user.favourite_colour`` after ``user.favorite_color``)
        meets the value it contradicts.

        Example:
            >>> from langchain_tepa import TEPAMemory
            >>> memory = TEPAMemory.in_memory()
            >>> _ = memory.observe("user.favorite_color", "green")
            >>> memory.resolve_keys(["user.favorite_colors", "user.diet"])
            ['user.favorite_color', 'user.diet']
        """
        ns = self._ns(namespace)
        listed = [validate_key(k) for k in _iterate(keys, "keys")]
        if not listed:
            return []
        with self._engine.reading([ns]) as states:
            known = list(states[ns].keys)
        facts = [Fact(k, "", ns) for k in listed]
        return [f.key for f in self._ingest.resolve(ns, facts, known)]

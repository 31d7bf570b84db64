"""`TEPAMemory`: the facade (lifecycle core + state layer + storage + embeddings).

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> _ = memory.observe("user.pizza_topping", "pineapple")
    >>> _ = memory.observe("user.pizza_topping", "mushroom")
    >>> _ = memory.observe("user.pizza_topping", "mushroom")
    >>> memory.get("user.pizza_topping")
    'mushroom'
    >>> [p.state.value for p in memory.audit("user.pizza_topping").precedents]
    ['revoked', 'active']
"""

from __future__ import annotations

import asyncio
import functools
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings

from langchain_tepa.core.errors import (
    InvalidArgumentError,
    StorageError,
    UnknownPrecedentError,
)
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.types import (
    Evidence,
    EvidenceKind,
    Fact,
    KeyState,
    Lifecycle,
    Precedent,
    precedent_id,
)
from langchain_tepa.core.values import (
    DEFAULT_NAMESPACE,
    validate_key,
    validate_namespace,
    validate_value,
    value_identity,
)
from langchain_tepa.embeddings import default_embeddings
from langchain_tepa.memory.async_api import AsyncMemoryMixin
from langchain_tepa.memory.documents import (
    copy_value,
    detached,
    detached_evidence,
    precedent_document,
)
from langchain_tepa.memory.engine import Engine, Folded
from langchain_tepa.memory.ingest import TextIngest
from langchain_tepa.memory.maintenance import reconcile_storage
from langchain_tepa.memory.spaces import VectorSpace
from langchain_tepa.results import KeyAudit, ObservationResult, ReconcileReport, TextsResult
from langchain_tepa.state import DEFAULT_CACHE_SIZE, AsOf
from langchain_tepa.storage.base import StorageBackend
from langchain_tepa.storage.memory import InMemoryStorage
from langchain_tepa.validation import MAX_K, MAX_TEXT_CHARS
from langchain_tepa.validation import as_fact as _as_fact
from langchain_tepa.validation import iterate_items as _iterate
from langchain_tepa.validation import validate_k as _validate_k
from langchain_tepa.validation import validate_metadata as _validate_metadata
from langchain_tepa.validation import validate_reason as _validate_reason
from langchain_tepa.validation import validate_source as _validate_source
from langchain_tepa.validation import validate_text as _validate_text

if TYPE_CHECKING:
    from langchain_tepa.extraction.base import FactExtractor

__all__ = ["MAX_K", "MAX_TEXT_CHARS", "AsOfPoint", "Namespace", "TEPAMemory"]

Namespace = str | Sequence[str]
"""A namespace: ``"users.u1"`` or ``("users", "u1")``."""

AsOfPoint = datetime | float | int | str
"""A point in time for ``as_of=``: a datetime (naive ones are UTC), seconds on the memory's
clock, or the id of an evidence record (just after it)."""


class TEPAMemory(AsyncMemoryMixin):
    """Revocable evidence memory: observe, record outcomes, retrieve only what is still valid.

    Every call writes an immutable evidence record; precedents (one per key and value) are a
    fold of that evidence under a :class:`~langchain_tepa.core.policy.LifecyclePolicy`.
    Retrieval sees Active precedents only; Revoked ones stay in the archive for ``audit``.

    Opening reads no evidence: each namespace (a tenant) is loaded on its first use and kept in
    a bounded cache. Several memories (threads, processes, machines) may share one store; what
    each sees is set by ``max_staleness_s`` (README, "Several workers").

    Args:
        storage: A storage backend. Defaults to an in-process store; use :meth:`from_path`
            (embedded persistent Chroma) or :meth:`from_client` (any chromadb client).
        embeddings: Any LangChain ``Embeddings``; defaults to :func:`default_embeddings`.
        policy: A policy or a preset name (``"tepa-rev"`` by default).
        namespace: Default namespace of calls that do not name one.
        writer: Name of this writer in evidence ids (default: a random id per instance).
        clock: Time source (seconds); benchmarks pass their own.
        flush_every: Count-only view updates buffered before they are written (evidence and
            state changes are always written at once).
        flush_interval_s: Seconds a buffered view update may wait before it is written.
        cache_size: Namespaces kept in process (least recently used leave first).
        max_staleness_s: 0 (default): every read first checks storage for other writers'
            appends to its namespace (one small read). ``s > 0``: a read may reuse the last
            check for ``s`` seconds, so it may miss other processes' writes of that time.
        extractor: Fact extractor for :meth:`add_texts` (default: the offline extractor).
        read_only: Open without writing anything: no collections, no view repairs, and every
            write raises :class:`~langchain_tepa.core.errors.ReadOnlyError`.

    Example:
        >>> memory = TEPAMemory.in_memory()
        >>> memory.observe("user.diet", "vegan").precedent.state.value
        'active'
        >>> memory.retrieve("what does the user eat?", k=1)[0].metadata["value"]
        'vegan'
    """

    def __init__(
        self,
        storage: StorageBackend | None = None,
        *,
        embeddings: Embeddings | None = None,
        policy: LifecyclePolicy | str | None = None,
        namespace: Namespace = DEFAULT_NAMESPACE,
        writer: str | None = None,
        clock: Callable[[], float] | None = None,
        flush_every: int = 256,
        flush_interval_s: float = 2.0,
        cache_size: int = DEFAULT_CACHE_SIZE,
        max_staleness_s: float = 0.0,
        extractor: FactExtractor | None = None,
        read_only: bool = False,
    ) -> None:
        if isinstance(policy, str):
            policy = LifecyclePolicy.preset(policy)
        elif policy is None:
            policy = LifecyclePolicy()
        elif not isinstance(policy, LifecyclePolicy):
            raise InvalidArgumentError(
                f"policy must be a LifecyclePolicy or a preset name, got {type(policy).__name__}"
            )
        if storage is None:
            storage = InMemoryStorage(read_only=bool(read_only))
        elif not isinstance(storage, StorageBackend):
            raise InvalidArgumentError(
                f"storage must be a StorageBackend (for example InMemoryStorage()), got "
                f"{type(storage).__name__}; for Chroma use TEPAMemory.from_client or from_path"
            )
        if writer is not None:
            _validate_text(writer, "writer")
            if not writer or len(writer) > 128:
                raise InvalidArgumentError("writer must be 1 to 128 characters")
        self.policy: LifecyclePolicy = policy
        self.storage: StorageBackend = storage
        self.embeddings: Embeddings = embeddings if embeddings is not None else default_embeddings()
        self.namespace: str = validate_namespace(namespace)
        self.writer: str = writer or f"w{os.getpid():x}{os.urandom(3).hex()}"
        self.read_only: bool = bool(read_only) or bool(getattr(storage, "read_only", False))
        self._engine = Engine(
            storage,
            policy=policy,
            embeddings=self.embeddings,
            writer=self.writer,
            clock=clock or time.time,
            cache_size=cache_size,
            max_staleness_s=max_staleness_s,
            flush_every=flush_every,
            flush_interval_s=flush_interval_s,
            read_only=self.read_only,
        )
        self._ingest = TextIngest(self.embeddings, policy, extractor)
        self._closed = False
        self._on_close: Callable[[], None] | None = None

    # ------------------------------------------------------------------ constructors
    @classmethod
    def in_memory(cls, **kwargs: Any) -> TEPAMemory:
        """A memory in this process only (tests, notebooks, simulations)."""
        return cls(InMemoryStorage(read_only=bool(kwargs.get("read_only", False))), **kwargs)

    @classmethod
    def from_client(
        cls, client: Any, *, prefix: str = "tepa", shards: int | None = None, **kwargs: Any
    ) -> TEPAMemory:
        """A memory on any chromadb client (ephemeral, persistent, ``HttpClient`` or async).

        Args:
            client: The chromadb client. An async client (``await chromadb.AsyncHttpClient(...)``)
                is served through :class:`~langchain_tepa.storage.chroma.AsyncChromaStorage`;
                from async code prefer :meth:`afrom_client`, which does not block the loop.
            prefix: Collection name prefix (several memories can share one Chroma).
            shards: Evidence and vector shards of a new store (default 16; an existing store
                keeps its own). A namespace costs records, not collections.
            **kwargs: Passed to :class:`TEPAMemory` (``read_only`` also to the storage).
        """
        from langchain_tepa.storage.chroma import open_chroma_storage

        storage = open_chroma_storage(
            client, prefix=prefix, shards=shards, read_only=bool(kwargs.get("read_only", False))
        )
        return cls(storage, **kwargs)

    @classmethod
    async def afrom_client(cls, client: Any, *, prefix: str = "tepa", **kwargs: Any) -> TEPAMemory:
        """Async twin of :meth:`from_client` (opening runs in a worker thread).

        Example:
            >>> client = await chromadb.AsyncHttpClient(port=8000)  # doctest: +SKIP
            >>> memory = await TEPAMemory.afrom_client(client, prefix="app")  # doctest: +SKIP
        """
        return await asyncio.to_thread(
            functools.partial(cls.from_client, client, prefix=prefix, **kwargs)
        )

    @classmethod
    def from_path(cls, path: str | os.PathLike[str], **kwargs: Any) -> TEPAMemory:
        """A memory in an embedded persistent Chroma at ``path`` (created when missing).

        The folder is locked for this process (Chroma's embedded mode serves one process; for
        several, serve the folder with ``chroma run`` and use :meth:`from_client`).

        Args:
            path: Folder of the Chroma database (``~`` is expanded).
            **kwargs: ``prefix``, ``shards`` and the arguments of :class:`TEPAMemory`.

        Raises:
            StorageError: If the path is not a folder that can be used (a file, a missing folder
                with ``read_only=True``, a folder without permission, a folder another process
                holds); the message says what to do.
        """
        from langchain_tepa.storage.chroma import open_persistent_client

        read_only = bool(kwargs.get("read_only", False))
        prefix = kwargs.pop("prefix", "tepa")
        shards = kwargs.pop("shards", None)
        client, lock = open_persistent_client(path, read_only=read_only)
        try:
            memory = cls.from_client(client, prefix=prefix, shards=shards, **kwargs)
        except BaseException:
            lock.release()
            raise
        memory._on_close = lock.release
        return memory

    @classmethod
    async def afrom_path(cls, path: str | os.PathLike[str], **kwargs: Any) -> TEPAMemory:
        """Async twin of :meth:`from_path`."""
        return await asyncio.to_thread(functools.partial(cls.from_path, path, **kwargs))

    # ------------------------------------------------------------------ helpers
    def _ns(self, namespace: Namespace | None) -> str:
        return self.namespace if namespace is None else validate_namespace(namespace)

    def _check_open(self) -> None:
        if self._closed:
            raise StorageError("this TEPAMemory is closed; open a new one")

    def _point(self, namespace: str, as_of: object) -> AsOf:
        """``as_of`` as a point of ``namespace``'s evidence."""
        if isinstance(as_of, datetime):
            stamp = as_of if as_of.tzinfo else as_of.replace(tzinfo=timezone.utc)
            return AsOf(stamp.timestamp())
        if isinstance(as_of, bool):
            raise InvalidArgumentError("as_of must be a datetime, seconds or an evidence id")
        if isinstance(as_of, int | float):
            if as_of != as_of or as_of in (float("inf"), float("-inf")):
                raise InvalidArgumentError(f"as_of must be finite, got {as_of!r}")
            return AsOf(float(as_of))
        if isinstance(as_of, str):
            ev = self._engine.find_evidence(namespace, as_of)
            if ev is None:
                raise UnknownPrecedentError(
                    f"no evidence {as_of!r} in namespace {namespace!r}; pass an id from "
                    "history(key) or a datetime"
                )
            return AsOf(ev.time, ev.id)
        raise InvalidArgumentError(
            f"as_of must be a datetime, seconds or an evidence id, got {type(as_of).__name__}"
        )

    def _key_state(self, ns: str, key: str, as_of: object) -> KeyState | None:
        """``key``'s state now (caught up) or at ``as_of``; a live object, do not hand out."""
        self._check_open()
        if as_of is not None:
            return self._engine.as_of(ns, self._point(ns, as_of), [key]).get(key)
        with self._engine.reading([ns]) as states:
            return states[ns].keys.get(key)

    def _make(
        self,
        kind: EvidenceKind,
        namespace: Namespace | None,
        key: object,
        value: object,
        *,
        outcome: bool | None = None,
        text: object = None,
        metadata: object = None,
        source: object = None,
        reason: str | None = None,
    ) -> Evidence:
        ns = self._ns(namespace)
        k = validate_key(key)
        v = copy_value(validate_value(value))
        t = _validate_text(text)
        meta = _validate_metadata(metadata)
        src = _validate_source(source)
        eid, now = self._engine.next_id()
        return Evidence(
            id=eid,
            namespace=ns,
            key=k,
            value=v,
            kind=kind,
            outcome=outcome,
            time=now,
            writer=self.writer,
            source=src,
            reason=reason,
            text=t,
            metadata=meta,
        )

    def _commit(self, records: Sequence[Evidence]) -> list[ObservationResult]:
        self._check_open()
        folded = self._engine.commit(records)
        return [self._result(f) for f in folded]

    def _result(self, f: Folded) -> ObservationResult:
        prec = None
        if f.evidence.kind is not EvidenceKind.BOUNDARY:
            vid = value_identity(f.evidence.value, normalize=self.policy.normalize_values)
            found = f.state.precedents.get(vid)
            prec = detached(found, self.policy) if found else None
        return ObservationResult(detached_evidence(f.evidence), prec, list(f.transitions))

    # ------------------------------------------------------------------ writing
    def observe(
        self,
        key: str,
        value: Any,
        *,
        text: str | None = None,
        namespace: Namespace | None = None,
        metadata: Mapping[str, Any] | None = None,
        source: str | None = None,
    ) -> ObservationResult:
        """Assert that ``key`` has ``value``.

        Same key and value adds support; same key and another value adds conflict to the other
        values (single-valued keys). A new value starts as a Hypothesis.

        Args:
            key: The key (``"user.pizza_topping"``).
            value: A JSON-serialisable value, not ``None`` (copied: later changes to the
                caller's object change nothing stored).
            text: Free text the value came from; it is embedded for retrieval.
            namespace: Scope (default: the memory's namespace).
            metadata: Scalar metadata kept with the evidence.
            source: Who asserted it (user, tool, extractor).

        Returns:
            The evidence written, the precedent and the transitions it caused.

        Raises:
            InvalidArgumentError: On bad input; nothing is stored then.
        """
        ev = self._make(
            EvidenceKind.OBSERVATION,
            namespace,
            key,
            value,
            text=text,
            metadata=metadata,
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
            raise InvalidArgumentError(f"success must be True or False, got {success!r}")
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

    def observe_many(self, facts: Iterable[Fact | tuple[str, Any]]) -> list[ObservationResult]:
        """Observe many facts in one append (bulk ingestion; namespaces may differ).

        Args:
            facts: :class:`~langchain_tepa.core.types.Fact` objects or ``(key, value)`` pairs.

        Raises:
            InvalidArgumentError: If any fact is invalid; then none is stored.
        """
        return self._observe_facts(facts)

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
        records = []
        for item in _iterate(facts, "facts"):
            fact = _as_fact(item)
            records.append(
                self._make(
                    EvidenceKind.OBSERVATION,
                    fact.namespace,
                    fact.key,
                    fact.value,
                    text=fact.text,
                    metadata=fact.metadata,
                    source=fact.source,
                )
            )
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
        facts, skipped = self._ingest.extract(items, ns, src)
        with self._engine.reading([ns]) as states:
            known = list(states[ns].keys)
        facts = self._ingest.resolve(ns, facts, known)
        results = self.observe_many(facts) if facts else []
        self._ingest.registered(ns, [f.key for f in facts])
        return TextsResult(results, skipped)

    def _decision(
        self,
        kind: EvidenceKind,
        key: str,
        value: Any,
        reason: str,
        namespace: Namespace | None,
        source: str | None,
        metadata: Mapping[str, Any] | None = None,
        outcome: bool | None = None,
    ) -> ObservationResult:
        ns = self._ns(namespace)
        k = validate_key(key)
        validate_value(value)
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidArgumentError("reason must be a non-empty string")
        _validate_text(reason, "reason")
        state = self._key_state(ns, k, None)
        vid = value_identity(value, normalize=self.policy.normalize_values)
        if state is None or vid not in state.precedents:
            raise UnknownPrecedentError(
                f"no precedent {value!r} under key {k!r} in namespace {ns!r}; "
                "check audit(key) for the values that exist"
            )
        ev = self._make(
            kind, ns, k, value, reason=reason, source=source, metadata=metadata, outcome=outcome
        )
        return self._commit([ev])[0]

    def revoke(
        self,
        key: str,
        value: Any,
        *,
        reason: str = "revoked by hand",
        namespace: Namespace | None = None,
        source: str | None = None,
    ) -> ObservationResult:
        """Revoke a precedent by hand; it stays in the archive and can come back with support.

        Raises:
            UnknownPrecedentError: If the key has no such value.
        """
        # "rejected: ..." is the trial judge's wording (langchain_tepa.graph); keep it as is.
        keep = _validate_reason(reason).startswith(("revoked", "rejected"))
        text = reason if keep else f"revoked by hand: {reason}"
        return self._decision(EvidenceKind.REVOKE, key, value, text, namespace, source)

    def revoke_key(
        self,
        key: str,
        *,
        reason: str = "revoked by hand",
        namespace: Namespace | None = None,
        source: str | None = None,
    ) -> list[ObservationResult]:
        """Revoke every live value of ``key`` in one append (a delete that keeps the records).

        Returns:
            One result per value revoked (none when the key has no live value).
        """
        ns = self._ns(namespace)
        k = validate_key(key)
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidArgumentError("reason must be a non-empty string")
        _validate_text(reason, "reason")
        state = self._key_state(ns, k, None)
        live = (
            [p.value for p in state.precedents.values() if p.state is not Lifecycle.REVOKED]
            if state
            else []
        )
        records = [
            self._make(EvidenceKind.REVOKE, ns, k, value, reason=reason, source=source)
            for value in live
        ]
        return self._commit(records) if records else []

    def promote(
        self,
        key: str,
        value: Any,
        *,
        reason: str = "promoted by hand",
        namespace: Namespace | None = None,
        source: str | None = None,
    ) -> ObservationResult:
        """Promote a precedent to Active by hand (or as the trial judge's decision).

        Raises:
            UnknownPrecedentError: If the key has no such value.
        """
        prefixed = _validate_reason(reason).startswith("promoted")
        text = reason if prefixed else f"promoted by hand: {reason}"
        return self._decision(EvidenceKind.PROMOTE, key, value, text, namespace, source)

    def record_trial(
        self,
        key: str,
        value: Any,
        positive: bool,
        *,
        trial_kind: str,
        namespace: Namespace | None = None,
        detail: str = "",
    ) -> ObservationResult:
        """Record a trial-by-execution result (audit evidence; it moves no counts).

        Raises:
            UnknownPrecedentError: If the key has no such value.
        """
        if not isinstance(positive, bool):
            raise InvalidArgumentError(f"positive must be True or False, got {positive!r}")
        if not _validate_reason(trial_kind, "trial_kind"):
            raise InvalidArgumentError("trial_kind must not be empty, e.g. 'counterfactual'")
        if not isinstance(detail, str):
            raise InvalidArgumentError(f"detail must be a string, got {type(detail).__name__}")
        reason = f"trial {trial_kind}: {'positive' if positive else 'negative'}"
        if detail:
            reason += f" ({detail[:200]})"
        return self._decision(
            EvidenceKind.TRIAL,
            key,
            value,
            reason,
            namespace,
            None,
            metadata={"trial_kind": trial_kind},
            outcome=positive,
        )

    def mark_boundary(
        self, *, namespace: Namespace | None = None, key: str | None = None
    ) -> list[ObservationResult]:
        """Record a phase boundary on every key of ``namespace`` (or on ``key`` only).

        Only the oracle-reset baseline acts on it (it is told when the world changed); for every
        other policy it is an audit note.
        """
        ns = self._ns(namespace)
        only = validate_key(key) if key is not None else None
        self._check_open()
        with self._engine.reading([ns]) as states:
            keys = sorted(states[ns].keys)
        records = []
        for k in keys:
            if only is not None and k != only:
                continue
            eid, now = self._engine.next_id()
            records.append(
                Evidence(
                    id=eid,
                    namespace=ns,
                    key=k,
                    value=None,
                    kind=EvidenceKind.BOUNDARY,
                    time=now,
                    writer=self.writer,
                    reason="phase boundary",
                )
            )
        return self._commit(records) if records else []

    # ------------------------------------------------------------------ reading
    def retrieve(
        self,
        query: str,
        k: int = 4,
        *,
        namespace: Namespace | None = None,
        key_prefix: str | None = None,
        as_of: AsOfPoint | None = None,
    ) -> list[Document]:
        """The ``k`` Active precedents most similar to ``query``, as Documents.

        Args:
            query: Natural-language query.
            k: How many (1 to 1000).
            namespace: Scope (default: the memory's namespace).
            key_prefix: Only keys equal to it or below it (``"user"`` matches ``"user.diet"``).
            as_of: Retrieve what was Active at that point (a datetime, seconds, or an evidence
                id) instead of now.

        Returns:
            Documents whose metadata holds key, value, state, support, conflict, validity,
            lower_95, namespace, precedent_id, evidence_ids, created_at, updated_at and score.
        """
        if not isinstance(query, str):
            raise InvalidArgumentError(f"query must be a string, got {type(query).__name__}")
        _validate_text(query, "query")
        k = _validate_k(k)
        ns = self._ns(namespace)
        prefix = validate_key(key_prefix) if key_prefix is not None else None
        self._check_open()
        if not self.policy.retrieval_enabled:
            return []
        point = self._point(ns, as_of) if as_of is not None else None
        vector = self.embeddings.embed_query(query)
        with self._engine.reading([ns]) as states:
            st = states[ns]
            if point is None:
                live = st.active()
            else:
                past = self._engine.as_of(ns, point)
                live = [p for ks in past.values() for p in ks.active()]
            if prefix is not None:
                live = [p for p in live if p.key == prefix or p.key.startswith(prefix + ".")]
            ranked = self._engine.rank(st, live, vector, k, key_prefix=prefix)
            return [precedent_document(p, self.policy, score) for p, score in ranked]

    def active_documents(
        self,
        *,
        namespace: Namespace | None = None,
        key_prefix: str | None = None,
        as_of: AsOfPoint | None = None,
    ) -> list[Document]:
        """Every Active precedent of a namespace as Documents (no ranking), by key."""
        ns = self._ns(namespace)
        prefix = validate_key(key_prefix) if key_prefix is not None else None
        if not self.policy.retrieval_enabled:
            return []
        states = self._states(ns, as_of)
        out: list[Document] = []
        for key in sorted(states):
            if prefix and not (key == prefix or key.startswith(prefix + ".")):
                continue
            out.extend(precedent_document(p, self.policy) for p in states[key].active())
        return out

    def _states(self, ns: str, as_of: object) -> dict[str, KeyState]:
        """Every key's state of ``ns`` now or at ``as_of`` (copies, safe to keep)."""
        self._check_open()
        if as_of is not None:
            return self._engine.as_of(ns, self._point(ns, as_of))
        with self._engine.reading([ns]) as states:
            return {k: ks.snapshot() for k, ks in states[ns].keys.items()}

    def get(
        self, key: str, *, namespace: Namespace | None = None, as_of: AsOfPoint | None = None
    ) -> Any:
        """The Active value of ``key``, or ``None`` (a copy: changing it changes nothing stored).

        For a single-valued key, the best Active value (highest validity, then most recent
        support); for a multi-valued key, the list of Active values.

        Args:
            key: The key.
            namespace: Scope (default: the memory's namespace).
            as_of: What the memory believed at that point (a datetime, seconds, or an
                evidence id) instead of now.
        """
        ns = self._ns(namespace)
        k = validate_key(key)
        multi = self.policy.is_multi_valued(k)
        if not self.policy.retrieval_enabled:
            return [] if multi else None
        state = self._key_state(ns, k, as_of)
        active = state.active() if state else []
        if multi:
            return [copy_value(p.value) for p in active]
        return copy_value(active[0].value) if active else None

    def audit(
        self, key: str, *, namespace: Namespace | None = None, as_of: AsOfPoint | None = None
    ) -> KeyAudit:
        """Every precedent of ``key`` with its state, posterior and transition reasons.

        Args:
            key: The key.
            namespace: Scope (default: the memory's namespace).
            as_of: The audit as it stood at that point (datetime, seconds, or evidence id).
        """
        ns = self._ns(namespace)
        k = validate_key(key)
        state = self._key_state(ns, k, as_of)
        if state is None:
            return KeyAudit(ns, k, [], 0)
        return KeyAudit(
            ns, k, [detached(p, self.policy) for p in state.precedents.values()], state.seq
        )

    def history(self, key: str, *, namespace: Namespace | None = None) -> list[Evidence]:
        """The evidence of ``key``, oldest first, read from storage (the source of truth)."""
        ns = self._ns(namespace)
        k = validate_key(key)
        self._check_open()
        return self._engine.all_pages(ns, key=k)

    def keys(
        self, *, namespace: Namespace | None = None, as_of: AsOfPoint | None = None
    ) -> list[str]:
        """Keys of a namespace that have evidence (up to ``as_of`` when given)."""
        ns = self._ns(namespace)
        self._check_open()
        if as_of is not None:
            return sorted(self._engine.as_of(ns, self._point(ns, as_of)))
        with self._engine.reading([ns]) as states:
            return sorted(states[ns].keys)

    def namespaces(
        self, prefix: Namespace | None = None, *, active_only: bool = False
    ) -> list[str]:
        """Namespaces that have evidence, sorted.

        Args:
            prefix: Only this namespace and those below it on label boundaries (``"users"``
                matches ``"users.u1"``, not ``"users2"``).
            active_only: Only namespaces with at least one Active precedent (read from each
                namespace's head; a namespace whose summary is not current is folded).
        """
        self._check_open()
        pfx = None if prefix is None else validate_namespace(prefix)
        names = self.storage.find_namespaces(pfx)
        if not active_only or not names:
            return names
        if not self.policy.retrieval_enabled:
            return []
        heads = self.storage.read_heads(names)
        return [ns for ns in names if ns in heads and self._engine.active_count(heads[ns]) > 0]

    def answer(
        self, key: str, *, namespace: Namespace | None = None, as_of: AsOfPoint | None = None
    ) -> Precedent | None:
        """The precedent :meth:`get` answers with for a single-valued key (a copy), or ``None``.

        The best Active precedent: highest validity, then most recent support.
        """
        ns = self._ns(namespace)
        k = validate_key(key)
        if not self.policy.retrieval_enabled:
            return None
        state = self._key_state(ns, k, as_of)
        active = state.active() if state else []
        return detached(active[0], self.policy) if active else None

    def answers(
        self,
        *,
        namespace: Namespace | None = None,
        key_prefix: str | None = None,
        as_of: AsOfPoint | None = None,
    ) -> list[Precedent]:
        """For every key of a namespace with an Active value, the precedent that answers (copies).

        Keys in sorted order; ``key_prefix`` keeps keys equal to it or below it.
        """
        ns = self._ns(namespace)
        prefix = validate_key(key_prefix) if key_prefix is not None else None
        if not self.policy.retrieval_enabled:
            return []
        self._check_open()
        out: list[Precedent] = []
        if as_of is not None:
            states = self._engine.as_of(ns, self._point(ns, as_of))
        with self._engine.reading([ns]) as live:
            if as_of is None:
                states = live[ns].keys
            for key in sorted(states):
                if prefix and not (key == prefix or key.startswith(prefix + ".")):
                    continue
                active = states[key].active()
                if active:
                    out.append(detached(active[0], self.policy))
        return out

    def similarity(
        self,
        query: str | Sequence[float],
        ids: Sequence[str],
        *,
        namespace: Namespace | None = None,
    ) -> dict[str, float]:
        """Cosine similarity of ``query`` with the stored vectors of precedents of a namespace.

        ``query`` is a text (embedded with the memory's embeddings) or a vector; ids without a
        stored vector are absent from the result.
        """
        ns = self._ns(namespace)
        self._check_open()
        if isinstance(query, str):
            _validate_text(query, "query")
            vector: Sequence[float] = self.embeddings.embed_query(query)
        else:
            vector = [float(x) for x in query]
        with self._engine.reading([ns]) as states:
            st = states[ns]
            wanted = [p for pid in ids if (p := st.precedent(pid)) is not None]
            return {p.id: s for p, s in self._engine.rank(st, wanted, vector, len(wanted))}

    def precedents(self, *, namespace: Namespace | None = None) -> list[Precedent]:
        """Copies of every precedent of one namespace (default: the memory's), by key.

        :meth:`iter_precedents` walks every namespace.
        """
        ns = self._ns(namespace)
        states = self._states(ns, None)
        return [
            detached(p, self.policy) for k in sorted(states) for p in states[k].precedents.values()
        ]

    def iter_precedents(self) -> Iterator[Precedent]:
        """Copies of every precedent of every namespace, one namespace at a time."""
        for ns in self.namespaces():
            yield from self.precedents(namespace=ns)

    def evidence_count(self, *, namespace: Namespace | None = None) -> int:
        """Evidence records in storage (of one namespace, or of all when ``namespace`` is None).

        Counted from the namespaces' heads: no evidence is read.
        """
        self._check_open()
        if namespace is not None:
            ns = self._ns(namespace)
            head = self.storage.read_heads([ns]).get(ns)
            return head.evidence_count if head else 0
        return sum(head.evidence_count for head in self._engine.heads())

    def vector_space(self, name: str) -> VectorSpace:
        """A named space of item vectors stored beside this memory's precedents.

        For adapters that embed item fields with a model of their own (``TEPAStore`` with an
        ``IndexConfig``): vectors are stored once and loaded per namespace on first use.
        """
        return VectorSpace(self, name)

    # ------------------------------------------------------------------ maintenance
    def reconcile(self) -> ReconcileReport:
        """Refold every namespace from its evidence and repair stored views and vectors.

        Reads the whole store, one namespace at a time; reads never need it (they fold the
        evidence), it keeps the stored views exact for tools that query Chroma directly.
        """
        self._check_open()
        self._engine.check_writable()
        self._engine.flush()
        self._engine.cache.clear()
        return reconcile_storage(self._engine)

    def refresh(self) -> None:
        """Forget every cached namespace (each is reloaded from storage on its next use)."""
        self._check_open()
        self._engine.cache.clear()

    def flush(self) -> None:
        """Write buffered view updates."""
        self._check_open()
        self._engine.flush()

    def close(self) -> None:
        """Flush and release the storage (and the folder lock of :meth:`from_path`)."""
        if self._closed:
            return
        try:
            self._engine.close()
            self.storage.close()
        finally:
            self._closed = True
            if self._on_close is not None:
                self._on_close()

    def __enter__(self) -> TEPAMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"TEPAMemory(policy={self.policy.name!r}, namespace={self.namespace!r}, "
            f"storage={self.storage.describe()!r}, cached_namespaces={len(self._engine.cache)})"
        )

    # ------------------------------------------------------------------ integrations
    def as_retriever(self, **kwargs: Any) -> Any:
        """A :class:`~langchain_tepa.retriever.TEPARetriever` over this memory."""
        from langchain_tepa.retriever import TEPARetriever

        return TEPARetriever(memory=self, **kwargs)

    def as_store(self, **kwargs: Any) -> Any:
        """A :class:`~langchain_tepa.store.TEPAStore` (LangGraph ``BaseStore``) over this memory."""
        from langchain_tepa.store import TEPAStore

        return TEPAStore(memory=self, **kwargs)

    def as_langchain_memory(self, **kwargs: Any) -> Any:
        """A classic LangChain ``BaseMemory`` adapter (needs the ``classic`` extra)."""
        from langchain_tepa.classic import TEPAConversationMemory

        return TEPAConversationMemory(memory=self, **kwargs)

"""`TEPAStore`: LangGraph's long-term memory interface (``BaseStore``) over a TEPAMemory.

A LangGraph namespace tuple maps to a memory namespace by joining its labels with ``"."``
(``("users", "u1")`` -> ``"users.u1"``), an item key is a memory key and an item value (a JSON
dict) is a memory value. ``put`` is an *observation*, ``delete`` a revocation, ``get`` and
``search`` see Active values only. See :class:`TEPAStore` for every deliberate difference from
LangGraph's ``InMemoryStore``.

Example:
    >>> store = TEPAStore.in_memory()
    >>> store.put(("users", "u1"), "pizza", {"topping": "pineapple"})
    >>> store.put(("users", "u1"), "pizza", {"topping": "mushroom"})
    >>> store.get(("users", "u1"), "pizza").value
    {'topping': 'mushroom'}
    >>> store.delete(("users", "u1"), "pizza")
    >>> store.get(("users", "u1"), "pizza") is None
    True
    >>> [p.state.value for p in store.audit(("users", "u1"), "pizza").precedents]
    ['revoked', 'revoked']
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import json
import logging
import os
import threading
from collections.abc import Generator, Iterable, Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any, Literal, cast

import numpy as np
from langchain_core.embeddings import Embeddings
from langgraph.store.base import (
    NOT_PROVIDED,
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    NamespacePath,
    NotProvided,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    _validate_namespace,  # what BaseStore.put checks first
    ensure_embeddings,
)

from langchain_tepa.core.errors import InvalidArgumentError, TEPAError
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.types import Fact, Precedent
from langchain_tepa.core.values import short_hash
from langchain_tepa.memory import AnswerRow, AsOfPoint, RevokeKey, TEPAMemory, VectorSpace
from langchain_tepa.memory.claims import (
    ItemClaims,
    ItemText,
    is_claims_namespace,
    joined_text,
    text_of_value,
)
from langchain_tepa.results import KeyAudit
from langchain_tepa.store.batching import AsyncCoalescer
from langchain_tepa.store.corrections import put_op
from langchain_tepa.store.listing import list_active_namespaces
from langchain_tepa.store.planning import (
    Plan,
    PutPlan,
    SearchPlan,
    StoreNamespaceError,
    as_ops,
    check_count,
    check_namespace_arg,
    copy_json,
    namespace_errors,
    plan_put,
    read_key,
    read_namespace,
    validate_op,
    write_key,
    write_namespace,
)
from langchain_tepa.store.search import Scope, best, newest, trusted_scopes
from langchain_tepa.store.ttl import (
    STAMP_SIZE,
    TTL_SPACE,
    TTLKeeper,
    validate_sweep_interval,
    validate_ttl_config,
)

__all__ = [
    "StoreNamespaceError",
    "SweepCount",
    "SweeperHandle",
    "SweeperStopped",
    "TEPAStore",
    "store_policy",
]

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_DISTANCES = ("cosine", "inner_product", "l2")
Distance = Literal["cosine", "inner_product", "l2"]


def store_policy(preset: str | None = None, **overrides: Any) -> LifecyclePolicy:
    """The policy the store's own constructors use: a preset with exact value identity.

    The memory default compares string values case-insensitively (``"Vegan"`` is ``"vegan"``),
    which suits facts but not a key-value store whose ``get`` must return what was put; this
    policy turns that off (``normalize_values=False``) and keeps every other field of the
    preset: by default the library's, ``LifecyclePolicy()`` (the key test, ``tepa-key``).

    Args:
        preset: A preset name (``"tepa-rev"`` keeps the paper's rules); ``None`` for the
            library default.
        **overrides: Other :class:`~langchain_tepa.core.policy.LifecyclePolicy` fields.

    Returns:
        The policy, named ``"tepa-store"``.

    Raises:
        PolicyError: If ``preset`` is not a preset name or an override is not a field.

    Example:
        >>> store_policy().normalize_values, store_policy().revoke_keyed
        (False, True)
        >>> store_policy("tepa-rev").revoke_recent
        True
    """
    base = {"name": "tepa-store", "normalize_values": False}
    policy = LifecyclePolicy() if preset is None else LifecyclePolicy.preset(preset)
    return policy.with_overrides(**{**base, **overrides})


def _check_paths(prefix: object, suffix: object) -> None:
    if prefix is not None:
        check_namespace_arg(prefix, "prefix")
    if suffix is not None:
        check_namespace_arg(suffix, "suffix")


def _when(seconds: float) -> datetime:
    try:
        return _EPOCH + timedelta(seconds=seconds)
    except (OverflowError, ValueError):
        return _EPOCH if seconds < 0 else datetime.max.replace(tzinfo=timezone.utc)


def _value_view(p: Precedent) -> dict[str, Any]:
    """The item value of a precedent (non-dict memory values appear as ``{"value": v}``)."""
    return p.value if isinstance(p.value, dict) else {"value": p.value}


def _row_value(row: AnswerRow) -> dict[str, Any]:
    """The item value of an answer row (a copy; non-dict values appear as ``{"value": v}``)."""
    value = row.value
    return value if isinstance(value, dict) else {"value": value}


class TEPAStore(AsyncCoalescer, BaseStore):
    """LangGraph ``BaseStore`` over a :class:`~langchain_tepa.memory.TEPAMemory`.

    Use it wherever LangGraph takes a store (``StateGraph.compile(store=...)``,
    ``create_agent(..., store=...)``, LangMem tools); nodes get it injected as
    ``store: BaseStore``. Namespaces ``("users", "u1")`` are memory namespaces ``"users.u1"``,
    item keys are memory keys, item values (JSON dicts) are memory values. Several worker
    processes may share one store (through a ``chroma run`` server): every read reflects every
    write acknowledged before it began (see the memory's ``max_staleness_s``).

    Semantics, and every deliberate difference from LangGraph's ``InMemoryStore`` (each is
    marked and asserted in ``tests/unit_tests/store_conformance.py``):

    1. **put is evidence, not an overwrite** (unless it is a correction, below). ``get``/
       ``search`` show the best-supported Active value of a key (greatest net support, ties to
       the latest trusted write). The store writes with one source, whose repeated puts of a
       value count with diminishing weight (``policy.trust``), so a new value put once always
       becomes what ``get`` returns over the store's own earlier puts, however many (a value
       put 1000 times is worth two puts): a profile edit works as with ``InMemoryStore``. A
       value that other evidence supports too (successful outcomes recorded with
       ``store.memory.record_outcome``, other sources through the memory) is displaced only by
       evidence proportionate to that support, or by a correction. Older values stay in the
       archive (:meth:`audit`). Reason: what the application verified should not be erased by
       one contradicting write, and nothing is lost.
    1b. **Corrections.** ``put(..., correction=True)`` (or a store built with
       ``corrections=True``) writes the put as a correction: the new value is Active at once
       and the key's other values are revoked, whatever supports them, the audit naming the
       correction. Default ``corrections=False``: LangGraph's and LangMem's writers (an LLM
       extracting memories from a conversation) write through plain ``put`` and should not be
       able to erase verified facts; a profile form or settings page, where the user edits their
       own data, should pass ``correction=True``. See :mod:`langchain_tepa.store.corrections`.
    2. **delete revokes** every live value of the key with reason ``"deleted"`` and keeps the
       records (``audit``); putting the value again revives it. Reason: auditability.
    3. **list_namespaces** lists namespaces with at least one Active item, so a namespace whose
       items were all deleted disappears (as in ``PostgresStore``); ``InMemoryStore`` keeps
       listing it, and also lists namespaces that were only read with ``get``.
    4. **Search order without a query**: most recently updated first (as ``PostgresStore``);
       ``InMemoryStore`` returns insertion order. LangGraph leaves this order unspecified.
    5. **A query without an IndexConfig is still semantic**: the memory's embeddings rank
       items (text ``"key: value-json"``); ``InMemoryStore`` ignores the query then (score None).
    6. **Values are JSON** (a dict with string keys, finite numbers, at most 64 KiB), stored as a
       deep JSON copy: tuples come back as lists, and mutating the dict given to ``put`` or
       the returned ``Item.value`` changes nothing stored. ``InMemoryStore`` accepts any
       mapping and hands out its own dicts. Reason: values live in Chroma as JSON.
    7. **Keys** must be valid memory keys (non-blank, no surrounding whitespace, at most 256
       characters, no control characters): ``put`` raises
       :class:`~langchain_tepa.core.errors.InvalidKeyError`; ``get`` of such a key is ``None``.
    8. **Namespace labels** must also be valid memory namespace segments (no surrounding
       whitespace, no control characters, joined length at most 256):
       :class:`StoreNamespaceError`. Ops passed straight to ``batch``/``abatch`` are validated
       too (``InMemoryStore`` validates only in ``put``/``get``/``search``), as LangGraph asks of
       stores that join labels with ``"."``.
    9. **Ordering filters** (``$gt $gte $lt $lte``) on a missing or non-numeric field are no
       match; ``InMemoryStore`` raises ``TypeError``/``ValueError`` mid-search. Unsupported
       operators and non-numeric operands raise
       :class:`~langchain_tepa.core.errors.InvalidArgumentError` (a ``ValueError``) up front.
    10. **limit, offset** must be integers >= 0 and **max_depth** >= 1
        (``InvalidArgumentError``); ``InMemoryStore`` slices with negative numbers.
    11. **In one batch every put counts**, in order; ``InMemoryStore`` keeps only the last put
        per key. Reads of a batch see the state before its writes in both stores. A batch is
        validated whole (values, filters, queries, and every text it will embed) before
        anything is written: an invalid op leaves nothing of the batch stored. Concurrent
        ``aput``/``aget``/... calls of one event loop are run together as one batch, as in
        LangGraph's own async stores.
    12. **Timestamps**: ``created_at`` is when the shown value was first put under the key
        (kept across re-puts, like ``PostgresStore`` keeps it across updates), ``updated_at``
        the last evidence that touched it, both from the memory's clock (UTC).
        ``InMemoryStore`` resets both on every put.
    13. **IndexConfig** (``dims``, ``embed``, ``fields``, and ``index=`` on ``put``) is honoured
        and its vectors are stored with the items (never embedded again after a restart);
        ``put(..., index=False)`` of a value that already has vectors keeps them (as
        ``PostgresStore`` does). Scoreless items (never indexed, or no text at the fields) rank
        after the scored ones and are paged by ``offset`` like them (``InMemoryStore`` appends
        them ignoring ``offset``); an ``embed`` that returns vectors of another size than
        ``dims`` raises. ``distance_type`` scores as ``PostgresStore`` does, higher is better:
        ``"cosine"`` (default) the cosine similarity, ``"inner_product"`` the dot product,
        ``"l2"`` minus the Euclidean distance (others raise
        :class:`~langchain_tepa.core.errors.InvalidArgumentError`); ``text_fields`` (SqliteStore's
        name) is an alias of ``fields``. A put with ``index=False`` that changes a value keeps the
        key's vectors, as ``PostgresStore`` keeps them until new ones are embedded.
    14. **Facts written through the memory** (``memory.observe("user.diet", "vegan")``) are
        items too; non-dict values appear as ``{"value": v}``.
    15. **The policy decides what is visible**: the memory's default policy compares string
        values case-insensitively (the first form is returned), so :meth:`in_memory`,
        :meth:`from_client` and :meth:`from_path` use :func:`store_policy` (exact values);
        under ``tepa-full`` puts are Hypotheses until promoted; under ``no-memory`` nothing is
        visible; for multi-valued keys the best Active value is shown.
    16. **Text with NUL characters** is stored as given; NULs become spaces in the texts handed
        to the embedding function, with or without an index.
    17. **Free-text items are taken back** (``claims=True``, the default). A put's text (the
        indexed fields, or the value's strings without an index; none with ``index=False``)
        is read by the memory's extractor for the keyed claims it makes ("User moved to Oslo"
        -> ``user.home_city = "Oslo"``), stored in the namespace's claims namespace
        (``<namespace>.~claims``, hidden from listings and searches, refused as a label). An
        item none of whose claims is served any more (a later item said otherwise) is
        revoked with a reason naming that item, and leaves ``get`` and ``search``; updating or
        deleting an item retracts its claims. ``InMemoryStore`` and every other store serve
        the stale item beside the new one. See :mod:`langchain_tepa.memory.claims`.

    Args:
        memory: The memory (default: a new in-process memory with :func:`store_policy`).
        index: LangGraph ``IndexConfig`` for semantic search on item fields (``embed``: an
            ``Embeddings``, a sync or async function, or a provider string; ``fields``: JSON
            paths, default ``["$"]``, or ``text_fields``; ``dims``: checked when given;
            ``distance_type``: ``"cosine"``, ``"inner_product"`` or ``"l2"``).
        source: The ``source`` recorded on the evidence of store writes.
        ttl: LangGraph's ``TTLConfig`` (``default_ttl``, ``refresh_on_read``,
            ``sweep_interval_minutes``, fractions of a minute allowed). Reads refresh an
            item's TTL by default, as ``TTLConfig`` documents (``refresh_on_read=False`` or
            ``refresh_ttl=False`` on a read turns that off).
        corrections: Write every put as a correction (``put(..., correction=False)`` still
            writes plain evidence). Default ``False``: puts are evidence (see 1 and 1b).
        claims: Link free-text items to the claims they make and take back superseded ones
            (see 17). ``False`` stores items as plain memories only.

    Example:
        >>> from langchain_tepa import HashingEmbeddings
        >>> store = TEPAStore.in_memory(index={"dims": 384, "embed": HashingEmbeddings(),
        ...                                    "fields": ["text"]})
        >>> store.put(("docs",), "a", {"text": "pizza with mushrooms", "stars": 5})
        >>> store.put(("docs",), "b", {"text": "tax return deadline", "stars": 2})
        >>> [i.key for i in store.search(("docs",), query="mushroom pizza", limit=1)]
        ['a']
        >>> [i.key for i in store.search(("docs",), filter={"stars": {"$lt": 3}})]
        ['b']
    """

    supports_ttl = True

    def __init__(
        self,
        memory: TEPAMemory | None = None,
        *,
        index: IndexConfig | None = None,
        source: str = "langgraph-store",
        ttl: TTLConfig | None = None,
        corrections: bool = False,
        claims: bool = True,
    ) -> None:
        if not isinstance(corrections, bool):
            raise InvalidArgumentError(f"corrections must be True or False, got {corrections!r}")
        if not isinstance(claims, bool):
            raise InvalidArgumentError(f"claims must be True or False, got {claims!r}")
        self.corrections = corrections
        if memory is None:
            memory = TEPAMemory.in_memory(policy=store_policy())
        if not isinstance(memory, TEPAMemory):
            raise InvalidArgumentError(
                f"memory must be a TEPAMemory, got {type(memory).__name__}; "
                "for example TEPAMemory.in_memory()"
            )
        if not isinstance(source, str) or not source or len(source) > 256:
            raise InvalidArgumentError("source must be a non-empty string of at most 256 chars")
        self.memory = memory
        self.source = source
        self.claims: ItemClaims | None = ItemClaims(memory) if claims else None
        """Links free-text items to their claims (``None`` with ``claims=False``)."""
        self.index_config: IndexConfig | None = None
        self.embeddings: Embeddings | None = None
        """The index's embeddings (``None`` without an ``IndexConfig``), as in LangGraph."""
        self._fields: list[str] | None = None
        self._dims: int | None = None
        self._distance: Distance = "cosine"
        self._space: VectorSpace | None = None
        if index is not None:
            self._configure(index)
        self.ttl_config: TTLConfig | None = validate_ttl_config(ttl)
        stamps = memory.vector_space(TTL_SPACE)
        self._ttl = TTLKeeper(stamps.payloads, stamps.store)
        self._sweeper: threading.Thread | None = None
        self._sweeper_stop = threading.Event()
        AsyncCoalescer.__init__(self)

    def _configure(self, index: IndexConfig) -> None:
        if not isinstance(index, Mapping) or index.get("embed") is None:
            raise InvalidArgumentError(
                "index must be an IndexConfig dict with 'embed' (and optionally 'dims' and "
                "'fields'), e.g. {'dims': 384, 'embed': HashingEmbeddings()}"
            )
        unknown = set(index) - {
            "embed",
            "fields",
            "text_fields",
            "dims",
            "distance_type",
            "ann_index_config",
        }
        if unknown:
            raise InvalidArgumentError(f"unknown IndexConfig keys {sorted(unknown)}")
        distance = index.get("distance_type", "cosine")
        if distance not in _DISTANCES:
            raise InvalidArgumentError(
                f"distance_type {distance!r} is not supported: use one of {list(_DISTANCES)} "
                "(as PostgresStore: 'cosine' scores the cosine similarity, 'inner_product' the "
                "dot product, 'l2' the negated Euclidean distance; higher is better)"
            )
        given: Mapping[str, Any] = index
        fields = given.get("fields")
        alias = given.get("text_fields")  # SqliteStore's name for "fields"
        if fields is not None and alias is not None and fields != alias:
            raise InvalidArgumentError(
                "index has both 'fields' and 'text_fields' (SqliteStore's name for 'fields'), "
                "with different paths: give one of them"
            )
        fields = fields or alias or ["$"]
        if not isinstance(fields, list | tuple) or not all(
            isinstance(f, str) and f for f in fields
        ):
            raise InvalidArgumentError("index['fields'] must be a list of JSON paths")
        dims = index.get("dims")
        if dims is not None:
            dims = check_count(dims, "index['dims']", minimum=1)
        config: IndexConfig = {"embed": index["embed"], "fields": list(fields)}
        if dims is not None:
            config["dims"] = dims
        config["distance_type"] = distance  # type: ignore[typeddict-unknown-key]
        if "text_fields" in index:  # SqliteStore's key, kept as given (as SqliteStore keeps it)
            config["text_fields"] = alias  # type: ignore[typeddict-unknown-key]
        if "ann_index_config" in index:
            config["ann_index_config"] = given["ann_index_config"]  # type: ignore[typeddict-unknown-key]
        self.index_config = config
        self._distance = cast(Distance, distance)
        self.embeddings = ensure_embeddings(index["embed"])
        self._fields = list(fields)
        self._dims = dims
        # Vectors of one configuration live in one named space of the memory.
        ident = json.dumps({"fields": list(fields), "dims": dims}, sort_keys=True)
        self._space = self.memory.vector_space("ix" + short_hash(ident, 12))

    # ------------------------------------------------------------------ constructors
    @classmethod
    def in_memory(
        cls,
        *,
        index: IndexConfig | None = None,
        source: str = "langgraph-store",
        ttl: TTLConfig | None = None,
        corrections: bool = False,
        claims: bool = True,
        **memory_kwargs: Any,
    ) -> TEPAStore:
        """A store on a new in-process memory (policy :func:`store_policy` unless given)."""
        memory_kwargs.setdefault("policy", store_policy())
        memory = TEPAMemory.in_memory(**memory_kwargs)
        return cls(
            memory, index=index, source=source, ttl=ttl, corrections=corrections, claims=claims
        )

    @classmethod
    def from_client(
        cls,
        client: Any,
        *,
        prefix: str = "tepa_store",
        index: IndexConfig | None = None,
        source: str = "langgraph-store",
        ttl: TTLConfig | None = None,
        corrections: bool = False,
        claims: bool = True,
        **memory_kwargs: Any,
    ) -> TEPAStore:
        """A store on any chromadb client (policy :func:`store_policy` unless given)."""
        memory_kwargs.setdefault("policy", store_policy())
        memory = TEPAMemory.from_client(client, prefix=prefix, **memory_kwargs)
        return cls(
            memory, index=index, source=source, ttl=ttl, corrections=corrections, claims=claims
        )

    @classmethod
    def from_path(
        cls,
        path: str | os.PathLike[str],
        *,
        index: IndexConfig | None = None,
        source: str = "langgraph-store",
        ttl: TTLConfig | None = None,
        corrections: bool = False,
        claims: bool = True,
        **memory_kwargs: Any,
    ) -> TEPAStore:
        """A store in an embedded persistent Chroma at ``path`` (policy :func:`store_policy`)."""
        memory_kwargs.setdefault("policy", store_policy())
        memory_kwargs.setdefault("prefix", "tepa_store")
        memory = TEPAMemory.from_path(path, **memory_kwargs)
        return cls(
            memory, index=index, source=source, ttl=ttl, corrections=corrections, claims=claims
        )

    # ------------------------------------------------------------------ batch
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run operations; results in input order, reads see the state before the writes.

        Raises:
            StoreNamespaceError: For a namespace the store cannot hold.
            InvalidArgumentError: For any other invalid op; then nothing of the batch is stored.
        """
        plan = self._prepare(as_ops(ops))
        texts, queries = plan.texts(), plan.queries()
        emb = self.embeddings if self.embeddings is not None else self.memory.embeddings
        text_vecs = emb.embed_documents(texts) if texts else []
        query_vecs = [emb.embed_query(q) for q in queries]
        return self._finish(plan, self._vectors(texts, text_vecs, queries, query_vecs))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Async twin of :meth:`batch` (embeddings awaited, storage work in a worker thread).

        Calls of one event loop that arrive while a batch runs are run together as the next
        batch (each caller's ops validated on their own, results split back).
        """
        return await self._coalesced(as_ops(ops), self._abatch_now)

    async def _abatch_now(self, ops: list[Op]) -> list[Result]:
        plan = await asyncio.to_thread(self._prepare, ops)
        texts, queries = plan.texts(), plan.queries()
        emb = self.embeddings if self.embeddings is not None else self.memory.embeddings
        text_vecs = await emb.aembed_documents(texts) if texts else []
        query_vecs = list(await asyncio.gather(*(emb.aembed_query(q) for q in queries)))
        vectors = self._vectors(texts, text_vecs, queries, query_vecs)
        return await asyncio.to_thread(self._finish, plan, vectors)

    # ------------------------------------------------------------------ corrections
    def put(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        index: Literal[False] | list[str] | None = None,
        *,
        ttl: float | NotProvided | None = NOT_PROVIDED,
        correction: bool | None = None,
    ) -> None:
        """LangGraph's ``put``; ``correction=True`` writes it as a correction.

        ``correction=None`` follows the store's ``corrections`` setting; ``False`` writes plain
        evidence even on a store that writes corrections.

        Raises:
            StoreNamespaceError: For a namespace the store cannot hold.
            InvalidArgumentError: For an invalid key, value, index, ttl or ``correction``.

        Example:
            >>> store = TEPAStore.in_memory()
            >>> store.put(("u",), "diet", {"v": "vegan"})
            >>> for _ in range(2):  # acting on it worked twice
            ...     _ = store.memory.record_outcome("diet", {"v": "vegan"}, True, namespace="u")
            >>> store.put(("u",), "diet", {"v": "keto"})  # evidence: the verified value holds
            >>> store.get(("u",), "diet").value
            {'v': 'vegan'}
            >>> store.put(("u",), "diet", {"v": "keto"}, correction=True)  # a profile edit
            >>> store.get(("u",), "diet").value
            {'v': 'keto'}
        """
        self.batch([self._put_op(namespace, key, value, index, ttl, correction)])

    async def aput(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        index: Literal[False] | list[str] | None = None,
        *,
        ttl: float | NotProvided | None = NOT_PROVIDED,
        correction: bool | None = None,
    ) -> None:
        """Async twin of :meth:`put`."""
        await self.abatch([self._put_op(namespace, key, value, index, ttl, correction)])

    def _put_op(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        index: Literal[False] | list[str] | None,
        ttl: float | NotProvided | None,
        correction: bool | None,
    ) -> PutOp:
        """The op of ``put``/``aput``, after LangGraph's own checks (:meth:`_check_put`)."""
        self._check_put(namespace, ttl)
        return put_op(
            namespace, key, value, index, ttl=ttl, ttl_config=self.ttl_config, correction=correction
        )

    def _check_put(self, namespace: tuple[str, ...], ttl: object) -> None:
        """What LangGraph's ``put`` checks before its batch (the ``"langgraph"`` root too).

        Raises:
            StoreNamespaceError: For a namespace the store cannot hold (never LangGraph's
                error or a bare ``TypeError``).
        """
        check_namespace_arg(namespace)
        with namespace_errors():
            _validate_namespace(namespace)
        if ttl not in (NOT_PROVIDED, None) and not self.supports_ttl:  # pragma: no cover
            raise NotImplementedError(f"TTL is not supported by {type(self).__name__}")

    # ------------------------------------------------------------------ points in time
    def get(
        self,
        namespace: tuple[str, ...],
        key: str,
        *,
        refresh_ttl: bool | None = None,
        as_of: AsOfPoint | None = None,
    ) -> Item | None:
        """Get an item; with ``as_of``, the item as the store held it then.

        ``as_of`` is a datetime (naive ones are UTC), seconds on the memory's clock, or an
        evidence id; such a read neither refreshes nor expires anything.

        Example:
            >>> store = TEPAStore.in_memory()
            >>> store.put(("u",), "k", {"v": 1})
            >>> then = store.memory.history("k", namespace="u")[-1].time
            >>> store.put(("u",), "k", {"v": 2})
            >>> store.get(("u",), "k", as_of=then).value, store.get(("u",), "k").value
            ({'v': 1}, {'v': 2})
        """
        check_namespace_arg(namespace)
        if as_of is None:
            with namespace_errors():
                return super().get(namespace, key, refresh_ttl=refresh_ttl)
        validate_op(GetOp(tuple(namespace), key))
        ns, k = read_namespace(tuple(namespace)), read_key(key)
        if ns is None or k is None:
            return None
        best = self.memory.answer(k, namespace=ns, as_of=as_of)
        return None if best is None else self._item(tuple(namespace), best)

    async def aget(
        self,
        namespace: tuple[str, ...],
        key: str,
        *,
        refresh_ttl: bool | None = None,
        as_of: AsOfPoint | None = None,
    ) -> Item | None:
        """Async twin of :meth:`get`."""
        check_namespace_arg(namespace)
        if as_of is None:
            with namespace_errors():
                return await super().aget(namespace, key, refresh_ttl=refresh_ttl)
        return await asyncio.to_thread(self.get, namespace, key, as_of=as_of)

    def search(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
        as_of: AsOfPoint | None = None,
    ) -> list[SearchItem]:
        """Search items; with ``as_of``, among the items as the store held them then."""
        check_namespace_arg(namespace_prefix, "namespace_prefix")
        if as_of is None:
            with namespace_errors():
                return super().search(
                    namespace_prefix,
                    query=query,
                    filter=filter,
                    limit=limit,
                    offset=offset,
                    refresh_ttl=refresh_ttl,
                )
        op = SearchOp(tuple(namespace_prefix), filter, limit, offset, query, refresh_ttl=False)
        validate_op(op)
        plan = Plan([None])
        search = self._plan_search(plan, op, as_of)
        vectors: dict[str, list[float]] = {}
        if search.query:
            emb = self.embeddings if self.embeddings is not None else self.memory.embeddings
            vectors = self._vectors([], [], [search.query], [emb.embed_query(search.query)])
        return self._rank(search, vectors, plan)

    async def asearch(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
        as_of: AsOfPoint | None = None,
    ) -> list[SearchItem]:
        """Async twin of :meth:`search`."""
        check_namespace_arg(namespace_prefix, "namespace_prefix")
        if as_of is None:
            with namespace_errors():
                return await super().asearch(
                    namespace_prefix,
                    query=query,
                    filter=filter,
                    limit=limit,
                    offset=offset,
                    refresh_ttl=refresh_ttl,
                )
        return await asyncio.to_thread(
            functools.partial(
                self.search,
                namespace_prefix,
                query=query,
                filter=filter,
                limit=limit,
                offset=offset,
                as_of=as_of,
            )
        )

    # ------------------------------------------------------------------ typed errors
    # BaseStore's convenience methods check namespaces themselves and raise LangGraph's
    # InvalidNamespaceError (or a bare TypeError for a non-tuple); these overrides check first
    # and raise StoreNamespaceError, the TEPAError batch() raises for the same namespace
    # (put/aput do the same in :meth:`_check_put`).
    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        """Revoke every Active value of ``key`` (kept for audit); see :class:`TEPAStore`."""
        check_namespace_arg(namespace)
        with namespace_errors():
            super().delete(namespace, key)

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        """Async twin of :meth:`delete`."""
        check_namespace_arg(namespace)
        with namespace_errors():
            await super().adelete(namespace, key)

    def list_namespaces(
        self,
        *,
        prefix: NamespacePath | None = None,
        suffix: NamespacePath | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        """Namespaces holding at least one Active item (``"*"`` matches any label)."""
        _check_paths(prefix, suffix)
        with namespace_errors():
            return super().list_namespaces(
                prefix=prefix, suffix=suffix, max_depth=max_depth, limit=limit, offset=offset
            )

    async def alist_namespaces(
        self,
        *,
        prefix: NamespacePath | None = None,
        suffix: NamespacePath | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        """Async twin of :meth:`list_namespaces`."""
        _check_paths(prefix, suffix)
        with namespace_errors():
            return await super().alist_namespaces(
                prefix=prefix, suffix=suffix, max_depth=max_depth, limit=limit, offset=offset
            )

    # ------------------------------------------------------------------ extras
    def audit(self, namespace: tuple[str, ...], key: str) -> KeyAudit:
        """Every value ever put under ``key`` (any state), with counts and reasons.

        Example:
            >>> store = TEPAStore.in_memory()
            >>> store.put(("u",), "k", {"v": 1})
            >>> store.audit(("u",), "k").precedents[0].state.value
            'active'
        """
        ns = write_namespace(namespace)
        return self.memory.audit(write_key(key), namespace=ns)

    async def aaudit(self, namespace: tuple[str, ...], key: str) -> KeyAudit:
        """Async twin of :meth:`audit`."""
        return await asyncio.to_thread(self.audit, namespace, key)

    def __repr__(self) -> str:
        return f"TEPAStore(memory={self.memory!r}, indexed={self.index_config is not None})"

    # ------------------------------------------------------------------ phase 1: check, read
    def check(self, op: Op) -> None:
        """Validate one op completely (nothing is read or written)."""
        validate_op(op)
        if isinstance(op, PutOp):
            plan_put(op, self._fields)

    def _prepare(self, ops: list[Op]) -> Plan:
        for op in ops:
            validate_op(op)
        puts = [plan_put(op, self._fields) for op in ops if isinstance(op, PutOp)]
        plan = Plan([None] * len(ops), puts=puts)
        for i, op in enumerate(ops):
            if isinstance(op, GetOp):
                plan.results[i] = self._get_item(plan, op)
            elif isinstance(op, SearchOp):
                plan.searches[i] = self._plan_search(plan, op)
            elif isinstance(op, ListNamespacesOp):
                plan.results[i] = self._list_namespaces(op)
        return plan

    def _get_item(self, plan: Plan, op: GetOp) -> Item | None:
        namespace = tuple(op.namespace)
        ns = read_namespace(namespace)
        k = read_key(op.key)
        if ns is None or k is None:
            return None
        best = self.memory.answer(k, namespace=ns)
        if best is None:
            return None
        _, expired, stamps = self._ttl.split(ns, [best])
        if expired:
            plan.expired.add((ns, k))
            return None
        if op.refresh_ttl and stamps:
            plan.refresh.setdefault(ns, {}).update(stamps)
        return self._item(namespace, best)

    @staticmethod
    def _item(namespace: tuple[str, ...], best: Precedent) -> Item:
        return Item(
            value=copy_json(_value_view(best)),
            key=best.key,
            namespace=namespace,
            created_at=_when(best.created_at),
            updated_at=_when(best.updated_at),
        )

    def _plan_search(self, plan: Plan, op: SearchOp, as_of: AsOfPoint | None = None) -> SearchPlan:
        """The namespaces a search scans, with their answer tables (ranked in phase 3).

        Expired items of every namespace scanned are noted for revocation, as a read that
        meets them does; ``as_of`` searches see what the memory believed then (no expiry).
        """
        prefix = tuple(op.namespace_prefix)
        scopes: list[Scope] = []
        if prefix and read_namespace(prefix) is None:
            return SearchPlan(op, scopes, op.query or None)
        spaces = [self._space.name] if self._space is not None else []
        stamps = {TTL_SPACE: STAMP_SIZE} if as_of is None else None
        if prefix and as_of is None:  # the names and their heads in one scan
            tables = self.memory.answer_tables_under(
                ".".join(prefix), vector_spaces=spaces, payload_spaces=stamps
            )
            names = list(tables)
        else:
            names = self.memory.namespaces(".".join(prefix) if prefix else None)
            tables = self.memory.answer_tables(
                names, vector_spaces=spaces, payload_spaces=stamps, as_of=as_of
            )
        for ns in names:
            table = tables[ns]
            if not len(table) or is_claims_namespace(ns):
                continue
            expired = self._ttl.expired_rows(table.first_vectors(TTL_SPACE))
            if expired.any():
                plan.expired.update((ns, table.rows[i].key) for i in np.nonzero(expired)[0])
                live = np.nonzero(~expired)[0]
            else:
                live = np.arange(len(table))
            scopes.append(Scope(tuple(ns.split(".")), table, live))
        return SearchPlan(op, scopes, op.query or None)

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        return list_active_namespaces(self.memory, op)

    # ------------------------------------------------------------------ phase 2: embed
    def _vectors(
        self,
        texts: list[str],
        text_vecs: Sequence[Sequence[float]],
        queries: list[str],
        query_vecs: Sequence[Sequence[float]],
    ) -> dict[str, list[float]]:
        if len(text_vecs) != len(texts) or len(query_vecs) != len(queries):
            raise InvalidArgumentError(
                "the embedding function returned a different number of vectors than texts"
            )
        out = {t: [float(x) for x in v] for t, v in zip(texts, text_vecs, strict=True)}
        out.update(
            {
                f"\x00query:{q}": [float(x) for x in v]
                for q, v in zip(queries, query_vecs, strict=True)
            }
        )
        if self._dims is not None:
            for vec in out.values():
                if len(vec) != self._dims:
                    raise InvalidArgumentError(
                        f"index dims is {self._dims} but the embedding function returned "
                        f"{len(vec)} dimensions; fix 'dims' or the embeddings"
                    )
        return out

    # ------------------------------------------------------------------ phase 3: rank, write
    def _finish(self, plan: Plan, vectors: dict[str, list[float]]) -> list[Result]:
        results = list(plan.results)
        for i, search in plan.searches.items():
            results[i] = self._rank(search, vectors, plan)
        if not self.memory.read_only:
            for ns, key in sorted(plan.expired):
                self.memory.revoke_key(key, namespace=ns, reason="expired", source=self.source)
            for ns, stamps in plan.refresh.items():
                self._ttl.refresh(ns, stamps)
        self._apply(plan.puts, vectors)
        return results

    def _scores(self, scope: Scope, qvec: list[float]) -> np.ndarray:
        """Each row's score in ``scope`` (NaN: no vector): the index's, else the memory's."""
        if self._space is not None:
            return scope.table.scores(self._space.name, qvec, metric=self._distance)
        rows = scope.table.rows
        ids = [rows[i].id for i in scope.live.tolist()]
        got = self.memory.similarity(qvec, ids, namespace=".".join(scope.labels))
        return np.array([got.get(row.id, np.nan) for row in rows], dtype=np.float64)

    def _rank(
        self, search: SearchPlan, vectors: dict[str, list[float]], plan: Plan
    ) -> list[SearchItem]:
        op = search.op
        wanted = op.offset + op.limit
        if not search.query:
            picks = newest(search.scopes, op.filter, wanted)
        else:
            qvec = vectors[f"\x00query:{search.query}"]
            scores = [self._scores(scope, qvec) for scope in search.scopes]
            # issue 28: budgets on new keys and look-alikes below what they imitate
            scopes, order = trusted_scopes(
                self.memory, search.scopes, scores, wanted, complete=bool(op.filter)
            )
            picks = best(scopes, order, op.filter, wanted)
            shown = {id(sc): sv for sc, sv in zip(scopes, scores, strict=True)}
            picks = [
                (None if score is None else float(shown[id(sc)][i]), sc, i)
                for score, sc, i in picks
            ]
        page = picks[op.offset : wanted]
        if op.refresh_ttl:
            for _, scope, i in page:
                stamps = scope.table.first_vectors(TTL_SPACE)
                if stamps is not None and not np.isnan(stamps[i, 0]):
                    ns = ".".join(scope.labels)
                    plan.refresh.setdefault(ns, {})[scope.table.rows[i].id] = [stamps[i].tolist()]
        out = []
        for score, scope, i in page:
            row = scope.table.rows[i]
            out.append(
                SearchItem(
                    namespace=scope.labels,
                    key=row.key,
                    value=_row_value(row),
                    created_at=_when(row.created_at),
                    updated_at=_when(row.updated_at),
                    score=score,
                )
            )
        return out

    def _apply(self, puts: list[PutPlan], vectors: dict[str, list[float]]) -> None:
        """The batch's puts and deletes as one append, folded in order.

        A delete revokes what its key holds at its place in the batch (a put before it in the
        same batch included), as if the writes were made one at a time. The claims of the
        items (:mod:`langchain_tepa.memory.claims`) go into the same append, after them; the
        items they take back or restore, into one more.
        """
        if not puts:
            return
        claims = self.claims.plan([self._item_text(p) for p in puts]) if self.claims else None
        writes: list[Fact | RevokeKey] = []
        items: list[dict[str, list[list[float]]] | None] = []
        for put in puts:
            if put.value is None:
                writes.append(
                    RevokeKey(
                        put.key, namespace=put.namespace, reason="deleted", source=self.source
                    )
                )
                items.append(None)
            else:
                correction = self.corrections if put.correction is None else put.correction
                meta = dict(claims.metadata.get((put.namespace, put.key), {})) if claims else {}
                if correction:
                    meta["correction"] = True
                writes.append(
                    Fact(
                        key=put.key,
                        value=put.value,
                        namespace=put.namespace,
                        source=self.source,
                        metadata=meta or None,
                    )
                )
                items.append(self._items_of(put, vectors))
        if claims is not None:
            writes.extend(claims.facts)
            items.extend([None] * (len(writes) - len(items)))
        self.memory.write_many(writes, items=items if any(items) else None)
        if claims is not None and self.claims is not None:
            self.claims.settle(claims, source=self.source)

    def _item_text(self, put: PutPlan) -> ItemText:
        """The item a put writes, with the text its claims are read from.

        The text is what the index embeds (the indexed fields, or ``index=[...]``), or the
        value's string leaves where the store has no index; a put with ``index=False`` makes
        no claims.
        """
        if put.value is None:
            text = None
        elif put.texts is None:
            text = text_of_value(put.value)
        else:
            text = joined_text(put.texts) or None
        return ItemText(put.namespace, put.key, put.value, text, self.source)

    def _items_of(
        self, put: PutPlan, vectors: dict[str, list[float]]
    ) -> dict[str, list[list[float]]] | None:
        """What is stored with a put: its index vectors and its TTL stamp.

        ``index=False`` (or index paths with no text) embeds nothing: a value that already has
        vectors keeps them, and a new value of the key takes over the vectors of the value it
        replaces, as ``PostgresStore`` keeps a key's vectors until new ones are embedded for
        it. A TTL stamp is stored when the store or the put uses TTL.
        """
        items: dict[str, list[list[float]]] = {}
        if self._space is not None and put.texts is not None and (put.texts or not put.index_given):
            items[self._space.name] = [vectors[t] for t in put.texts]
        elif self._space is not None and put.texts == [] and put.index_given:
            kept = self._key_vectors(put)
            if kept:
                items[self._space.name] = kept
        if put.ttl is not None or self.ttl_config:
            items[TTL_SPACE] = self._ttl.stamp(put.ttl)
        return items or None

    def _key_vectors(self, put: PutPlan) -> list[list[float]] | None:
        """The index vectors of the value ``put``'s key shows now, when ``put`` changes it."""
        assert self._space is not None
        shown = self.memory.answer(put.key, namespace=put.namespace)
        if shown is None or shown.value == put.value:
            return None  # nothing to keep, or the same value (which keeps its own vectors)
        return self._space.payloads(put.namespace, [shown.id]).get(shown.id)

    # ------------------------------------------------------------------ TTL
    def sweep_ttl(self) -> SweepCount:
        """Revoke (reason ``"expired"``) every expired item of every namespace; returns how many.

        Reads the whole store, one namespace at a time: run it from :meth:`start_ttl_sweeper`
        or a scheduled job. The count can also be awaited (``await store.sweep_ttl()``, as
        with ``AsyncSqliteStore``/``AsyncPostgresStore``; the sweep itself has run by then:
        :meth:`asweep_ttl` runs it in a worker thread instead).
        """
        swept = 0
        for ns in self.memory.namespaces():
            if is_claims_namespace(ns):
                continue
            _, expired, _ = self._ttl.split(ns, self.memory.answers(namespace=ns))
            for p in expired:
                self.memory.revoke_key(p.key, namespace=ns, reason="expired", source=self.source)
                swept += 1
        return SweepCount(swept)

    async def asweep_ttl(self) -> int:
        """Async twin of :meth:`sweep_ttl` (the sweep runs in a worker thread)."""
        return int(await asyncio.to_thread(self.sweep_ttl))

    def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> SweeperHandle:
        """Run :meth:`sweep_ttl` periodically in a daemon thread.

        Every ``sweep_interval_minutes`` (default: the TTL config's, or 5; fractions of a
        minute allowed); cancel the returned future or call :meth:`stop_ttl_sweeper` to stop
        it. The future can be awaited too (``await store.start_ttl_sweeper()`` returns it at
        once, as ``AsyncPostgresStore``'s returns its task).

        Raises:
            InvalidArgumentError: If ``sweep_interval_minutes`` is not a number > 0.
        """
        future = SweeperHandle()
        if self._sweeper is not None and self._sweeper.is_alive():
            future.add_done_callback(lambda f: self._sweeper_stop.set() if f.cancelled() else None)
            return future
        configured = (self.ttl_config or {}).get("sweep_interval_minutes")
        given = sweep_interval_minutes if sweep_interval_minutes is not None else configured
        minutes = 5.0 if given is None else validate_sweep_interval(given)
        self._sweeper_stop.clear()

        def loop() -> None:
            try:
                while not self._sweeper_stop.wait(minutes * 60):
                    try:
                        self.sweep_ttl()
                    except TEPAError:
                        logging.getLogger("langchain_tepa").exception("TTL sweep failed")
            finally:
                if not future.done():
                    future.set_result(None)

        future.add_done_callback(lambda f: self._sweeper_stop.set() if f.cancelled() else None)
        self._sweeper = threading.Thread(target=loop, name="tepa-ttl-sweeper", daemon=True)
        self._sweeper.start()
        return future

    async def astart_ttl_sweeper(
        self, sweep_interval_minutes: float | None = None
    ) -> SweeperHandle:
        """Async twin of :meth:`start_ttl_sweeper` (the sweeper is a thread either way)."""
        return self.start_ttl_sweeper(sweep_interval_minutes)

    def stop_ttl_sweeper(self, timeout: float | None = None) -> SweeperStopped:
        """Stop the sweeper; true if it has stopped within ``timeout`` seconds.

        The result is truthy or falsy like a bool and can be awaited (``await
        store.stop_ttl_sweeper()``, as with the async LangGraph stores); :meth:`astop_ttl_sweeper`
        waits for the thread without blocking the event loop.
        """
        self._sweeper_stop.set()
        if self._sweeper is None:
            return SweeperStopped(True)
        self._sweeper.join(timeout)
        return SweeperStopped(not self._sweeper.is_alive())

    async def astop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Async twin of :meth:`stop_ttl_sweeper` (waits in a worker thread)."""
        return bool(await asyncio.to_thread(self.stop_ttl_sweeper, timeout))


class SweepCount(int):
    """How many items a sweep revoked: an ``int`` that can also be awaited.

    ``AsyncSqliteStore.sweep_ttl`` and ``AsyncPostgresStore.sweep_ttl`` are coroutines, the
    sync stores' are not; code written for either works with :meth:`TEPAStore.sweep_ttl`.

    Example:
        >>> import asyncio
        >>> async def main() -> int:
        ...     return await SweepCount(3)
        >>> asyncio.run(main()), SweepCount(3) + 1
        (3, 4)
    """

    def __await__(self) -> Generator[Any, None, int]:
        return int(self)
        yield  # pragma: no cover (makes this a generator)


class SweeperHandle(concurrent.futures.Future[None]):
    """The running sweeper (:meth:`TEPAStore.start_ttl_sweeper`): a future that can be awaited.

    Awaiting it returns it at once (the sweeper keeps running), as awaiting
    ``AsyncPostgresStore.start_ttl_sweeper()`` returns its task; cancel it to stop the sweeper.

    Example:
        >>> import asyncio
        >>> handle = SweeperHandle()
        >>> async def main() -> bool:
        ...     return (await handle) is handle
        >>> asyncio.run(main())
        True
    """

    def __await__(self) -> Generator[Any, None, SweeperHandle]:
        return self
        yield  # pragma: no cover (makes this a generator)


class SweeperStopped:
    """Whether the sweeper stopped (:meth:`TEPAStore.stop_ttl_sweeper`): a bool that can be awaited.

    Example:
        >>> import asyncio
        >>> bool(SweeperStopped(True)), SweeperStopped(False) == False
        (True, True)
        >>> async def main() -> bool:
        ...     return await SweeperStopped(True)
        >>> asyncio.run(main())
        True
    """

    __slots__ = ("stopped",)

    def __init__(self, stopped: bool) -> None:
        self.stopped = stopped

    def __bool__(self) -> bool:
        return self.stopped

    def __eq__(self, other: object) -> bool:
        return bool(self) == other if isinstance(other, bool | SweeperStopped) else NotImplemented

    def __hash__(self) -> int:
        return hash(self.stopped)

    def __await__(self) -> Generator[Any, None, bool]:
        return self.stopped
        yield  # pragma: no cover (makes this a generator)

    def __repr__(self) -> str:
        return repr(self.stopped)

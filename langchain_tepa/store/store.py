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
import os
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from langchain_core.embeddings import Embeddings
from langgraph.store.base import (
    NOT_PROVIDED,
    IndexConfig,
    Item,
    NamespacePath,
    NotProvided,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)

from langchain_tepa.core.errors import InvalidArgumentError, InvalidSourceError
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.values import safe_repr
from langchain_tepa.memory import AsOfPoint, TEPAMemory, VectorSpace
from langchain_tepa.memory.claims import ItemClaims
from langchain_tepa.results import KeyAudit
from langchain_tepa.store.async_api import AsyncStoreMixin
from langchain_tepa.store.batching import AsyncCoalescer
from langchain_tepa.store.index import Distance, configure_index
from langchain_tepa.store.planning import (
    StoreNamespaceError,
    as_ops,
    check_key_arg,
    check_namespace_arg,
    check_paths,
    namespace_errors,
    plan_put,
    validate_op,
    write_key,
    write_namespace,
)
from langchain_tepa.store.sweeper import (
    SweepCount,
    Sweeper,
    SweeperHandle,
    SweeperMixin,
    SweeperStopped,
)
from langchain_tepa.store.ttl import TTL_SPACE, TTLKeeper, validate_ttl_config
from langchain_tepa.validation import validate_source

__all__ = [
    "StoreNamespaceError",
    "SweepCount",
    "SweeperHandle",
    "SweeperStopped",
    "TEPAStore",
    "store_policy",
]


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


class TEPAStore(SweeperMixin, AsyncStoreMixin):
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
       A key that is not a string (``2**64``) is refused by every method and op with
       ``InvalidKeyError``; ``InMemoryStore`` converts it with ``str()``.
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
            raise InvalidArgumentError(
                f"corrections must be True or False, got {safe_repr(corrections)}"
            )
        if not isinstance(claims, bool):
            raise InvalidArgumentError(f"claims must be True or False, got {safe_repr(claims)}")
        self.corrections = corrections
        if memory is None:
            memory = TEPAMemory.in_memory(policy=store_policy())
        if not isinstance(memory, TEPAMemory):
            raise InvalidArgumentError(
                f"memory must be a TEPAMemory, got {type(memory).__name__}; "
                "for example TEPAMemory.in_memory()"
            )
        if source is None:  # the application writes with None; an adapter names itself
            raise InvalidSourceError("source must be a source name such as 'agent', got None")
        validate_source(source)  # visible text, no control or bidirectional characters
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
        self._checked_spaces: set[str] = set()
        if index is not None:
            settings = configure_index(index, memory)
            self.index_config, self.embeddings = settings.config, settings.embeddings
            self._fields, self._dims = settings.fields, settings.dims
            self._distance, self._space = settings.distance, settings.space
        self._indexed = False  # the answer index ranks searches this process does not hold
        if self._space is not None:
            self._indexed = memory.index_answers(self._space.name, stamps=TTL_SPACE)
        self.ttl_config: TTLConfig | None = validate_ttl_config(ttl)
        stamps = memory.vector_space(TTL_SPACE)
        self._ttl = TTLKeeper(stamps.payloads, stamps.store)
        self._sweeper = Sweeper()
        AsyncCoalescer.__init__(self)

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
        emb = self._embedder()
        text_vecs = emb.embed_documents(texts) if texts else []
        query_vecs = [emb.embed_query(q) for q in queries]
        return self._finish(plan, self._vectors(texts, text_vecs, queries, query_vecs))

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
        check_key_arg(key)
        if as_of is None:
            with namespace_errors():
                return self._get_now(namespace, key, refresh_ttl)
        return self._get_as_of(namespace, key, as_of)

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
        return self._search_as_of(op, as_of)

    # ------------------------------------------------------------------ typed errors
    # BaseStore's convenience methods check namespaces themselves and raise LangGraph's
    # InvalidNamespaceError (or a bare TypeError for a non-tuple); these overrides check first
    # and raise StoreNamespaceError, the TEPAError batch() raises for the same namespace
    # (put/aput do the same in :meth:`_check_put`).
    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        """Revoke every Active value of ``key`` (kept for audit); see :class:`TEPAStore`."""
        check_namespace_arg(namespace)
        check_key_arg(key)
        with namespace_errors():
            super().delete(namespace, key)

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
        check_paths(prefix, suffix)
        with namespace_errors():
            return super().list_namespaces(
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

    def rejudge(self, namespace: tuple[str, ...]) -> int:
        """Judge again the items of ``namespace`` whose judge call failed (``judge=``).

        An item put while the memory's judge failed was stored and took nothing back; each one
        still served is judged now against the items put before it. Returns how many were.

        Raises:
            JudgeError: If the memory has no judge, or a ``strict`` judge fails again.
        """
        return ItemClaims(self.memory).rejudge(write_namespace(namespace))

    async def arejudge(self, namespace: tuple[str, ...]) -> int:
        """Async twin of :meth:`rejudge` (the judge's ``ainvoke``)."""
        return await ItemClaims(self.memory).arejudge(write_namespace(namespace))

    def __repr__(self) -> str:
        return f"TEPAStore(memory={self.memory!r}, indexed={self.index_config is not None})"

    # ------------------------------------------------------------------ phase 1: check, read
    def check(self, op: Op) -> None:
        """Validate one op completely (nothing is read or written)."""
        validate_op(op)
        if isinstance(op, PutOp):
            plan_put(op, self._fields)

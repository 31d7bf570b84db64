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
import json
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from langchain_core.embeddings import Embeddings
from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    ensure_embeddings,
    get_text_at_path,
    validate_op_namespace,
)
from langgraph.store.base import InvalidNamespaceError as LangGraphNamespaceError

from langchain_tepa._store_query import cosines, matches_condition, matches_filter, validate_filter
from langchain_tepa.core.errors import (
    InvalidArgumentError,
    InvalidKeyError,
    InvalidNamespaceError,
    InvalidValueError,
)
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.types import EvidenceKind, Fact, Lifecycle, Precedent
from langchain_tepa.core.values import (
    validate_key,
    validate_namespace,
    validate_value,
    value_identity,
)
from langchain_tepa.memory import TEPAMemory
from langchain_tepa.results import KeyAudit

__all__ = ["StoreNamespaceError", "TEPAStore", "store_policy"]

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_INDEX_META = "lg_index"
_MAX_META_CHARS = 4096


class StoreNamespaceError(InvalidNamespaceError, LangGraphNamespaceError):
    """A namespace the store cannot hold.

    It is both LangGraph's ``InvalidNamespaceError`` and the library's
    :class:`~langchain_tepa.core.errors.InvalidNamespaceError` (both ``ValueError``), so either
    ``except`` clause catches it.
    """


def store_policy(**overrides: Any) -> LifecyclePolicy:
    """The policy the store's own constructors use: TEPA-Rev with exact value identity.

    The memory default compares string values case-insensitively (``"Vegan"`` is ``"vegan"``),
    which suits facts but not a key-value store whose ``get`` must return what was put; this
    policy turns that off (``normalize_values=False``) and keeps every other TEPA-Rev default.

    Args:
        **overrides: Other :class:`~langchain_tepa.core.policy.LifecyclePolicy` fields.

    Example:
        >>> store_policy().normalize_values
        False
    """
    base = {"name": "tepa-store", "normalize_values": False}
    return LifecyclePolicy.preset("tepa-rev").with_overrides(**{**base, **overrides})


def _when(seconds: float) -> datetime:
    try:
        return _EPOCH + timedelta(seconds=seconds)
    except (OverflowError, ValueError):
        return _EPOCH if seconds < 0 else datetime.max.replace(tzinfo=timezone.utc)


def _value_view(p: Precedent) -> dict[str, Any]:
    """The item value of a precedent (non-dict memory values appear as ``{"value": v}``)."""
    return p.value if isinstance(p.value, dict) else {"value": p.value}


def _copy(value: dict[str, Any]) -> dict[str, Any]:
    return dict(json.loads(json.dumps(value, ensure_ascii=False)))


def _rank(p: Precedent) -> tuple[float, float, str]:
    """Best Active value first: validity, then most recent support (as ``memory.get``)."""
    return (-p.validity, -p.last_support_at, p.id)


def _recency(p: Precedent) -> tuple[float, str]:
    return (p.updated_at, p.evidence_ids[-1] if p.evidence_ids else "")


def _best(precedents: Iterable[Precedent]) -> Precedent | None:
    active = [p for p in precedents if p.state is Lifecycle.ACTIVE]
    return min(active, key=_rank) if active else None


def _texts_at(value: Mapping[str, Any], paths: Sequence[str]) -> list[str]:
    texts: list[str] = []
    for path in paths:
        texts.extend(get_text_at_path(value, path))
    return texts


def _check_count(value: object, name: str, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidArgumentError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def _as_tuple(namespace: object, what: str) -> tuple[str, ...]:
    if not isinstance(namespace, tuple | list):
        raise StoreNamespaceError(
            f"{what} must be a tuple of labels such as ('users', 'u1'), "
            f"got {type(namespace).__name__}"
        )
    return tuple(namespace)


@dataclass
class _Entry:
    namespace: tuple[str, ...]
    precedent: Precedent


@dataclass
class _SearchPlan:
    op: SearchOp
    entries: list[_Entry]
    query: str | None
    active_counts: dict[str, int]
    missing: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class _PutPlan:
    namespace: str
    key: str
    value: dict[str, Any] | None
    texts: list[str] | None
    index_meta: str | None


@dataclass
class _Plan:
    results: list[Result]
    searches: dict[int, _SearchPlan]
    puts: list[_PutPlan]

    def index_texts(self) -> list[str]:
        seen: dict[str, None] = {}
        for put in self.puts:
            for t in put.texts or ():
                seen.setdefault(t, None)
        for search in self.searches.values():
            for texts in search.missing.values():
                for t in texts:
                    seen.setdefault(t, None)
        return list(seen)

    def queries(self) -> list[str]:
        return list(dict.fromkeys(s.query for s in self.searches.values() if s.query))


@dataclass
class _Vectors:
    texts: dict[str, list[float]]
    queries: dict[str, list[float]]


class TEPAStore(BaseStore):
    """LangGraph ``BaseStore`` over a :class:`~langchain_tepa.memory.TEPAMemory`.

    Use it wherever LangGraph takes a store (``StateGraph.compile(store=...)``,
    ``create_agent(..., store=...)``, LangMem tools); nodes get it injected as
    ``store: BaseStore``. Namespaces ``("users", "u1")`` are memory namespaces ``"users.u1"``,
    item keys are memory keys, item values (JSON dicts) are memory values.

    Semantics, and every deliberate difference from LangGraph's ``InMemoryStore`` (each is
    marked and asserted in ``tests/unit_tests/store_conformance.py``):

    1. **put is evidence, not an overwrite.** ``get``/``search`` show the best Active value of a
       key (highest validity, then most recent support). Under the default TEPA-Rev rules a
       value put once is displaced by one put of a new value at once (validity 0.67 against
       0.50); a value put ``n`` times needs more contrary puts (2 against 3 puts). Older values
       stay in the archive (:meth:`audit`) and are never shown while a better one is Active.
       Reason: a single contradicting write should not erase a well-supported memory, and
       nothing is lost.
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
        per key. Reads of a batch see the state before its writes in both stores.
    12. **Timestamps**: ``created_at`` is when the shown value was first put under the key
        (kept across re-puts, like ``PostgresStore`` keeps it across updates), ``updated_at``
        the last evidence that touched it, both from the memory's clock (UTC).
        ``InMemoryStore`` resets both on every put.
    13. **IndexConfig** (``dims``, ``embed``, ``fields``, and ``index=`` on ``put``) is honoured;
        scoreless items (``index=False`` or no text at the fields) rank after the scored ones
        and are paged by ``offset`` like them (``InMemoryStore`` appends them ignoring
        ``offset``); an ``embed`` that returns vectors of another size than ``dims`` raises.
    14. **Facts written through the memory** (``memory.observe("user.diet", "vegan")``) are
        items too; non-dict values appear as ``{"value": v}``.
    15. **The policy decides what is visible**: the memory's default policy compares string
        values case-insensitively (the first form is returned), so :meth:`in_memory`,
        :meth:`from_client` and :meth:`from_path` use :func:`store_policy` (exact values);
        under ``tepa-full`` puts are Hypotheses until promoted; under ``no-memory`` nothing is
        visible; for multi-valued keys the best Active value is shown.

    Args:
        memory: The memory (default: a new in-process memory with :func:`store_policy`).
        index: LangGraph ``IndexConfig`` for semantic search on item fields (``embed``: an
            ``Embeddings``, a sync or async function, or a provider string; ``fields``: JSON
            paths, default ``["$"]``; ``dims``: checked when given).
        source: The ``source`` recorded on the evidence of store writes.

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

    supports_ttl = False

    def __init__(
        self,
        memory: TEPAMemory | None = None,
        *,
        index: IndexConfig | None = None,
        source: str = "langgraph-store",
    ) -> None:
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
        self.index_config: IndexConfig | None = None
        self._embeddings: Embeddings | None = None
        self._fields: list[str] = ["$"]
        self._dims: int | None = None
        if index is not None:
            if not isinstance(index, Mapping) or index.get("embed") is None:
                raise InvalidArgumentError(
                    "index must be an IndexConfig dict with 'embed' (and optionally 'dims' and "
                    "'fields'), e.g. {'dims': 384, 'embed': HashingEmbeddings()}"
                )
            fields = index.get("fields") or ["$"]
            if not isinstance(fields, list | tuple) or not all(
                isinstance(f, str) and f for f in fields
            ):
                raise InvalidArgumentError("index['fields'] must be a list of JSON paths")
            dims = index.get("dims")
            if dims is not None:
                dims = _check_count(dims, "index['dims']", minimum=1)
            config: IndexConfig = {"embed": index["embed"], "fields": list(fields)}
            if dims is not None:
                config["dims"] = dims
            self.index_config = config
            self._embeddings = ensure_embeddings(index["embed"])
            self._fields = list(fields)
            self._dims = dims
        self._vectors: dict[str, list[list[float]]] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ constructors
    @classmethod
    def in_memory(
        cls,
        *,
        index: IndexConfig | None = None,
        source: str = "langgraph-store",
        **memory_kwargs: Any,
    ) -> TEPAStore:
        """A store on a new in-process memory (policy :func:`store_policy` unless given)."""
        memory_kwargs.setdefault("policy", store_policy())
        return cls(TEPAMemory.in_memory(**memory_kwargs), index=index, source=source)

    @classmethod
    def from_client(
        cls,
        client: Any,
        *,
        prefix: str = "tepa_store",
        index: IndexConfig | None = None,
        source: str = "langgraph-store",
        **memory_kwargs: Any,
    ) -> TEPAStore:
        """A store on any chromadb client (policy :func:`store_policy` unless given)."""
        memory_kwargs.setdefault("policy", store_policy())
        memory = TEPAMemory.from_client(client, prefix=prefix, **memory_kwargs)
        return cls(memory, index=index, source=source)

    @classmethod
    def from_path(
        cls,
        path: str | os.PathLike[str],
        *,
        index: IndexConfig | None = None,
        source: str = "langgraph-store",
        **memory_kwargs: Any,
    ) -> TEPAStore:
        """A store in an embedded persistent Chroma at ``path`` (policy :func:`store_policy`)."""
        memory_kwargs.setdefault("policy", store_policy())
        memory_kwargs.setdefault("prefix", "tepa_store")
        return cls(TEPAMemory.from_path(path, **memory_kwargs), index=index, source=source)

    # ------------------------------------------------------------------ batch
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run operations; results in input order, reads see the state before the writes.

        Raises:
            StoreNamespaceError: For a namespace the store cannot hold.
            InvalidArgumentError: For any other invalid op; then nothing of the batch is stored.
        """
        plan = self._prepare(ops)
        texts, queries = plan.index_texts(), plan.queries()
        if self._embeddings is not None:
            text_vecs = self._embeddings.embed_documents(texts) if texts else []
            query_vecs = [self._embeddings.embed_query(q) for q in queries]
        else:
            text_vecs = []
            query_vecs = [self.memory.embeddings.embed_query(q) for q in queries]
        return self._finish(plan, self._vectors_of(texts, text_vecs, queries, query_vecs))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Async twin of :meth:`batch` (embeddings awaited, storage work in a worker thread)."""
        plan = await asyncio.to_thread(self._prepare, list(ops))
        texts, queries = plan.index_texts(), plan.queries()
        if self._embeddings is not None:
            emb = self._embeddings
            text_vecs = await emb.aembed_documents(texts) if texts else []
            query_vecs = list(await asyncio.gather(*(emb.aembed_query(q) for q in queries)))
        else:
            mem_emb = self.memory.embeddings
            query_vecs = list(await asyncio.gather(*(mem_emb.aembed_query(q) for q in queries)))
            text_vecs = []
        vectors = self._vectors_of(texts, text_vecs, queries, query_vecs)
        return await asyncio.to_thread(self._finish, plan, vectors)

    # ------------------------------------------------------------------ extras
    def audit(self, namespace: tuple[str, ...], key: str) -> KeyAudit:
        """Every value ever put under ``key`` (any state), with counts and reasons.

        Example:
            >>> store = TEPAStore.in_memory()
            >>> store.put(("u",), "k", {"v": 1})
            >>> store.audit(("u",), "k").precedents[0].state.value
            'active'
        """
        ns = self._write_namespace(namespace)
        return self.memory.audit(self._write_key(key), namespace=ns)

    async def aaudit(self, namespace: tuple[str, ...], key: str) -> KeyAudit:
        """Async twin of :meth:`audit`."""
        return await asyncio.to_thread(self.audit, namespace, key)

    def __repr__(self) -> str:
        return f"TEPAStore(memory={self.memory!r}, indexed={self.index_config is not None})"

    # ------------------------------------------------------------------ validation
    def _write_namespace(self, namespace: object) -> str:
        labels = _as_tuple(namespace, "namespace")
        if not labels:
            raise StoreNamespaceError("namespace cannot be empty; pass e.g. ('users', 'u1')")
        try:
            validate_op_namespace(GetOp(labels, ""))
            return validate_namespace(".".join(labels))
        except (LangGraphNamespaceError, InvalidNamespaceError) as exc:
            raise StoreNamespaceError(f"namespace {labels!r} cannot be stored: {exc}") from exc

    @staticmethod
    def _write_key(key: object) -> str:
        if not isinstance(key, str):
            raise InvalidKeyError(f"store keys must be strings, got {type(key).__name__}")
        checked = validate_key(key)
        if checked != key:
            raise InvalidKeyError(
                f"store key {key!r} starts or ends with whitespace; strip it first"
            )
        return checked

    @staticmethod
    def _write_value(value: object) -> dict[str, Any]:
        if not isinstance(value, Mapping):
            raise InvalidValueError(
                f"store values must be dicts, got {type(value).__name__}; wrap it, e.g. "
                "{'value': ...}"
            )
        plain = dict(value)
        validate_value(plain)
        return _copy(plain)

    @staticmethod
    def _read_namespace(namespace: tuple[str, ...]) -> str | None:
        try:
            return validate_namespace(".".join(namespace)) if namespace else None
        except InvalidNamespaceError:
            return None

    def _validate_op(self, op: object) -> None:
        if not isinstance(op, GetOp | PutOp | SearchOp | ListNamespacesOp):
            raise InvalidArgumentError(
                f"unknown operation {type(op).__name__}; pass GetOp, PutOp, SearchOp or "
                "ListNamespacesOp"
            )
        if isinstance(op, GetOp | PutOp):
            _as_tuple(op.namespace, "namespace")
        elif isinstance(op, SearchOp):
            _as_tuple(op.namespace_prefix, "namespace_prefix")
        else:
            for cond in op.match_conditions or ():
                _as_tuple(cond.path, "match condition path")
        try:
            validate_op_namespace(op)
        except LangGraphNamespaceError as exc:
            raise StoreNamespaceError(str(exc)) from exc

    # ------------------------------------------------------------------ phase 1: read, plan
    def _prepare(self, ops: Iterable[Op]) -> _Plan:
        ops = list(ops)
        for op in ops:
            self._validate_op(op)
        puts = [self._plan_put(op) for op in ops if isinstance(op, PutOp)]
        results: list[Result] = [None] * len(ops)
        searches: dict[int, _SearchPlan] = {}
        for i, op in enumerate(ops):
            if isinstance(op, GetOp):
                results[i] = self._get_item(tuple(op.namespace), op.key)
            elif isinstance(op, SearchOp):
                searches[i] = self._plan_search(op)
            elif isinstance(op, ListNamespacesOp):
                results[i] = self._list_namespaces(op)
        return _Plan(results, searches, puts)

    def _plan_put(self, op: PutOp) -> _PutPlan:
        ns = self._write_namespace(op.namespace)
        key = self._write_key(op.key)
        if op.value is None:
            return _PutPlan(ns, key, None, None, None)
        value = self._write_value(op.value)
        index = op.index
        meta: str | None = None
        if index is False:
            meta = "false"
        elif index is not None:
            if not isinstance(index, list | tuple) or not all(
                isinstance(p, str) and p for p in index
            ):
                raise InvalidArgumentError(
                    f"index must be None, False or a list of JSON paths, got {index!r}"
                )
            meta = json.dumps(list(index), ensure_ascii=False)
            if len(meta) > _MAX_META_CHARS:
                raise InvalidArgumentError("index lists more paths than fit in 4096 characters")
        texts: list[str] | None = None
        if self._embeddings is not None:
            if index is False:
                texts = []
            else:
                texts = _texts_at(value, self._fields if index is None else list(index))
        return _PutPlan(ns, key, value, texts, meta)

    def _get_item(self, namespace: tuple[str, ...], key: object) -> Item | None:
        ns = self._read_namespace(namespace)
        if ns is None or not isinstance(key, str) or not self.memory.policy.retrieval_enabled:
            return None
        try:
            if validate_key(key) != key:
                return None
        except InvalidKeyError:
            return None
        best = _best(self.memory.audit(key, namespace=ns).precedents)
        if best is None:
            return None
        value = _copy(_value_view(best))
        return Item(
            value=value,
            key=best.key,
            namespace=namespace,
            created_at=_when(best.created_at),
            updated_at=_when(best.updated_at),
        )

    def _active(self, prefix: tuple[str, ...]) -> tuple[list[_Entry], dict[str, int]]:
        """The best Active precedent of every key under ``prefix``, and Active counts."""
        entries: list[_Entry] = []
        counts: dict[str, int] = {}
        if not self.memory.policy.retrieval_enabled:
            return entries, counts
        n = len(prefix)
        wanted = {
            ns: tuple(ns.split("."))
            for ns in self.memory.namespaces()
            if tuple(ns.split("."))[:n] == prefix
        }
        if not wanted:
            return entries, counts
        # One snapshot pass: of the one namespace, or of all when the prefix spans several.
        only = next(iter(wanted)) if len(wanted) == 1 else None
        best: dict[tuple[str, str], Precedent] = {}
        for p in self.memory.precedents(namespace=only):
            if p.state is not Lifecycle.ACTIVE or p.namespace not in wanted:
                continue
            counts[p.namespace] = counts.get(p.namespace, 0) + 1
            cur = best.get((p.namespace, p.key))
            if cur is None or _rank(p) < _rank(cur):
                best[(p.namespace, p.key)] = p
        entries.extend(_Entry(wanted[p.namespace], p) for p in best.values())
        return entries, counts

    def _plan_search(self, op: SearchOp) -> _SearchPlan:
        _check_count(op.limit, "limit")
        _check_count(op.offset, "offset")
        validate_filter(op.filter)
        if op.query is not None and not isinstance(op.query, str):
            raise InvalidArgumentError(f"query must be a string, got {type(op.query).__name__}")
        entries, counts = self._active(tuple(op.namespace_prefix))
        entries = [e for e in entries if matches_filter(_value_view(e.precedent), op.filter)]
        entries.sort(key=lambda e: (*_recency(e.precedent), e.namespace, e.precedent.key))
        entries.reverse()
        plan = _SearchPlan(op, entries, op.query or None, counts)
        if plan.query and self._embeddings is not None:
            with self._lock:
                cold = [e.precedent for e in entries if e.precedent.id not in self._vectors]
            if cold:
                specs = self._index_specs(cold)
                for p in cold:
                    spec = specs.get(p.id)
                    paths = self._fields if spec is None else spec
                    plan.missing[p.id] = _texts_at(_value_view(p), paths)
        return plan

    def _index_specs(self, cold: list[Precedent]) -> dict[str, list[str]]:
        """Per-put ``index=`` choices of precedents not in the vector cache (after reopening)."""
        wanted = {(p.namespace, p.key, p.value_id): p.id for p in cold}
        normalize = self.memory.policy.normalize_values
        specs: dict[str, list[str]] = {}
        for ns in sorted({p.namespace for p in cold}):
            for ev in self.memory.storage.load_evidence(namespace=ns):
                if ev.kind is not EvidenceKind.OBSERVATION:
                    continue
                pid = wanted.get((ns, ev.key, value_identity(ev.value, normalize=normalize)))
                if pid is None:
                    continue
                raw = ev.metadata.get(_INDEX_META)
                if raw is None:
                    specs.pop(pid, None)
                    continue
                try:
                    parsed = json.loads(str(raw))
                except ValueError:
                    continue
                specs[pid] = [str(x) for x in parsed] if isinstance(parsed, list) else []
        return specs

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        _check_count(op.limit, "limit")
        _check_count(op.offset, "offset")
        if op.max_depth is not None:
            _check_count(op.max_depth, "max_depth", minimum=1)
        if not self.memory.policy.retrieval_enabled:
            return []
        conditions = op.match_conditions or ()
        found: list[tuple[str, ...]] = []
        for ns in self.memory.namespaces():
            labels = tuple(ns.split("."))
            if not all(matches_condition(c, labels) for c in conditions):
                continue
            if any(p.state is Lifecycle.ACTIVE for p in self.memory.precedents(namespace=ns)):
                found.append(labels)
        if op.max_depth is not None:
            found = sorted({labels[: op.max_depth] for labels in found})
        else:
            found.sort()
        return found[op.offset : op.offset + op.limit]

    # ------------------------------------------------------------------ phase 2: embed
    def _vectors_of(
        self,
        texts: list[str],
        text_vecs: Sequence[Sequence[float]],
        queries: list[str],
        query_vecs: Sequence[Sequence[float]],
    ) -> _Vectors:
        if len(text_vecs) != len(texts) or len(query_vecs) != len(queries):
            raise InvalidArgumentError(
                "the embedding function returned a different number of vectors than texts"
            )
        out = _Vectors(
            {t: [float(x) for x in v] for t, v in zip(texts, text_vecs, strict=True)},
            {q: [float(x) for x in v] for q, v in zip(queries, query_vecs, strict=True)},
        )
        if self._dims is not None and self._embeddings is not None:
            for vec in (*out.texts.values(), *out.queries.values()):
                if len(vec) != self._dims:
                    raise InvalidArgumentError(
                        f"index dims is {self._dims} but the embedding function returned "
                        f"{len(vec)} dimensions; fix 'dims' or the embeddings"
                    )
        return out

    # ------------------------------------------------------------------ phase 3: rank, write
    def _finish(self, plan: _Plan, vectors: _Vectors) -> list[Result]:
        results = list(plan.results)
        for i, search in plan.searches.items():
            results[i] = self._rank(search, vectors)
        self._apply(plan.puts, vectors)
        return results

    def _scores(self, search: _SearchPlan, vectors: _Vectors) -> dict[str, float]:
        query = search.query or ""
        qvec = vectors.queries[query]
        scores: dict[str, float] = {}
        if self._embeddings is not None:
            owners: list[str] = []
            rows: list[list[float]] = []
            with self._lock:
                for e in search.entries:
                    pid = e.precedent.id
                    if pid in search.missing:
                        self._vectors[pid] = [vectors.texts[t] for t in search.missing[pid]]
                    for vec in self._vectors.get(pid, []):
                        owners.append(pid)
                        rows.append(vec)
            for pid, sim in zip(owners, cosines(qvec, rows), strict=True):
                scores[pid] = max(sim, scores.get(pid, sim))  # max pooling over fields
            return scores
        for ns in sorted({".".join(e.namespace) for e in search.entries}):
            k = search.active_counts.get(ns, 0)
            if k:
                self.memory._check_active_set(ns)
                scores.update(self.memory.storage.query_active(ns, qvec, k))
        return scores

    def _rank(self, search: _SearchPlan, vectors: _Vectors) -> list[SearchItem]:
        op = search.op
        scored: list[tuple[float | None, _Entry]]
        if not search.query:
            scored = [(None, e) for e in search.entries]
        else:
            scores = self._scores(search, vectors)
            ranked = [
                (scores[e.precedent.id], e) for e in search.entries if e.precedent.id in scores
            ]
            ranked.sort(key=lambda pair: -pair[0])
            scoreless = [e for e in search.entries if e.precedent.id not in scores]
            scored = [(s, e) for s, e in ranked] + [(None, e) for e in scoreless]
        page = scored[op.offset : op.offset + op.limit]
        return [
            SearchItem(
                namespace=e.namespace,
                key=e.precedent.key,
                value=_copy(_value_view(e.precedent)),
                created_at=_when(e.precedent.created_at),
                updated_at=_when(e.precedent.updated_at),
                score=None if score is None else float(score),
            )
            for score, e in page
        ]

    def _apply(self, puts: list[_PutPlan], vectors: _Vectors) -> None:
        pending: list[_PutPlan] = []

        def observe_pending() -> None:
            if not pending:
                return
            facts = [
                Fact(
                    key=put.key,
                    value=put.value,
                    namespace=put.namespace,
                    text="\n".join(put.texts) if put.texts else None,
                    source=self.source,
                    metadata={_INDEX_META: put.index_meta} if put.index_meta else None,
                )
                for put in pending
            ]
            observed = self.memory.observe_many(facts)
            with self._lock:
                for put, result in zip(pending, observed, strict=True):
                    if put.texts is not None and result.precedent is not None:
                        self._vectors[result.precedent.id] = [vectors.texts[t] for t in put.texts]
            pending.clear()

        for put in puts:
            if put.value is not None:
                pending.append(put)
                continue
            observe_pending()
            self._delete(put.namespace, put.key)
        observe_pending()

    def _delete(self, namespace: str, key: str) -> None:
        for p in self.memory.audit(key, namespace=namespace).precedents:
            if p.state is not Lifecycle.REVOKED:
                self.memory.revoke(
                    key, p.value, reason="deleted", namespace=namespace, source=self.source
                )
            with self._lock:
                self._vectors.pop(p.id, None)

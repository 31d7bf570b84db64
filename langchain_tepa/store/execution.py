"""How a :class:`~langchain_tepa.store.TEPAStore` runs a batch: read, embed, rank and write.

``batch`` and ``abatch`` share every step but the embedding call:

1. **check, read** (:meth:`ExecutionMixin._prepare`): every op is validated before anything is
   read; gets and listings are answered from the state before the batch's writes; a search
   notes the namespaces it scans with their answer tables (expired items left out and noted
   for revocation); puts are planned with the texts they embed.
2. **embed** (:meth:`ExecutionMixin._vectors`): the texts of the puts and the queries of the
   searches, in one call each (awaited by ``abatch``), their sizes checked against ``dims``.
3. **rank, write** (:meth:`ExecutionMixin._finish`): searches are ranked
   (:mod:`~langchain_tepa.store.search`), expired items revoked, read TTLs refreshed, and the
   puts and deletes written as one append with the claims of their items.

Example:
    >>> from langgraph.store.base import GetOp, PutOp
    >>> from langchain_tepa.store import TEPAStore
    >>> store = TEPAStore.in_memory()
    >>> got = store.batch([PutOp(("u",), "k", {"v": 1}), GetOp(("u",), "k")])
    >>> got[1] is None, store.get(("u",), "k").value  # reads see the state before the writes
    (True, {'v': 1})
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any, Literal

import numpy as np
from langchain_core.embeddings import Embeddings
from langgraph.store.base import (
    NOT_PROVIDED,
    GetOp,
    Item,
    ListNamespacesOp,
    NotProvided,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    _ensure_refresh,  # how BaseStore.get reads its refresh_ttl
    _validate_namespace,  # what BaseStore.put checks first
    _validate_namespace_labels,  # what BaseStore.get checks first
)

from langchain_tepa.core.errors import IndexMismatchWarning, InvalidArgumentError
from langchain_tepa.core.types import Fact, Precedent
from langchain_tepa.memory import AnswerRow, AsOfPoint, RevokeKey, TEPAMemory, VectorSpace
from langchain_tepa.memory.claims import (
    MARK_FIELD,
    ClaimPlan,
    ItemClaims,
    ItemText,
    claims_namespace,
    is_claims_namespace,
    joined_text,
    read_marks,
    text_of_value,
)
from langchain_tepa.memory.documents import copy_value
from langchain_tepa.store.cold import cold_search
from langchain_tepa.store.corrections import put_op
from langchain_tepa.store.index import Distance
from langchain_tepa.store.listing import list_active_namespaces
from langchain_tepa.store.planning import (
    Plan,
    PutPlan,
    SearchPlan,
    check_namespace_arg,
    copy_json,
    namespace_errors,
    plan_put,
    read_key,
    read_namespace,
    validate_op,
)
from langchain_tepa.store.search import Scope, best, newer_first, newest, trusted_scopes
from langchain_tepa.store.ttl import STAMP_SIZE, TTL_SPACE, TTLKeeper

__all__ = ["ExecutionMixin"]

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _when(seconds: float) -> datetime:
    try:
        return _EPOCH + timedelta(seconds=seconds)
    except (OverflowError, ValueError):
        return _EPOCH if seconds < 0 else datetime.max.replace(tzinfo=timezone.utc)


class MarkedSearchItem(SearchItem):
    """A search result that a newer item may supersede (issue 37): served, ranked below it.

    The free-text claims of the two items conflict, but nothing said the change explicitly
    ("I live in Lisbon", then "I live in Paris"), so the older item stays served and says so.

    Attributes:
        possibly_superseded_by: ``[{"item", "key", "value"}]``: the newer item's key, the
            claim key the two items share and the newer item's value of it. ``dict()`` (what
            LangMem's search tool shows the model) includes it.

    Example:
        >>> from datetime import datetime, timezone
        >>> when = datetime(2026, 1, 1, tzinfo=timezone.utc)
        >>> by = [{"item": "b", "key": "user.home_city", "value": "Paris"}]
        >>> item = MarkedSearchItem(("u",), "a", {"content": "I live in Lisbon"}, when, when,
        ...                         0.9, by)
        >>> item.dict()["possibly_superseded_by"][0]["item"]
        'b'
    """

    __slots__ = ("possibly_superseded_by",)

    def __init__(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        created_at: datetime,
        updated_at: datetime,
        score: float | None,
        possibly_superseded_by: list[dict[str, Any]],
    ) -> None:
        super().__init__(namespace, key, value, created_at, updated_at, score)
        self.possibly_superseded_by = copy_value(possibly_superseded_by)

    def dict(self) -> dict[str, Any]:
        """The item as LangGraph serialises it, with its mark."""
        out = super().dict()
        out[MARK_FIELD] = copy_value(self.possibly_superseded_by)
        return out


def _floats(vector: Sequence[float]) -> list[float]:
    """``vector`` as a list of Python floats (one numpy conversion; any number type)."""
    try:
        out: list[float] = np.asarray(vector, dtype=np.float64).tolist()
    except (TypeError, ValueError, OverflowError):
        return [float(x) for x in vector]
    return out


def _value_view(p: Precedent) -> dict[str, Any]:
    """The item value of a precedent (non-dict memory values appear as ``{"value": v}``)."""
    return p.value if isinstance(p.value, dict) else {"value": p.value}


def _row_value(row: AnswerRow) -> dict[str, Any]:
    """The item value of an answer row (a copy; non-dict values appear as ``{"value": v}``)."""
    value = row.value
    return value if isinstance(value, dict) else {"value": value}


class ExecutionMixin:
    """The three steps of a :class:`~langchain_tepa.store.TEPAStore` batch (module docstring).

    The store sets every attribute declared here in its constructor.

    Example:
        >>> from langchain_tepa.store import TEPAStore
        >>> issubclass(TEPAStore, ExecutionMixin)
        True
    """

    memory: TEPAMemory
    embeddings: Embeddings | None
    supports_ttl: bool
    source: str
    corrections: bool
    claims: ItemClaims | None
    ttl_config: TTLConfig | None
    _fields: list[str] | None
    _dims: int | None
    _distance: Distance
    _space: VectorSpace | None
    _checked_spaces: set[str]
    _indexed: bool
    _ttl: TTLKeeper

    # ------------------------------------------------------------------ ops of the methods
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

    def _get_now(
        self, namespace: tuple[str, ...], key: str, refresh_ttl: bool | None
    ) -> Item | None:
        """``get``: one op without a batch's planning (no embedding, no writes to order)."""
        _validate_namespace_labels(namespace)
        op = GetOp(namespace, str(key), _ensure_refresh(self.ttl_config, refresh_ttl))
        validate_op(op)
        plan = Plan([None])
        item = self._get_item(plan, op)
        if plan.expired or plan.refresh:
            self._finish(plan, {})  # the expired item is revoked, a read TTL refreshed
        return item

    def _get_as_of(self, namespace: tuple[str, ...], key: str, as_of: AsOfPoint) -> Item | None:
        """``get(..., as_of=...)``: the item as the store held it then (nothing refreshed)."""
        validate_op(GetOp(tuple(namespace), key))
        ns, k = read_namespace(tuple(namespace)), read_key(key)
        if ns is None or k is None:
            return None
        best = self.memory.answer(k, namespace=ns, as_of=as_of)
        return None if best is None else self._item(tuple(namespace), best)

    def _search_as_of(self, op: SearchOp, as_of: AsOfPoint) -> list[SearchItem]:
        """``search(..., as_of=...)``: ``op`` among the items as the store held them then."""
        validate_op(op)
        plan = Plan([None])
        search = self._plan_search(plan, op, as_of)
        vectors: dict[str, list[float]] = {}
        if search.query:
            emb = self._embedder()
            vectors = self._vectors([], [], [search.query], [emb.embed_query(search.query)])
        return self._rank(search, vectors, plan)

    def _embedder(self) -> Embeddings:
        """What embeds texts and queries: the index's embeddings, else the memory's."""
        return self.embeddings if self.embeddings is not None else self.memory.embeddings

    async def _abatch_now(self, ops: list[Op]) -> list[Result]:
        """``abatch``'s run: the three steps, embeddings awaited, the rest in a worker thread."""
        plan = await asyncio.to_thread(self._prepare, ops)
        texts, queries = plan.texts(), plan.queries()
        emb = self._embedder()
        text_vecs = await emb.aembed_documents(texts) if texts else []
        query_vecs = list(await asyncio.gather(*(emb.aembed_query(q) for q in queries)))
        vectors = self._vectors(texts, text_vecs, queries, query_vecs)
        claims = None
        if self.claims is not None and self.memory.judge is not None and plan.puts:
            claims = await self.claims.aplan([self._item_text(p) for p in plan.puts])
        return await asyncio.to_thread(self._finish, plan, vectors, claims)

    # ------------------------------------------------------------------ phase 1: check, read
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
        row, stamp = self.memory.answer_row(k, namespace=ns, payloads=TTL_SPACE)
        if row is None:
            return None
        if stamp and self._ttl.expired_stamp(stamp[0]):
            plan.expired.add((ns, k))
            return None
        if op.refresh_ttl and stamp and len(stamp[0]) == STAMP_SIZE:
            plan.refresh.setdefault(ns, {})[row.id] = stamp
        return Item(
            value=_row_value(row),
            key=row.key,
            namespace=namespace,
            created_at=_when(row.created_at),
            updated_at=_when(row.updated_at),
        )

    @staticmethod
    def _item(namespace: tuple[str, ...], best: Precedent) -> Item:
        return Item(
            value=copy_json(_value_view(best)),
            key=best.key,
            namespace=namespace,
            created_at=_when(best.created_at),
            updated_at=_when(best.updated_at),
        )

    def _plan_search(
        self,
        plan: Plan,
        op: SearchOp,
        as_of: AsOfPoint | None = None,
        *,
        cold: bool | None = None,
    ) -> SearchPlan:
        """The namespaces a search scans, with their answer tables (ranked in phase 3).

        Expired items of every namespace scanned are noted for revocation, as a read that
        meets them does; ``as_of`` searches see what the memory believed then (no expiry). A
        search this process does not hold reads nothing here (``cold``; decided by
        :meth:`_cold` when ``None``): the answer index ranks it in phase 3.
        """
        prefix = tuple(op.namespace_prefix)
        scopes: list[Scope] = []
        if prefix and read_namespace(prefix) is None:
            return SearchPlan(op, scopes, op.query or None)
        if cold is None:
            cold = self._cold(op, as_of)
        if cold:
            return SearchPlan(op, scopes, op.query or None, cold=True)
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
            claims = tables.get(claims_namespace(ns))
            rows = claims.rows if claims is not None else ()
            marks, hidden = read_marks(rows), read_marks(rows, hidden=True)
            scopes.append(Scope(tuple(ns.split(".")), table, live, marks, hidden))
        return SearchPlan(op, scopes, op.query or None)

    def _cold(self, op: SearchOp, as_of: AsOfPoint | None) -> bool:
        """Whether the answer index ranks ``op`` (:mod:`~langchain_tepa.store.cold`)."""
        if not (self._indexed and op.query and not op.filter and as_of is None):
            return False
        if self._distance != "cosine" or self._space is None:
            return False
        prefix = ".".join(op.namespace_prefix)
        return not (prefix and self.memory.holds(prefix))

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
        out = {t: _floats(v) for t, v in zip(texts, text_vecs, strict=True)}
        out.update({f"\x00query:{q}": _floats(v) for q, v in zip(queries, query_vecs, strict=True)})
        if self._dims is not None:
            for vec in out.values():
                if len(vec) != self._dims:
                    raise InvalidArgumentError(
                        f"index dims is {self._dims} but the embedding function returned "
                        f"{len(vec)} dimensions; fix 'dims' or the embeddings"
                    )
        return out

    # ------------------------------------------------------------------ phase 3: rank, write
    def _finish(
        self, plan: Plan, vectors: dict[str, list[float]], claims: ClaimPlan | None = None
    ) -> list[Result]:
        results = list(plan.results)
        for i, search in plan.searches.items():
            results[i] = self._rank(search, vectors, plan)
        if not self.memory.read_only:
            for ns, key in sorted(plan.expired):
                self.memory.revoke_key(key, namespace=ns, reason="expired", source=self.source)
            for ns, stamps in plan.refresh.items():
                self._ttl.refresh(ns, stamps)
        self._apply(plan.puts, vectors, claims)
        return results

    def _check_space(self, namespace: str) -> None:
        """Warn once per namespace when it holds item vectors of another index size (issue 38).

        Those items are not scored by this store's searches until they are put again.
        """
        if self._space is None or self._dims is None or namespace in self._checked_spaces:
            return
        self._checked_spaces.add(namespace)
        other = sorted(set(self._space.siblings(namespace, "ix").values()) - {self._dims})
        if other:
            warnings.warn(
                IndexMismatchWarning(
                    f"namespace {namespace!r} holds item vectors of {other} dimensions, written "
                    f"with another index configuration; this store's index has dims "
                    f"{self._dims}, so those items are not scored by its searches until they "
                    "are put again (reopen the store with the index it was written with)"
                ),
                stacklevel=4,
            )

    def _scores(self, scope: Scope, qvec: list[float]) -> np.ndarray:
        """Each row's score in ``scope`` (NaN: no vector): the index's, else the memory's."""
        if self._space is not None:
            self._check_space(".".join(scope.labels))
            return scope.table.scores(self._space.name, qvec, metric=self._distance)
        rows = scope.table.rows
        ids = [rows[i].id for i in scope.live.tolist()]
        got = self.memory.similarity(qvec, ids, namespace=".".join(scope.labels))
        return np.array([got.get(row.id, np.nan) for row in rows], dtype=np.float64)

    def _hidden(self, scope: Scope, qvec: list[float], ids: list[str]) -> Mapping[str, float]:
        """Scores of hidden items (precedent ids) with the query, as the search scores rows."""
        ns = ".".join(scope.labels)
        if self._space is None:
            return self.memory.similarity(qvec, ids, namespace=ns)
        if self._distance != "cosine":
            return {}  # only cosine scores of a space are read outside its table
        return self._space.scores(ns, qvec, ids)

    def _rank(
        self, search: SearchPlan, vectors: dict[str, list[float]], plan: Plan
    ) -> list[SearchItem]:
        op = search.op
        wanted = op.offset + op.limit
        if search.cold:
            assert self._space is not None
            assert search.query
            qvec = vectors[f"\x00query:{search.query}"]
            found = cold_search(self.memory, self._space.name, search, qvec, plan, self._ttl, _when)
            if found is not None:
                return found
            search = self._plan_search(plan, op, cold=False)  # fold the namespaces after all
        if not search.query:
            picks = newest(search.scopes, op.filter, wanted)
        else:
            qvec = vectors[f"\x00query:{search.query}"]
            scores = [self._scores(scope, qvec) for scope in search.scopes]
            # issue 28: budgets on new keys and look-alikes below what they imitate
            scopes, order = trusted_scopes(
                self.memory, search.scopes, scores, wanted, complete=bool(op.filter)
            )
            # issue 37: a newer item ranks where the item it (may) supersede would
            order = newer_first(scopes, order, lambda sc, ids: self._hidden(sc, qvec, ids))
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
        out: list[SearchItem] = []
        for score, scope, i in page:
            row = scope.table.rows[i]
            args = (scope.labels, row.key, _row_value(row), _when(row.created_at))
            marked = scope.marks.get(row.key)
            if marked:
                out.append(MarkedSearchItem(*args, _when(row.updated_at), score, marked))
            else:
                out.append(SearchItem(*args, _when(row.updated_at), score))
        return out

    def _apply(
        self, puts: list[PutPlan], vectors: dict[str, list[float]], claims: ClaimPlan | None
    ) -> None:
        """The batch's puts and deletes as one append, folded in order.

        A delete revokes what its key holds at its place in the batch (a put before it in the
        same batch included), as if the writes were made one at a time. The claims of the
        items (:mod:`langchain_tepa.memory.claims`; planned already by ``abatch`` when a judge
        is awaited) go into the same append, after them; the items they take back or restore,
        into one more.
        """
        if not puts:
            return
        if claims is None and self.claims is not None:
            claims = self.claims.plan([self._item_text(p) for p in puts])
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

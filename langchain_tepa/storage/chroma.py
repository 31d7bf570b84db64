"""`ChromaStorage`: evidence, archive and per-namespace retrievable sets in Chroma collections.

Layout (``prefix`` defaults to ``"tepa"``):

* ``{prefix}_evidence``: one record per evidence, its JSON as the document, a one-dimension
  placeholder vector (no vector search is needed there), ``tepa_nk`` (a hash of namespace and
  key) and ``tepa_time`` in metadata.
* ``{prefix}_archive``: every precedent in any state with its embedding and its lifecycle in
  metadata (``tepa_state``, key, value, support, conflict, validity, times, namespace, the full
  view as JSON).
* ``{prefix}_a_{hash(namespace)}``: only the Active precedents of one namespace. Retrieval
  queries this collection with no metadata filter (design.md section 4: a filter on a shared
  collection costs 20-50x at scale).

Example:
    >>> import chromadb
    >>> from chromadb.config import Settings
    >>> client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    >>> storage = ChromaStorage(client, prefix="doc_example")
    >>> storage.count_evidence()
    0
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from typing import Any

from langchain_tepa.core.errors import InvalidArgumentError, StorageError
from langchain_tepa.core.types import Evidence, Lifecycle, Precedent
from langchain_tepa.core.values import canonical_json, short_hash
from langchain_tepa.storage.base import PrecedentWrite, key_path

__all__ = ["ChromaStorage"]

_PREFIX = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{1,40}$")
_PAGE = 5000


def _nk(namespace: str, key: str) -> str:
    return short_hash(f"{namespace}\x1f{key}", 24)


class ChromaStorage:
    """A :class:`~langchain_tepa.storage.base.StorageBackend` on any chromadb client.

    Args:
        client: A chromadb client: ``PersistentClient`` (embedded, the default of
            ``TEPAMemory.from_path``), ``EphemeralClient`` or ``HttpClient`` (server mode).
        prefix: Collection name prefix, so several memories can share one Chroma.

    Example:
        >>> import chromadb
        >>> from chromadb.config import Settings
        >>> from langchain_tepa import TEPAMemory
        >>> client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
        >>> memory = TEPAMemory.from_client(client, prefix="doc_chroma")
        >>> memory.observe("user.diet", "vegan").precedent.state.value
        'active'
    """

    def __init__(self, client: Any, *, prefix: str = "tepa") -> None:
        if not isinstance(prefix, str) or not _PREFIX.match(prefix):
            raise InvalidArgumentError(
                f"prefix {prefix!r} must be 2-41 characters of letters, digits, '_' or '-', "
                "starting with a letter or digit"
            )
        self.client = client
        self.prefix = prefix
        self._lock = threading.RLock()
        try:
            self._evidence = client.get_or_create_collection(
                f"{prefix}_evidence", embedding_function=None
            )
            self._archive = client.get_or_create_collection(
                f"{prefix}_archive", embedding_function=None, metadata={"hnsw:space": "cosine"}
            )
            self._meta = client.get_or_create_collection(f"{prefix}_meta", embedding_function=None)
        except Exception as exc:  # chromadb raises many types
            raise StorageError(f"could not open Chroma collections {prefix}_*: {exc}") from exc
        self._active: dict[str, Any] = {}

    # ---------------------------------------------------------------- evidence
    def append_evidence(self, records: Sequence[Evidence]) -> None:
        """Append evidence records (one Chroma ``add``)."""
        if not records:
            return
        with self._lock:
            ids = [ev.id for ev in records]
            found = self._evidence.get(ids=ids, include=[])["ids"]
            if found:
                raise StorageError(f"evidence ids already stored: {found[:3]}")
            self._evidence.add(
                ids=ids,
                embeddings=[[1.0] for _ in records],
                documents=[ev.to_json() for ev in records],
                metadatas=[
                    {
                        "tepa_nk": _nk(ev.namespace, ev.key),
                        "tepa_namespace": ev.namespace,
                        "tepa_kind": ev.kind.value,
                        "tepa_time": float(ev.time),
                        "tepa_writer": ev.writer or "-",
                    }
                    for ev in records
                ],
            )

    def _get_all(self, collection: Any, where: dict[str, Any] | None, include: list[str]) -> Any:
        out: dict[str, list[Any]] = {"ids": []}
        for name in include:
            out[name] = []
        offset = 0
        while True:
            page = collection.get(where=where, include=include, limit=_PAGE, offset=offset)
            out["ids"].extend(page["ids"])
            for name in include:
                values = page[name]
                out[name].extend(list(values) if values is not None else [])
            if len(page["ids"]) < _PAGE:
                return out
            offset += _PAGE

    def load_evidence(
        self,
        *,
        namespace: str | None = None,
        key: str | None = None,
        since: float | None = None,
    ) -> list[Evidence]:
        """Evidence matching the filters, in ``(time, id)`` order."""
        clauses: list[dict[str, Any]] = []
        if key is not None:
            if namespace is None:
                raise InvalidArgumentError("load_evidence(key=...) needs namespace= too")
            clauses.append({"tepa_nk": _nk(namespace, key)})
        elif namespace is not None:
            clauses.append({"tepa_namespace": namespace})
        if since is not None:
            clauses.append({"tepa_time": {"$gte": float(since)}})
        where: dict[str, Any] | None
        if not clauses:
            where = None
        elif len(clauses) == 1:
            where = clauses[0]
        else:
            where = {"$and": clauses}
        with self._lock:
            got = self._get_all(self._evidence, where, ["documents"])
        records = [Evidence.from_json(doc) for doc in got["documents"]]
        if key is not None:
            records = [ev for ev in records if ev.key == key and ev.namespace == namespace]
        return sorted(records, key=lambda e: e.sort_key)

    def count_evidence(self) -> int:
        """Number of evidence records."""
        return int(self._evidence.count())

    # ---------------------------------------------------------------- precedents
    def _active_collection(self, namespace: str) -> Any:
        col = self._active.get(namespace)
        if col is None:
            col = self.client.get_or_create_collection(
                f"{self.prefix}_a_{short_hash(namespace, 24)}",
                embedding_function=None,
                metadata={"hnsw:space": "cosine"},
            )
            self._active[namespace] = col
        return col

    @staticmethod
    def _archive_meta(p: Precedent) -> dict[str, Any]:
        view = p.to_dict()
        return {
            "tepa_state": p.state.value,
            "tepa_namespace": p.namespace,
            "tepa_key": p.key,
            "tepa_key_path": key_path(p.key),
            "tepa_value": canonical_json(p.value),
            "tepa_support": p.support,
            "tepa_conflict": p.conflict,
            "tepa_validity": float(p.validity),
            "tepa_created_at": float(p.created_at),
            "tepa_updated_at": float(p.updated_at),
            "tepa_view": json.dumps(view, ensure_ascii=False),
        }

    def write_precedents(self, writes: Sequence[PrecedentWrite]) -> None:
        """Apply view changes: new archive records, metadata updates, active-set moves."""
        if not writes:
            return
        with self._lock:
            latest: dict[str, PrecedentWrite] = {}
            for w in writes:
                prev = latest.get(w.precedent.id)
                if prev is not None:
                    w = PrecedentWrite(
                        w.precedent,
                        w.embedding if w.embedding is not None else prev.embedding,
                        prev.was_active,
                        prev.is_new,
                    )
                latest[w.precedent.id] = w
            new = [w for w in latest.values() if w.is_new]
            old = [w for w in latest.values() if not w.is_new]
            if any(w.embedding is None for w in new):
                raise StorageError("a new precedent needs an embedding")
            if new:
                self._archive.add(
                    ids=[w.precedent.id for w in new],
                    embeddings=[list(w.embedding or []) for w in new],
                    documents=[w.precedent.page_content for w in new],
                    metadatas=[self._archive_meta(w.precedent) for w in new],
                )
            if old:
                self._archive.update(
                    ids=[w.precedent.id for w in old],
                    metadatas=[self._archive_meta(w.precedent) for w in old],
                )
            entering = [
                w
                for w in latest.values()
                if w.precedent.state is Lifecycle.ACTIVE and not w.was_active
            ]
            leaving = [
                w
                for w in latest.values()
                if w.precedent.state is not Lifecycle.ACTIVE and w.was_active
            ]
            need = [w.precedent.id for w in entering if w.embedding is None]
            vectors: dict[str, list[float]] = {}
            if need:
                got = self._archive.get(ids=need, include=["embeddings"])
                for pid, emb in zip(got["ids"], got["embeddings"], strict=True):
                    vectors[pid] = [float(x) for x in emb]
            by_ns: dict[str, list[PrecedentWrite]] = {}
            for w in entering:
                by_ns.setdefault(w.precedent.namespace, []).append(w)
            for ns, group in by_ns.items():
                self._active_collection(ns).upsert(
                    ids=[w.precedent.id for w in group],
                    embeddings=[
                        list(w.embedding) if w.embedding is not None else vectors[w.precedent.id]
                        for w in group
                    ],
                    documents=[w.precedent.page_content for w in group],
                    metadatas=[
                        {
                            "tepa_state": "active",
                            "tepa_key": w.precedent.key,
                            "tepa_key_path": key_path(w.precedent.key),
                        }
                        for w in group
                    ],
                )
            out_ns: dict[str, list[str]] = {}
            for w in leaving:
                out_ns.setdefault(w.precedent.namespace, []).append(w.precedent.id)
            for ns, pids in out_ns.items():
                self._active_collection(ns).delete(ids=pids)

    def load_precedents(self) -> list[Precedent]:
        """Every archived precedent view."""
        with self._lock:
            got = self._get_all(self._archive, None, ["metadatas"])
        out = []
        for meta in got["metadatas"]:
            out.append(Precedent.from_dict(json.loads(str(meta["tepa_view"]))))
        return out

    def active_ids(self, namespace: str) -> set[str]:
        """Ids in the retrievable set of ``namespace`` (for consistency checks)."""
        with self._lock:
            got = self._get_all(self._active_collection(namespace), None, [])
        return set(got["ids"])

    def query_active(
        self,
        namespace: str,
        embedding: Sequence[float],
        k: int,
        *,
        key_prefix: str | None = None,
    ) -> list[tuple[str, float]]:
        """Nearest Active precedents of ``namespace`` (cosine similarity)."""
        col = self._active_collection(namespace)
        where = {"tepa_key_path": {"$contains": key_prefix}} if key_prefix else None
        try:
            res = col.query(
                query_embeddings=[list(embedding)],
                n_results=k,
                where=where,
                include=["distances"],
            )
        except Exception as exc:
            raise StorageError(f"Chroma query failed: {exc}") from exc
        ids = res["ids"][0] if res["ids"] else []
        dists = res["distances"][0] if res.get("distances") else [0.0] * len(ids)
        return [(pid, 1.0 - float(d)) for pid, d in zip(ids, dists, strict=True)]

    # ---------------------------------------------------------------- meta
    def get_meta(self, name: str) -> str | None:
        """A named string from the meta collection."""
        got = self._meta.get(ids=[name], include=["documents"])
        docs = got.get("documents") or []
        return str(docs[0]) if got["ids"] and docs else None

    def set_meta(self, name: str, value: str) -> None:
        """Set a named string."""
        self._meta.upsert(ids=[name], embeddings=[[1.0]], documents=[value])

    def close(self) -> None:
        """Forget cached collection handles (the client is the caller's)."""
        self._active.clear()

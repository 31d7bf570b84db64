"""`ChromaStorage`: evidence, archive and per-namespace retrievable sets in Chroma collections.

Layout (``prefix`` defaults to ``"tepa"``):

* ``{prefix}_evidence``: one record per evidence, a one-dimension placeholder vector (no vector
  search is needed there) and in metadata its JSON (``tepa_json``), ``tepa_nk`` (a hash of
  namespace and key), ``tepa_namespace`` and ``tepa_time``. (Stores written before 0.1 kept the
  JSON as the document; both are read.)
* ``{prefix}_archive``: every precedent in any state with its embedding and its lifecycle in
  metadata (``tepa_state``, ``tepa_namespace``, ``tepa_key``, ``tepa_value`` (JSON),
  ``tepa_support``, ``tepa_conflict``, ``tepa_validity``, ``tepa_created_at``,
  ``tepa_updated_at``, and the full view with its transitions as JSON in ``tepa_view``), so
  audit and archive queries can filter on them (``where={"tepa_state": "revoked"}``).
* ``{prefix}_a_{hash(namespace)}``: only the Active precedents of one namespace (embedding and
  ``tepa_key_path``). Retrieval queries this collection with no metadata filter (design.md
  section 4: a filter on a shared collection costs 20-50x at scale).

Write costs: Chroma's cost per record grows with its metadata entries and documents (a
document is indexed for full-text search), so records carry only what is filtered on plus one
JSON string. The archive view is written after any retrievable-set change of the same write,
so an archive state that agrees with the fold of the evidence also witnesses the retrievable
set (opening a memory checks only the archive; ``reconcile()`` checks every set).

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
from typing import Any, TypeVar

from langchain_tepa.core.errors import InvalidArgumentError, StorageError
from langchain_tepa.core.types import Evidence, Lifecycle, Precedent
from langchain_tepa.core.values import canonical_json, short_hash
from langchain_tepa.storage.base import PrecedentWrite, key_path

__all__ = ["ChromaStorage"]

_T = TypeVar("_T")

_PREFIX = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{1,40}$")
_PAGE = 5000
_SEQ = re.compile(r"^(.+)\.(\d+)$")


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
        try:  # Chroma rejects larger writes; view writes are split into chunks of this size
            self._max_batch = max(1, min(_PAGE, int(client.get_max_batch_size())))
        except Exception:  # older clients or servers without the call
            self._max_batch = _PAGE
        # Highest sequence number appended per id prefix ("writer.instance") by this object.
        self._seq: dict[str, int] = {}

    # ---------------------------------------------------------------- evidence
    def _unproven(self, ids: Sequence[str]) -> list[str]:
        """Ids that may already be stored, so need a lookup before ``add``.

        ``TEPAMemory`` ids are ``{writer}.{instance}.{counter}`` with a random 64-bit instance
        and an increasing counter. Once the first batch of a prefix has been checked against
        the store, a later id of that prefix with a higher counter is new by construction, so
        the per-append lookup round trip is paid once per prefix, not once per call.
        """
        out = []
        for eid in ids:
            m = _SEQ.match(eid)
            last = self._seq.get(m.group(1)) if m else None
            if m is None or last is None or int(m.group(2)) <= last:
                out.append(eid)
        return out

    def append_evidence(self, records: Sequence[Evidence]) -> None:
        """Append evidence records (one Chroma ``add``).

        Raises:
            StorageError: If an id is repeated in ``records`` or already stored (Chroma would
                silently ignore it); nothing is written then.
        """
        if not records:
            return
        with self._lock:
            ids = [ev.id for ev in records]
            if len(set(ids)) != len(ids):
                raise StorageError("evidence ids repeat within one append; ids must be unique")
            check = self._unproven(ids)
            if check:
                found = self._evidence.get(ids=check, include=[])["ids"]
                if found:
                    raise StorageError(f"evidence ids already stored: {found[:3]}")
            self._evidence.add(
                ids=ids,
                embeddings=[[1.0] for _ in records],
                metadatas=[
                    {
                        "tepa_json": ev.to_json(),
                        "tepa_nk": _nk(ev.namespace, ev.key),
                        "tepa_namespace": ev.namespace,
                        "tepa_time": float(ev.time),
                    }
                    for ev in records
                ],
            )
            for eid in ids:
                m = _SEQ.match(eid)
                if m is not None:
                    prefix, num = m.group(1), int(m.group(2))
                    self._seq[prefix] = max(num, self._seq.get(prefix, -1))

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
            got = self._get_all(self._evidence, where, ["metadatas"])
            texts: list[str | None] = [
                (m or {}).get("tepa_json") if isinstance((m or {}).get("tepa_json"), str) else None
                for m in got["metadatas"]
            ]
            old = [pid for pid, t in zip(got["ids"], texts, strict=True) if t is None]
            if old:  # records of the earlier layout keep their JSON as the document
                docs: dict[str, Any] = {}
                for start in range(0, len(old), _PAGE):
                    page = self._evidence.get(ids=old[start : start + _PAGE], include=["documents"])
                    docs.update(zip(page["ids"], page["documents"] or [], strict=False))
                texts = [
                    t if t is not None else docs.get(pid)
                    for pid, t in zip(got["ids"], texts, strict=True)
                ]
        records = [Evidence.from_json(str(t)) for t in texts if t is not None]
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
            # Retrievable sets first, archive last: the archive state then witnesses them.
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
            for part in self._chunks(need):
                got = self._archive.get(ids=part, include=["embeddings"])
                for pid, emb in zip(got["ids"], got["embeddings"], strict=True):
                    vectors[pid] = [float(x) for x in emb]
            by_ns: dict[str, list[PrecedentWrite]] = {}
            for w in entering:
                by_ns.setdefault(w.precedent.namespace, []).append(w)
            for ns, everyone in by_ns.items():
                for group in self._chunks(everyone):
                    self._upsert_active(ns, group, vectors)
            out_ns: dict[str, list[str]] = {}
            for w in leaving:
                out_ns.setdefault(w.precedent.namespace, []).append(w.precedent.id)
            for ns, pids in out_ns.items():
                for part in self._chunks(pids):
                    self._active_collection(ns).delete(ids=part)
            for part_new in self._chunks(new):
                self._archive.add(
                    ids=[w.precedent.id for w in part_new],
                    embeddings=[list(w.embedding or []) for w in part_new],
                    metadatas=[self._archive_meta(w.precedent) for w in part_new],
                )
            for part_old in self._chunks(old):
                self._archive.update(
                    ids=[w.precedent.id for w in part_old],
                    metadatas=[self._archive_meta(w.precedent) for w in part_old],
                )

    def _chunks(self, items: Sequence[_T]) -> list[Sequence[_T]]:
        size = self._max_batch
        return [items[i : i + size] for i in range(0, len(items), size)]

    def _upsert_active(
        self, ns: str, group: Sequence[PrecedentWrite], vectors: dict[str, list[float]]
    ) -> None:
        self._active_collection(ns).upsert(
            ids=[w.precedent.id for w in group],
            embeddings=[
                list(w.embedding) if w.embedding is not None else vectors[w.precedent.id]
                for w in group
            ],
            metadatas=[{"tepa_key_path": key_path(w.precedent.key)} for w in group],
        )

    def load_precedents(self) -> list[Precedent]:
        """Every archived precedent view."""
        with self._lock:
            got = self._get_all(self._archive, None, ["metadatas"])
        out = []
        for meta in got["metadatas"]:
            out.append(Precedent.from_dict(json.loads(str(meta["tepa_view"]))))
        return out

    def precedent_states(self) -> dict[str, Lifecycle]:
        """The state of every archived view by precedent id (no JSON parsing: cheap)."""
        with self._lock:
            got = self._get_all(self._archive, None, ["metadatas"])
        return {
            pid: Lifecycle(str(meta["tepa_state"]))
            for pid, meta in zip(got["ids"], got["metadatas"], strict=True)
        }

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

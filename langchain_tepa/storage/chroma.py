"""`ChromaStorage`: evidence pages, an archive and per-namespace retrievable sets in Chroma.

Layout (``prefix`` defaults to ``"tepa"``), version 2:

* ``{prefix}_evidence``: the evidence log in immutable *pages* of up to 1,000 records; the
  pages of one append (one ``observe_many`` batch) are written by one Chroma ``add``, so a
  batch survives a crash whole or not at all. A page has a
  one-dimension placeholder vector (no vector search is needed there) and in metadata its
  records as a JSON array (``tepa_page``), their ids (``tepa_ids``), the hashes of their
  namespace and key (``tepa_nks``), their namespaces (``tepa_namespaces``), their first and last
  times (``tepa_time_min``, ``tepa_time_max``) and their number (``tepa_count``, also in
  the page id ``p#{count}#{first id}``, so counting evidence reads ids only). Stores written
  before layout 2 hold one record per evidence (JSON in ``tepa_json`` or, earlier, in the
  document); both are read.
* ``{prefix}_a_{hash(namespace)}``: the retrievable set of one namespace: its **Active**
  precedents, each with its embedding, ``tepa_key_path`` (for key-prefix scoping) and its
  lifecycle metadata (below). Retrieval queries this collection with no metadata filter
  (design.md section 4: a filter on a shared collection costs 20-50x at scale).
* ``{prefix}_archive``: every precedent that is **not** Active (Hypothesis and Revoked), with
  its embedding, so re-promotion needs no re-embedding.

Each precedent is stored once, where its state puts it, with its lifecycle in metadata
(``tepa_state``, ``tepa_namespace``, ``tepa_key``, ``tepa_value`` (JSON), ``tepa_support``,
``tepa_conflict``, ``tepa_validity``, ``tepa_created_at``, ``tepa_updated_at``, and the full
view with its transitions as JSON in ``tepa_view``), so audit and archive queries can filter on
them (``where={"tepa_state": "revoked"}`` on the archive). A state change that crosses the
boundary *moves* the record: written to its new collection first, then deleted from the old one,
so a crash in between leaves it in both places (never in neither), which opening repairs.

Why this layout: Chroma's cost per written record is a fixed part, the vector index insert and
about 0.04 ms per metadata entry; one record per precedent and one per batch of evidence is the
least that keeps every field the design asks for (see the README, "Performance at scale").

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
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from langchain_tepa.core.errors import InvalidArgumentError, StorageError
from langchain_tepa.core.types import Evidence, Lifecycle, Precedent
from langchain_tepa.core.values import canonical_json, short_hash
from langchain_tepa.storage.base import PrecedentWrite, key_path

__all__ = ["ChromaStorage", "StoredPlace"]

_T = TypeVar("_T")

_PREFIX = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{1,40}$")
_PAGE = 5000
_SEQ = re.compile(r"^(.+)\.(\d+)$")
_OR_CHUNK = 200
_MOVE_LOOKUPS = 3
# Records per evidence page: Chroma binds every list element of a record's metadata as SQL
# parameters, and a page of 4,000 (ids and key hashes) fails where 2,000 passes.
_PAGE_RECORDS = 1000
# Chroma replays a collection's write log that its vector index has not yet persisted on
# every write, and persists only every ``hnsw:sync_threshold`` records (default 1,000); the
# persist itself writes only what changed. A low threshold keeps each write's fixed cost flat:
# measured on this machine, 300 adds of a 55 KB page cost 157 ms each at the end with the
# default and 11 ms with a threshold of 2 (README, "Performance at scale").
_EVIDENCE_HNSW: dict[str, Any] = {"hnsw:sync_threshold": 2, "hnsw:batch_size": 2}
_ACTIVE_HNSW: dict[str, Any] = {
    "hnsw:space": "cosine",
    "hnsw:sync_threshold": 100,
    "hnsw:batch_size": 100,
}
_ARCHIVE_HNSW: dict[str, Any] = {
    "hnsw:space": "cosine",
    "hnsw:sync_threshold": 500,
    "hnsw:batch_size": 100,
}


def _nk(namespace: str, key: str) -> str:
    return short_hash(f"{namespace}\x1f{key}", 24)


def _page_count(page_id: str) -> int:
    """Records in the evidence page ``page_id`` (1 for a record of the older layouts)."""
    if page_id.startswith("p#"):
        count, _, _ = page_id[2:].partition("#")
        if count.isdigit():
            return int(count)
    return 1


def _where(clauses: list[dict[str, Any]], op: str = "$and") -> dict[str, Any] | None:
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {op: clauses}


@dataclass(frozen=True)
class StoredPlace:
    """Where a precedent's record is stored (read by ids only, so opening is cheap).

    Attributes:
        active: It is in the retrievable set of its namespace.
        archived: Its state as recorded in the archive, or ``None`` if it is not there.

    Example:
        >>> StoredPlace(active=True, archived=None).active
        True
    """

    active: bool
    archived: Lifecycle | None


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
                f"{prefix}_evidence", embedding_function=None, metadata=_EVIDENCE_HNSW
            )
            self._archive = client.get_or_create_collection(
                f"{prefix}_archive", embedding_function=None, metadata=_ARCHIVE_HNSW
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
        #: Embeds precedents whose stored vector was lost to two writers moving them at once
        #: (``TEPAMemory`` sets it to its embeddings); ``None`` makes that an error instead.
        self.reembed: Callable[[Sequence[Precedent]], list[list[float]]] | None = None

    # ---------------------------------------------------------------- evidence
    def _unproven(self, ids: Sequence[str]) -> list[str]:
        """Ids that may already be stored, so need a lookup before ``add``.

        ``TEPAMemory`` ids are ``{writer}.{instance}.{counter}`` with a random 64-bit instance
        and an increasing counter. Once the first batch of a prefix has been checked against
        the store, a later id of that prefix with a higher counter is new by construction, so
        the lookup is paid once per prefix, not once per call.
        """
        out = []
        for eid in ids:
            m = _SEQ.match(eid)
            last = self._seq.get(m.group(1)) if m else None
            if m is None or last is None or int(m.group(2)) <= last:
                out.append(eid)
        return out

    def _stored_ids(self, ids: Sequence[str]) -> list[str]:
        """Which of ``ids`` are already stored, in a page or as a record of an older layout."""
        found: set[str] = set()
        for part in range(0, len(ids), _OR_CHUNK):
            chunk = list(ids[part : part + _OR_CHUNK])
            where = _where([{"tepa_ids": {"$contains": eid}} for eid in chunk], "$or")
            got = self._evidence.get(where=where, include=["metadatas"])
            wanted = set(chunk)
            for meta in got["metadatas"] or []:
                found.update(wanted.intersection((meta or {}).get("tepa_ids") or []))
            found.update(self._evidence.get(ids=chunk, include=[])["ids"])
        return sorted(found)

    def append_evidence(self, records: Sequence[Evidence]) -> None:
        """Append evidence records as pages written by one Chroma ``add`` (all or nothing).

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
                found = self._stored_ids(check)
                if found:
                    raise StorageError(f"evidence ids already stored: {found[:3]}")
            pages = [records[i : i + _PAGE_RECORDS] for i in range(0, len(records), _PAGE_RECORDS)]
            # One add for the whole append, so Chroma stores every page of it or none.
            self._evidence.add(
                ids=[f"p#{len(page)}#{page[0].id}" for page in pages],
                embeddings=[[1.0] for _ in pages],
                metadatas=[self._page_meta(page) for page in pages],
            )
            for eid in ids:
                m = _SEQ.match(eid)
                if m is not None:
                    prefix, num = m.group(1), int(m.group(2))
                    self._seq[prefix] = max(num, self._seq.get(prefix, -1))

    @staticmethod
    def _page_meta(page: Sequence[Evidence]) -> dict[str, Any]:
        times = [float(ev.time) for ev in page]
        return {
            "tepa_page": "[" + ",".join(ev.to_json() for ev in page) + "]",
            "tepa_ids": [ev.id for ev in page],
            "tepa_nks": sorted({_nk(ev.namespace, ev.key) for ev in page}),
            "tepa_namespaces": sorted({ev.namespace for ev in page}),
            "tepa_time_min": min(times),
            "tepa_time_max": max(times),
            "tepa_count": len(page),
        }

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
            nk = _nk(namespace, key)
            clauses.append(_where([{"tepa_nks": {"$contains": nk}}, {"tepa_nk": nk}], "$or") or {})
        elif namespace is not None:
            clauses.append(
                _where(
                    [{"tepa_namespaces": {"$contains": namespace}}, {"tepa_namespace": namespace}],
                    "$or",
                )
                or {}
            )
        if since is not None:
            clauses.append(
                _where(
                    [
                        {"tepa_time_max": {"$gte": float(since)}},
                        {"tepa_time": {"$gte": float(since)}},
                    ],
                    "$or",
                )
                or {}
            )
        # Reads take no lock: Chroma serves them consistently, and opening a memory reads the
        # evidence and the stored places at the same time (see TEPAMemory._open).
        got = self._get_all(self._evidence, _where(clauses), ["metadatas"])
        records = list(self._parse(got["ids"], got["metadatas"]))
        records = [
            ev
            for ev in records
            if (namespace is None or ev.namespace == namespace)
            and (key is None or ev.key == key)
            and (since is None or ev.time >= since)
        ]
        return sorted(records, key=lambda e: e.sort_key)

    def _parse(self, ids: Sequence[str], metas: Sequence[Any]) -> Iterable[Evidence]:
        old: list[str] = []  # records of layout 0 keep their JSON as the document
        for rid, meta in zip(ids, metas, strict=True):
            meta = meta or {}
            page = meta.get("tepa_page")
            if isinstance(page, str):
                yield from (Evidence.from_dict(d) for d in json.loads(page))
            elif isinstance(meta.get("tepa_json"), str):
                yield Evidence.from_json(str(meta["tepa_json"]))
            else:
                old.append(rid)
        for start in range(0, len(old), _PAGE):
            docs = self._evidence.get(ids=old[start : start + _PAGE], include=["documents"])
            for doc in docs["documents"] or []:
                if doc is not None:
                    yield Evidence.from_json(str(doc))

    def count_evidence(self) -> int:
        """Number of evidence records (reads page ids only)."""
        with self._lock:
            got = self._get_all(self._evidence, None, [])
        return sum(_page_count(rid) for rid in got["ids"])

    # ---------------------------------------------------------------- precedents
    def _active_collection(self, namespace: str) -> Any:
        col = self._active.get(namespace)
        if col is None:
            with self._lock:
                col = self._active.get(namespace)
                if col is None:
                    col = self.client.get_or_create_collection(
                        f"{self.prefix}_a_{short_hash(namespace, 24)}",
                        embedding_function=None,
                        metadata=_ACTIVE_HNSW,
                    )
                    self._active[namespace] = col
        return col

    def _active_collections(self) -> list[Any]:
        """Every retrievable-set collection of this prefix (also namespaces not yet cached)."""
        head = f"{self.prefix}_a_"
        out = []
        for item in self.client.list_collections():
            name = str(getattr(item, "name", item))
            if name.startswith(head) and len(name) == len(head) + 24:
                out.append(self.client.get_collection(name, embedding_function=None))
        return out

    @staticmethod
    def _meta_of(p: Precedent) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "tepa_state": p.state.value,
            "tepa_namespace": p.namespace,
            "tepa_key": p.key,
            "tepa_value": canonical_json(p.value),
            "tepa_support": p.support,
            "tepa_conflict": p.conflict,
            "tepa_validity": float(p.validity),
            "tepa_created_at": float(p.created_at),
            "tepa_updated_at": float(p.updated_at),
            "tepa_view": json.dumps(p.to_dict(), ensure_ascii=False, separators=(",", ":")),
        }
        if p.state is Lifecycle.ACTIVE:
            meta["tepa_key_path"] = key_path(p.key)
        return meta

    def write_precedents(self, writes: Sequence[PrecedentWrite]) -> None:
        """Apply view changes: new records, metadata updates and moves between collections.

        A write's ``was_active`` says where the record is now (retrievable set or archive);
        the precedent's state says where it belongs. A move writes the new place first and
        deletes the old one after, so a crash never loses the record.
        """
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
            if any(w.embedding is None for w in latest.values() if w.is_new):
                raise StorageError("a new precedent needs an embedding")
            # Group by (where it goes, where it is): None is the archive, a str the namespace.
            adds: dict[str | None, list[PrecedentWrite]] = {}
            updates: dict[str | None, list[PrecedentWrite]] = {}
            moves: dict[tuple[str | None, str | None], list[PrecedentWrite]] = {}
            for w in latest.values():
                p = w.precedent
                to = p.namespace if p.state is Lifecycle.ACTIVE else None
                if w.is_new:
                    adds.setdefault(to, []).append(w)
                    continue
                at = p.namespace if w.was_active else None
                if at == to:
                    updates.setdefault(to, []).append(w)
                else:
                    moves.setdefault((to, at), []).append(w)
            for to, group in adds.items():
                for part in self._chunks(group):
                    self._place(to).add(
                        ids=[w.precedent.id for w in part],
                        embeddings=[list(w.embedding or []) for w in part],
                        metadatas=[self._meta_of(w.precedent) for w in part],
                    )
            for (to, at), group in moves.items():
                for part in self._chunks(group):
                    self._move(to, at, part)
            for to, group in updates.items():
                for part in self._chunks(group):
                    self._place(to).update(
                        ids=[w.precedent.id for w in part],
                        metadatas=[self._meta_of(w.precedent) for w in part],
                    )

    def _place(self, namespace: str | None) -> Any:
        return self._archive if namespace is None else self._active_collection(namespace)

    def _move(self, to: str | None, at: str | None, part: Sequence[PrecedentWrite]) -> None:
        source, target = self._place(at), self._place(to)
        vectors: dict[str, list[float]] = {}
        need = {w.precedent.id for w in part if w.embedding is None}
        for attempt in range(_MOVE_LOOKUPS):
            # Look in both places: a repair may find a record in both, and another writer may
            # be moving it the other way right now (it is then briefly in neither: look again).
            for col in (source, target):
                missing = [pid for pid in need if pid not in vectors]
                if missing:
                    got = col.get(ids=missing, include=["embeddings"])
                    for pid, emb in zip(got["ids"], got["embeddings"], strict=True):
                        vectors[pid] = [float(x) for x in emb]
            if all(pid in vectors for pid in need):
                break
            time.sleep(0.01 * (attempt + 1))
        lost = [
            w.precedent for w in part if w.precedent.id in need and w.precedent.id not in vectors
        ]
        if lost:
            # Two writers moved it in opposite directions and both deleted: embed it again.
            if self.reembed is None:
                raise StorageError(
                    f"precedent records {[p.id for p in lost[:3]]} are in neither the archive "
                    "nor the retrievable set; call reconcile() to rebuild them from the evidence"
                )
            vectors.update(zip([p.id for p in lost], self.reembed(lost), strict=True))
        target.upsert(
            ids=[w.precedent.id for w in part],
            embeddings=[
                list(w.embedding) if w.embedding is not None else vectors[w.precedent.id]
                for w in part
            ],
            metadatas=[self._meta_of(w.precedent) for w in part],
        )
        source.delete(ids=[w.precedent.id for w in part])

    def _chunks(self, items: Sequence[_T]) -> list[Sequence[_T]]:
        size = self._max_batch
        return [items[i : i + size] for i in range(0, len(items), size)]

    def load_precedents(self) -> list[Precedent]:
        """Every stored precedent view: the archive's and every retrievable set's."""
        out = []
        with self._lock:
            for col in [self._archive, *self._active_collections()]:
                got = self._get_all(col, None, ["metadatas"])
                for meta in got["metadatas"]:
                    view = (meta or {}).get("tepa_view")
                    if isinstance(view, str):  # layout 1 sets held ids and key paths only
                        out.append(Precedent.from_dict(json.loads(view)))
        return out

    def precedent_places(self, *, active_sets: bool = True) -> dict[str, StoredPlace]:
        """Where each stored precedent is, read from ids only (no view JSON is parsed).

        Args:
            active_sets: Also read every retrievable set (one ``get`` per namespace, each
                loading that collection); ``False`` reads the archive only.
        """
        archived: dict[str, Lifecycle] = {}
        active: set[str] = set()
        for state in Lifecycle:
            got = self._get_all(self._archive, {"tepa_state": state.value}, [])
            archived.update(dict.fromkeys(got["ids"], state))
        for col in self._active_collections() if active_sets else []:
            active.update(self._get_all(col, None, [])["ids"])
        return {
            pid: StoredPlace(active=pid in active, archived=archived.get(pid))
            for pid in active | set(archived)
        }

    def archived_ids(self, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` the archive holds."""
        found: set[str] = set()
        for part in self._chunks(list(ids)):
            found.update(self._archive.get(ids=list(part), include=[])["ids"])
        return found

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

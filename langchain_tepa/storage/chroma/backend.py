"""`ChromaStorage`: the storage protocol on any chromadb client, in layout 3 (``layout.py``).

Cost follows what a call touches: a namespace's head is one read by id; its pages and its
vectors are one filtered read each in its shard; a commit is one ``upsert`` per shard touched
(pages with head bumps) plus one per vector collection touched, and a ``delete`` of absent ids
where its large pages made a shard's log tail worth settling (``tail.py``). Opening reads the
layout record only.

Example:
    >>> import chromadb
    >>> from chromadb.config import Settings
    >>> client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    >>> storage = ChromaStorage(client, prefix="doc_example")
    >>> storage.read_heads(["users.u1"])
    {}
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from langchain_tepa.core.errors import ReadOnlyError
from langchain_tepa.core.log import Head, NamespaceSummary, Page
from langchain_tepa.core.types import Precedent
from langchain_tepa.storage.base import (
    Commit,
    NamespaceScan,
    NamespaceWrite,
    PageRequest,
    key_path,
)
from langchain_tepa.storage.chroma import codec
from langchain_tepa.storage.chroma.directory import (
    NamesDirectory,
    names_under,
    registration_tokens,
    token_id,
    token_meta,
)
from langchain_tepa.storage.chroma.epochs import (
    NAMES_SLOT,
    EpochBatch,
    EpochKey,
    current,
    folder_of,
)
from langchain_tepa.storage.chroma.errors import describe_client, is_not_found, translate
from langchain_tepa.storage.chroma.layout import (
    EVIDENCE_HNSW,
    MAX_PAGE_NAMESPACES,
    PAGE_BYTES,
    PAGE_RECORDS,
    VECTOR_HNSW,
    Layout,
    validate_prefix,
)
from langchain_tepa.storage.chroma.local import FolderLock
from langchain_tepa.storage.chroma.tail import CLOSE_BYTES, LogTail, settle

if TYPE_CHECKING:
    from langchain_tepa.storage.chroma.upgrade import ViewUpgradeReport

__all__ = ["ChromaStorage"]

_T = TypeVar("_T")
_READ_PAGE = 5000
_READ_NAMESPACES = 100
_PLACEHOLDER = [1.0]
_HEADED_HELD = 65536  # namespaces remembered to have a head (forgotten all at once beyond)
MARKS_WAIT_S = 0.5
"""Seconds a layout 5 view mark waits for a commit to its head's shard to carry it, before
it is written on its own at the next call (readers heal views only after twice the memory's
flush interval: 4 s by default)."""
_log = logging.getLogger("langchain_tepa")


def _b64(dimensions: int) -> int:
    """Characters of a float32 vector of ``dimensions`` in base64 (``codec.encode_vector``)."""
    return 4 * -(-4 * dimensions // 3)


def _where(clauses: list[dict[str, Any]], op: str = "$and") -> dict[str, Any]:
    return clauses[0] if len(clauses) == 1 else {op: clauses}


def _part_wanted(req: PageRequest, page: Page) -> bool:
    """Whether a namespace's part of a shard page answers ``req``.

    The page's own metadata (streams, times, keys) is that of every part together, so a
    filtered read may return a shard page for one part that another part does not match.
    """
    if req.after is not None and page.seq <= req.after.get(page.stream, page.seq):
        return False
    if req.key is not None and not any(ev.key == req.key for ev in page.records):
        return False
    return not (
        req.until is not None and page.records and min(ev.time for ev in page.records) > req.until
    )


class ChromaStorage:
    """A :class:`~langchain_tepa.storage.base.StorageBackend` on any chromadb client.

    Args:
        client: A chromadb client: ``PersistentClient`` (embedded; see
            ``TEPAMemory.from_path``), ``EphemeralClient`` or ``HttpClient`` (server mode).
        prefix: Collection name prefix, so several memories can share one Chroma.
        shards: Shards of a new store (default 16); an existing store keeps its own.
        dedicated_at: Precedents above which a namespace gets its own vector collection
            (a new store only; default 5,000).
        read_only: Create and change nothing (a store that does not exist reads as empty).

    Raises:
        StorageError: If the store cannot be opened (unreachable server, newer layout, a read-only
            store that needs a migration); the message says what to do.

    Example:
        >>> import chromadb
        >>> from chromadb.config import Settings
        >>> from langchain_tepa import TEPAMemory
        >>> client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
        >>> memory = TEPAMemory.from_client(client, prefix="doc_chroma")
        >>> memory.observe("user.diet", "vegan").precedent.state.value
        'active'
    """

    def __init__(
        self,
        client: Any,
        *,
        prefix: str = "tepa",
        shards: int | None = None,
        dedicated_at: int | None = None,
        read_only: bool = False,
    ) -> None:
        validate_prefix(prefix)
        self.client = client
        self.prefix = prefix
        self.read_only = bool(read_only)
        self.where = describe_client(client)
        self._cols: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._dedicated: set[str] = set()
        self._headed: set[str] = set()  # namespaces seen with a head (heads are never removed)
        self._names_cache = NamesDirectory()
        folder = folder_of(client)
        self._epochs = EpochKey(folder, prefix) if folder is not None else None
        self._owner: tuple[FolderLock, int] | None = None  # (held lock, pid): claim_folder
        # Layout 5: view marks whose views are stored, waiting for a commit to the shard of
        # their head to carry them (shard -> namespace -> stream -> seq), and since when.
        self._marks: dict[int, dict[str, dict[str, int]]] = {}
        self._marks_since: dict[int, float] = {}
        self._marks_lock = threading.Lock()
        self._tail = LogTail()  # metadata bytes per evidence shard since its last settle
        self._max_batch = 5000
        try:
            self._max_batch = max(1, min(5000, int(client.get_max_batch_size())))
        except Exception:  # older clients, async proxies without the call
            self._max_batch = 5000
        from langchain_tepa.storage.chroma.opening import open_layout

        self.layout: Layout = open_layout(self, shards=shards, dedicated_at=dedicated_at)

    # ---------------------------------------------------------------- plumbing
    def call(self, op: str, fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        """Run a Chroma call; its exceptions become typed errors naming the store."""
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            raise translate(exc, self.where, op) from exc

    def collection(self, name: str, *, create: bool, hnsw: Mapping[str, Any] | None = None) -> Any:
        """The collection ``name`` (created when ``create`` and writable), or ``None``."""
        col = self._cols.get(name)
        if col is not None:
            return col
        if create and not self.read_only:
            col = self.call(
                "open collection",
                self.client.get_or_create_collection,
                name,
                embedding_function=None,
                metadata=dict(hnsw) if hnsw else None,
            )
        else:
            try:
                col = self.client.get_collection(name, embedding_function=None)
            except Exception as exc:
                if is_not_found(exc) or (isinstance(exc, ValueError) and "not exist" in str(exc)):
                    return None
                raise translate(exc, self.where, "open collection") from exc
        with self._lock:
            self._cols[name] = col
        return col

    def forget(self, name: str) -> None:
        """Drop the cached handle of collection ``name`` (it was deleted)."""
        with self._lock:
            self._cols.pop(name, None)

    def get_all(
        self, col: Any, where: dict[str, Any] | None, include: list[str]
    ) -> dict[str, list[Any]]:
        """Every record of ``col`` matching ``where`` (read in pages)."""
        out: dict[str, list[Any]] = {"ids": [], **{name: [] for name in include}}
        offset = 0
        while True:
            got = self.call(
                "get", col.get, where=where, include=include, limit=_READ_PAGE, offset=offset
            )
            out["ids"].extend(got["ids"])
            for name in include:
                values = got.get(name)
                out[name].extend(list(values) if values is not None else [])
            if len(got["ids"]) < _READ_PAGE:
                return out
            offset += _READ_PAGE

    def _chunks(self, items: Sequence[_T]) -> list[Sequence[_T]]:
        size = self._max_batch
        return [items[i : i + size] for i in range(0, len(items), size)]

    def _writable(self) -> None:
        if self.read_only:
            raise ReadOnlyError(
                f"the {self.where} (prefix {self.prefix!r}) was opened read-only; open it "
                "without read_only to write"
            )

    def _evidence(self, shard: int, *, create: bool) -> Any:
        return self.collection(self.layout.evidence(shard), create=create, hnsw=EVIDENCE_HNSW)

    def _by_shard(self, namespaces: Sequence[str]) -> dict[int, list[str]]:
        out: dict[int, list[str]] = {}
        for ns in dict.fromkeys(namespaces):
            out.setdefault(self.layout.shard(ns), []).append(ns)
        return out

    def is_dedicated(self, namespace: str) -> bool:
        """Whether ``namespace`` has a vector collection of its own (as last seen)."""
        return namespace in self._dedicated

    def mark_dedicated(self, namespace: str) -> None:
        """Record that ``namespace`` now has a vector collection of its own."""
        self._dedicated.add(namespace)

    # ---------------------------------------------------------------- write epochs
    def claim_folder(self, lock: FolderLock) -> None:
        """Vouch for this store's write epochs while ``lock`` (this client's folder) is held.

        ``TEPAMemory.from_path`` calls it with the lock it took: while this process holds it,
        no other process appends to the folder, so :meth:`local_epoch` can say whether a
        namespace's head could have changed. A lock on another folder, or no lock (a private
        snapshot copy), is ignored.
        """
        if self._epochs is not None and lock.held and lock.key == self._epochs.folder:
            self._owner = (lock, os.getpid())

    def local_epoch(self, namespace: str) -> int | None:
        """The write epoch of ``namespace``'s shard, or ``None`` when this cannot vouch.

        Only a store opened on a folder this process holds locked (:meth:`claim_folder`)
        vouches, and not in a forked child (the parent may write too). An unchanged epoch
        means no write to the shard returned (or failed) since it was read, views and view
        marks aside (they change no answer; :meth:`write_views`).
        """
        return self._epoch_of(self.layout.shard(namespace))

    def names_epoch(self) -> int | None:
        """The write epoch of the names directory, or ``None`` when this cannot vouch.

        As :meth:`local_epoch`, for the registrations: an unchanged epoch means no namespace
        was registered since it was read (``NamesDirectory`` then skips its ``count``).
        """
        return self._epoch_of(NAMES_SLOT)

    def _epoch_of(self, slot: int) -> int | None:
        owner, key = self._owner, self._epochs
        if owner is None or key is None or not owner[0].held or owner[1] != os.getpid():
            return None
        return current(key, slot)

    @contextmanager
    def _writing(self, *slots: int) -> Iterator[None]:
        """Around a write to ``slots`` (shards, or the names directory): bump their epochs after.

        Writes nested in one outer write (a commit's views and index vectors) bump each slot
        once, when the outer one returns or raises (:class:`EpochBatch`).
        """
        with EpochBatch(self._epochs) as batch:
            batch.slots.update(slots)
            yield

    # ---------------------------------------------------------------- heads
    def read_heads(self, namespaces: Sequence[str]) -> dict[str, Head]:
        """Heads of ``namespaces`` (one read by id per shard)."""
        return self._heads(namespaces)[0]

    def _heads(
        self, namespaces: Sequence[str], token_of: str | None = None
    ) -> tuple[dict[str, Head], str | None]:
        """Heads of ``namespaces``, and ``token_of``'s registration token, in one read per shard.

        The token is ``None`` when the prefix has none (or when ``token_of`` is ``None``).
        """
        out: dict[str, Head] = {}
        token: str | None = None
        groups = self._by_shard(namespaces)
        if token_of is not None:
            groups.setdefault(self.layout.shard(token_of), [])
        wanted_token = token_id(token_of) if token_of is not None else None
        for shard, names in groups.items():
            col = self._evidence(shard, create=False)
            if col is None:
                continue
            wanted = set(names)
            ids = [codec.head_id(ns) for ns in names]
            if wanted_token is not None and shard == self.layout.shard(str(token_of)):
                ids.append(wanted_token)
            got = self.call("read heads", col.get, ids=ids, include=["metadatas"])
            for rid, meta in zip(got["ids"], got["metadatas"] or [], strict=False):
                if rid == wanted_token:
                    value = (meta or {}).get("tepa_dtok")
                    token = value if isinstance(value, str) else None
                    continue
                head = codec.decode_head(meta or {})
                if head.namespace in wanted:
                    out[head.namespace] = head
                    if head.dedicated:
                        self._dedicated.add(head.namespace)
        self._note_headed(out)
        return out, token

    def _note_headed(self, names: Iterable[str]) -> None:
        if len(self._headed) > _HEADED_HELD:
            self._headed.clear()
        self._headed.update(names)

    def list_heads(self) -> Iterator[Head]:
        """Every namespace's head, shard by shard."""
        for shard in range(self.layout.shards):
            col = self._evidence(shard, create=False)
            if col is None:
                continue
            got = self.get_all(col, {"tepa_kind": "head"}, ["metadatas"])
            for meta in got["metadatas"]:
                head = codec.decode_head(meta or {})
                if head.dedicated:
                    self._dedicated.add(head.namespace)
                yield head

    def _names(self, *, create: bool) -> Any:
        return self.collection(f"{self.prefix}_names", create=create, hnsw=EVIDENCE_HNSW)

    def find_namespaces(self, prefix: str | None = None) -> list[str]:
        """Namespaces equal to ``prefix`` or below it on label boundaries.

        The names directory only grows (a namespace is registered once and never removed), so
        its record count tells whether the names read before are still all of them: a cached
        directory costs one ``count`` per call; when it grew, the records after those held are
        read. A process's first call starts from the name pages (``directory.py``). A store
        that vouches for its write epochs skips the ``count`` while no namespace was
        registered since (:meth:`names_epoch`).
        """
        col = self._names(create=False)
        if col is None:
            return []
        names = self._names_cache.names(col, self)
        if prefix is None:
            return list(names)
        return names_under(names, prefix)

    def namespaces_if_unchanged(self, prefix: str) -> list[str] | None:
        """:meth:`find_namespaces` of ``prefix`` without a Chroma call, or ``None``.

        The names held, while this store vouches that no namespace was registered since they
        were read (:meth:`names_epoch`); ``None`` otherwise (and always on a server).
        """
        col = self._cols.get(f"{self.prefix}_names")
        if col is None:
            return None
        names = self._names_cache.unchanged(self.names_epoch(), col)
        return None if names is None else names_under(names, prefix)

    def scan_namespaces(self, prefix: str, *, heads: int = 256) -> NamespaceScan:
        """Namespaces under ``prefix`` with the heads of the first ``heads`` of them.

        When ``prefix`` is itself a namespace (it has a head): one read by id per shard those
        heads live in (one in all for a namespace without children), with the prefix's
        registration token beside its head. While the token is the one read (with the head)
        before the names held were read, nothing was registered below ``prefix`` since, and
        the directory is not touched. Otherwise the directory is checked as by
        :meth:`find_namespaces` (after the token was read) and the new names' heads read.
        A store that vouches for its write epochs gives the epochs it read before the heads
        (``NamespaceScan.epochs``), so the memory can skip those heads later.
        """
        col = self._names(create=False)
        if col is None:
            return NamespaceScan((), {}, frozenset())
        limit = max(0, heads)
        directory = self._names_cache
        seen, known = directory.token(prefix)
        cached = directory.cached
        names = names_under(cached, prefix) if cached is not None else []
        first = [prefix, *(ns for ns in names[:limit] if ns != prefix)]
        epochs = self._epochs_of(first)  # before the heads (epochs.py)
        got, token = self._heads(first, token_of=prefix)
        headed = prefix in got
        if not (headed and seen and cached is not None and token == known):
            names = names_under(directory.names(col, self), prefix)  # after the token
            directory.keep_token(prefix, token if headed else None, trusted=headed)
        if headed and (not names or names[0] != prefix):
            names = [prefix, *names]  # registered: it has a head
        wanted = names[:limit]
        had = set(first)
        rest = [ns for ns in wanted if ns not in had]
        epochs.update(self._epochs_of(rest))
        got.update(self.read_heads(rest))
        return NamespaceScan(
            names,
            {ns: got[ns] for ns in wanted if ns in got},
            frozenset(wanted),
            {ns: epochs[ns] for ns in wanted if ns in epochs},
        )

    def _epochs_of(self, namespaces: Sequence[str]) -> dict[str, int]:
        """The write epochs of ``namespaces`` this store vouches for (none on a server)."""
        out: dict[str, int] = {}
        for ns in namespaces:
            epoch = self.local_epoch(ns)
            if epoch is None:
                return {}
            out[ns] = epoch
        return out

    def _tokens(self, created: Sequence[str], token: str) -> dict[int, dict[str, str]]:
        """Registration tokens of the ancestors of ``created`` that are namespaces, by shard.

        Called after the registration. An ancestor without a head needs none: a reader trusts
        a prefix's token only when it read the prefix's head with it, and a head that did not
        exist when this commit looked was created after the registration, so any reader that
        trusts that token reads the directory after it (directory.py). Ancestors not yet seen
        with a head are looked up (one read by id per shard).
        """
        ancestors = registration_tokens(created, token)
        unknown = [a for a in ancestors if a not in self._headed]
        if unknown:
            self._heads(unknown)  # notes those that have a head
        out: dict[int, dict[str, str]] = {}
        for prefix, value in ancestors.items():
            if prefix in self._headed:
                out.setdefault(self.layout.shard(prefix), {})[prefix] = value
        return out

    def _register(self, namespaces: Sequence[str]) -> None:
        col = self._names(create=True)
        with self._writing(NAMES_SLOT):
            for part in self._chunks(list(namespaces)):
                # The directory is read by documents: no metadata decoded.
                self.call(
                    "register namespaces",
                    col.upsert,
                    ids=[codec.head_id(ns) for ns in part],
                    embeddings=[_PLACEHOLDER for _ in part],
                    documents=list(part),
                    metadatas=[{"tepa_name": ns, "tepa_pfx": key_path(ns)} for ns in part],
                )

    def write_summary(self, namespace: str, summary: NamespaceSummary) -> None:
        """Store a summary in a namespace's head."""
        self._writable()
        self._update_head(namespace, "write summary", {"tepa_sum": codec.summary_json(summary)})

    def _update_head(self, namespace: str, op: str, meta: dict[str, Any]) -> None:
        """Merge ``meta`` into ``namespace``'s head (its shard's write epoch moves after)."""
        shard = self.layout.shard(namespace)
        col = self._evidence(shard, create=True)
        with self._writing(shard):
            self.call(op, col.update, ids=[codec.head_id(namespace)], metadatas=[meta])

    # ---------------------------------------------------------------- evidence
    def _namespace_clause(self, namespaces: Sequence[str]) -> dict[str, Any]:
        """Pages of ``namespaces``: their own pages, and in layout 4 shard pages listing them."""
        own = (
            {"tepa_pns": namespaces[0]}
            if len(namespaces) == 1
            else {"tepa_pns": {"$in": list(namespaces)}}
        )
        if not self.layout.shard_pages:
            return own
        return {"$or": [own, *({"tepa_pnl": {"$contains": ns}} for ns in namespaces)]}

    def _page_clause(self, req: PageRequest) -> dict[str, Any] | None:
        clauses: list[dict[str, Any]] = [self._namespace_clause([req.namespace])]
        if req.after is not None:
            if not req.after:
                return None
            per = [
                {"$and": [{"tepa_w": stream}, {"tepa_q": {"$gt": int(seq)}}]}
                for stream, seq in sorted(req.after.items())
            ]
            clauses.append(_where(per, "$or"))
        if req.key is not None:
            clauses.append(
                {
                    "$or": [
                        {"tepa_keys": {"$contains": codec.key_hash(req.key)}},
                        {"tepa_keys": {"$contains": codec.ALL_KEYS}},
                    ]
                }
            )
        if req.until is not None:
            clauses.append({"tepa_t0": {"$lte": float(req.until)}})
        return _where(clauses)

    def load_pages(self, requests: Sequence[PageRequest]) -> dict[str, list[Page]]:
        """Pages as requested: one filtered read per shard (per 100 namespaces, in layout 4)."""
        out: dict[str, list[Page]] = {req.namespace: [] for req in requests}
        by_shard: dict[int, list[PageRequest]] = {}
        for req in requests:
            by_shard.setdefault(self.layout.shard(req.namespace), []).append(req)
        for shard, all_reqs in by_shard.items():
            col = self._evidence(shard, create=False)
            if col is None:
                continue
            # Layout 4 matches each namespace with a clause of its own: SQLite refuses filters
            # deeper than 1,000, so at most _READ_NAMESPACES namespaces a read.
            step = _READ_NAMESPACES if self.layout.shard_pages else len(all_reqs)
            for start in range(0, len(all_reqs), step):
                chunk = all_reqs[start : start + step]
                self._load_shard(col, chunk, {r.namespace: r for r in chunk}, out)
        return out  # in commit order: readers check each page's basis in that order

    def _load_shard(
        self,
        col: Any,
        reqs: Sequence[PageRequest],
        wanted: Mapping[str, PageRequest],
        out: dict[str, list[Page]],
    ) -> None:
        """One filtered read of a shard for ``reqs`` (``wanted``: them by namespace).

        The pages of those namespaces are appended to ``out``; of a shard page, only the parts
        of ``wanted`` (another read covers the other parts).
        """
        plain = [r.namespace for r in reqs if r == PageRequest(r.namespace)]
        clauses = [c for r in reqs if r.namespace not in plain if (c := self._page_clause(r))]
        if plain:
            clauses.append(self._namespace_clause(plain))
        if not clauses:
            return
        got = self.get_all(col, _where(clauses, "$or"), ["metadatas"])
        for meta in got["metadatas"]:
            meta = meta or {}
            if "tepa_parts" not in meta:
                page = codec.decode_page(meta)
                if page.namespace in wanted:
                    out[page.namespace].append(page)
                continue
            # A shard page: keep the parts of namespaces asked for, as asked for.
            for page in codec.decode_pages(meta, wanted):
                asked = wanted.get(page.namespace)
                if asked is not None and _part_wanted(asked, page):
                    out[page.namespace].append(page)

    def commit(self, commit: Commit) -> None:
        """Write one append.

        New namespaces are registered under their names first, and large namespaces' new
        vectors go into their index; then each shard's pages (with the other new vectors) and
        head bumps, one ``upsert`` per shard. The write epoch of every shard written (and of
        the names directory) moves by one when it returns or raises.
        """
        self._writable()
        with self._writing():
            self._commit(commit)
            self._write_marks(due_only=True)

    def _commit(self, commit: Commit) -> None:
        created = [w.namespace for w in commit.writes if w.created]
        if created:
            self._register(created)
        for write in commit.writes:
            if write.new and write.namespace in self._dedicated:
                self.index_vectors(write.namespace, write.new)
        by_shard: dict[int, list[NamespaceWrite]] = {}
        for write in commit.writes:
            by_shard.setdefault(self.layout.shard(write.namespace), []).append(write)
        tokens = self._tokens(created, f"{commit.stream}.{commit.seq}")
        for shard in tokens:
            by_shard.setdefault(shard, [])
        late: list[NamespaceWrite] = []
        # Shards with tokens first: a namespace's pages are never stored before its tokens.
        for shard in sorted(by_shard, key=lambda sh: sh not in tokens):
            col = self._evidence(shard, create=True)
            with self._writing(shard):
                late += self._append(col, commit, shard, by_shard[shard], tokens.get(shard, {}))
        self._note_headed(w.namespace for w in commit.writes)
        for name in map(self.layout.evidence, by_shard):  # large pages leave a tail to settle
            if self._tail.due(name):
                self._settle(name)
        if late:  # views too many to go with their pages: right after them
            self.write_views(
                [p for w in late for p in w.views],
                {w.namespace: w.view_marks for w in late if w.view_marks},
            )

    def _groups(
        self, writes: Sequence[NamespaceWrite]
    ) -> tuple[list[list[NamespaceWrite]], dict[int, list[str]]]:
        """The writes of one shard, grouped by the page that holds them.

        In layout 3, and for a write too large to share a page, each write has pages of its
        own (a group of one). In layout 4 the others share shard pages, each at most
        ``PAGE_RECORDS`` records, ``PAGE_RECORDS`` vectors (precedents' and items'), about
        ``PAGE_BYTES`` bytes and ``MAX_PAGE_NAMESPACES`` namespaces, and small enough to go with
        its head bumps in one call. Also returns the records of the writes it measured, encoded
        (by ``id`` of the write), for the pages to reuse.
        """
        texts: dict[int, list[str]] = {}
        if not self.layout.shard_pages or len(writes) < 2:
            return [[w] for w in writes], texts
        out: list[list[NamespaceWrite]] = []
        group: list[NamespaceWrite] = []
        records = vectors = size = 0
        for write in writes:
            n, v = len(write.records), self._page_load(write)
            b = 0
            if n <= PAGE_RECORDS and v <= PAGE_RECORDS:
                texts[id(write)] = [ev.to_json() for ev in write.records]
                b = self._page_bytes(write, texts[id(write)])
            if n > PAGE_RECORDS or v > PAGE_RECORDS or b > PAGE_BYTES:
                out.append([write])
                continue
            if group and (
                records + n > PAGE_RECORDS
                or vectors + v > PAGE_RECORDS
                or size + b > PAGE_BYTES
                or len(group) >= MAX_PAGE_NAMESPACES
                or len(group) + 2 > self._max_batch  # the page and every head bump
            ):
                out.append(group)
                group, records, vectors, size = [], 0, 0, 0
            group.append(write)
            records += n
            vectors += v
            size += b
        if group:
            out.append(group)
        return out, texts

    def _page_vectors(self, write: NamespaceWrite) -> int:
        """Precedent vectors the write's page carries (a large namespace's go to its index)."""
        return 0 if write.namespace in self._dedicated else len(write.new)

    def _page_bytes(self, write: NamespaceWrite, texts: Sequence[str]) -> int:
        """About how many bytes the write's part of a page takes (``texts``: its records)."""
        size = sum(len(text) + 1 for text in texts)
        if self._page_vectors(write):
            size += sum(len(p.id) + _b64(len(v)) for p, v in write.new)
        for owners in write.items.values():
            size += sum(len(owner) + sum(_b64(len(v)) for v in vs) for owner, vs in owners.items())
        return size

    def _page_load(self, write: NamespaceWrite) -> int:
        """Vectors of every kind the write's page carries (precedents' and items')."""
        items = sum(len(vs) for owners in write.items.values() for vs in owners.values())
        return self._page_vectors(write) + items

    def _pages(
        self,
        commit: Commit,
        shard: int,
        index: int,
        group: Sequence[NamespaceWrite],
        texts: Mapping[int, list[str]],
    ) -> list[tuple[str, dict[str, Any]]]:
        """The page records of one group: a shard page, or a write's own pages.

        ``texts``: records already encoded, by ``id`` of the write (:meth:`_groups`).
        """
        if len(group) > 1:
            parts = [
                codec.PagePart(
                    w.namespace,
                    w.basis,
                    w.records,
                    {p.id: v for p, v in w.new} if self._page_vectors(w) else {},
                    w.items,
                    texts.get(id(w)),
                )
                for w in group
            ]
            meta = codec.shard_page_meta(commit.stream, commit.seq, parts)
            return [(codec.shard_page_id(commit.stream, commit.seq, shard, index), meta)]
        write = group[0]
        metas = codec.write_pages(
            write.namespace,
            commit.stream,
            commit.seq,
            write.basis,
            write.records,
            {p.id: v for p, v in write.new} if self._page_vectors(write) else None,
            write.items,
            max_records=PAGE_RECORDS,
            max_bytes=PAGE_BYTES,
            texts=texts.get(id(write)),
        )
        return [
            (codec.page_id(commit.stream, commit.seq, write.namespace, i), meta)
            for i, meta in enumerate(metas)
        ]

    def _append(
        self,
        col: Any,
        commit: Commit,
        shard: int,
        writes: Sequence[NamespaceWrite],
        tokens: Mapping[str, str],
    ) -> list[NamespaceWrite]:
        """Pages and head bumps of one shard; a page and its head bumps never span two calls.

        Views (and view marks) a write carries go in the same call; those of a write too large
        for one call with its page, and from layout 5 all of them (views live in view shards),
        are returned, to be written right after. Registration
        ``tokens`` of prefixes in this shard go in the first call.
        """
        ids: list[str] = [token_id(prefix) for prefix in tokens]
        metas: list[dict[str, Any]] = [token_meta(p, token) for p, token in tokens.items()]
        late: list[NamespaceWrite] = []
        carried = self._take_marks(shard)  # layout 5: marks waiting for this shard
        try:
            self._send_pages(col, commit, shard, writes, ids, metas, late, carried)
        except BaseException:
            self._defer_marks(shard, carried)  # not known to be stored: keep them
            raise
        return late

    def _send_pages(
        self,
        col: Any,
        commit: Commit,
        shard: int,
        writes: Sequence[NamespaceWrite],
        ids: list[str],
        metas: list[dict[str, Any]],
        late: list[NamespaceWrite],
        carried: dict[str, dict[str, int]],
    ) -> None:
        """The calls of :meth:`_append`; ``carried`` marks ride in its heads (or as records)."""
        marks = dict(carried)

        def send() -> None:
            while ids:  # more than one call only for more tokens than a call holds
                n = min(len(ids), self._max_batch)
                self.call(
                    "append evidence",
                    col.upsert,
                    ids=ids[:n],
                    embeddings=[_PLACEHOLDER] * n,
                    metadatas=metas[:n],
                )
                self._tail.add(self.layout.evidence(shard), metas[:n])
                del ids[:n], metas[:n]

        groups, texts = self._groups(writes)
        for index, group in enumerate(groups):
            entries = self._pages(commit, shard, index, group, texts)
            entries_ids = [pid for pid, _ in entries]
            entries_metas = [meta for _, meta in entries]
            room = self._max_batch - len(entries) - len(group)
            for write in group:
                head = codec.head_update(
                    write.namespace,
                    commit.stream,
                    commit.seq,
                    write.count,
                    write.summary,
                    write.time,
                )
                if self.views_with_pages and len(write.views) <= room:
                    room -= len(write.views)
                    for p in write.views:
                        entries_ids.append(p.id)
                        entries_metas.append(codec.precedent_meta(p))
                    if write.view_marks:
                        head.update(codec.marks_update(write.namespace, write.view_marks))
                elif write.views or write.view_marks:
                    late.append(write)
                waiting = marks.pop(write.namespace, None)
                if waiting:
                    head.update(codec.marks_update(write.namespace, waiting))
                entries_ids.append(codec.head_id(write.namespace))
                entries_metas.append(head)
            if ids and len(ids) + len(entries_ids) > self._max_batch:
                send()
            ids.extend(entries_ids)
            metas.extend(entries_metas)
        for ns, per in marks.items():  # heads this commit does not bump
            if len(ids) >= self._max_batch:
                send()
            ids.append(codec.head_id(ns))
            metas.append(codec.marks_update(ns, per))
        send()

    def _settle(self, name: str) -> None:
        """Settle collection ``name``'s log tail (``tail.py``) and start counting it anew."""
        col = self._cols.get(name)
        if col is not None:
            settle(col, self.call)
        self._tail.reset(name)

    # ---------------------------------------------------------------- views
    @property
    def views_with_pages(self) -> bool:
        """Whether a commit's views go with its pages at no extra call (layouts 3 and 4).

        From layout 5 views live in view shards of their own: a commit spanning several
        namespaces then leaves its views to the memory's view buffer (written by
        :meth:`write_views`, many commits' views in one call per view shard) instead of
        adding a call per shard to every commit.
        """
        return not self.layout.view_shards

    def _views(self, shard: int, *, create: bool) -> Any:
        name = self.layout.view_collection(shard)
        return self.collection(name, create=create, hnsw=EVIDENCE_HNSW)

    def write_views(
        self,
        precedents: Sequence[Precedent],
        marks: Mapping[str, Mapping[str, int]] | None = None,
        *,
        settle: bool = False,
    ) -> None:
        """Write views, then the view marks into heads.

        In layouts 3 and 4 a shard's views and marks are one ``upsert`` (views and heads share
        the evidence shard). From layout 5 every view shard touched is written first (one call
        each); the marks then wait for the next commit to their head's shard, which carries
        them in its own call, or are written on their own by the first call after
        ``MARKS_WAIT_S`` (and by :meth:`close`); ``settle`` writes every waiting mark now.
        A mark is never stored before its views; a failure or a crash leaves it behind them
        (the views are rewritten later). No write epoch moves (:meth:`local_epoch`): views and
        marks change no answer of a read, so a memory's cached states stay current across
        them (a reader that acts on another stream's marks re-reads its head when the epoch's
        trust runs out, ``_trusted_until``).
        """
        if not precedents and not marks and not (settle and self._marks):
            return
        self._writable()
        views: dict[str, tuple[list[str], list[dict[str, Any]]]] = {}
        for p in precedents:
            ids, metas = views.setdefault(
                self.layout.view_collection(self.layout.shard(p.namespace)), ([], [])
            )
            ids.append(p.id)
            metas.append(codec.precedent_meta(p))
        if self.layout.view_shards:
            self._write_groups(views, "write views")
            for ns, per in (marks or {}).items():
                if per:
                    self._defer_marks(self.layout.shard(ns), {ns: dict(per)})
            self._write_marks(due_only=not settle)
            return
        heads: dict[str, tuple[list[str], list[dict[str, Any]]]] = {}
        for ns, per in (marks or {}).items():
            if per:
                name = self.layout.evidence(self.layout.shard(ns))
                # One call per collection: marks join the views when both share it.
                ids, metas = (views if name in views else heads).setdefault(name, ([], []))
                ids.append(codec.head_id(ns))
                metas.append(codec.marks_update(ns, per))
        self._write_groups(views, "write views")
        self._write_groups(heads, "write views")

    def _write_groups(
        self, groups: Mapping[str, tuple[list[str], list[dict[str, Any]]]], op: str
    ) -> None:
        """Upsert each collection's records (placeholder vectors), a call per batch."""
        for name, (ids, metas) in groups.items():
            col = self.collection(name, create=True, hnsw=EVIDENCE_HNSW)
            for start in range(0, len(ids), self._max_batch):
                end = start + self._max_batch
                self.call(
                    op,
                    col.upsert,
                    ids=ids[start:end],
                    embeddings=[_PLACEHOLDER for _ in ids[start:end]],
                    metadatas=metas[start:end],
                )

    # ---------------------------------------------------------------- view marks (layout 5)
    def _defer_marks(self, shard: int, marks: Mapping[str, Mapping[str, int]]) -> None:
        """Keep marks (their views stored) for the next commit to ``shard`` to carry."""
        if not marks:
            return
        with self._marks_lock:
            held = self._marks.setdefault(shard, {})
            for ns, per in marks.items():
                mine = held.setdefault(ns, {})
                for stream, seq in per.items():
                    mine[stream] = max(int(seq), mine.get(stream, 0))
            self._marks_since.setdefault(shard, time.monotonic())

    def _take_marks(self, shard: int) -> dict[str, dict[str, int]]:
        with self._marks_lock:
            self._marks_since.pop(shard, None)
            return self._marks.pop(shard, {})

    def _write_marks(self, *, due_only: bool) -> None:
        """Write waiting marks: those older than ``MARKS_WAIT_S`` (or all), a call per shard."""
        if not self._marks:
            return
        now = time.monotonic()
        with self._marks_lock:
            shards = [
                sh
                for sh, since in self._marks_since.items()
                if not due_only or now - since >= MARKS_WAIT_S
            ]
        for shard in shards:
            marks = self._take_marks(shard)
            if not marks:
                continue
            group = {
                self.layout.evidence(shard): (
                    [codec.head_id(ns) for ns in marks],
                    [codec.marks_update(ns, per) for ns, per in marks.items()],
                )
            }
            try:  # marks move no write epoch (see write_views)
                self._write_groups(group, "write view marks")
            except BaseException:
                self._defer_marks(shard, marks)
                raise

    def flush_marks(self) -> None:
        """Write every view mark still waiting for a commit to carry it (layout 5)."""
        if not self.read_only:
            self._write_marks(due_only=False)

    def load_views(self, namespace: str) -> list[dict[str, Any]]:
        """Stored views of a namespace's precedents."""
        col = self._views(self.layout.shard(namespace), create=False)
        if col is None:
            return []
        got = self.get_all(col, {"tepa_ns": namespace}, ["metadatas"])
        return [v for meta in got["metadatas"] if (v := codec.view_of(meta)) is not None]

    def upgrade_views(self, *, progress: bool = False) -> ViewUpgradeReport:
        """Move a layout 3 or 4 store's views into view shards (layout 5); see ``upgrade.py``.

        Readers then load only heads and pages. Run it with the store's other writers stopped
        (``tepa upgrade PATH`` for an embedded folder). Idempotent.

        Raises:
            ReadOnlyError: If this store was opened read-only.
        """
        from langchain_tepa.storage.chroma.upgrade import upgrade_views

        return upgrade_views(self, progress=progress)

    # ---------------------------------------------------------------- large namespaces
    def _index(self, namespace: str, *, create: bool) -> Any:
        return self.collection(self.layout.dedicated(namespace), create=create, hnsw=VECTOR_HNSW)

    @property
    def dedicated_at(self) -> int:
        """Precedents above which a namespace gets an index of its own."""
        return self.layout.dedicated_at

    def dedicate(
        self,
        namespace: str,
        rows: Sequence[tuple[Precedent, Sequence[float]]],
        through: Mapping[str, int],
    ) -> None:
        """Give ``namespace`` an index of its own holding ``rows`` (all its precedents)."""
        self._writable()
        from langchain_tepa.storage.chroma.dedicated import dedicate

        with self._writing(self.layout.shard(namespace)):  # the flag goes into the head
            dedicate(self, namespace, rows, through)

    def index_vectors(
        self,
        namespace: str,
        rows: Sequence[tuple[Precedent, Sequence[float]]],
        *,
        through: Mapping[str, int] | None = None,
    ) -> None:
        """Add precedents (with vectors) to a large namespace's own index.

        With ``through``, the head then records the clock through which pages are indexed.
        """
        self._writable()
        self._index_rows(namespace, rows)
        if through:
            self._update_head(
                namespace, "mark indexed pages", codec.indexed_update(namespace, through)
            )

    def _index_rows(
        self, namespace: str, rows: Sequence[tuple[Precedent, Sequence[float]]]
    ) -> None:
        col = self._index(namespace, create=True)
        for part in self._chunks(list(rows)):
            self.call(
                "index vectors",
                col.upsert,
                ids=[p.id for p, _ in part],
                embeddings=[[float(x) for x in v] for _, v in part],
                metadatas=[codec.index_meta(p) for p, _ in part],
            )

    def index_vectors_of(self, namespace: str, ids: Sequence[str]) -> dict[str, list[float]]:
        """Vectors of ``ids`` in a large namespace's index."""
        col = self._index(namespace, create=False)
        out: dict[str, list[float]] = {}
        if col is None:
            return out
        for part in self._chunks(list(ids)):
            got = self.call("read index", col.get, ids=list(part), include=["embeddings"])
            for pid, vec in zip(got["ids"], got["embeddings"], strict=True):
                out[pid] = [float(x) for x in vec]
        return out

    def indexed(self, namespace: str, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` a large namespace's index holds (every id for other namespaces)."""
        if namespace not in self._dedicated:
            return set(ids)
        col = self._index(namespace, create=False)
        if col is None:
            return set()
        found: set[str] = set()
        for part in self._chunks(list(ids)):
            found.update(self.call("read index", col.get, ids=list(part), include=[])["ids"])
        return found

    def query_vectors(
        self,
        namespace: str,
        vector: Sequence[float],
        n: int,
        *,
        key_prefix: str | None = None,
    ) -> list[tuple[str, float]]:
        """Nearest precedents in a large namespace's index (cosine similarity)."""
        col = self._index(namespace, create=False)
        if col is None:
            return []
        where = {"tepa_kp": {"$contains": key_prefix}} if key_prefix else None
        res = self.call(
            "query",
            col.query,
            query_embeddings=[[float(x) for x in vector]],
            n_results=max(1, int(n)),
            where=where,
            include=["distances"],
        )
        ids = res["ids"][0] if res["ids"] else []
        dists = res["distances"][0] if res.get("distances") else [0.0] * len(ids)
        return [(pid, 1.0 - float(d)) for pid, d in zip(ids, dists, strict=True)]

    # ---------------------------------------------------------------- meta
    def get_meta(self, name: str) -> str | None:
        """A named string from the meta collection."""
        col = self.collection(f"{self.prefix}_meta", create=False)
        if col is None:
            return None
        got = self.call("read meta", col.get, ids=[name], include=["documents"])
        docs = got.get("documents") or []
        return str(docs[0]) if got["ids"] and docs and docs[0] is not None else None

    def set_meta(self, name: str, value: str) -> None:
        """Set a named string."""
        self._writable()
        col = self.collection(f"{self.prefix}_meta", create=True)
        self.call(
            "write meta", col.upsert, ids=[name], embeddings=[_PLACEHOLDER], documents=[value]
        )

    def describe(self) -> str:
        """Where the data lives."""
        return f"{self.where}, prefix {self.prefix!r}"

    def close(self) -> None:
        """Write waiting view marks, settle log tails (``tail.py``), forget collection handles.

        The client is the caller's. A mark that cannot be written is left behind its views
        (readers rewrite those views later): closing does not fail for it.
        """
        try:
            self.flush_marks()
        except Exception as exc:  # the store may be gone already
            _log.warning("view marks of %s not written at close: %s", self.describe(), exc)
        if not self.read_only:  # the next process's first writes need not pay this one's tail
            for name in self._tail.names(CLOSE_BYTES):
                self._settle(name)
        with self._lock:
            self._cols.clear()

    def __repr__(self) -> str:
        return f"ChromaStorage({self.describe()}, shards={self.layout.shards})"

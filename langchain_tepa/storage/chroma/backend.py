"""`ChromaStorage`: the storage protocol on any chromadb client, in the layout of ``layout.py``.

Cost follows what a call touches: a namespace's head is one read by id; its pages and its
vectors are one filtered read each in its shard; a commit is one ``upsert`` per shard touched
(pages with head bumps) plus one per vector collection touched, and a ``delete`` of absent ids
where its large pages made a shard's log tail worth settling (``tail.py``). Opening reads the
layout record only (``opening.py``).

``ChromaStorage`` is a :class:`~langchain_tepa.storage.chroma.handles.CollectionHandles` (the
client, its collections, typed errors, meta records) and keeps the state of one store; the
helpers beside it take the handles and the layout as arguments and never import it back: head
reads (``heads.py``), page filters (``reads.py``), page grouping and the shard upserts
(``pages.py``), waiting view marks (``marks.py``), the names directory (``directory.py``,
``name_pages.py``), the indexes of large namespaces (``dedicated.py``) and the answer index
(``answers.py``).

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
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from langchain_tepa.core.log import Head, NamespaceSummary, Page
from langchain_tepa.core.types import Precedent
from langchain_tepa.storage.answers import AnswerHit, AnswerUpdate
from langchain_tepa.storage.base import (
    Commit,
    NamespaceScan,
    NamespaceWrite,
    PageRequest,
    key_path,
)
from langchain_tepa.storage.chroma import codec, dedicated, heads, reads
from langchain_tepa.storage.chroma.answering import AnswerWriter
from langchain_tepa.storage.chroma.directory import (
    NamesDirectory,
    names_under,
)
from langchain_tepa.storage.chroma.epochs import (
    NAMES_SLOT,
    EpochBatch,
    EpochKey,
    current,
    folder_of,
)
from langchain_tepa.storage.chroma.handles import PLACEHOLDER
from langchain_tepa.storage.chroma.layout import EVIDENCE_HNSW, Layout
from langchain_tepa.storage.chroma.local import FolderLock
from langchain_tepa.storage.chroma.marks import PendingMarks
from langchain_tepa.storage.chroma.opening import open_layout
from langchain_tepa.storage.chroma.pages import send_pages
from langchain_tepa.storage.chroma.tail import CLOSE_BYTES, LogTail, settle
from langchain_tepa.storage.chroma.views import ViewsMixin

__all__ = ["ChromaStorage"]

_log = logging.getLogger("langchain_tepa")


class ChromaStorage(ViewsMixin):
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
        StorageError: If the store cannot be opened (unreachable server, a read-only opening
            of a prefix that holds no store); the message says what to do.
        UnsupportedLayoutError: If the store was written in another layout than this
            version's (``layout.py``).

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
        super().__init__(client, prefix=prefix, read_only=read_only)
        self._dedicated: set[str] = set()
        self._names_cache = NamesDirectory()
        folder = folder_of(client)
        self._epochs = EpochKey(folder, prefix) if folder is not None else None
        self._owner: tuple[FolderLock, int] | None = None  # (held lock, pid): claim_folder
        self._marks = PendingMarks()  # view marks waiting for a commit to their head's shard
        self._tail = LogTail()  # metadata bytes per evidence shard since its last settle
        self._answers = AnswerWriter(self, self)  # the answer index (answering.py)
        self.layout: Layout = open_layout(self, shards=shards, dedicated_at=dedicated_at)

    def _evidence(self, shard: int, *, create: bool) -> Any:
        return self.collection(self.layout.evidence(shard), create=create, hnsw=EVIDENCE_HNSW)

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

    def vouches(self) -> bool:
        """Whether every write to this store goes through this process (``claim_folder``)."""
        owner = self._owner
        return owner is not None and owner[0].held and owner[1] == os.getpid()

    def _epoch_of(self, slot: int) -> int | None:
        key = self._epochs
        return current(key, slot) if key is not None and self.vouches() else None

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
        out = heads.read(self, self.layout, namespaces)
        self._dedicated.update(ns for ns, head in out.items() if head.dedicated)
        return out

    def list_heads(self) -> Iterator[Head]:
        """Every namespace's head, shard by shard."""
        for head in heads.every(self, self.layout):
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
        names = self._names_cache.names(col, self, self.names_epoch())
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

        :meth:`find_namespaces` (the directory checked by its ``count``, none on an embedded
        folder this process holds while nothing was registered), then the heads, one read by
        id per shard. A store that vouches for its write epochs gives the epochs it read
        before the heads (``NamespaceScan.epochs``), so the memory can skip those heads later.
        """
        names = self.find_namespaces(prefix)
        wanted = names[: max(0, heads)]
        epochs = self._epochs_of(wanted)  # before the heads (epochs.py)
        got = self.read_heads(wanted)
        return NamespaceScan(names, got, frozenset(wanted), epochs)

    def _epochs_of(self, namespaces: Sequence[str]) -> dict[str, int]:
        """The write epochs of ``namespaces`` this store vouches for (none on a server)."""
        out: dict[str, int] = {}
        for ns in namespaces:
            epoch = self.local_epoch(ns)
            if epoch is None:
                return {}
            out[ns] = epoch
        return out

    def _register(self, namespaces: Sequence[str]) -> None:
        col = self._names(create=True)
        with self._writing(NAMES_SLOT):
            for part in self.chunks(list(namespaces)):
                # The directory is read by documents: no metadata decoded.
                self.call(
                    "register namespaces",
                    col.upsert,
                    ids=[codec.head_id(ns) for ns in part],
                    embeddings=[PLACEHOLDER for _ in part],
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
    def load_pages(self, requests: Sequence[PageRequest]) -> dict[str, list[Page]]:
        """Pages as requested: one filtered read per shard (per 100 namespaces; ``reads.py``)."""
        return reads.load_pages(self, self.layout, requests)

    def commit(self, commit: Commit) -> None:
        """Write one append.

        New namespaces are registered under their names first, and large namespaces' new
        vectors go into their index; then each shard's pages (with the other new vectors) and
        head bumps, one ``upsert`` per shard. The write epoch of every shard written (and of
        the names directory) moves by one when it returns or raises.
        """
        self._writable()
        changes, held = self._answers.before(commit)
        with self._writing():
            self._commit(commit)
            self._write_marks(due_only=True)
        self._answers.after(changes, held)  # after the pages (answering.py)

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
        late: list[NamespaceWrite] = []
        for shard in sorted(by_shard):
            col = self._evidence(shard, create=True)
            with self._writing(shard):
                late += self._append(col, commit, shard, by_shard[shard])
        for name in map(self.layout.evidence, by_shard):  # large pages leave a tail to settle
            if self._tail.due(name):
                self._settle(name)
        if late:  # their views, right after the pages (views live in view shards)
            self.write_views(
                [p for w in late for p in w.views],
                {w.namespace: w.view_marks for w in late if w.view_marks},
            )

    def _append(
        self,
        col: Any,
        commit: Commit,
        shard: int,
        writes: Sequence[NamespaceWrite],
    ) -> list[NamespaceWrite]:
        """Pages and head bumps of one shard; a page and its head bumps never span two calls.

        The writes that carry views (or view marks) are returned, to be written right after
        (views live in view shards). View marks waiting for this shard ride in its heads.
        """
        carried = self._marks.take(shard)  # marks waiting for this shard
        try:
            return send_pages(
                self,
                col,
                commit,
                shard,
                writes,
                carried,
                dedicated=self._dedicated,
                tail=(self._tail, self.layout.evidence(shard)),
            )
        except BaseException:
            self._marks.defer(shard, carried)  # not known to be stored: keep them
            raise

    def _settle(self, name: str) -> None:
        """Settle collection ``name``'s log tail (``tail.py``) and start counting it anew."""
        col = self._cols.get(name)
        if col is not None:
            settle(col, self.call)
        self._tail.reset(name)

    # ---------------------------------------------------------------- large namespaces
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
        with self._writing(self.layout.shard(namespace)):  # the flag goes into the head
            self.index_vectors(namespace, rows)  # no marks yet: the flag and marks go together
            dedicated.flag(self, self.layout, namespace, through)
            self.mark_dedicated(namespace)

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
        dedicated.index_rows(self, self.layout, namespace, rows)
        if through:
            self._update_head(
                namespace, "mark indexed pages", codec.indexed_update(namespace, through)
            )

    def index_vectors_of(self, namespace: str, ids: Sequence[str]) -> dict[str, list[float]]:
        """Vectors of ``ids`` in a large namespace's index."""
        return dedicated.vectors_of(self, self.layout, namespace, ids)

    def indexed(self, namespace: str, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` a large namespace's index holds (every id for other namespaces)."""
        if namespace not in self._dedicated:
            return set(ids)
        return dedicated.indexed_ids(self, self.layout, namespace, ids)

    def query_vectors(
        self,
        namespace: str,
        vector: Sequence[float],
        n: int,
        *,
        key_prefix: str | None = None,
    ) -> list[tuple[str, float]]:
        """Nearest precedents in a large namespace's index (cosine similarity)."""
        return dedicated.nearest(self, self.layout, namespace, vector, n, key_prefix=key_prefix)

    # ---------------------------------------------------------------- answer index
    def query_answers(
        self, space: str, vector: Sequence[float], n: int, *, prefix: str | None = None
    ) -> list[AnswerHit]:
        """The nearest answers of ``space`` under ``prefix`` (Chroma's index, ``answering.py``)."""
        return self._answers.query(space, vector, n, prefix)

    def flush_answers(self) -> None:
        """Write the answer-index changes this process holds for this store (``pending.py``)."""
        self._answers.flush()

    def answers_behind(self) -> float | None:
        """When the answer index may start to lack answers (a killed process's), or ``None``."""
        return self._answers.behind()

    def repair_answers(
        self, changes: Sequence[tuple[str, str, AnswerUpdate]], *, clear: bool = True
    ) -> None:
        """Write refolded answers; ``clear``: the index lacks none after them."""
        self._writable()
        self._answers.repair(list(changes), clear=clear)

    def epoch_key(self) -> EpochKey | None:
        """The store's key in this process's registries (an embedded folder's), or ``None``."""
        return self._epochs

    # ---------------------------------------------------------------- closing
    def close(self) -> None:
        """Write waiting view marks, settle log tails (``tail.py``), forget collection handles.

        The client is the caller's. A mark that cannot be written is left behind its views
        (readers rewrite those views later): closing does not fail for it.
        """
        try:
            self.flush_answers()
        except Exception as exc:  # the store may be gone already: the next opening repairs
            _log.warning("answer index of %s not written at close: %s", self.describe(), exc)
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

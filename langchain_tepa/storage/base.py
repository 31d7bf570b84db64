"""The storage protocol: where evidence, namespace heads and precedent records live.

A backend keeps, per namespace (a tenant):

* the **evidence log**: immutable records in *pages*, one page (or several, for a large one)
  per append (a ``commit``) and namespace, the source of truth. Every page belongs to a
  *stream* (one writing memory instance) and has that stream's append sequence number (the
  pages of one append share it). A page also carries the embeddings
  of the precedents its records created and the item vectors written with them: vectors are
  stored once, with the evidence, and never recomputed;
* a **head**: for each stream that ever wrote the namespace, the sequence number of its last
  page and how many records it appended (a vector clock), plus a small summary (Active count)
  for listing namespaces without reading them. A page and its head bump are written together;
  a reader that holds a clock asks the head whether anything is new and fetches only the pages
  after its clock;
* **precedent views**: one record per precedent with its lifecycle as metadata, a
  materialised view of the fold that readers never trust for answers (they fold the evidence)
  and that may lag (writers buffer them);
* for a **large** namespace, an index of its precedents' vectors that the backend ranks;
* an **answer index** per indexed vector space (:mod:`~langchain_tepa.storage.answers`): each
  key's answer with its item vectors, written by the commit that changes it, for searches of
  namespaces a process does not hold.

How it is laid out is the backend's business. Nothing in the protocol reads or holds the whole
store except :meth:`StorageBackend.list_heads` (one small record per namespace) and
maintenance.

Example:
    >>> from langchain_tepa.storage import InMemoryStorage
    >>> storage = InMemoryStorage()
    >>> storage.read_heads(["users.u1"])
    {}
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.log import Head, NamespaceSummary, Page, clock_digest
from langchain_tepa.core.types import Evidence, Precedent
from langchain_tepa.storage.answers import AnswerHit, AnswerUpdate

__all__ = [
    "EMBEDDINGS_RECORD",
    "Commit",
    "Head",
    "NamespaceScan",
    "NamespaceSummary",
    "NamespaceWrite",
    "Page",
    "PageRequest",
    "StorageBackend",
    "as_backend",
    "clock_digest",
    "key_path",
]


EMBEDDINGS_RECORD = "embeddings"
"""The meta record naming the embedding model that wrote a store (``describe_embeddings``).

Written with a store's first write; a memory with another model refuses to open it for
writing (:class:`~langchain_tepa.core.errors.EmbeddingMismatchError`). A store without the
record (written before it existed) takes the model of its next write.
"""


def key_path(key: str) -> list[str]:
    """Every dotted prefix of ``key``: ``"a.b.c"`` -> ``["a", "a.b", "a.b.c"]``.

    Stored with each precedent so that key-prefix scoping is an exact ``$contains`` match on
    segment boundaries ("user.diet" never matches "user.dietary").
    """
    parts = key.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


@dataclass(frozen=True)
class PageRequest:
    """Which pages of a namespace to load.

    Attributes:
        namespace: The namespace.
        after: ``None`` for every page; otherwise, for each stream named, its pages with a
            sequence number above the given one (streams not named: none).
        key: Only pages holding evidence of this key (they may hold other keys too).
        until: Only pages whose first record is not later than this time.
    """

    namespace: str
    after: Mapping[str, int] | None = None
    key: str | None = None
    until: float | None = None


@dataclass(frozen=True)
class NamespaceWrite:
    """The part of a :class:`Commit` that goes to one namespace.

    Attributes:
        namespace: The namespace.
        records: Its new evidence, in fold order (may be empty: a page of vectors only).
        basis: :func:`clock_digest` of the writer's clock of the namespace before the write.
        count: The stream's records in this namespace after this write (for the head).
        summary: The writer's summary after the write.
        time: Wall-clock time of the append (for the head).
        new: Precedents these records created, each with its embedding (stored once, with
            the page, or in the namespace's own index when it has one).
        items: Item vectors of named spaces (``space -> owner -> vectors``).
        precedents: Precedents of the namespace after the write (the backend may give a large
            namespace an index of its own).
        created: The writer saw no evidence of this namespace before (it is registered under
            its name, for prefix searches, before its first page is written).
        views: Precedent views to write with the page (as folded after it), so a batch over
            many namespaces needs no separate view write per shard; may be empty.
        view_marks: ``stream -> seq`` view marks to record in the head with the page (views
            of those streams' pages up to ``seq`` are written).
        answers: ``space -> changes`` to the answer index of each indexed space, stored after
            the pages and heads, before the commit returns.
    """

    namespace: str
    records: Sequence[Evidence]
    basis: str
    count: int
    summary: NamespaceSummary
    time: float = 0.0
    new: Sequence[tuple[Precedent, Sequence[float]]] = ()
    items: Mapping[str, Mapping[str, Sequence[Sequence[float]]]] = field(default_factory=dict)
    precedents: int = 0
    created: bool = False
    views: Sequence[Precedent] = ()
    view_marks: Mapping[str, int] = field(default_factory=dict)
    answers: Mapping[str, AnswerUpdate] = field(default_factory=dict)


@dataclass(frozen=True)
class Commit:
    """One append: evidence for one or more namespaces, acknowledged together.

    Attributes:
        stream: The writing stream.
        seq: Its append sequence number (strictly increasing per stream).
        writes: One entry per namespace.
    """

    stream: str
    seq: int
    writes: Sequence[NamespaceWrite]


@dataclass(frozen=True)
class NamespaceScan:
    """The namespaces under a prefix, with heads read in the same round trip.

    Attributes:
        names: Every namespace equal to the prefix or below it on label boundaries that was
            registered before the scan began, sorted.
        heads: The heads of those of ``names`` in ``read`` that were ever written.
        read: The names whose heads the scan read (after it began): a name in ``read`` and
            not in ``heads`` has no head. The scan may read only the first of many names.
        epochs: For names in ``read``, the :meth:`StorageBackend.local_epoch` the scan read
            before their heads, when the backend vouches (absent otherwise).

    Example:
        >>> scan = NamespaceScan(("users.u1",), {}, frozenset({"users.u1"}))
        >>> "users.u1" in scan.read and "users.u1" not in scan.heads  # never written
        True
    """

    names: Sequence[str]
    heads: Mapping[str, Head]
    read: frozenset[str]
    epochs: Mapping[str, int] = field(default_factory=dict)


@runtime_checkable
class StorageBackend(Protocol):
    """What :class:`~langchain_tepa.memory.TEPAMemory` needs from a store.

    Guarantees every backend gives:

    * ``commit`` writes each namespace's pages (with the vectors of the precedents they
      create) together with its head bump, so a reader that sees a head position finds every
      page up to it; the views and view marks a write carries are stored by the same commit
      (at the latest right after its pages), and so are its answer index changes (after the
      pages: every acknowledged commit is in the index);
    * ``read_heads`` and ``load_pages`` reflect every ``commit`` that returned before they
      were called (in any process sharing the store);
    * a read-only backend never creates or changes anything.
    """

    read_only: bool

    @property
    def views_with_pages(self) -> bool:
        """Whether a commit's views cost no storage call of their own (they go with its pages).

        When ``True`` a memory hands a commit spanning several namespaces its views (the
        write stores them with the pages); when ``False`` it buffers them like any other
        and :meth:`write_views` stores many commits' views together.
        """
        ...

    @property
    def dedicated_at(self) -> int | None:
        """Precedents above which a namespace should get an index of its own (``None``: never)."""
        ...

    def read_heads(self, namespaces: Sequence[str]) -> dict[str, Head]:
        """The heads of ``namespaces`` (namespaces never written are absent)."""
        ...

    def local_epoch(self, namespace: str) -> int | None:
        """A process-local write epoch of ``namespace``, or ``None`` (cannot vouch).

        A backend that knows every write to its store goes through this process (an embedded
        folder held under its lock) returns a counter that every write which can change what
        a read of the namespace answers (its pages, clock, counts, summary) moves, *after* the
        write returned or failed; views and view marks need not move it. A memory that read the
        epoch before a head read and finds it unchanged skips the next head read. Any other
        backend (a server client, a client the caller made) returns ``None``: heads are read.
        """
        ...

    def list_heads(self) -> Iterator[Head]:
        """Every namespace's head (one small record per namespace)."""
        ...

    def find_namespaces(self, prefix: str | None = None) -> list[str]:
        """Namespaces equal to ``prefix`` or below it on label boundaries (all when ``None``)."""
        ...

    def namespaces_if_unchanged(self, prefix: str) -> list[str] | None:
        """:meth:`find_namespaces` of ``prefix`` answered in process, or ``None``.

        A backend that vouches for its write epochs (see :meth:`local_epoch`) answers from the
        names it last read while no namespace was registered since; any other returns
        ``None`` (the caller then asks :meth:`scan_namespaces` or :meth:`find_namespaces`).
        """
        ...

    def scan_namespaces(self, prefix: str, *, heads: int = 256) -> NamespaceScan:
        """:meth:`find_namespaces` of ``prefix`` with the heads of its first ``heads`` names.

        Like :meth:`find_namespaces` followed by :meth:`read_heads`, with the same freshness; a
        backend that vouches for its write epochs also gives those it read before the heads.
        """
        ...

    def load_pages(self, requests: Sequence[PageRequest]) -> dict[str, list[Page]]:
        """Pages per namespace as requested, in the order they were committed."""
        ...

    def commit(self, commit: Commit) -> None:
        """Write one append (see the class guarantees)."""
        ...

    def write_views(
        self,
        precedents: Sequence[Precedent],
        marks: Mapping[str, Mapping[str, int]] | None = None,
        *,
        settle: bool = False,
    ) -> None:
        """Write precedent views and view marks.

        ``marks`` records per namespace up to which page of each stream views are written
        (``namespace -> stream -> seq``). A backend may store a mark later than its views
        (never earlier): ``ChromaStorage`` lets the next commit to the head's shard carry it.
        ``settle`` writes every mark held back so far as well (an explicit flush, closing).
        Moves no :meth:`local_epoch`: views and marks change no answer of a read.
        """
        ...

    def write_summary(self, namespace: str, summary: NamespaceSummary) -> None:
        """Store a reader's summary in a namespace's head (healing an untrusted one)."""
        ...

    def load_views(self, namespace: str) -> list[dict[str, Any]]:
        """The stored views of a namespace's precedents (``Precedent.view()`` dicts)."""
        ...

    def query_vectors(
        self,
        namespace: str,
        vector: Sequence[float],
        n: int,
        *,
        key_prefix: str | None = None,
    ) -> list[tuple[str, float]]:
        """Nearest precedents of a namespace the backend indexes itself (``(id, cosine)``)."""
        ...

    def dedicate(
        self,
        namespace: str,
        rows: Sequence[tuple[Precedent, Sequence[float]]],
        through: Mapping[str, int],
    ) -> None:
        """Give ``namespace`` an index of its own.

        The index holds ``rows`` (all its precedents with their vectors, those of the pages up
        to the clock ``through``); the head is flagged so every reader ranks through it, and
        records ``through`` as :attr:`~langchain_tepa.core.log.Head.indexed`.
        """
        ...

    def index_vectors(
        self,
        namespace: str,
        rows: Sequence[tuple[Precedent, Sequence[float]]],
        *,
        through: Mapping[str, int] | None = None,
    ) -> None:
        """Add precedents to the index of a namespace the backend indexes itself.

        With ``through``, the head then records that the vectors of every page up to that
        clock are indexed (readers skip those pages' vectors).
        """
        ...

    def index_vectors_of(self, namespace: str, ids: Sequence[str]) -> dict[str, list[float]]:
        """Vectors of ``ids`` in the index of a namespace the backend indexes itself."""
        ...

    def indexed(self, namespace: str, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` the namespace's own index holds (all, for other namespaces)."""
        ...

    def query_answers(
        self, space: str, vector: Sequence[float], n: int, *, prefix: str | None = None
    ) -> list[AnswerHit]:
        """The ``n`` answers of ``space`` whose best vector is nearest ``vector``, best first.

        Only namespaces equal to ``prefix`` or below it on label boundaries (every namespace
        when ``None``); one hit per key (its best vector); none before the space's first
        indexed write. May be approximate (Chroma's HNSW index). Whether a store keeps an
        index of ``space`` at all is its meta record's business (``storage/answers.py``).
        """
        ...

    def flush_answers(self) -> None:
        """Write answer-index changes the backend holds back (an embedded folder's: Chroma)."""
        ...

    def answers_behind(self) -> float | None:
        """When the answer index may start to lack answers, or ``None`` (it lacks none).

        A backend that holds index changes back records that it does before the first commit
        it holds them for; a process killed before writing them leaves that record: the time
        of that commit's append. A memory then refolds every namespace appended to since and
        stores its answers with :meth:`repair_answers` before it trusts the index.
        """
        ...

    def repair_answers(
        self, changes: Sequence[tuple[str, str, AnswerUpdate]], *, clear: bool = True
    ) -> None:
        """Store ``(namespace, space, update)`` answer changes now.

        With ``clear``, the index lacks no answer after them (:meth:`answers_behind` is
        ``None``): a repair passes it with its last changes.
        """
        ...

    def get_meta(self, name: str) -> str | None:
        """A small named string (layout, versions, ``EMBEDDINGS_RECORD``)."""
        ...

    def set_meta(self, name: str, value: str) -> None:
        """Set a small named string."""
        ...

    def describe(self) -> str:
        """Where the data lives, for messages (``"Chroma server at http://..."``)."""
        ...

    def close(self) -> None:
        """Release resources (the data stays)."""
        ...


def as_backend(storage: object) -> StorageBackend:
    """``storage`` itself, checked to be a complete :class:`StorageBackend`.

    Args:
        storage: The backend a memory is given.

    Returns:
        ``storage``, unchanged.

    Raises:
        InvalidArgumentError: If ``storage`` lacks a member of the protocol (all are named).

    Example:
        >>> storage = as_backend(object())  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        langchain_tepa.core.errors.InvalidArgumentError: storage must be a StorageBackend ...
    """
    if isinstance(storage, StorageBackend):
        return storage
    members = sorted(n for n in dir(StorageBackend) if not n.startswith("_"))
    missing = [n for n in members if not _has(storage, n)]
    raise InvalidArgumentError(
        f"storage must be a StorageBackend (for example InMemoryStorage()), got "
        f"{type(storage).__name__}, which lacks {', '.join(missing)}; for Chroma use "
        "TEPAMemory.from_client or from_path"
    )


def _has(obj: object, name: str) -> bool:
    try:
        getattr(obj, name)
    except AttributeError:
        return False
    return True

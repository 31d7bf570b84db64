"""The machinery under :class:`~langchain_tepa.memory.TEPAMemory`: states, freshness, commits.

One ``Engine`` per memory. It keeps the namespaces this memory has touched
(:class:`~langchain_tepa.state.StateCache`) and, before every read and every write of a
namespace, asks the storage for that namespace's head: if another writer appended since this
memory's clock, only the pages after the clock are read and folded. Writes are decided on the
state caught up that way, so a writer never folds a new record against evidence it has not seen.

What each process sees (the consistency model, ``docs/consistency.md``):

* with ``max_staleness_s=0`` (the default) every read reflects every write acknowledged by any
  process before the read began (one head read per namespace read; none on an embedded folder
  this process holds while the storage's write epoch of the namespace's shard is the one read
  before the last head read: :meth:`~langchain_tepa.storage.base.StorageBackend.local_epoch`,
  ``storage/chroma/epochs.py``);
* with ``max_staleness_s=s`` a read may skip the head check for ``s`` seconds after the last
  one, so it can miss writes of other processes made in that time (never its own);
* every write first catches up the namespaces it writes.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> _ = memory.observe("user.diet", "vegan")
    >>> memory.get("user.diet")
    'vegan'
"""

from __future__ import annotations

import functools
import logging
import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np
from langchain_core.embeddings import Embeddings

from langchain_tepa._gc import gc_paused
from langchain_tepa.core.errors import (
    EmbeddingMismatchError,
    InvalidArgumentError,
    OutcomeUnknownError,
    ReadOnlyError,
)
from langchain_tepa.core.fold import apply_evidence, refresh_posterior
from langchain_tepa.core.log import Head, NamespaceSummary, Page, clock_digest
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.types import (
    Evidence,
    EvidenceKind,
    KeyState,
    Lifecycle,
    Precedent,
    Transition,
)
from langchain_tepa.core.values import value_identity
from langchain_tepa.embeddings import describe_embeddings
from langchain_tepa.memory.documents import copy_value
from langchain_tepa.state import (
    AsOf,
    ItemTable,
    NamespaceState,
    StateCache,
    VectorTable,
    ViewBuffer,
    active_in,
    fold_as_of,
)
from langchain_tepa.storage.base import (
    EMBEDDINGS_RECORD,
    Commit,
    NamespaceWrite,
    PageRequest,
    StorageBackend,
)

__all__ = ["Deferred", "Engine", "Folded"]

_SETTLE_BELOW_S = 1.0
"""Flush intervals below which every flush writes its view marks at once (``Engine.flush``)."""

_log = logging.getLogger("langchain_tepa")
_COUNTS_HELD = 65536  # namespaces whose last active count a memory keeps (all forgotten beyond)


@dataclass(frozen=True)
class Folded:
    """One committed record, as folded: the record, its key's state after it, the transitions.

    Attributes:
        evidence: The record as stored (it may have been restamped to sort after its key).
        state: The key's state right after the commit (live object: copy before handing out).
        transitions: Transitions the record caused.
        precedent: A copy of the precedent the record concerns, as folded after the commit
            (taken while the namespace was locked; ``None`` for a boundary).
    """

    evidence: Evidence
    state: KeyState
    transitions: list[Transition]
    precedent: Precedent | None = None


@dataclass(frozen=True)
class Deferred:
    """Records decided when an append folds them, from their key's state at that point.

    A delete in the middle of a batch revokes the values its key holds *there* (including
    values put earlier in the same batch, excluding ones revoked before it), so the batch is
    one append that folds exactly like its operations made one by one.

    Attributes:
        namespace: The key's namespace.
        key: The key.
        make: ``state -> records`` (the key's state as folded so far in the append).
    """

    namespace: str
    key: str
    make: Callable[[KeyState], Sequence[Evidence]]


def _precedent_id(p: Precedent) -> str:
    return p.id


class Engine:
    """Namespace states, freshness and commits of one memory (see the module docstring).

    Args:
        storage: The backend.
        policy: The lifecycle policy.
        embeddings: Embeds precedent texts and queries.
        writer: Writer name, the first part of every evidence id.
        clock: Seconds since the epoch (benchmarks pass their own).
        cache_size: Namespaces kept in process.
        max_staleness_s: Seconds a read may reuse a namespace's last freshness check.
        flush_every: Buffered view updates before they are written.
        flush_interval_s: Seconds a buffered view update may wait.
        read_only: Write nothing, ever.
    """

    def __init__(
        self,
        storage: StorageBackend,
        *,
        policy: LifecyclePolicy,
        embeddings: Embeddings,
        writer: str,
        clock: Callable[[], float],
        cache_size: int,
        max_staleness_s: float,
        flush_every: int,
        flush_interval_s: float,
        read_only: bool,
    ) -> None:
        if (
            isinstance(max_staleness_s, bool)
            or not isinstance(max_staleness_s, int | float)
            or not math.isfinite(max_staleness_s)
            or max_staleness_s < 0
        ):
            raise InvalidArgumentError(
                f"max_staleness_s must be a finite number of seconds >= 0, got {max_staleness_s!r}"
            )
        self.storage = storage
        self.policy = policy
        self.embeddings = embeddings
        self.writer = writer
        self.read_only = read_only
        self.max_staleness_s = float(max_staleness_s)
        self.cache = StateCache(cache_size)
        self.views = ViewBuffer(flush_every, flush_interval_s)
        self._clock = clock
        self._ids = threading.Lock()
        self._pid = os.getpid()
        self._instance = os.urandom(8).hex()  # 64 bits: streams and evidence ids unique
        self._counter = 0
        self._seq = 0
        self._last_time = -math.inf
        self.embed_calls = 0  # texts embedded for precedents (tests count them)
        self._counted: dict[str, tuple[int, int]] = {}  # ns -> (epoch, active): active_counts
        self.model = describe_embeddings(embeddings)
        self._model_recorded = False  # the store records this memory's model (checked once)

    # ------------------------------------------------------------------ ids and time
    @property
    def stream(self) -> str:
        """This memory's stream id (changes after a fork)."""
        self._check_fork()
        return self._instance

    def _check_fork(self) -> None:
        if self._pid != os.getpid():  # forked: the child must not reuse the parent's ids
            with self._ids:
                if self._pid != os.getpid():
                    self._pid, self._instance = os.getpid(), os.urandom(8).hex()
                    self._counter = self._seq = 0

    def next_id(self) -> tuple[str, float]:
        """A new evidence id and its time (never earlier than this memory's last)."""
        self._check_fork()
        with self._ids:
            self._counter += 1
            now = float(self._clock())
            if not math.isfinite(now):
                raise InvalidArgumentError(
                    f"the clock returned {now!r}; it must return finite seconds"
                )
            now = max(now, self._last_time)
            self._last_time = now
            return f"{self.writer}.{self._instance}.{self._counter:010d}", now

    def _next_seq(self) -> int:
        with self._ids:
            self._seq += 1
            return self._seq

    def _in_order(self, ev: Evidence, state: KeyState) -> Evidence:
        """Restamp ``ev`` to sort after the evidence its key already holds.

        Another writer's records may carry later times; the fold needs each key's evidence in
        order.
        """
        if ev.sort_key > state.last_sort_key:
            return ev
        eid, now = self.next_id()
        now = max(now, state.last_sort_key[0])
        if (now, eid) <= state.last_sort_key:
            now = math.nextafter(now, math.inf)
        with self._ids:
            self._last_time = max(self._last_time, now)
        return replace(ev, id=eid, time=now)

    def check_writable(self) -> None:
        """Raise :class:`ReadOnlyError` on a read-only memory."""
        if self.read_only:
            raise ReadOnlyError(
                "this TEPAMemory was opened with read_only=True; open it without read_only to write"
            )

    def check_model(self, *, record: bool) -> None:
        """Refuse a store that another embedding model wrote; record this one on a first write.

        Args:
            record: Write this memory's model into a store that records none (a first write,
                or a store written before the record existed); otherwise only compare.

        Raises:
            EmbeddingMismatchError: Naming the store's model and this memory's, before
                anything is stored.
        """
        if self._model_recorded:
            return
        stored = self.storage.get_meta(EMBEDDINGS_RECORD)
        if stored is None:
            if not record:
                return
            self.storage.set_meta(EMBEDDINGS_RECORD, self.model)
        elif stored != self.model:
            raise EmbeddingMismatchError(
                f"this store ({self.storage.describe()}) was written with {stored}; this memory "
                f"embeds with {self.model}; open it with the embeddings it was written with "
                "(embeddings=...), or use a new folder or prefix for the new model (nothing "
                "was stored)",
                stored_model=stored,
                new_model=self.model,
            )
        self._model_recorded = True

    # ------------------------------------------------------------------ retries
    def _retryable(self, err: OutcomeUnknownError, commit: Commit) -> None:
        """Give ``err`` what a retry of ``commit`` needs (its idempotency id and a resend)."""
        err.write_id = f"{commit.stream}:{commit.seq}"
        err.evidence_ids = tuple(ev.id for w in commit.writes for ev in w.records)
        err._resend = functools.partial(self.resend, commit)

    def resend(self, commit: Commit) -> None:
        """Store ``commit`` again after an unknown outcome (idempotent: same pages, same ids).

        Its namespaces' states were dropped when it failed; they are dropped again after, so
        the next read or write folds what is stored (each page once).

        Raises:
            InvalidArgumentError: If ``commit`` is not this memory's last append (another
                memory's, a forked process's, or this memory wrote since): sending it now could
                move a head back, so read the keys' history instead.
        """
        self.check_writable()
        namespaces = [w.namespace for w in commit.writes]
        with self.cache.locked(namespaces):
            with self._ids:
                last = self._seq
            if commit.stream != self.stream or commit.seq != last:
                raise InvalidArgumentError(
                    f"the write {commit.stream}:{commit.seq} is not this memory's last append "
                    f"(last {self.stream}:{last}); retry a write before writing anything else, "
                    "with the memory that raised the error; read the keys' history or audit to "
                    "see what was stored"
                )
            try:
                self.storage.commit(commit)
            except OutcomeUnknownError as err:
                self._retryable(err, commit)
                raise
            finally:
                for ns in namespaces:
                    self.cache.discard(ns)

    # ------------------------------------------------------------------ namespace states
    @contextmanager
    def reading(
        self,
        namespaces: Sequence[str],
        *,
        fresh: bool = True,
        known: Mapping[str, Head | None] | None = None,
        known_epochs: Mapping[str, int] | None = None,
    ) -> Iterator[dict[str, NamespaceState]]:
        """Lock ``namespaces`` and yield their states.

        With ``fresh`` (reads), each state is caught up unless it was checked less than
        ``max_staleness_s`` ago; without, states are used as cached (loaded if absent).
        ``known`` gives heads the caller read after its read began (``None``: no head), used
        instead of reading them again; ``known_epochs`` the write epochs read before those
        heads (``NamespaceScan.epochs``), kept as if this memory had read them.
        """
        with self.cache.locked(namespaces):
            yield self._states(namespaces, fresh=fresh, known=known, known_epochs=known_epochs)
        self.maybe_flush()

    def held(self, namespaces: Iterable[str]) -> bool:
        """Whether every one of ``namespaces`` has a state in process (nothing is read)."""
        return all(self.cache.peek(ns) is not None for ns in namespaces)

    def _states(
        self,
        namespaces: Sequence[str],
        *,
        fresh: bool,
        force: bool = False,
        known: Mapping[str, Head | None] | None = None,
        known_epochs: Mapping[str, int] | None = None,
    ) -> dict[str, NamespaceState]:
        """States of ``namespaces``: loaded if absent, caught up if due (always if ``force``).

        A state whose write epoch the storage still reports (:meth:`_unchanged`) is current
        without reading its head: nothing was written to its shard since that head was read.
        """
        now = time.monotonic()
        held: dict[str, NamespaceState | None] = {ns: self.cache.get(ns) for ns in namespaces}
        window = 0.0 if force else self.max_staleness_s
        given = known or {}
        check: list[str] = []
        for ns, st in held.items():
            if st is None or ns in given:
                check.append(ns)
            elif (fresh or force) and now - st.checked_at >= window:
                if self._unchanged(st):
                    st.checked_at = now
                else:
                    check.append(ns)
        unread = [ns for ns in check if ns not in given]
        # Epochs are read before the heads: a write that bumps after this read is either in
        # the heads read next or moves the epoch (epochs.py).
        epochs = {ns: self.storage.local_epoch(ns) for ns in unread}
        if known_epochs:
            epochs.update((ns, known_epochs[ns]) for ns in given if ns in known_epochs)
        heads = self.storage.read_heads(unread) if unread else {}
        heads.update({ns: head for ns, head in given.items() if head is not None})
        missing = [ns for ns in check if held[ns] is None]
        if missing:
            held.update(self._load({ns: heads.get(ns) for ns in missing}))
        for ns in check:
            st = held[ns]
            assert st is not None
            if ns not in missing:
                self._catch_up(st, heads.get(ns))
            st.checked_at = now
            if ns in epochs:
                st.epoch = epochs[ns]
                st.epoch_until = self._trusted_until(heads.get(ns))
        return {ns: st for ns, st in held.items() if st is not None}

    def _unchanged(self, st: NamespaceState) -> bool:
        """Whether nothing was written to ``st``'s namespace since its head was last read.

        True only while the storage vouches for the write epoch it reported before that head
        read (an embedded folder this process holds locked; never a server).
        """
        return (
            st.epoch is not None
            and time.time() < st.epoch_until
            and self.storage.local_epoch(st.namespace) == st.epoch
        )

    def _trusted_until(self, head: Head | None) -> float:
        """Until when a state just caught up to ``head`` may skip head reads (wall clock).

        Forever, unless another stream's views lag its pages: :meth:`_heal_if_stopped` heals
        them at the first head read after that stream has been quiet for the grace period, so
        the epoch is trusted only until then.
        """
        if head is None or self.read_only:
            return math.inf
        grace = 2 * self.views.max_age_s
        mine = self.stream
        due = [
            head.written[s] + grace
            for s, q in head.clock.items()
            if s != mine and head.views.get(s, 0) < q and s in head.written
        ]
        return min(due, default=math.inf)

    def _advance_epochs(
        self,
        states: Mapping[str, NamespaceState],
        before: Mapping[str, int | None],
        wrote: set[str],
    ) -> None:
        """After this memory's own write: keep each state's epoch current if only it moved it.

        ``before``: each state's epoch when the write was decided (checked current then);
        ``wrote``: the namespaces the write stored something for (their shards moved by one).
        A namespace whose epoch moved by anything else gets ``None`` (its next read reads the
        head).
        """
        for ns, was in before.items():
            st = states[ns]
            if was is None:
                st.epoch = None
                continue
            now = self.storage.local_epoch(ns)
            mine = was + 1 if ns in wrote else was
            st.epoch = now if now == mine else None

    def _load(self, heads: Mapping[str, Head | None]) -> dict[str, NamespaceState]:
        """First touch: fold each namespace's pages up to its head, with their vectors."""
        requests = [PageRequest(ns) for ns, head in heads.items() if head is not None]
        pages = self.storage.load_pages(requests) if requests else {}
        out: dict[str, NamespaceState] = {}
        with gc_paused():
            for ns, head in heads.items():
                st = NamespaceState(ns, dedicated=bool(head and head.dedicated))
                if not st.dedicated:
                    st.vectors = VectorTable()
                if head is not None:
                    known = [p for p in pages.get(ns, []) if p.seq <= head.clock.get(p.stream, 0)]
                    absorbed = st.absorb(known, self.policy)
                    self._settle_clock(st, head)
                    self._take_vectors(st, known, head)
                    self._suspect(st, absorbed.suspect)
                    self._heal_if_stopped(st, head)
                self.cache.put(st)
                out[ns] = st
        return out

    def _take_vectors(self, st: NamespaceState, pages: Sequence[Page], head: Head) -> None:
        """Add the vectors and item vectors of folded pages to ``st``'s tables."""
        for page in pages:
            for space, owners in page.items.items():
                st.spaces.setdefault(space, ItemTable()).put_many(owners)
        if st.dedicated:
            self._index_stray_vectors(st, pages, head)
            return
        fresh = {pid: v for page in pages for pid, v in page.vectors.items()}
        if st.vectors is not None:
            st.vectors.add(fresh)
            self._complete_vectors(st, st.vectors)

    def _index_stray_vectors(self, st: NamespaceState, pages: Sequence[Page], head: Head) -> None:
        """A large namespace: index vectors that pages after the head's index marks carry.

        Pages up to :attr:`~langchain_tepa.core.log.Head.indexed` are in the index (copied when
        the namespace was dedicated). A later page carries vectors only if its writer had not
        seen the flag: those are indexed here (by a writable memory), then the marks move to
        this state's clock so no other reader reads them again.
        """
        later = [p for p in pages if p.seq > head.indexed.get(p.stream, 0) and p.vectors]
        if not later or self.read_only:
            return
        fresh = {pid: v for page in later for pid, v in page.vectors.items()}
        have = self.storage.indexed(st.namespace, list(fresh))
        rows = [
            (p.snapshot(), fresh[pid])
            for pid in fresh
            if pid not in have and (p := st.precedent(pid)) is not None
        ]
        self.storage.index_vectors(st.namespace, rows, through=dict(st.clock))

    def _suspect(self, st: NamespaceState, keys: set[str]) -> None:
        """Rewrite the views of keys whose last writers raced (at the next flush)."""
        if keys and not self.read_only:
            self.views.add(p for k in keys if k in st.keys for p in st.keys[k].precedents.values())

    def _heal_if_stopped(self, st: NamespaceState, head: Head) -> None:
        """Other streams that stopped before writing their views: rewrite those views."""
        if self.read_only:
            return
        stopped = head.unwritten_views(time.time(), 2 * self.views.max_age_s)
        stopped.pop(self.stream, None)
        if stopped:
            self.views.add(p for ks in st.keys.values() for p in ks.precedents.values())
            self.views.heal(st.namespace, stopped)

    def _settle_clock(self, st: NamespaceState, head: Head) -> None:
        """After folding up to ``head``, take the head's clock.

        Pages never go missing unless the store lost data: then say so, and do not ask for them
        forever.
        """
        behind = {s: q for s, q in head.clock.items() if st.clock.get(s, 0) < q}
        if behind:
            _log.warning(
                "namespace %r: the head names pages that are not stored (%s); the evidence of "
                "those appends is lost; call reconcile()",
                st.namespace,
                ", ".join(f"{s}#{q}" for s, q in sorted(behind.items())),
            )
            st.clock.update(behind)

    def _catch_up(self, st: NamespaceState, head: Head | None) -> None:
        """Fold the pages appended since ``st``'s clock (by any writer)."""
        if head is None:
            return
        if head.dedicated and not st.dedicated:
            st.dedicated, st.vectors = True, None
        news = head.news(st.clock)
        if news:
            pages = self.storage.load_pages([PageRequest(st.namespace, after=news)])
            known = [p for p in pages.get(st.namespace, []) if p.seq <= head.clock.get(p.stream, 0)]
            absorbed = st.absorb(known, self.policy)
            for key in sorted(absorbed.refold):
                self._refold(st, key)
            self._settle_clock(st, head)
            self._take_vectors(st, known, head)
            self._suspect(st, absorbed.suspect)
        self._heal_if_stopped(st, head)

    def _refold(self, st: NamespaceState, key: str) -> None:
        pages = self.storage.load_pages([PageRequest(st.namespace, key=key)])
        records = [
            ev
            for p in pages.get(st.namespace, [])
            if p.seq <= st.clock.get(p.stream, 0)
            for ev in p.records
            if ev.key == key
        ]
        st.refold(key, records, self.policy)

    # ------------------------------------------------------------------ vectors
    def embed(self, precedents: Sequence[Precedent]) -> list[list[float]]:
        """Embed precedent texts (one call; none for an empty list)."""
        if not precedents:
            return []
        self.embed_calls += len(precedents)
        vectors = self.embeddings.embed_documents([p.page_content for p in precedents])
        if len(vectors) != len(precedents):
            raise InvalidArgumentError(
                f"the embeddings returned {len(vectors)} vectors for {len(precedents)} texts"
            )
        try:  # one conversion for the batch; rows of other sizes or types: one at a time
            rows = np.asarray(vectors, dtype=np.float64)
        except (TypeError, ValueError):
            rows = None
        if rows is not None and rows.ndim == 2 and bool(np.isfinite(rows).all()):
            out: list[list[float]] = rows.tolist()
            return out
        return [[float(x) for x in v] for v in vectors]

    def _check_sizes(
        self,
        states: Mapping[str, NamespaceState],
        new: Sequence[Precedent],
        vectors: Mapping[str, Sequence[float]],
    ) -> None:
        """Refuse a commit whose new vectors differ in size from its namespaces' stored ones.

        Checked before anything is written: a namespace holding vectors of two sizes could no
        longer be searched with either model.

        Raises:
            EmbeddingMismatchError: Naming this memory's model and both sizes.
        """
        for p in new:
            st = states.get(p.namespace)
            stored = st.vectors.dims if st is not None and st.vectors is not None else None
            size = len(vectors[p.id])
            if stored is not None and size != stored:
                raise EmbeddingMismatchError(
                    f"this memory embeds with {describe_embeddings(self.embeddings)}, whose "
                    f"vectors have {size} dimensions, but namespace {p.namespace!r} holds "
                    f"vectors of {stored} dimensions, written with another embedding model; "
                    "open the memory with the embeddings it was written with (nothing was "
                    "stored)",
                    stored=stored,
                    new=size,
                )

    def _complete_vectors(self, st: NamespaceState, table: VectorTable) -> None:
        """Embed precedents that have no stored vector, once, and store them.

        Only a store migrated from an older layout that had lost some vectors has such
        precedents; their vectors go to a page of their own.
        """
        lost = [
            p
            for pid in table.missing(
                p.id for ks in st.keys.values() for p in ks.precedents.values()
            )
            if (p := st.precedent(pid)) is not None
        ]
        if not lost:
            return
        vecs = self.embed(lost)
        table.add({p.id: v for p, v in zip(lost, vecs, strict=True)})
        if not self.read_only:
            self.check_model(record=True)
            seq = self._next_seq()
            write = NamespaceWrite(
                namespace=st.namespace,
                records=[],
                basis=st.digest,
                count=st.counts.get(self.stream, 0),
                summary=st.summary(),
                time=float(self._clock()),
                new=[(p.snapshot(), v) for p, v in zip(lost, vecs, strict=True)],
                precedents=st.precedent_count(),
            )
            self.storage.commit(Commit(self.stream, seq, [write]))
            st.advance(self.stream, seq, 0)

    def rank(
        self,
        st: NamespaceState,
        candidates: Sequence[Precedent],
        query: Sequence[float],
        k: int,
        *,
        key_prefix: str | None = None,
    ) -> list[tuple[Precedent, float]]:
        """The ``k`` candidates most similar to ``query``, best first.

        Ranking the same ``candidates`` list object again (a state's cached
        :meth:`~langchain_tepa.state.NamespaceState.ranking`) does no work per candidate in
        Python.
        """
        if not candidates:
            return []
        if st.vectors is not None and not st.dedicated:
            return st.vectors.top(query, candidates, k, _precedent_id)
        # A large namespace: the backend's index ranks, this state says which hits are live.
        # The index holds every precedent; ask for as many hits as should hold k live ones
        # (k when every precedent is a candidate: the work of a plain top-k query), more if not.
        wanted = st.members(candidates)
        total = st.precedent_count()
        n = min(max(k, math.ceil(k * total / len(candidates))), max(total, k))
        while True:
            hits = self.storage.query_vectors(st.namespace, query, n, key_prefix=key_prefix)
            out = [(p, s) for pid, s in hits if (p := wanted.get(pid)) is not None][:k]
            if len(out) >= k or len(hits) < n or n >= total:
                return out
            n = min(n * 4, total)

    def stored_vectors(self, st: NamespaceState, ids: Sequence[str]) -> dict[str, list[float]]:
        """Stored vectors of precedents of ``st``: held in process, or in a large namespace's index.

        Vectors held in process are unit vectors (the same cosine similarities).
        """
        known = [pid for pid in ids if st.precedent(pid) is not None]
        if st.vectors is not None and not st.dedicated:
            out = {}
            for pid in known:
                vec = st.vectors.vector(pid)
                if vec is not None:
                    out[pid] = vec.tolist()
            return out
        return self.storage.index_vectors_of(st.namespace, known)

    def items(self, st: NamespaceState, space: str) -> ItemTable:
        """The item vectors of ``space`` in ``st``'s namespace (from its pages)."""
        return st.spaces.setdefault(space, ItemTable())

    # ------------------------------------------------------------------ commits
    def commit(
        self,
        records: Sequence[Evidence | Deferred],
        items: Mapping[str, Mapping[str, Mapping[str, Sequence[Sequence[float]]]]] | None = None,
    ) -> list[Folded]:
        """Fold and store ``records`` (one append), after catching up their namespaces.

        Args:
            records: The new evidence (any namespaces), in order; a :class:`Deferred` entry
                becomes the records it makes from its key's state at its place.
            items: Item vectors to store with them: ``namespace -> space -> owner -> vectors``.

        Nothing is stored if embedding or validation fails; each namespace's part is stored
        whole (see :class:`~langchain_tepa.storage.base.StorageBackend`).
        """
        self.check_writable()
        namespaces = list(dict.fromkeys([ev.namespace for ev in records] + list(items or {})))
        # The fold allocates many small objects; the cyclic collector's passes they trigger
        # walk every object the process holds (none of them garbage here). Paused, a 500-fact
        # batch spent 20-45 ms less in Python (docs/performance.md, "The floors under the two
        # missed write targets").
        with gc_paused(), self.cache.locked(namespaces):
            states = self._states(namespaces, fresh=True, force=True)  # decide on all evidence
            try:
                out = self._fold_and_store(records, items, namespaces, states)
            except BaseException:
                for ns in namespaces:  # folded in place, not stored: reload when next touched
                    self.cache.discard(ns)
                raise
        self.maybe_flush()
        return out

    def _fold_and_store(
        self,
        records: Sequence[Evidence | Deferred],
        items: Mapping[str, Mapping[str, Mapping[str, Sequence[Sequence[float]]]]] | None,
        namespaces: list[str],
        states: dict[str, NamespaceState],
    ) -> list[Folded]:
        """Fold ``records`` into the (locked) ``states`` in place, then store them.

        Raises whatever folding, embedding or storing raised; the caller then drops the
        namespaces' states (half folded) from the cache.
        """
        work: dict[tuple[str, str], KeyState] = {}
        before: dict[str, Lifecycle] = {}
        seen: dict[str, int] = {}
        folded: list[tuple[Evidence, tuple[str, str], list[Transition]]] = []
        for entry in records:
            nk = (entry.namespace, entry.key)
            if nk not in work:
                current = states[entry.namespace].keys.get(entry.key)
                # Folded in place: a failure drops the commit's namespaces from the cache.
                work[nk] = current if current is not None else KeyState(entry.namespace, entry.key)
                for p in work[nk].precedents.values():
                    before[p.id] = p.state
                    seen[p.id] = len(p.evidence_ids)
            made = entry.make(work[nk]) if isinstance(entry, Deferred) else [entry]
            for ev in made:
                if (ev.namespace, ev.key) != nk:
                    raise InvalidArgumentError(
                        f"a deferred write of {nk} made a record of {ev.namespace!r}, {ev.key!r}"
                    )
                ev = self._in_order(ev, work[nk])
                folded.append((ev, nk, apply_evidence(work[nk], ev, self.policy)))
        if any(isinstance(entry, Deferred) for entry in records):
            # Deferred writes that made nothing leave their key (and namespace) untouched.
            made_keys = {nk for _, nk, _ in folded}
            work = {nk: ks for nk, ks in work.items() if nk in made_keys}
            written = {ns for ns, _ in made_keys} | set(items or {})
            namespaces = [ns for ns in namespaces if ns in written]
            if not namespaces:
                return []
        new = [
            p
            for (ns, _), ks in work.items()
            for p in ks.precedents.values()
            if p.id not in before and states[ns].precedent(p.id) is None
        ]
        vectors = dict(zip([p.id for p in new], self.embed(new), strict=True))
        self._check_sizes(states, new, vectors)
        self.check_model(record=True)
        seq = self._next_seq()
        stream = self.stream
        wall = float(time.time())
        keys_of: dict[str, dict[str, KeyState]] = {ns: {} for ns in namespaces}
        for (ns, k), ks in work.items():
            keys_of[ns][k] = ks
        records_of: dict[str, list[Evidence]] = {ns: [] for ns in namespaces}
        for ev, (ns, _), _ in folded:
            records_of[ns].append(ev)
        writes: list[NamespaceWrite] = []
        touched: list[Precedent] = []
        # A commit over several namespaces writes their views with its pages (one storage
        # call per shard instead of two) where the storage keeps them together; its
        # namespaces' buffered views go with them. Elsewhere views are buffered.
        inline = len(namespaces) > 1 and self.storage.views_with_pages
        taken = self.views.take(namespaces) if inline else None
        for ns in namespaces:
            st = states[ns]
            keys = keys_of[ns]
            recs = records_of[ns]
            created = [p for ks in keys.values() for p in ks.precedents.values() if p.id in vectors]
            mine: list[Precedent] = []
            for ks in keys.values():
                for p in ks.precedents.values():
                    if (
                        p.id in vectors
                        or before.get(p.id) is not p.state
                        or len(p.evidence_ids) != seen.get(p.id, -1)
                    ):
                        mine.append(p)
            views: list[Precedent] = []
            view_marks: dict[str, int] = {}
            if taken is not None:
                views = self._views_after(st, keys, mine, taken.views.get(ns, ()))
                view_marks = {**taken.heal.get(ns, {}), stream: seq}
            else:
                touched += mine
            active = st.active_count() + sum(
                active_in(ks) - st.active_in_key(k) for k, ks in keys.items()
            )
            after = clock_digest({**st.clock, stream: seq})
            writes.append(
                NamespaceWrite(
                    namespace=ns,
                    records=recs,
                    basis=st.digest,
                    count=st.counts.get(stream, 0) + len(recs),
                    summary=NamespaceSummary(after, active, len(set(st.keys) | set(keys))),
                    time=wall,
                    new=[(p.snapshot(), vectors[p.id]) for p in created],
                    items=(items or {}).get(ns, {}),
                    precedents=st.precedent_count() + len(created),
                    created=not st.clock,
                    views=views,
                    view_marks=view_marks,
                )
            )
        decided = {ns: states[ns].epoch for ns in namespaces}
        commit = Commit(stream, seq, writes)
        try:
            self.storage.commit(commit)
        except BaseException as exc:
            if taken is not None:
                self.views.restore(taken)  # still to write
            if isinstance(exc, OutcomeUnknownError):
                self._retryable(exc, commit)
            raise
        self._advance_epochs(states, decided, set(namespaces))  # before any other write
        # Stored: publish.
        for (ns, key), ks in work.items():
            states[ns].replace_key(key, ks)
        for write in writes:
            st = states[write.namespace]
            st.advance(stream, seq, len(write.records))
            if st.vectors is not None:
                st.vectors.add({p.id: v for p, v in write.new})
            for space, owners in write.items.items():
                self.items(st, space).put_many(owners)
            if taken is None:
                self.views.touch(write.namespace)
            self._maybe_dedicate(st)
        self.views.add(touched)
        return [Folded(ev, work[nk], trs, self._detached(work[nk], ev)) for ev, nk, trs in folded]

    def _detached(self, state: KeyState, ev: Evidence) -> Precedent | None:
        """A copy of the precedent ``ev`` concerns, as folded now (for the caller's result)."""
        if ev.kind is EvidenceKind.BOUNDARY:
            return None
        vid = value_identity(ev.value, normalize=self.policy.normalize_values)
        found = state.precedents.get(vid)
        if found is None:
            return None
        refresh_posterior(found, self.policy)
        snap = found.snapshot()
        snap.value = copy_value(snap.value)
        return snap

    def _views_after(
        self,
        st: NamespaceState,
        keys: Mapping[str, KeyState],
        touched: Sequence[Precedent],
        buffered: Iterable[str],
    ) -> list[Precedent]:
        """Views of ``touched`` and of ``buffered`` ids, as folded after a commit's ``keys``."""
        out = {p.id: p for p in touched}
        for pid in sorted(buffered):
            if pid in out:
                continue
            p = st.precedent(pid)
            if p is not None and p.key in keys:
                p = keys[p.key].precedents.get(pid, p)
            if p is not None:
                out[pid] = p
        return [self._view(p) for p in out.values()]

    def _view(self, p: Precedent) -> Precedent:
        """The view of ``p`` to store: its posterior brought up to date, as a snapshot."""
        refresh_posterior(p, self.policy)
        return p.snapshot()

    def _maybe_dedicate(self, st: NamespaceState) -> None:
        """Give a namespace that grew large an index of its own (the backend's choice)."""
        limit = getattr(self.storage, "dedicated_at", None)
        if limit is None or st.dedicated or st.vectors is None or st.precedent_count() <= limit:
            return
        rows = []
        for ks in st.keys.values():
            for p in ks.precedents.values():
                vec = st.vectors.vector(p.id)
                if vec is not None:
                    rows.append((p.snapshot(), vec.tolist()))
        self.storage.dedicate(st.namespace, rows, dict(st.clock))
        st.dedicated, st.vectors = True, None

    # ------------------------------------------------------------------ views
    def maybe_flush(self) -> None:
        """Write buffered views if there are too many or the oldest is too old."""
        if self.views.due():
            self.flush()

    def flush(self, *, settle: bool = False) -> None:
        """Write buffered views, each as the fold has it now (caught up first).

        The view marks of the namespaces written go with them (a backend may hold marks back
        for a later commit to carry); ``settle`` has every mark held back written now.
        """
        if self.read_only:
            self.views.drain()
            return
        # Readers heal views whose marks lag for twice the flush interval: with a short one,
        # marks are not left waiting for a commit to carry them (Chroma waits up to 0.5 s).
        settle = settle or self.views.max_age_s < _SETTLE_BELOW_S
        pending = self.views.drain()
        if not pending:
            if settle:
                self.storage.write_views([], None, settle=True)
            return
        namespaces = sorted(set(pending.views) | set(pending.heal))
        try:
            with self.cache.locked(namespaces):
                states = self._states(namespaces, fresh=True, force=True)
                current = []
                marks: dict[str, dict[str, int]] = {}
                for ns in namespaces:
                    st = states[ns]
                    for pid in sorted(pending.views.get(ns, ())):
                        p = st.precedent(pid)
                        if p is not None:
                            current.append(self._view(p))
                    mark = dict(pending.heal.get(ns, {}))
                    if self.stream in st.clock:
                        mark[self.stream] = st.clock[self.stream]
                    if mark:
                        marks[ns] = mark
                decided = {ns: states[ns].epoch for ns in namespaces}
                self.storage.write_views(current, marks, settle=settle)
                self._advance_epochs(states, decided, set())  # views move no epoch
        except BaseException:
            self.views.restore(pending)  # keep them for the next flush
            raise

    # ------------------------------------------------------------------ listing and points
    def heads(self) -> Iterator[Head]:
        """Every namespace's head, from storage."""
        return self.storage.list_heads()

    def active_counts(self, namespaces: Sequence[str]) -> dict[str, int]:
        """Active precedents of each of ``namespaces`` (0 without a head), from their heads.

        A namespace whose write epoch (``StorageBackend.local_epoch``) is the one read before
        the head that gave its last count here is answered from that count, without reading
        its head again; the others' heads are read together (one read per shard).
        """
        epochs = {ns: self.storage.local_epoch(ns) for ns in namespaces}  # before the heads
        out: dict[str, int] = {}
        unread: list[str] = []
        for ns in namespaces:
            epoch = epochs[ns]
            hit = self._counted.get(ns) if epoch is not None else None
            if hit is not None and hit[0] == epoch:
                out[ns] = hit[1]
            else:
                unread.append(ns)
        heads = self.storage.read_heads(unread) if unread else {}
        for ns in unread:
            out[ns] = self.active_count(heads[ns]) if ns in heads else 0
            epoch = epochs[ns]
            if epoch is not None:
                if len(self._counted) >= _COUNTS_HELD:
                    self._counted.clear()
                self._counted[ns] = (epoch, out[ns])
        return out

    def active_count(self, head: Head) -> int:
        """Active precedents of ``head``'s namespace (its trusted summary, else a fold)."""
        summary = head.trusted_summary()
        if summary is not None:
            return summary.active
        cached = self.cache.peek(head.namespace)
        if cached is not None and cached.clock == dict(head.clock):
            return cached.active_count()
        with self.reading([head.namespace]) as states:
            st = states[head.namespace]
            count = st.active_count()
            if not self.read_only and st.clock == dict(head.clock):
                self.storage.write_summary(head.namespace, st.summary())
        return count

    def all_pages(
        self, namespace: str, *, key: str | None = None, until: float | None = None
    ) -> list[Evidence]:
        """Stored evidence of a namespace within its head, in ``(time, id)`` order.

        Optionally of one key only, or up to a time.
        """
        head = self.storage.read_heads([namespace]).get(namespace)
        if head is None:
            return []
        pages = self.storage.load_pages([PageRequest(namespace, key=key, until=until)])
        records = [
            ev
            for p in pages.get(namespace, [])
            if p.seq <= head.clock.get(p.stream, 0)
            for ev in p.records
            if key is None or ev.key == key
        ]
        return sorted(records, key=lambda e: e.sort_key)

    def as_of(
        self, namespace: str, point: AsOf, keys: Iterable[str] | None = None
    ) -> dict[str, KeyState]:
        """Each key's state folded from the evidence up to ``point``."""
        wanted = list(keys) if keys is not None else None
        one = wanted[0] if wanted is not None and len(wanted) == 1 else None
        records = self.all_pages(namespace, key=one, until=point.time)
        return fold_as_of(records, self.policy, point, keys=wanted)

    def find_evidence(self, namespace: str, evidence_id: str) -> Evidence | None:
        """The stored record ``evidence_id`` of ``namespace`` (reads the namespace's pages)."""
        for ev in self.all_pages(namespace):
            if ev.id == evidence_id:
                return ev
        return None

    def close(self) -> None:
        """Write buffered views (and every view mark held back) and drop the cache."""
        try:
            self.flush(settle=True)
        finally:
            self.cache.clear()

"""Namespace states of a memory's engine: loaded on first touch, caught up before use.

Before every read and every write of a namespace the engine asks the storage for that
namespace's head; if another writer appended since this memory's clock, only the pages after the
clock are read and folded (:meth:`FreshnessMixin.reading`). A namespace whose write epoch the
storage still vouches for is current without a head read (``storage/chroma/epochs.py``). Views
(the stored copies of precedents) are buffered and written by :meth:`FreshnessMixin.flush`.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from langchain_tepa._gc import gc_paused
from langchain_tepa.core.log import Head, Page
from langchain_tepa.memory.engine_base import EngineBase
from langchain_tepa.state import (
    ItemTable,
    NamespaceState,
    VectorTable,
)
from langchain_tepa.storage.base import (
    Commit,
    NamespaceWrite,
    PageRequest,
)

__all__ = ["FreshnessMixin"]

_SETTLE_BELOW_S = 1.0
"""Flush intervals below which every flush writes its view marks at once (``Engine.flush``)."""

_log = logging.getLogger("langchain_tepa")


class FreshnessMixin(EngineBase):
    """Loading, catching up and flushing the namespace states of an engine (module docstring).

    Example:
        >>> from langchain_tepa.memory.engine import Engine
        >>> issubclass(Engine, FreshnessMixin)
        True
    """

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
    def _complete_vectors(self, st: NamespaceState, table: VectorTable) -> None:
        """Embed precedents that have no stored vector, once, and store them.

        Their pages carried none: written by another writer once the namespace had an index of
        its own (the vectors went to the index), folded by a process that has not seen the
        index yet, or written without vectors at all. Their vectors go to a page of their own.
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

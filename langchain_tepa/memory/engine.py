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

The engine is built in layers, one job each: :mod:`~langchain_tepa.memory.engine_base`
(settings, evidence ids and time, checks, retries, embedding),
:mod:`~langchain_tepa.memory.freshness` (loading and catching up namespace states, flushing
views), :mod:`~langchain_tepa.memory.commits` (appends) and this module (ranking, listing and
points in time).

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> _ = memory.observe("user.diet", "vegan")
    >>> memory.get("user.diet")
    'vegan'
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence

from langchain_tepa.core.log import Head
from langchain_tepa.core.types import Evidence, KeyState, Precedent
from langchain_tepa.memory.commits import CommitMixin, Deferred, Folded
from langchain_tepa.state import AsOf, NamespaceState, fold_as_of
from langchain_tepa.storage.base import PageRequest

__all__ = ["Deferred", "Engine", "Folded"]

_COUNTS_HELD = 65536  # namespaces whose last active count a memory keeps (all forgotten beyond)


def _since(head: Head, when: float) -> bool:
    """Whether any stream appended to ``head``'s namespace at ``when`` or later."""
    return any(t >= when for t in head.written.values())


def _precedent_id(p: Precedent) -> str:
    return p.id


class Engine(CommitMixin):
    """Namespace states, freshness and commits of one memory (see the module docstring).

    Its constructor is :class:`~langchain_tepa.memory.engine_base.EngineBase`'s (the arguments
    are documented there).
    """

    # ------------------------------------------------------------------ vectors
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

    def answers_complete(self, *, repair: bool = False) -> bool:
        """Whether the answer index lacks no answer (with ``repair``: repaired first if it may).

        A process killed while it held answer changes back (``storage/chroma/pending.py``) left
        the index behind from some time on: with ``repair`` (a writable memory opening a store
        with an index, never a read) every namespace appended to since then is refolded and its
        answers stored again; otherwise ``False`` until a writer has (searches then fold).
        """
        if self._answers_complete:
            return True  # nobody but a process that held this store's folder could leave it
        behind = self.storage.answers_behind() if self.answers.spaces() else None
        if behind is None:
            self._answers_complete = True
            return True
        if self.read_only or not repair:
            return False
        names = [h.namespace for h in self.storage.list_heads() if _since(h, behind)]
        changes = []
        for ns in names:
            with self.reading([ns]) as states:
                st = states[ns]
                tables = {
                    s: self.items(st, s)
                    for s in {*self.answers.spaces(), *filter(None, self.answers.spaces().values())}
                }
                changes += [(ns, s, u) for s, u in self.answers.rebuild(st, tables).items()]
        self.storage.repair_answers(changes)
        self._answers_complete = True
        return True

    def close(self) -> None:
        """Write buffered views (and every view mark held back) and drop the cache."""
        try:
            self.flush(settle=True)
        finally:
            self.cache.clear()

"""Appends of a memory's engine: fold new records on caught-up states, then store them.

A commit locks its namespaces, catches them up on every writer's evidence, folds its records in
order (a :class:`Deferred` entry decides its records from its key's state at its place), embeds
the precedents it creates, and stores each namespace's part whole (one storage call per shard
where the storage allows). Only once stored are the new states published; a failure drops the
half-folded states so the next touch reloads them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from langchain_tepa._gc import gc_paused
from langchain_tepa.core.errors import (
    InvalidArgumentError,
    OutcomeUnknownError,
)
from langchain_tepa.core.fold import apply_evidence, refresh_posterior
from langchain_tepa.core.log import NamespaceSummary, clock_digest
from langchain_tepa.core.types import (
    Evidence,
    EvidenceKind,
    KeyState,
    Lifecycle,
    Precedent,
    Transition,
)
from langchain_tepa.core.values import safe_repr, value_identity
from langchain_tepa.memory.documents import copy_value
from langchain_tepa.memory.freshness import FreshnessMixin
from langchain_tepa.state import (
    NamespaceState,
    active_in,
)
from langchain_tepa.storage.base import (
    Commit,
    NamespaceWrite,
)

__all__ = ["CommitMixin", "Deferred", "Folded"]


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


class CommitMixin(FreshnessMixin):
    """The appends of an engine (module docstring).

    Example:
        >>> from langchain_tepa.memory.engine import Engine
        >>> issubclass(Engine, CommitMixin)
        True
    """

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
                        f"a deferred write of {nk} made a record of {safe_repr(ev.namespace)}, "
                        f"{safe_repr(ev.key)}"
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

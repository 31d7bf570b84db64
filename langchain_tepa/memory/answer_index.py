"""What a commit changes in the answer index (``storage/answers.py``), and which spaces it keeps.

A store lists its indexed vector spaces in the meta record ``answer_index``; every memory that
writes to it reads the record once and, in every commit, gives each namespace's changed
answers to the storage with the commit (:meth:`AnswerIndexer.updates`): for each key the commit
touched, and each key whose answer got new item vectors or a new stamp, its answer now (with
its vectors) and the record slots its previous answer used beyond them. Each record says
whether trust budgets can move it (``plain``): an answer of the top tier whose key a top-tier
source created is never demoted below a look-alike nor hidden by a budget, and nothing can rise
above it, so a cold search whose page holds only such answers is what the fold would rank.

Example:
    >>> from langchain_tepa.storage import InMemoryStorage
    >>> from langchain_tepa.core.policy import LifecyclePolicy
    >>> indexer = AnswerIndexer(InMemoryStorage(), LifecyclePolicy())
    >>> indexer.register("docs", stamps=None, empty=True), indexer.spaces()
    (True, {'docs': None})
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_tepa.core.budgets import TOP_TIER, precedent_tier, source_tier
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.types import KeyState, Precedent
from langchain_tepa.state import ItemTable, NamespaceState
from langchain_tepa.storage.answers import INDEX_RECORD, AnswerRecord, AnswerUpdate
from langchain_tepa.storage.base import StorageBackend

__all__ = ["AnswerIndexer"]

Items = Mapping[str, Mapping[str, Sequence[Sequence[float]]]]
"""One namespace's item vectors of a commit: ``space -> owner -> vectors``."""


def _answer(ks: KeyState | None) -> Precedent | None:
    if ks is None:
        return None
    act = ks.active()
    return act[0] if act else None


class AnswerIndexer:
    """The indexed spaces of a memory's store and each commit's changes to their index.

    Args:
        storage: The memory's storage.
        policy: Its lifecycle policy (trust budgets decide ``plain``).
    """

    def __init__(self, storage: StorageBackend, policy: LifecyclePolicy) -> None:
        self._storage = storage
        self._policy = policy
        self._spaces: dict[str, str | None] | None = None  # read from the store once

    def _read(self) -> dict[str, dict[str, Any]]:
        text = self._storage.get_meta(INDEX_RECORD)
        try:
            data = json.loads(text) if text else {}
        except ValueError:
            data = {}
        return data if isinstance(data, dict) else {}

    def spaces(self) -> dict[str, str | None]:
        """``space -> stamp space`` of every space whose answers this store indexes."""
        if self._spaces is None:
            self._spaces = {
                str(space): (spec.get("stamps") if isinstance(spec.get("stamps"), str) else None)
                for space, spec in self._read().items()
                if isinstance(spec, dict) and spec.get("complete", True)
            }
        return self._spaces

    def register(self, space: str, *, stamps: str | None, empty: Callable[[], bool] | bool) -> bool:
        """Index ``space`` from now on, if the store can: whether its index is complete.

        A space the store lists is indexed; one it does not list is listed when the store
        holds no evidence yet (``empty()``, asked only then), and recorded as incomplete
        otherwise (its answers from before are in no index: its searches keep folding the
        namespaces).
        """
        got = self._read()
        spec = got.get(space)
        if not isinstance(spec, dict):
            if self._storage.read_only:
                return False
            spec = {"stamps": stamps, "complete": bool(empty() if callable(empty) else empty)}
            got[space] = spec
            self._storage.set_meta(INDEX_RECORD, json.dumps(got, sort_keys=True))
        self._spaces = None
        return bool(spec.get("complete", True))

    def _plain(self, p: Precedent, ks: KeyState) -> bool:
        """Whether trust budgets can never move ``p`` (see the module docstring)."""
        trust = self._policy.trust
        if trust is None or not self._policy.key_budgets:
            return True
        if precedent_tier(trust, p) < TOP_TIER:
            return False
        first = min(ks.precedents.values(), key=lambda q: (q.created_at, q.id))
        return source_tier(trust, first.source) >= TOP_TIER

    def updates(
        self,
        st: NamespaceState,
        keys: Mapping[str, KeyState],
        before: Mapping[str, str | None],
        items: Items,
        tables: Mapping[str, ItemTable],
    ) -> dict[str, AnswerUpdate]:
        """One namespace's answer-index changes by a commit, per indexed space.

        Args:
            st: The namespace's state before the commit is published (its item tables hold
                the vectors stored before).
            keys: The keys the commit folded, as folded.
            before: Each of those keys' answering precedent id before the commit.
            items: The commit's item vectors of the namespace (``space -> owner -> vectors``).
            tables: The namespace's item tables before the commit, per space.
        """
        spaces = self.spaces()
        if not spaces:
            return {}
        wanted = set(keys)
        for owners in items.values():  # new vectors or stamps of answers the commit kept
            for owner in owners:
                p = st.precedent(owner)
                if p is not None:
                    wanted.add(p.key)
        out: dict[str, AnswerUpdate] = {}
        for space, stamps in spaces.items():
            records: list[AnswerRecord] = []
            stale: list[tuple[str, int, int]] = []
            for key in sorted(wanted):
                ks = keys.get(key, st.keys.get(key))
                now = _answer(ks)
                old_id = before.get(key) if key in keys else (now.id if now else None)
                vecs = self._vectors(space, now, items, tables)
                old = len(self._vectors_of(space, old_id, {}, tables) or ()) if old_id else 0
                n = len(vecs) if now is not None and vecs else 0
                if n:
                    assert now is not None
                    assert ks is not None
                    plain = self._plain(now, ks)
                    records.append(self._record(now, vecs, plain, stamps, items, tables))
                if old > n:
                    stale.append((key, n, old))
            if records or stale:
                out[space] = AnswerUpdate(records, stale)
        return out

    def rebuild(
        self, st: NamespaceState, tables: Mapping[str, ItemTable]
    ) -> dict[str, AnswerUpdate]:
        """Every answer of ``st``'s namespace as the index should hold it (a repair).

        Each key's records beyond its answer's vectors are removed up to the most vectors any
        of its precedents has (whatever an answer before may have left).
        """
        out: dict[str, AnswerUpdate] = {}
        for space, stamps in self.spaces().items():
            records: list[AnswerRecord] = []
            stale: list[tuple[str, int, int]] = []
            table = tables.get(space)
            for key in sorted(st.keys):
                ks = st.keys[key]
                now = _answer(ks)
                vecs = self._vectors(space, now, {}, tables)
                if now is not None and vecs:
                    plain = self._plain(now, ks)
                    records.append(self._record(now, vecs, plain, stamps, {}, tables))
                most = max(
                    (len(table.payload(p.id) or ()) if table else 0) for p in ks.precedents.values()
                )
                if most > len(vecs):
                    stale.append((key, len(vecs), most))
            if records or stale:
                out[space] = AnswerUpdate(records, stale)
        return out

    def _vectors(
        self, space: str, p: Precedent | None, items: Items, tables: Mapping[str, ItemTable]
    ) -> Sequence[Sequence[float]]:
        if p is None:
            return ()
        return self._vectors_of(space, p.id, items, tables) or ()

    @staticmethod
    def _vectors_of(
        space: str, owner: str, items: Items, tables: Mapping[str, ItemTable]
    ) -> Sequence[Sequence[float]] | None:
        got = items.get(space, {}).get(owner)
        if got is not None:
            return got
        table = tables.get(space)
        return None if table is None else table.payload(owner)

    def _record(
        self,
        p: Precedent,
        vectors: Sequence[Sequence[float]],
        plain: bool,
        stamps: str | None,
        items: Items,
        tables: Mapping[str, ItemTable],
    ) -> AnswerRecord:
        stamp = None
        if stamps is not None:
            got = self._vectors_of(stamps, p.id, items, tables)
            stamp = list(got[0]) if got else None
        return AnswerRecord(
            p.namespace,
            p.key,
            p.id,
            p.value,
            float(p.created_at),
            float(p.updated_at),
            p.evidence_ids[-1] if p.evidence_ids else "",
            vectors,
            plain,
            stamp,
        )

"""The ground floor of a memory's :class:`~langchain_tepa.memory.engine.Engine`: who writes, when.

Its settings (storage, policy, embeddings, the read-only flag), the evidence ids and times it
stamps (a stream per process, unique after a fork; times that never go back), the checks a write
makes first (read-only, the embedding model the store was written with), the resending of a
commit whose outcome was unknown, and the embedding of precedent texts. The engine's other
parts build on it: :mod:`~langchain_tepa.memory.freshness` (namespace states),
:mod:`~langchain_tepa.memory.commits` (appends) and :mod:`~langchain_tepa.memory.engine`.

Example:
    >>> from langchain_tepa import TEPAMemory
    >>> memory = TEPAMemory.in_memory()
    >>> _ = memory.observe("user.diet", "vegan")
    >>> memory.get("user.diet")
    'vegan'
"""

from __future__ import annotations

import functools
import math
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

import numpy as np
from langchain_core.embeddings import Embeddings

from langchain_tepa.core.errors import (
    EmbeddingMismatchError,
    InvalidArgumentError,
    OutcomeUnknownError,
    ReadOnlyError,
)
from langchain_tepa.core.fold import refresh_posterior
from langchain_tepa.core.policy import LifecyclePolicy
from langchain_tepa.core.types import (
    Evidence,
    KeyState,
    Precedent,
)
from langchain_tepa.core.values import finite_number, safe_repr
from langchain_tepa.embeddings import describe_embeddings
from langchain_tepa.state import (
    ItemTable,
    NamespaceState,
    StateCache,
    ViewBuffer,
)
from langchain_tepa.storage.base import (
    EMBEDDINGS_RECORD,
    Commit,
    StorageBackend,
)

__all__ = ["EngineBase"]


class EngineBase:
    """Settings, ids and time, checks and retries of one memory's engine.

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
        if not finite_number(max_staleness_s) or max_staleness_s < 0:
            raise InvalidArgumentError(
                "max_staleness_s must be a finite number of seconds >= 0, got "
                f"{safe_repr(max_staleness_s)}"
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
            raw = self._clock()
            now = float(raw) if finite_number(raw) else math.nan
            if not math.isfinite(now):
                raise InvalidArgumentError(
                    f"the clock returned {safe_repr(now)}; it must return finite seconds"
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
                    f"vectors have {size} dimensions, but namespace {safe_repr(p.namespace)} holds "
                    f"vectors of {stored} dimensions, written with another embedding model; "
                    "open the memory with the embeddings it was written with (nothing was "
                    "stored)",
                    stored=stored,
                    new=size,
                )

    def items(self, st: NamespaceState, space: str) -> ItemTable:
        """The item vectors of ``space`` in ``st``'s namespace (from its pages)."""
        return st.spaces.setdefault(space, ItemTable())

    def _view(self, p: Precedent) -> Precedent:
        """The view of ``p`` to store: its posterior brought up to date, as a snapshot."""
        refresh_posterior(p, self.policy)
        return p.snapshot()

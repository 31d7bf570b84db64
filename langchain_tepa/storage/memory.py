"""`InMemoryStorage`: a process-local backend (numpy cosine search), for tests and simulations.

Same protocol and semantics as :class:`~langchain_tepa.storage.chroma.ChromaStorage`, nothing
persisted. Benchmarks that run thousands of simulated episodes may use it; the library's default
is Chroma.

Example:
    >>> from langchain_tepa.storage import InMemoryStorage
    >>> InMemoryStorage().load_precedents()
    []
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from langchain_tepa.core.errors import StorageError
from langchain_tepa.core.types import Evidence, Lifecycle, Precedent
from langchain_tepa.storage.base import PrecedentWrite, key_path

__all__ = ["InMemoryStorage"]


class _ActiveSet:
    def __init__(self) -> None:
        self.ids: list[str] = []
        self.index: dict[str, int] = {}
        self.vectors: list[np.ndarray] = []
        self.paths: list[list[str]] = []
        self._matrix: np.ndarray | None = None

    def add(self, pid: str, vector: np.ndarray, path: list[str]) -> None:
        if pid in self.index:
            return
        self.index[pid] = len(self.ids)
        self.ids.append(pid)
        self.vectors.append(vector)
        self.paths.append(path)
        self._matrix = None

    def remove(self, pid: str) -> None:
        pos = self.index.pop(pid, None)
        if pos is None:
            return
        last = len(self.ids) - 1
        if pos != last:
            self.ids[pos], self.vectors[pos], self.paths[pos] = (
                self.ids[last],
                self.vectors[last],
                self.paths[last],
            )
            self.index[self.ids[pos]] = pos
        self.ids.pop()
        self.vectors.pop()
        self.paths.pop()
        self._matrix = None

    def matrix(self) -> np.ndarray:
        if self._matrix is None:
            self._matrix = np.vstack(self.vectors) if self.vectors else np.zeros((0, 1))
        return self._matrix


class InMemoryStorage:
    """A process-local :class:`~langchain_tepa.storage.base.StorageBackend`.

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> memory = TEPAMemory(storage=InMemoryStorage())
        >>> memory.observe("user.diet", "vegan").precedent.state.value
        'active'
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._evidence: dict[str, Evidence] = {}
        self._archive: dict[str, Precedent] = {}
        self._vectors: dict[str, np.ndarray] = {}
        self._active: dict[str, _ActiveSet] = {}
        self._meta: dict[str, str] = {}

    def append_evidence(self, records: Sequence[Evidence]) -> None:
        """Append evidence records."""
        with self._lock:
            for ev in records:
                if ev.id in self._evidence:
                    raise StorageError(f"evidence id {ev.id!r} already stored")
            for ev in records:
                self._evidence[ev.id] = ev

    def load_evidence(
        self,
        *,
        namespace: str | None = None,
        key: str | None = None,
        since: float | None = None,
    ) -> list[Evidence]:
        """Evidence matching the filters, in ``(time, id)`` order."""
        with self._lock:
            out = [
                ev
                for ev in self._evidence.values()
                if (namespace is None or ev.namespace == namespace)
                and (key is None or ev.key == key)
                and (since is None or ev.time >= since)
            ]
        return sorted(out, key=lambda e: e.sort_key)

    def count_evidence(self) -> int:
        """Number of evidence records."""
        return len(self._evidence)

    def write_precedents(self, writes: Sequence[PrecedentWrite]) -> None:
        """Apply view changes."""
        with self._lock:
            for w in writes:
                p = w.precedent
                if p.id not in self._vectors:
                    if w.embedding is None:
                        raise StorageError(f"precedent {p.id} is new and needs an embedding")
                    vec = np.asarray(w.embedding, dtype=np.float64)
                    norm = float(np.linalg.norm(vec))
                    self._vectors[p.id] = vec / norm if norm > 0 else vec
                self._archive[p.id] = p.snapshot()
                active = self._active.setdefault(p.namespace, _ActiveSet())
                if p.state is Lifecycle.ACTIVE:
                    active.add(p.id, self._vectors[p.id], key_path(p.key))
                else:
                    active.remove(p.id)

    def load_precedents(self) -> list[Precedent]:
        """Snapshots of every archived precedent."""
        with self._lock:
            return [p.snapshot() for p in self._archive.values()]

    def query_active(
        self,
        namespace: str,
        embedding: Sequence[float],
        k: int,
        *,
        key_prefix: str | None = None,
    ) -> list[tuple[str, float]]:
        """Cosine nearest Active precedents."""
        with self._lock:
            active = self._active.get(namespace)
            if active is None or not active.ids:
                return []
            matrix = active.matrix()
            q = np.asarray(embedding, dtype=np.float64)
            norm = float(np.linalg.norm(q))
            q = q / norm if norm > 0 else q
            if matrix.shape[1] != q.shape[0]:
                raise StorageError(
                    f"query embedding has {q.shape[0]} dimensions, stored ones "
                    f"{matrix.shape[1]}: use the same embeddings for writing and reading"
                )
            sims = matrix @ q
            order = np.argsort(-sims, kind="stable")
            out: list[tuple[str, float]] = []
            for i in order:
                if key_prefix is not None and key_prefix not in active.paths[int(i)]:
                    continue
                out.append((active.ids[int(i)], float(sims[int(i)])))
                if len(out) >= k:
                    break
            return out

    def get_meta(self, name: str) -> str | None:
        """A named string."""
        return self._meta.get(name)

    def set_meta(self, name: str, value: str) -> None:
        """Set a named string."""
        self._meta[name] = value

    def close(self) -> None:
        """Nothing to release."""

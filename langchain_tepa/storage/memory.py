"""`InMemoryStorage`: a process-local backend, for tests, notebooks and simulations.

Same protocol and semantics as :class:`~langchain_tepa.storage.chroma.ChromaStorage`, nothing
persisted. Evidence and views are kept as JSON text, so nothing a caller holds is shared with the
store. Several memories given the same ``InMemoryStorage`` behave like several processes on one
store (each with its own stream and cache). Benchmarks that run thousands of simulated episodes
use it; the library's default is Chroma.

Example:
    >>> from langchain_tepa.storage import InMemoryStorage
    >>> storage = InMemoryStorage()
    >>> list(storage.list_heads())
    []
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from langchain_tepa.core.errors import ReadOnlyError, StorageError
from langchain_tepa.core.log import Head, NamespaceSummary, Page
from langchain_tepa.core.types import Evidence, Precedent
from langchain_tepa.storage.answers import AnswerHit, AnswerUpdate, MemoryAnswerIndex
from langchain_tepa.storage.base import Commit, NamespaceScan, PageRequest

__all__ = ["InMemoryStorage"]


@dataclass
class _StoredPage:
    stream: str
    seq: int
    basis: str | None
    keys: frozenset[str]
    first_time: float
    records: str  # JSON array
    vectors: dict[str, np.ndarray]
    items: dict[str, dict[str, list[np.ndarray]]]


@dataclass
class _Namespace:
    pages: list[_StoredPage] = field(default_factory=list)
    clock: dict[str, int] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    views_mark: dict[str, int] = field(default_factory=dict)
    written: dict[str, float] = field(default_factory=dict)
    summary: NamespaceSummary | None = None
    views: dict[str, str] = field(default_factory=dict)  # precedent id -> view JSON


def _vec(v: Sequence[float]) -> np.ndarray:
    return np.array(v, dtype=np.float32)


class InMemoryStorage:
    """A process-local :class:`~langchain_tepa.storage.base.StorageBackend`.

    Args:
        read_only: Refuse every write (for tests of read-only memories).

    Example:
        >>> from langchain_tepa import TEPAMemory
        >>> memory = TEPAMemory(storage=InMemoryStorage())
        >>> memory.observe("user.diet", "vegan").precedent.state.value
        'active'
    """

    def __init__(self, *, read_only: bool = False) -> None:
        self.read_only = bool(read_only)
        self._lock = threading.RLock()
        self._ns: dict[str, _Namespace] = {}
        self._meta: dict[str, str] = {}
        self._answers = MemoryAnswerIndex()

    def _writable(self) -> None:
        if self.read_only:
            raise ReadOnlyError("this storage is read-only; open it without read_only to write")

    # ------------------------------------------------------------------ heads
    @staticmethod
    def _head(name: str, data: _Namespace) -> Head:
        return Head(
            name,
            dict(data.clock),
            dict(data.counts),
            data.summary,
            False,
            dict(data.views_mark),
            dict(data.written),
        )

    @property
    def views_with_pages(self) -> bool:
        """Views go with their pages here (one dict update)."""
        return True

    def local_epoch(self, namespace: str) -> int | None:
        """Always ``None``: memories on this storage read heads (stand-ins for processes)."""
        return None

    def read_heads(self, namespaces: Sequence[str]) -> dict[str, Head]:
        """Heads of the namespaces that have evidence."""
        with self._lock:
            return {
                ns: self._head(ns, self._ns[ns])
                for ns in namespaces
                if ns in self._ns and self._ns[ns].clock
            }

    def list_heads(self) -> Iterator[Head]:
        """Every namespace's head."""
        with self._lock:
            heads = [self._head(ns, d) for ns, d in self._ns.items() if d.clock]
        yield from heads

    def find_namespaces(self, prefix: str | None = None) -> list[str]:
        """Namespaces equal to ``prefix`` or below it."""
        with self._lock:
            names = [ns for ns, d in self._ns.items() if d.clock]
        if prefix is None:
            return sorted(names)
        return sorted(ns for ns in names if ns == prefix or ns.startswith(prefix + "."))

    def namespaces_if_unchanged(self, prefix: str) -> list[str] | None:
        """Always ``None``: memories on this storage list namespaces from it."""
        return None

    def scan_namespaces(self, prefix: str, *, heads: int = 256) -> NamespaceScan:
        """Namespaces under ``prefix`` with the heads of the first ``heads`` of them."""
        with self._lock:
            names = self.find_namespaces(prefix)
            first = names[: max(0, heads)]
            return NamespaceScan(names, self.read_heads(first), frozenset(first))

    def write_summary(self, namespace: str, summary: NamespaceSummary) -> None:
        """Replace a namespace's summary."""
        self._writable()
        with self._lock:
            if namespace in self._ns:
                self._ns[namespace].summary = summary

    # ------------------------------------------------------------------ evidence
    def load_pages(self, requests: Sequence[PageRequest]) -> dict[str, list[Page]]:
        """Pages per namespace, as requested."""
        out: dict[str, list[Page]] = {}
        with self._lock:
            for req in requests:
                data = self._ns.get(req.namespace)
                found = out.setdefault(req.namespace, [])
                if data is None:
                    continue
                for page in data.pages:
                    if req.after is not None and (
                        page.stream not in req.after or page.seq <= req.after[page.stream]
                    ):
                        continue
                    if req.key is not None and req.key not in page.keys:
                        continue
                    if req.until is not None and page.first_time > req.until:
                        continue
                    found.append(
                        Page(
                            req.namespace,
                            page.stream,
                            page.seq,
                            tuple(Evidence.from_dict(d) for d in json.loads(page.records)),
                            page.basis,
                            {pid: v.tolist() for pid, v in page.vectors.items()},
                            {
                                space: {o: [v.tolist() for v in vs] for o, vs in owners.items()}
                                for space, owners in page.items.items()
                            },
                        )
                    )
        return out  # in commit order: readers check each page's basis in that order

    def commit(self, commit: Commit) -> None:
        """Store each namespace's page with its head bump."""
        self._writable()
        with self._lock:
            stored: set[str] = set()  # a retried append: its page is stored (same id), once
            for write in commit.writes:
                data = self._ns.setdefault(write.namespace, _Namespace())
                prev = data.clock.get(commit.stream, 0)
                if commit.seq == prev and any(
                    pg.stream == commit.stream and pg.seq == commit.seq for pg in data.pages
                ):
                    stored.add(write.namespace)
                elif commit.seq <= prev:
                    raise StorageError(
                        f"stream {commit.stream} appended sequence {commit.seq} after {prev}"
                    )
            for write in commit.writes:
                if write.namespace in stored:
                    continue
                data = self._ns[write.namespace]
                times = [ev.time for ev in write.records]
                data.pages.append(
                    _StoredPage(
                        commit.stream,
                        commit.seq,
                        write.basis,
                        frozenset(ev.key for ev in write.records),
                        min(times) if times else float("-inf"),
                        "[" + ",".join(ev.to_json() for ev in write.records) + "]",
                        {p.id: _vec(v) for p, v in write.new},
                        {
                            space: {o: [_vec(v) for v in vs] for o, vs in owners.items()}
                            for space, owners in write.items.items()
                        },
                    )
                )
                data.clock[commit.stream] = commit.seq
                data.counts[commit.stream] = write.count
                data.written[commit.stream] = write.time
                data.summary = write.summary
                self._put_views(data, write.views, write.view_marks)
            for write in commit.writes:  # a retried append stores its answers again: same ids
                for space, update in write.answers.items():
                    self._answers.apply(space, write.namespace, update)

    # ------------------------------------------------------------------ views
    def write_views(
        self,
        precedents: Sequence[Precedent],
        marks: Mapping[str, Mapping[str, int]] | None = None,
        *,
        settle: bool = False,
    ) -> None:
        """Write precedent views and view marks."""
        if not precedents and not marks:
            return
        self._writable()
        with self._lock:
            for p in precedents:
                data = self._ns.setdefault(p.namespace, _Namespace())
                self._put_views(data, [p], {})
            for ns, per in (marks or {}).items():
                self._put_views(self._ns.setdefault(ns, _Namespace()), [], per)

    @staticmethod
    def _put_views(
        data: _Namespace, precedents: Sequence[Precedent], marks: Mapping[str, int]
    ) -> None:
        for p in precedents:
            data.views[p.id] = json.dumps(p.view(), ensure_ascii=False)
        for stream, seq in marks.items():
            data.views_mark[stream] = max(seq, data.views_mark.get(stream, 0))

    def load_views(self, namespace: str) -> list[dict[str, Any]]:
        """Stored views of a namespace."""
        with self._lock:
            data = self._ns.get(namespace)
            views = list(data.views.values()) if data else []
        return [json.loads(v) for v in views]

    # ------------------------------------------------------------------ large namespaces
    def query_vectors(
        self,
        namespace: str,
        vector: Sequence[float],
        n: int,
        *,
        key_prefix: str | None = None,
    ) -> list[tuple[str, float]]:
        """Not used: this backend gives every namespace's vectors to the memory."""
        raise StorageError("InMemoryStorage indexes no namespace itself")

    @property
    def dedicated_at(self) -> int | None:
        """``None``: no namespace gets an index of its own here."""
        return None

    def dedicate(
        self,
        namespace: str,
        rows: Sequence[tuple[Precedent, Sequence[float]]],
        through: Mapping[str, int],
    ) -> None:
        """Refused: every namespace is ranked by the memory."""
        raise StorageError("InMemoryStorage indexes no namespace itself")

    def index_vectors(
        self,
        namespace: str,
        rows: Sequence[tuple[Precedent, Sequence[float]]],
        *,
        through: Mapping[str, int] | None = None,
    ) -> None:
        """Nothing to index: every namespace is ranked by the memory."""

    def index_vectors_of(self, namespace: str, ids: Sequence[str]) -> dict[str, list[float]]:
        """Nothing: no namespace has an index of its own here."""
        return {}

    def indexed(self, namespace: str, ids: Sequence[str]) -> set[str]:
        """Every id (no namespace has an index of its own here)."""
        return set(ids)

    def query_answers(
        self, space: str, vector: Sequence[float], n: int, *, prefix: str | None = None
    ) -> list[AnswerHit]:
        """The nearest answers of ``space`` under ``prefix`` (exact)."""
        return self._answers.query(space, vector, n, prefix)

    def flush_answers(self) -> None:
        """Nothing held back: each commit stores its answer changes."""

    def answers_behind(self) -> None:
        """``None``: this backend's index lacks no answer (commits store their changes)."""
        return None

    def repair_answers(
        self, changes: Sequence[tuple[str, str, AnswerUpdate]], *, clear: bool = True
    ) -> None:
        """Store answer changes."""
        self._writable()
        for namespace, space, update in changes:
            self._answers.apply(space, namespace, update)

    # ------------------------------------------------------------------ meta
    def get_meta(self, name: str) -> str | None:
        """A named string."""
        return self._meta.get(name)

    def set_meta(self, name: str, value: str) -> None:
        """Set a named string."""
        self._writable()
        self._meta[name] = value

    def describe(self) -> str:
        """``"in-process storage"``."""
        return "in-process storage"

    def close(self) -> None:
        """Nothing to release."""

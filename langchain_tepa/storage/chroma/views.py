"""Precedent views and view marks of a :class:`~langchain_tepa.storage.chroma.ChromaStorage`.

Views live in view shards of their own (``Layout.view_collection``), which no read loads; a view
mark in a namespace's head says up to which append of each stream its views are written. A mark
is stored after its views, never before: it waits for the next commit to its head's shard to
carry it (``pages.py``), or is written on its own after :data:`MARKS_WAIT_S` (``marks.py``).

Example:
    >>> MARKS_WAIT_S
    0.5
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_tepa.core.types import Precedent
from langchain_tepa.storage.chroma import codec
from langchain_tepa.storage.chroma.handles import CollectionHandles
from langchain_tepa.storage.chroma.layout import EVIDENCE_HNSW, Layout
from langchain_tepa.storage.chroma.marks import PendingMarks

__all__ = ["MARKS_WAIT_S", "ViewsMixin"]

MARKS_WAIT_S = 0.5
"""Seconds a view mark waits for a commit to its head's shard to carry it, before
it is written on its own at the next call (readers heal views only after twice the memory's
flush interval: 4 s by default)."""


class ViewsMixin(CollectionHandles):
    """The view methods of ``ChromaStorage`` (it sets ``layout`` and ``_marks``)."""

    layout: Layout
    _marks: PendingMarks

    @property
    def views_with_pages(self) -> bool:
        """``False``: views live in view shards of their own, not beside a commit's pages.

        A commit spanning several namespaces leaves its views to the memory's view buffer
        (written by :meth:`write_views`, many commits' views in one call per view shard)
        instead of adding a call per shard to every commit.
        """
        return False

    def _views(self, shard: int, *, create: bool) -> Any:
        name = self.layout.view_collection(shard)
        return self.collection(name, create=create, hnsw=EVIDENCE_HNSW)

    def write_views(
        self,
        precedents: Sequence[Precedent],
        marks: Mapping[str, Mapping[str, int]] | None = None,
        *,
        settle: bool = False,
    ) -> None:
        """Write views, then the view marks into heads.

        Every view shard touched is written first (one call each); the marks then wait for the
        next commit to their head's shard, which carries them in its own call, or are written
        on their own by the first call after ``MARKS_WAIT_S`` (and by :meth:`close`);
        ``settle`` writes every waiting mark now. A mark is never stored before its views; a
        failure or a crash leaves it behind them (the views are rewritten later). No write
        epoch moves (:meth:`local_epoch`): views and marks change no answer of a read, so a
        memory's cached states stay current across them (a reader that acts on another
        stream's marks re-reads its head when the epoch's trust runs out, ``_trusted_until``).
        """
        if not precedents and not marks and not (settle and self._marks):
            return
        self._writable()
        views: dict[str, tuple[list[str], list[dict[str, Any]]]] = {}
        for p in precedents:
            ids, metas = views.setdefault(
                self.layout.view_collection(self.layout.shard(p.namespace)), ([], [])
            )
            ids.append(p.id)
            metas.append(codec.precedent_meta(p))
        self.upsert_groups(views, "write views")
        for ns, per in (marks or {}).items():
            if per:
                self._marks.defer(self.layout.shard(ns), {ns: dict(per)})
        self._write_marks(due_only=not settle)

    def _write_marks(self, *, due_only: bool) -> None:
        """Write waiting marks: those older than ``MARKS_WAIT_S`` (or all), a call per shard."""
        if not self._marks:
            return
        for shard in self._marks.due(wait=MARKS_WAIT_S if due_only else None):
            marks = self._marks.take(shard)
            if not marks:
                continue
            group = {
                self.layout.evidence(shard): (
                    [codec.head_id(ns) for ns in marks],
                    [codec.marks_update(ns, per) for ns, per in marks.items()],
                )
            }
            try:  # marks move no write epoch (see write_views)
                self.upsert_groups(group, "write view marks")
            except BaseException:
                self._marks.defer(shard, marks)
                raise

    def flush_marks(self) -> None:
        """Write every view mark still waiting for a commit to carry it."""
        if not self.read_only:
            self._write_marks(due_only=False)

    def load_views(self, namespace: str) -> list[dict[str, Any]]:
        """Stored views of a namespace's precedents."""
        col = self._views(self.layout.shard(namespace), create=False)
        if col is None:
            return []
        got = self.get_all(col, {"tepa_ns": namespace}, ["metadatas"])
        return [v for meta in got["metadatas"] if (v := codec.view_of(meta)) is not None]

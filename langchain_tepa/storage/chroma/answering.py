"""How a :class:`~langchain_tepa.storage.chroma.ChromaStorage` keeps its answer index.

The records and queries are ``answers.py``; this is when they are written. A commit's answer
changes are written right after its pages (a server client: every acknowledged commit is in
the index), or, on an embedded folder this process holds, held with every other change of the
process (``pending.py``) and written together: before any search of the index, every
``ANSWERS_EVERY`` records, and on close. The meta record ``answers_pending`` is written before
the first change held, so the opening after a killed process repairs what it held.

Example:
    >>> hasattr(AnswerWriter, "query")
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from langchain_tepa.storage.answers import AnswerHit, AnswerUpdate
from langchain_tepa.storage.base import Commit
from langchain_tepa.storage.chroma import answers
from langchain_tepa.storage.chroma.epochs import EpochKey
from langchain_tepa.storage.chroma.handles import CollectionHandles
from langchain_tepa.storage.chroma.layout import Layout
from langchain_tepa.storage.chroma.pending import (
    ANSWERS_EVERY,
    PENDING_RECORD,
    PendingAnswers,
    pending_for,
    pending_since,
    pending_text,
)

__all__ = ["AnswerWriter", "Changes"]

Changes = list[tuple[str, str, AnswerUpdate]]
"""Answer-index changes: ``(namespace, space, update)``, in commit order."""


class _Store(Protocol):
    """What :class:`AnswerWriter` needs of its storage."""

    layout: Layout

    def epoch_key(self) -> EpochKey | None: ...

    def vouches(self) -> bool: ...


class AnswerWriter:
    """The answer index of one storage (see the module docstring).

    Args:
        handles: The storage's collection handles.
        store: The storage (its layout, its store key, whether it vouches).
    """

    def __init__(self, handles: CollectionHandles, store: _Store) -> None:
        self._handles = handles
        self._store = store

    def _held(self) -> PendingAnswers | None:
        key = self._store.epoch_key()
        return None if key is None else pending_for(key)

    def before(self, commit: Commit) -> tuple[Changes, PendingAnswers | None]:
        """The commit's changes, and where they wait when this process holds them back.

        Holding them starts with the meta record, before the commit's pages are written: a
        process killed after the pages leaves the record.
        """
        changes = [(w.namespace, s, u) for w in commit.writes for s, u in w.answers.items() if u]
        held = self._held() if changes and self._store.vouches() else None
        if held is not None:
            with held.lock:
                if not held.marked:
                    since = min(w.time for w in commit.writes)
                    self._handles.set_meta(PENDING_RECORD, pending_text(since))
                    held.marked = True
        return changes, held

    def after(self, changes: Changes, held: PendingAnswers | None) -> None:
        """After the commit's pages: hold its changes, or write them now."""
        if held is not None:
            if held.add(changes) >= ANSWERS_EVERY:
                self.flush()
        elif changes:
            answers.write(self._handles, self._store.layout, changes)

    def flush(self) -> None:
        """Write what this process holds for the store (then empty the meta record)."""
        held = self._held()
        if held is None or self._handles.read_only:
            return
        with held.lock:
            changes = held.take()
            if changes:
                try:
                    answers.write(self._handles, self._store.layout, changes)
                except BaseException:
                    held.give_back(changes)
                    raise
            if held.marked and not len(held):
                self._handles.set_meta(PENDING_RECORD, "")
                held.marked = False

    def query(
        self, space: str, vector: Sequence[float], n: int, prefix: str | None
    ) -> list[AnswerHit]:
        """The nearest answers (what this process holds is written first)."""
        self.flush()
        return answers.query(self._handles, self._store.layout, space, vector, n, prefix)

    def behind(self) -> float | None:
        """When the index may start to lack a killed process's answers, or ``None``."""
        return pending_since(self._handles.get_meta(PENDING_RECORD))

    def repair(self, changes: Changes, *, clear: bool) -> None:
        """Write refolded answers; ``clear``: the index lacks none after them.

        The meta record stays while this process holds changes of its own (they clear it).
        """
        answers.write(self._handles, self._store.layout, changes)
        held = self._held()
        if clear and not (held is not None and held.marked):
            self._handles.set_meta(PENDING_RECORD, "")

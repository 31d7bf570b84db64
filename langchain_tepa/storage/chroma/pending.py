"""Answer-index writes of an embedded folder, held per process and store until written together.

A store opened on a folder this process holds locked (``ChromaStorage.claim_folder``) is written
by this process alone, and every search of its answer index (``answers.py``) goes through this
process too. So its commits need not write the index themselves: their changes wait here, per
store (folder and prefix, shared by every memory of the process on it), and are written
:data:`ANSWERS_EVERY` records at a time, before any search of the index, and when a memory
closes. A put then costs one Chroma call (its pages and heads), not two.

A process killed before writing them leaves the index behind the evidence. The meta record
:data:`PENDING_RECORD` says so: written before the first commit whose changes wait (with the
time of its append and this process's token), emptied once everything is written. A later
memory of the store that finds another process's record rewrites the answers of every
namespace appended to since that time (its heads' append times tell which) before it trusts the
index (``memory/answer_index.py``).

Example:
    >>> from langchain_tepa.storage.answers import AnswerUpdate
    >>> held = PendingAnswers()
    >>> held.add([("u1", "docs", AnswerUpdate((), (("k", 0, 1),)))])
    1
    >>> [ns for ns, _, _ in held.take()], len(held)
    (['u1'], 0)
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence

from langchain_tepa.storage.answers import AnswerUpdate
from langchain_tepa.storage.chroma.epochs import EpochKey

__all__ = [
    "ANSWERS_EVERY",
    "PENDING_RECORD",
    "PendingAnswers",
    "pending_for",
    "pending_since",
    "pending_text",
]

ANSWERS_EVERY = 512
"""Answer records held before they are written (a bulk load's batch is written at once)."""
PENDING_RECORD = "answers_pending"
"""The meta record of answer-index writes a process holds (empty: none)."""
TOKEN = f"{os.getpid()}.{os.urandom(6).hex()}"
"""This process's token in :data:`PENDING_RECORD` (a record with another token is a dead
process's: only the process holding the folder's lock writes it)."""

_HELD: dict[EpochKey, PendingAnswers] = {}
_LOCK = threading.Lock()


class PendingAnswers:
    """The answer-index changes of one store that wait to be written, in commit order."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.marked = False  # the store's PENDING_RECORD names this process
        self._updates: list[tuple[str, str, AnswerUpdate]] = []
        self._records = 0

    def __len__(self) -> int:
        return self._records

    def add(self, updates: Sequence[tuple[str, str, AnswerUpdate]]) -> int:
        """Hold ``(namespace, space, update)`` changes; the records held now."""
        with self.lock:
            self._updates.extend(updates)
            self._records += _count(updates)
            return self._records

    def take(self) -> list[tuple[str, str, AnswerUpdate]]:
        """Every change held, in order (the holder writes them, or gives them back)."""
        with self.lock:
            out, self._updates, self._records = self._updates, [], 0
            return out

    def give_back(self, updates: Sequence[tuple[str, str, AnswerUpdate]]) -> None:
        """Changes :meth:`take` returned but that were not written: first again."""
        with self.lock:
            self._updates[:0] = list(updates)
            self._records += _count(updates)


def _count(updates: Sequence[tuple[str, str, AnswerUpdate]]) -> int:
    """The records ``updates`` write (at least one a change)."""
    return sum(sum(len(r.vectors) for r in u.records) or 1 for _, _, u in updates)


def pending_for(key: EpochKey) -> PendingAnswers:
    """The held changes of the store ``key`` in this process (created on first use)."""
    with _LOCK:
        held = _HELD.get(key)
        if held is None:
            held = _HELD[key] = PendingAnswers()
        return held


def pending_text(since: float) -> str:
    """The :data:`PENDING_RECORD` of this process, held changes from ``since`` on."""
    return json.dumps({"since": float(since), "token": TOKEN})


def pending_since(text: str | None) -> float | None:
    """The time from which another process's held changes may be missing, or ``None``.

    ``None`` when the record is empty, unreadable as such, or this process's own.

    Example:
        >>> pending_since(pending_text(5.0)) is None, pending_since('{"since": 5, "token": "x"}')
        (True, 5.0)
    """
    if not text:
        return None
    try:
        data = json.loads(text)
        since, token = float(data["since"]), str(data["token"])
    except (ValueError, KeyError, TypeError):
        return float("-inf")  # unreadable: everything may be missing
    return None if token == TOKEN else since

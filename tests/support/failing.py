"""Storage that fails on demand, for tests of what a failed write leaves behind."""

from __future__ import annotations

from typing import Any, Literal

from langchain_tepa.core.errors import OutcomeUnknownError
from langchain_tepa.storage import InMemoryStorage
from langchain_tepa.storage.base import Commit

__all__ = ["FailOnceStorage", "lose_next_reply"]

_LOST = "the connection broke during a write (test); the write's outcome is unknown"


class FailOnceStorage(InMemoryStorage):
    """An :class:`InMemoryStorage` whose next ``commit`` raises ``OSError`` once ``fail`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.fail = False

    def commit(self, commit: Commit) -> None:
        """Raise ``OSError("disk full")`` once if ``fail`` is set, else store ``commit``."""
        if self.fail:
            self.fail = False
            raise OSError("disk full")
        super().commit(commit)


def lose_next_reply(storage: Any, *, stored: Literal["all", "part", "none"]) -> None:
    """Make ``storage``'s next ``commit`` raise ``OutcomeUnknownError`` as a broken connection.

    ``stored="all"``: the commit is stored, then its reply is lost; ``"none"``: nothing is
    stored; ``"part"`` (a Chroma store): the first shard's pages are stored, the next shard's
    call breaks. Later commits behave normally.
    """
    if stored == "part":
        original_append = storage._append
        calls = {"n": 0}

        def append(*args: Any, **kwargs: Any) -> Any:
            calls["n"] += 1
            if calls["n"] > 1:
                del storage._append
                raise OutcomeUnknownError(_LOST)
            return original_append(*args, **kwargs)

        storage._append = append
        return
    original = storage.commit

    def commit(c: Commit) -> None:
        del storage.commit
        if stored == "all":
            original(c)
        raise OutcomeUnknownError(_LOST)

    storage.commit = commit

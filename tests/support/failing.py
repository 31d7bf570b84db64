"""Storage that fails on demand, for tests of what a failed write leaves behind."""

from __future__ import annotations

from langchain_tepa.storage import InMemoryStorage
from langchain_tepa.storage.base import Commit

__all__ = ["FailOnceStorage"]


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

"""Changes of the storage layout, in order: today none.

There is one storage layout (``LAYOUT_VERSION``, ``layout.py``). A future change of layout is
written as a function appended to :data:`MIGRATIONS`; the first writable opening of a store of
an older (supported) layout runs the missing ones in order, rewriting the version in the layout
record after each, as LangGraph's SQLite store runs its ``MIGRATIONS`` list. A step must be
safe to run again after a crash (the version is rewritten only once the step has returned).

Example:
    >>> MIGRATIONS, OLDEST_MIGRATED == LAYOUT_VERSION
    ((), True)
"""

from __future__ import annotations

from collections.abc import Callable

from langchain_tepa.storage.chroma.handles import CollectionHandles
from langchain_tepa.storage.chroma.layout import LAYOUT_VERSION

__all__ = ["MIGRATIONS", "OLDEST_MIGRATED", "Migration"]

Migration = Callable[[CollectionHandles], None]
"""One step: rewrites a store (its collections, through the handles) from layout ``v`` to
``v + 1``; the layout record's version is then set by the caller."""

MIGRATIONS: tuple[Migration, ...] = ()
"""``MIGRATIONS[i]`` takes a store from layout ``OLDEST_MIGRATED + i`` to the next one."""

OLDEST_MIGRATED = LAYOUT_VERSION - len(MIGRATIONS)
"""The oldest layout a store can be opened in (older ones are refused)."""

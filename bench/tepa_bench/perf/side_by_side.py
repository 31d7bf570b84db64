"""The workload and the stores of ``tepa-bench perf --stores`` (:mod:`.stores`).

``users`` users with ``items`` items each: namespace ``("users", "u042")``, key
``item0007``, value ``{"text": "user 42 item 7: ...", "n": 7}``. All three stores get the same
``IndexConfig`` (384 dimensions, ``fields=["text"]``) over the same embeddings: a table of every
text the run embeds, whose vectors are derived from the text
(:func:`~tepa_bench.perf.common.derived_vector`), so a fresh process can rebuild them.
``TEPAStore`` is ``TEPAStore.from_path`` (embedded persistent Chroma, default freshness; its
memory embeds each new value's ``"key: json"`` text too, with derived vectors, counted in
``memory_embedded_texts``); ``SqliteStore`` is a file with ``sqlite-vec``; ``InMemoryStore``
lives in the process.

Example:
    >>> w = StoreWorkload(users=2, items=3)
    >>> w.namespace(1), w.key(2), w.value(1, 2)["n"]
    (('users', 'u001'), 'item0002', 2)
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from langgraph.store.base import IndexConfig

from langchain_tepa.core.errors import StorageUnavailableError
from tepa_bench.perf.common import (
    DIM,
    TableEmbeddings,
    derived_vector,
    journal_mode,
)

__all__ = ["StoreWorkload", "sqlite_module"]


@dataclass(frozen=True)
class StoreWorkload:
    """The items of the side-by-side run (see the module docstring)."""

    users: int = 100
    items: int = 1000

    @staticmethod
    def namespace(u: int) -> tuple[str, str]:
        """User ``u``'s namespace."""
        return ("users", f"u{u:03d}")

    @staticmethod
    def key(j: int) -> str:
        """Item ``j``'s key."""
        return f"item{j:04d}"

    @staticmethod
    def value(u: int, j: int) -> dict[str, Any]:
        """Item ``j`` of user ``u``."""
        return {"text": f"user {u} item {j}: a note about topic {j % 97} and {u % 13}", "n": j}

    @staticmethod
    def query(c: int) -> str:
        """Query ``c``."""
        return f"what did the user say about topic {c % 97}?"

    @staticmethod
    def new_value(c: int) -> dict[str, Any]:
        """The ``c``-th item written by the ``put`` measure."""
        return {"text": f"a new note {c} about topic {c % 97}", "n": -c}

    def index(self, embed: Any) -> IndexConfig:
        """The ``IndexConfig`` every store gets."""
        return {"dims": DIM, "embed": embed, "fields": ["text"]}

    def table(self, calls: int) -> TableEmbeddings:
        """The embedding table of every text the run embeds."""
        texts = [self.value(u, j)["text"] for u in range(self.users) for j in range(self.items)]
        texts += [self.query(c) for c in range(97)]
        texts += [self.new_value(c)["text"] for c in range(calls)]
        return TableEmbeddings(texts, np.stack([derived_vector(t) for t in texts]))


def _open(
    kind: str, folder: Path, index: IndexConfig, memory_emb: Any, *, cache_size: int = 1024
) -> Any:
    if kind == "tepa":
        from langchain_tepa import TEPAStore

        return TEPAStore.from_path(
            folder / "tepa",
            index=index,
            embeddings=memory_emb,
            journal_mode=journal_mode(),
            cache_size=cache_size,
        )
    if kind == "sqlite":
        from langgraph.store.sqlite import SqliteStore

        conn = sqlite_module().connect(
            str(folder / "store.sqlite"), check_same_thread=False, isolation_level=None
        )
        # SqliteStore reads the fields to embed from "text_fields" and ignores IndexConfig's
        # "fields" (langgraph-checkpoint-sqlite 3.1): without it, it embeds the whole value.
        sqlite_index: Any = {**index, "text_fields": index["fields"]}
        store = SqliteStore(conn, index=sqlite_index)
        store.setup()
        return store
    from langgraph.store.memory import InMemoryStore

    return InMemoryStore(index=index)


def sqlite_module() -> Any:
    """An ``sqlite3`` module that can load extensions (``sqlite-vec``), for SqliteStore's index.

    The standard library's when it was built with extension loading, else ``pysqlite3``
    (``pip install pysqlite3-binary``, in tepa-bench's dependencies on Linux x86-64).

    Raises:
        StorageUnavailableError: If neither can load extensions.
    """
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        return sqlite3
    try:
        from pysqlite3 import dbapi2
    except ImportError:
        raise StorageUnavailableError(
            "SqliteStore's vector index needs an sqlite3 that can load extensions (sqlite-vec), "
            "and this Python's cannot: install pysqlite3-binary (pip install "
            "-e ./bench), or leave 'stores' out of --parts"
        ) from None
    return dbapi2


def _close(kind: str, store: Any) -> None:
    if kind == "tepa":
        store.memory.close()
    elif kind == "sqlite":
        store.conn.close()


def _load(work: StoreWorkload, store: Any, u: int) -> None:
    from langgraph.store.base import PutOp

    ns = work.namespace(u)
    store.batch([PutOp(ns, work.key(j), work.value(u, j)) for j in range(work.items)])

"""TEPAStore beside LangGraph's SqliteStore and InMemoryStore on the same 100k workload.

``users`` users (100) with ``items`` items each (1,000): namespace ``("users", "u042")``, key
``item0007``, value ``{"text": "user 42 item 7: ...", "n": 7}``. All three stores get the same
``IndexConfig`` (384 dimensions, ``fields=["text"]``) over the same embeddings: a table of every
text the run embeds, whose vectors are derived from the text
(:func:`~tepa_bench.perf.common.derived_vector`), so a fresh process can rebuild them.
``TEPAStore`` is ``TEPAStore.from_path`` (embedded persistent Chroma, default freshness; its
memory embeds each new value's ``"key: json"`` text too, with derived vectors, counted in
``memory_embedded_texts``); ``SqliteStore`` is a file with ``sqlite-vec``; ``InMemoryStore``
lives in the process.

Loaded one user at a time (a ``batch`` of 1,000 ``PutOp`` per store, the stores in turn), then,
interleaved call by call (the first store rotates): ``search`` with a query in one user's
namespace (``limit=10``), ``get``, ``put`` of a new item, and ``search`` across all users
(``namespace_prefix=("users",)``); the top-10 keys of the one-user searches are compared between
stores. Opening time and RSS are measured in a fresh process per store (open, 5 one-user searches
and 1 across all users); ``InMemoryStore`` has nothing to open, so its process reloads every
item (its "open" is that reload).

Example:
    >>> w = StoreWorkload(users=2, items=3)
    >>> w.namespace(1), w.key(2), w.value(1, 2)["n"]
    (('users', 'u001'), 'item0002', 2)
"""

from __future__ import annotations

import functools
import json
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from langgraph.store.base import IndexConfig

from langchain_tepa.core.errors import StorageUnavailableError
from tepa_bench.perf.common import (
    DIM,
    DerivedEmbeddings,
    TableEmbeddings,
    derived_vector,
    journal_mode,
    log,
    pct,
    peak_rss_mib,
    probe,
    rss_mib,
    timer,
)

__all__ = ["KINDS", "StoreWorkload", "open_store_probe", "run_side_by_side", "sqlite_module"]

KINDS = ("tepa", "sqlite", "inmemory")
OPEN_SEARCHES = 5


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


def _open(kind: str, folder: Path, index: IndexConfig, memory_emb: Any) -> Any:
    if kind == "tepa":
        from langchain_tepa import TEPAStore

        return TEPAStore.from_path(
            folder / "tepa", index=index, embeddings=memory_emb, journal_mode=journal_mode()
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


def _interleave(
    stores: dict[str, Any], calls: int, make: Callable[[Any, int], Callable[[], Any]]
) -> tuple[dict[str, list[float]], list[dict[str, Any]]]:
    times: dict[str, list[float]] = {k: [] for k in stores}
    answers: list[dict[str, Any]] = []
    kinds = list(stores)
    for c in range(calls):
        got: dict[str, Any] = {}
        for j in range(len(kinds)):
            kind = kinds[(c + j) % len(kinds)]
            fn = make(stores[kind], c)
            with timer(times[kind]):
                got[kind] = fn()
        answers.append(got)
    return times, answers


def run_side_by_side(
    folder: Path,
    *,
    users: int = 100,
    items: int = 1000,
    calls: int = 200,
    wide_calls: int = 20,
    quiet: bool = False,
) -> dict[str, Any]:
    """Load the three stores in ``folder`` (new) and measure them (see the module docstring)."""
    work = StoreWorkload(users, items)
    folder.mkdir(parents=True, exist_ok=True)
    table = work.table(calls)
    memory_emb = DerivedEmbeddings()
    index = work.index(table)
    stores = {kind: _open(kind, folder, index, memory_emb) for kind in KINDS}
    log(quiet, f"stores: loading {users} x {items} items into each of {', '.join(KINDS)}")
    load_s = dict.fromkeys(KINDS, 0.0)
    for u in range(users):
        for j in range(len(KINDS)):
            kind = KINDS[(u + j) % len(KINDS)]
            began = time.perf_counter()
            _load(work, stores[kind], u)
            load_s[kind] += time.perf_counter() - began
    log(quiet, f"stores: search, get, put x{calls}; search across all users x{wide_calls}")
    rng = np.random.default_rng(5)
    picks = [int(x) for x in rng.integers(0, users, size=max(calls, wide_calls))]
    one, one_answers = _interleave(
        stores,
        calls,
        lambda s, c: functools.partial(
            s.search, work.namespace(picks[c]), query=work.query(c), limit=10
        ),
    )
    get, _ = _interleave(
        stores,
        calls,
        lambda s, c: functools.partial(s.get, work.namespace(picks[c]), work.key(c % items)),
    )
    put, _ = _interleave(
        stores,
        calls,
        lambda s, c: functools.partial(
            s.put, work.namespace(picks[c]), f"new{c:05d}", work.new_value(c)
        ),
    )
    wide, wide_answers = _interleave(
        stores,
        wide_calls,
        lambda s, c: functools.partial(s.search, ("users",), query=work.query(c), limit=10),
    )
    agreement = {
        kind: round(
            float(
                np.mean(
                    [
                        len({i.key for i in a[kind]} & {i.key for i in a["sqlite"]}) / 10.0
                        for a in one_answers
                    ]
                )
            ),
            3,
        )
        for kind in KINDS
    }
    for kind, store in stores.items():
        _close(kind, store)
    per_store: dict[str, Any] = {}
    for kind in KINDS:
        per_store[kind] = {
            "load_s": round(load_s[kind], 2),
            "search_one_user": pct(one[kind]),
            "get": pct(get[kind]),
            "put": pct(put[kind]),
            "search_all_users": pct(wide[kind]),
            "top10_agreement_with_sqlite": agreement[kind],
            "search_all_results": len(wide_answers[-1][kind]) if wide_answers else 0,
        }
    log(quiet, "stores: opening and RSS in fresh processes")
    for kind in KINDS:
        args = {"kind": kind, "folder": str(folder), "users": users, "items": items}
        per_store[kind]["fresh_process"] = probe("store-open", json.dumps(args), timeout=3600)
    tepa, sql = per_store["tepa"], per_store["sqlite"]
    return {
        "users": users,
        "items": items,
        "records": users * items,
        "calls": calls,
        "wide_calls": wide_calls,
        "stores": per_store,
        "memory_embedded_texts": memory_emb.calls,
        "table_misses": table.misses,
        "ratios_vs_sqlite": {
            "search_one_user_p50": round(
                tepa["search_one_user"]["p50_ms"] / sql["search_one_user"]["p50_ms"], 3
            ),
            "put_p50": round(tepa["put"]["p50_ms"] / sql["put"]["p50_ms"], 3),
            "search_all_users_p50": round(
                tepa["search_all_users"]["p50_ms"] / sql["search_all_users"]["p50_ms"], 3
            ),
        },
    }


def open_store_probe(kind: str, folder: Path, users: int, items: int) -> dict[str, Any]:
    """In a fresh process: open one store, search, and report time and peak RSS."""
    import chromadb  # noqa: F401  (imports are not part of opening)
    import langgraph.store.memory
    import langgraph.store.sqlite  # noqa: F401

    import langchain_tepa  # noqa: F401

    work = StoreWorkload(users, items)
    embed = DerivedEmbeddings()
    before = rss_mib()
    began = time.perf_counter()
    store = _open(kind, folder, work.index(embed), DerivedEmbeddings())
    if kind == "inmemory":
        for u in range(users):
            _load(work, store, u)
    open_s = time.perf_counter() - began
    first: list[float] = []
    for c in range(OPEN_SEARCHES):
        with timer(first):
            store.search(work.namespace(c % users), query=work.query(c), limit=10)
    wide: list[float] = []
    with timer(wide):
        store.search(("users",), query=work.query(0), limit=10)
    out = {
        "open_s": round(open_s, 4),
        "first_search_one_user_ms": round(first[0] * 1000, 2),
        "search_all_users_ms": round(wide[0] * 1000, 1),
        "rss_before_open_mib": before,
        "rss_after_mib": rss_mib(),
        "peak_rss_mib": peak_rss_mib(),
    }
    _close(kind, store)
    return out

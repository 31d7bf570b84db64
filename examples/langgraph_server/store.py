"""TEPAStore as the long-term memory store of a LangGraph Server.

``langgraph.json`` names this factory: ``"store": {"path": "./store.py:make_store"}``. The
server enters it once per process when it starts and leaves it when it stops; every graph run
(``runtime.store``) and every store call of the API (``/store/items``, langgraph-sdk's
``client.store``) then goes to the same TEPAStore.

Environment variables:

- ``TEPA_STORE_PATH``: folder of the embedded persistent Chroma database (default
  ``./tepa-store``, relative to the directory the server runs in). It survives restarts.
- ``TEPA_STORE_PREFIX``: collection prefix inside that folder (default ``tepa_store``).

Embeddings are the offline ``HashingEmbeddings``: nothing is downloaded or sent anywhere.

Run it (from this folder)::

    TEPA_STORE_PATH=./tepa-store langgraph dev --no-browser --port 2024
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import AsyncIterator

from langchain_tepa import HashingEmbeddings, TEPAStore

_lock = threading.Lock()
_store: TEPAStore | None = None
_users = 0


def _acquire() -> TEPAStore:
    """The process's one TEPAStore (a second memory on the same folder would go stale)."""
    global _store, _users
    with _lock:
        if _store is None:
            _store = TEPAStore.from_path(
                os.environ.get("TEPA_STORE_PATH", "./tepa-store"),
                prefix=os.environ.get("TEPA_STORE_PREFIX", "tepa_store"),
                embeddings=HashingEmbeddings(),
            )
        _users += 1
        return _store


def _release() -> None:
    global _store, _users
    with _lock:
        _users -= 1
        if _users == 0 and _store is not None:
            _store.memory.close()  # flushes buffered view updates; evidence is already stored
            _store = None


@contextlib.asynccontextmanager
async def make_store() -> AsyncIterator[TEPAStore]:
    """Open the store in a worker thread (no blocking I/O on the server's event loop)."""
    store = await asyncio.to_thread(_acquire)
    try:
        yield store
    finally:
        await asyncio.to_thread(_release)

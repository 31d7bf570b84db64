"""`AsyncChromaStorage`: :class:`ChromaStorage` over ``chromadb.AsyncHttpClient``.

The storage protocol is synchronous (the facade's async twins run it in a worker thread), while
``chromadb.AsyncHttpClient`` only offers coroutines. This module bridges the two: every call on
the async client or on one of its collections is submitted to one private event loop that runs in
a daemon thread of this process, and the calling thread waits for the result. The Chroma logic
itself (layout, active sets, checks) is :class:`ChromaStorage`, unchanged.

One loop serves every instance of the process and lives as long as the process: chromadb keeps
one ``httpx.AsyncClient`` per event loop, so a loop that stopped could leave a dead HTTP client
behind for a later loop to pick up.

Example:
    >>> import chromadb
    >>> from chromadb.config import Settings
    >>> is_async_client(chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False)))
    False
"""

from __future__ import annotations

import asyncio
import inspect
import os
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from langchain_tepa.core.errors import StorageError
from langchain_tepa.storage.chroma.backend import ChromaStorage

__all__ = ["AsyncChromaStorage", "is_async_client"]

_T = TypeVar("_T")
_TIMEOUT = 120.0


class _LoopThread:
    """A private event loop running forever in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, name="tepa-chroma-async", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def call(self, coro: Awaitable[_T], timeout: float = _TIMEOUT) -> _T:
        if threading.current_thread() is self.thread:
            raise StorageError(
                "a blocking storage call was made from the storage's own event loop; "
                "call TEPAMemory's a-methods (aobserve, aretrieve, ...) from async code"
            )

        async def wrap() -> _T:
            return await coro

        future = asyncio.run_coroutine_threadsafe(wrap(), self.loop)
        try:
            return future.result(timeout)
        except TimeoutError as exc:
            future.cancel()
            raise StorageError(f"Chroma did not answer within {timeout:.0f} s") from exc


_RUNNER: _LoopThread | None = None
_RUNNER_PID = -1
_RUNNER_LOCK = threading.Lock()


def _runner() -> _LoopThread:
    """The process's loop thread (started on first use, again after a fork)."""
    global _RUNNER, _RUNNER_PID
    with _RUNNER_LOCK:
        if _RUNNER is None or os.getpid() != _RUNNER_PID:
            _RUNNER = _LoopThread()
            _RUNNER_PID = os.getpid()
        return _RUNNER


def is_async_client(client: object) -> bool:
    """Whether ``client`` is a chromadb async client (or the coroutine that makes one)."""
    if inspect.iscoroutine(client):
        return True
    try:
        from chromadb.api import AsyncClientAPI
    except ImportError:  # pragma: no cover - chromadb is a dependency
        return False
    return isinstance(client, AsyncClientAPI)


class _SyncProxy:
    """Calls methods of an async chromadb object synchronously on the private loop."""

    def __init__(self, target: Any, runner: _LoopThread) -> None:
        self._target = target
        self._runner = runner

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._target, name)
        if not callable(attr):
            return attr
        runner = self._runner

        async def invoke(fn: Callable[..., Any], args: Any, kwargs: Any) -> Any:
            result = fn(*args, **kwargs)
            if inspect.isawaitable(result):
                result = await result
            return result

        def call(*args: Any, **kwargs: Any) -> Any:
            result = runner.call(invoke(attr, args, kwargs))
            from chromadb.api.models.AsyncCollection import AsyncCollection

            if isinstance(result, AsyncCollection):
                return _SyncProxy(result, runner)
            return result

        return call


class AsyncChromaStorage(ChromaStorage):
    """:class:`ChromaStorage` on ``chromadb.AsyncHttpClient`` (server mode from async code).

    ``TEPAMemory.from_client`` picks it when given an async client, so
    ``TEPAMemory.from_client(await chromadb.AsyncHttpClient(...))`` (or the non-blocking
    ``await TEPAMemory.afrom_client(...)``) behaves exactly like the embedded mode.

    Args:
        client: An ``AsyncClientAPI`` (the awaited result of ``chromadb.AsyncHttpClient``), or
            the un-awaited coroutine, which is then awaited on the private loop.
        prefix: Collection name prefix, as for :class:`ChromaStorage`.

    Example:
        >>> import chromadb  # doctest: +SKIP
        >>> client = await chromadb.AsyncHttpClient(host="127.0.0.1", port=8000)  # doctest: +SKIP
        >>> memory = await TEPAMemory.afrom_client(client, prefix="app")  # doctest: +SKIP
        >>> await memory.aobserve("user.diet", "vegan")  # doctest: +SKIP
    """

    def __init__(
        self,
        client: Any,
        *,
        prefix: str = "tepa",
        shards: int | None = None,
        dedicated_at: int | None = None,
        read_only: bool = False,
    ) -> None:
        if not is_async_client(client):
            raise StorageError(
                f"AsyncChromaStorage needs a chromadb async client, got {type(client).__name__}; "
                "use ChromaStorage for HttpClient, PersistentClient or EphemeralClient"
            )
        runner = _runner()
        if inspect.iscoroutine(client):
            try:
                client = runner.call(client)
            except Exception as exc:
                raise StorageError(f"could not connect the async Chroma client: {exc}") from exc
        self.async_client = client
        super().__init__(
            _SyncProxy(client, runner),
            prefix=prefix,
            shards=shards,
            dedicated_at=dedicated_at,
            read_only=read_only,
        )

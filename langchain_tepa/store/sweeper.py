"""The TTL sweep of a :class:`~langchain_tepa.store.TEPAStore`: once, or in a daemon thread.

:func:`sweep_expired` revokes (reason ``"expired"``) every expired item of every namespace;
:class:`Sweeper` runs a sweep periodically. What the store's sweeper methods return can be
awaited as well as used as they are (:class:`SweepCount`, :class:`SweeperHandle`,
:class:`SweeperStopped`), so code written for LangGraph's sync or async stores works with either.

Example:
    >>> from langchain_tepa.store import TEPAStore
    >>> store = TEPAStore.in_memory(ttl={"default_ttl": 60})
    >>> store.put(("users", "u1"), "session", {"token": "abc"})
    >>> store.sweep_ttl()  # nothing has expired yet
    0
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable, Generator
from typing import Any

from langgraph.store.base import TTLConfig

from langchain_tepa.core.errors import TEPAError
from langchain_tepa.memory import TEPAMemory
from langchain_tepa.memory.claims import is_claims_namespace
from langchain_tepa.store.ttl import TTLKeeper, validate_sweep_interval

__all__ = [
    "SweepCount",
    "Sweeper",
    "SweeperHandle",
    "SweeperMixin",
    "SweeperStopped",
    "sweep_expired",
]


def sweep_expired(memory: TEPAMemory, ttl: TTLKeeper, source: str) -> int:
    """Revoke (reason ``"expired"``) every expired item of every namespace; returns how many.

    Claims namespaces are skipped (their items never expire).
    """
    swept = 0
    for ns in memory.namespaces():
        if is_claims_namespace(ns):
            continue
        _, expired, _ = ttl.split(ns, memory.answers(namespace=ns))
        for p in expired:
            memory.revoke_key(p.key, namespace=ns, reason="expired", source=source)
            swept += 1
    return swept


class Sweeper:
    """A daemon thread that calls a sweep every few minutes, until stopped.

    Example:
        >>> sweeper = Sweeper()
        >>> handle = sweeper.start(lambda: None, 1)
        >>> bool(sweeper.stop(timeout=5)), handle.done()
        (True, True)
    """

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def _stop_if_cancelled(self, future: concurrent.futures.Future[None]) -> None:
        if future.cancelled():
            self._stop.set()

    def start(self, sweep: Callable[[], object], minutes: object | None) -> SweeperHandle:
        """Call ``sweep`` every ``minutes`` (default 5) in a daemon thread, if none runs yet.

        Returns:
            A future that completes when the thread ends; cancelling it stops the thread.

        Raises:
            InvalidArgumentError: If ``minutes`` is not a number > 0 (a new thread only).
        """
        future = SweeperHandle()
        if self._thread is not None and self._thread.is_alive():
            future.add_done_callback(self._stop_if_cancelled)
            return future
        interval = 5.0 if minutes is None else validate_sweep_interval(minutes)
        self._stop.clear()

        def loop() -> None:
            try:
                while not self._stop.wait(interval * 60):
                    try:
                        sweep()
                    except TEPAError:
                        logging.getLogger("langchain_tepa").exception("TTL sweep failed")
            finally:
                if not future.done():
                    future.set_result(None)

        future.add_done_callback(self._stop_if_cancelled)
        self._thread = threading.Thread(target=loop, name="tepa-ttl-sweeper", daemon=True)
        self._thread.start()
        return future

    def stop(self, timeout: float | None = None) -> SweeperStopped:
        """Stop the thread; true if it has stopped within ``timeout`` seconds."""
        self._stop.set()
        if self._thread is None:
            return SweeperStopped(True)
        self._thread.join(timeout)
        return SweeperStopped(not self._thread.is_alive())


class SweeperMixin:
    """The TTL sweep methods of :class:`~langchain_tepa.store.TEPAStore`.

    The store sets every attribute declared here in its constructor.

    Example:
        >>> from langchain_tepa.store import TEPAStore
        >>> store = TEPAStore.in_memory(ttl={"default_ttl": 1, "sweep_interval_minutes": 0.5})
        >>> handle = store.start_ttl_sweeper()
        >>> bool(store.stop_ttl_sweeper(timeout=5)), handle.done()
        (True, True)
    """

    memory: TEPAMemory
    source: str
    ttl_config: TTLConfig | None
    _ttl: TTLKeeper
    _sweeper: Sweeper

    def sweep_ttl(self) -> SweepCount:
        """Revoke (reason ``"expired"``) every expired item of every namespace; returns how many.

        Reads the whole store, one namespace at a time: run it from :meth:`start_ttl_sweeper`
        or a scheduled job. The count can also be awaited (``await store.sweep_ttl()``, as
        with ``AsyncSqliteStore``/``AsyncPostgresStore``; the sweep itself has run by then:
        :meth:`asweep_ttl` runs it in a worker thread instead).
        """
        return SweepCount(sweep_expired(self.memory, self._ttl, self.source))

    async def asweep_ttl(self) -> int:
        """Async twin of :meth:`sweep_ttl` (the sweep runs in a worker thread)."""
        return int(await asyncio.to_thread(self.sweep_ttl))

    def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> SweeperHandle:
        """Run :meth:`sweep_ttl` periodically in a daemon thread.

        Every ``sweep_interval_minutes`` (default: the TTL config's, or 5; fractions of a
        minute allowed); cancel the returned future or call :meth:`stop_ttl_sweeper` to stop
        it. The future can be awaited too (``await store.start_ttl_sweeper()`` returns it at
        once, as ``AsyncPostgresStore``'s returns its task).

        Raises:
            InvalidArgumentError: If ``sweep_interval_minutes`` is not a number > 0.
        """
        configured = (self.ttl_config or {}).get("sweep_interval_minutes")
        given = sweep_interval_minutes if sweep_interval_minutes is not None else configured
        return self._sweeper.start(self.sweep_ttl, given)

    async def astart_ttl_sweeper(
        self, sweep_interval_minutes: float | None = None
    ) -> SweeperHandle:
        """Async twin of :meth:`start_ttl_sweeper` (the sweeper is a thread either way)."""
        return self.start_ttl_sweeper(sweep_interval_minutes)

    def stop_ttl_sweeper(self, timeout: float | None = None) -> SweeperStopped:
        """Stop the sweeper; true if it has stopped within ``timeout`` seconds.

        The result is truthy or falsy like a bool and can be awaited (``await
        store.stop_ttl_sweeper()``, as with the async LangGraph stores); :meth:`astop_ttl_sweeper`
        waits for the thread without blocking the event loop.
        """
        return self._sweeper.stop(timeout)

    async def astop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Async twin of :meth:`stop_ttl_sweeper` (waits in a worker thread)."""
        return bool(await asyncio.to_thread(self.stop_ttl_sweeper, timeout))


class SweepCount(int):
    """How many items a sweep revoked: an ``int`` that can also be awaited.

    ``AsyncSqliteStore.sweep_ttl`` and ``AsyncPostgresStore.sweep_ttl`` are coroutines, the
    sync stores' are not; code written for either works with :meth:`TEPAStore.sweep_ttl`.

    Example:
        >>> import asyncio
        >>> async def main() -> int:
        ...     return await SweepCount(3)
        >>> asyncio.run(main()), SweepCount(3) + 1
        (3, 4)
    """

    def __await__(self) -> Generator[Any, None, int]:
        return int(self)
        yield  # pragma: no cover (makes this a generator)


class SweeperHandle(concurrent.futures.Future[None]):
    """The running sweeper (:meth:`TEPAStore.start_ttl_sweeper`): a future that can be awaited.

    Awaiting it returns it at once (the sweeper keeps running), as awaiting
    ``AsyncPostgresStore.start_ttl_sweeper()`` returns its task; cancel it to stop the sweeper.

    Example:
        >>> import asyncio
        >>> handle = SweeperHandle()
        >>> async def main() -> bool:
        ...     return (await handle) is handle
        >>> asyncio.run(main())
        True
    """

    def __await__(self) -> Generator[Any, None, SweeperHandle]:
        return self
        yield  # pragma: no cover (makes this a generator)


class SweeperStopped:
    """Whether the sweeper stopped (:meth:`TEPAStore.stop_ttl_sweeper`): a bool that can be awaited.

    Example:
        >>> import asyncio
        >>> bool(SweeperStopped(True)), SweeperStopped(False) == False
        (True, True)
        >>> async def main() -> bool:
        ...     return await SweeperStopped(True)
        >>> asyncio.run(main())
        True
    """

    __slots__ = ("stopped",)

    def __init__(self, stopped: bool) -> None:
        self.stopped = stopped

    def __bool__(self) -> bool:
        return self.stopped

    def __eq__(self, other: object) -> bool:
        return bool(self) == other if isinstance(other, bool | SweeperStopped) else NotImplemented

    def __hash__(self) -> int:
        return hash(self.stopped)

    def __await__(self) -> Generator[Any, None, bool]:
        return self.stopped
        yield  # pragma: no cover (makes this a generator)

    def __repr__(self) -> str:
        return repr(self.stopped)

"""Concurrent async calls of one event loop, run together as one batch.

LangGraph's async API (``aget``, ``aput``, ``asearch``, ...) sends each call to ``abatch`` with
one op. Coalescing the calls that arrive while a batch is running into the next batch turns
thousands of concurrent single-op calls into a few large appends (LangGraph's own async stores
do the same). Each caller's ops are validated on their own first, so one caller's bad input
fails that caller only.

Example:
    >>> import asyncio
    >>> from langchain_tepa.store import TEPAStore
    >>> store = TEPAStore.in_memory()
    >>> async def main():
    ...     await asyncio.gather(*(store.aput(("u",), f"k{i}", {"i": i}) for i in range(5)))
    ...     return len(await store.asearch(("u",), limit=10))
    >>> asyncio.run(main())
    5
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from langgraph.store.base import Op, Result

__all__ = ["AsyncCoalescer"]

Runner = Callable[[list[Op]], Awaitable[list[Result]]]


@dataclass
class _Queue:
    items: list[tuple[list[Op], asyncio.Future[list[Result]]]] = field(default_factory=list)
    running: bool = False
    task: asyncio.Task[None] | None = None


class AsyncCoalescer:
    """Mixin: ``_coalesced(ops, run)`` runs the ops of concurrent callers of one loop together.

    Subclasses provide ``check(op)`` (raises on an invalid op, reads and writes nothing).

    Example:
        >>> hasattr(AsyncCoalescer, "_coalesced")
        True
    """

    def __init__(self) -> None:
        self._queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Queue] = (
            weakref.WeakKeyDictionary()
        )

    def check(self, op: Op) -> None:
        """Validate one op (subclasses override)."""

    async def _coalesced(self, ops: list[Op], run: Runner) -> list[Result]:
        loop = asyncio.get_running_loop()
        queue = self._queues.get(loop)
        if queue is None:
            queue = self._queues.setdefault(loop, _Queue())
        fut: asyncio.Future[list[Result]] = loop.create_future()
        queue.items.append((ops, fut))
        if not queue.running:
            queue.running = True
            queue.task = loop.create_task(self._drain(queue, run))
        return await fut

    async def _drain(self, queue: _Queue, run: Runner) -> None:
        try:
            while queue.items:
                await asyncio.sleep(0)  # let the callers of this tick queue up
                items, queue.items = queue.items, []
                valid: list[tuple[list[Op], asyncio.Future[list[Result]]]] = []
                for ops, fut in items:
                    if fut.done():
                        continue
                    try:
                        for op in ops:
                            self.check(op)
                    except Exception as exc:
                        fut.set_exception(exc)
                    else:
                        valid.append((ops, fut))
                if not valid:
                    continue
                merged = [op for ops, _ in valid for op in ops]
                try:
                    results = await run(merged)
                except Exception as exc:
                    for _, fut in valid:
                        if not fut.done():
                            fut.set_exception(exc)
                    continue
                start = 0
                for ops, fut in valid:
                    part: Sequence[Result] = results[start : start + len(ops)]
                    start += len(ops)
                    if not fut.done():
                        fut.set_result(list(part))
        finally:
            queue.running = False

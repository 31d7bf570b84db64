"""Clean exits: memories left open are closed when the interpreter exits (issue 30).

A memory writes its precedent views lazily (``flush_every``, ``flush_interval_s``), so a program
that never calls ``close()`` (or leaves a ``with`` block by ``sys.exit``) used to leave views
behind the evidence: nothing was lost (readers refold and heal them), but ``tepa inspect``
warned that stored views differ. Each memory on a storage that outlives the process registers
here; at interpreter exit every one still open is closed, as ``close()`` would: its pending views
and held-back view marks are written, log tails settled, the folder lock released.

The registry holds weak references only: it never keeps a memory alive, and a memory collected
before exit is simply gone from it. The hook never raises: a memory that cannot be closed is
logged (its views are healed by the next reader, or by ``tepa reconcile``) and the others are
still closed. A process forked from the one that opened a memory does not close it at its own
exit (only the opening process does). A process that ends with ``os._exit`` or a signal that
kills it runs no exit hook at all; views it left pending are healed as before.

Example:
    >>> class Closable:
    ...     def close(self) -> None:
    ...         print("closed")
    >>> thing = Closable()
    >>> track(thing)  # the interpreter's exit would print "closed"
    >>> untrack(thing)  # what TEPAMemory.close() does: nothing left to close at exit
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import weakref
from typing import Protocol

__all__ = ["close_open", "track", "untrack"]

_log = logging.getLogger(__name__)


class Closable(Protocol):
    """What the registry closes (``TEPAMemory``)."""

    def close(self) -> None:
        """Write what is pending and release the storage."""


_OPEN: weakref.WeakKeyDictionary[Closable, int] = weakref.WeakKeyDictionary()  # -> owner pid
_LOCK = threading.Lock()


def track(memory: Closable) -> None:
    """Close ``memory`` at interpreter exit if it is still open and alive then.

    The hook is registered again on each call, so it runs before the exit hooks of libraries
    imported since (``atexit`` runs the last registered first): the storage a memory closes is
    still there.
    """
    with _LOCK:
        _OPEN[memory] = os.getpid()
        atexit.unregister(close_open)
        atexit.register(close_open)


def untrack(memory: Closable) -> None:
    """Forget ``memory`` (it was closed)."""
    with _LOCK:
        _OPEN.pop(memory, None)


def close_open() -> None:
    """Close every tracked memory this process opened, oldest first; never raises."""
    try:
        with _LOCK:
            pid = os.getpid()
            memories = [m for m, owner in list(_OPEN.items()) if owner == pid]
            _OPEN.clear()
    except BaseException:  # pragma: no cover - the interpreter is going away
        return
    for memory in memories:
        try:
            memory.close()
        except (KeyboardInterrupt, SystemExit):
            return
        except BaseException as exc:  # logging reports its own failures, it does not raise
            _log.warning(
                "langchain-tepa: %r was not closed at exit (%s: %s); its views are "
                "rewritten by the next reader, or by `tepa reconcile`",
                memory,
                type(exc).__name__,
                exc,
            )

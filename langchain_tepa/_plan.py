"""One logic, two drivers: plans that the sync and the async methods of an adapter share.

A *plan* is a generator that yields the calls it needs, ``(target, method, args, kwargs)``,
and receives each call's result (or has its exception thrown in at the ``yield``). :func:`drive`
runs a plan with the targets' sync methods; :func:`adrive` with their ``a``-prefixed async twins
(in a worker thread where a target has none). So an adapter writes each operation once and its
sync and async methods cannot drift apart.

Example:
    >>> def plan():
    ...     total = yield ("calc", "add", (1, 2), {})
    ...     return total * 10
    >>> class Calc:
    ...     def add(self, a, b):
    ...         return a + b
    >>> drive(plan(), {"calc": Calc()})
    30
"""

from __future__ import annotations

import asyncio
from collections.abc import Generator, Mapping
from typing import Any, TypeAlias, TypeVar

__all__ = ["Call", "Plan", "adrive", "adrive_offloaded", "drive"]

T = TypeVar("T")
Call: TypeAlias = tuple[str, str, tuple[Any, ...], dict[str, Any]]
"""``(target, method, args, kwargs)``: one call a plan asks for."""
Plan: TypeAlias = Generator[Call, Any, T]


def drive(plan: Plan[T], targets: Mapping[str, Any]) -> T:
    """Run ``plan`` with the sync methods of ``targets``; returns the plan's result."""
    try:
        call = next(plan)
        while True:
            target, name, args, kwargs = call
            try:
                result = getattr(targets[target], name)(*args, **kwargs)
            except Exception as exc:
                call = plan.throw(exc)
            else:
                call = plan.send(result)
    except StopIteration as stop:
        return stop.value


async def _acall(call: Any, targets: Mapping[str, Any]) -> Any:
    """One call a plan yielded, through its target's async twin (or the sync method in a thread)."""
    target, name, args, kwargs = call
    twin = getattr(targets[target], "a" + name, None)
    if twin is not None:
        return await twin(*args, **kwargs)
    return await asyncio.to_thread(getattr(targets[target], name), *args, **kwargs)


async def adrive(plan: Plan[T], targets: Mapping[str, Any]) -> T:
    """Run ``plan`` with the async twins of the methods of ``targets``."""
    try:
        call = next(plan)
        while True:
            try:
                result = await _acall(call, targets)
            except Exception as exc:
                call = plan.throw(exc)
            else:
                call = plan.send(result)
    except StopIteration as stop:
        return stop.value


async def adrive_offloaded(plan: Plan[T], targets: Mapping[str, Any]) -> T:
    """:func:`adrive`, with the plan's own code run in worker threads (it reads storage).

    Only the calls the plan yields are awaited on the event loop (their async twins).
    """

    def step(resume: Any, arg: Any) -> tuple[bool, Any]:
        try:
            return False, resume(arg)
        except StopIteration as stop:  # cannot cross a Future: handed back as a value
            return True, stop.value

    done, call = await asyncio.to_thread(step, plan.send, None)
    while not done:
        try:
            result = await _acall(call, targets)
        except Exception as exc:
            done, call = await asyncio.to_thread(step, plan.throw, exc)
        else:
            done, call = await asyncio.to_thread(step, plan.send, result)
    return call

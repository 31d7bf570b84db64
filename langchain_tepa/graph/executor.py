"""Running the user's executor on a trial: sync or async, with a timeout and a concurrency cap.

The executor is the user's agent or test harness: any LangChain ``Runnable`` or plain callable
(sync or ``async``) that takes a :class:`~langchain_tepa.graph.trials.Trial` and returns
whether the task succeeded: a ``bool``, a mapping with a boolean ``"success"``, or an object
with a boolean ``success`` attribute. An executor that raises, times out or returns anything
else gives a negative trial; the run goes on.

Example:
    >>> from langchain_tepa.graph.trials import Trial, TrialKind
    >>> runner = TrialExecutor(lambda trial: "mushroom" in trial.lookup(trial.key))
    >>> trial = Trial("p.supportive.0", TrialKind.SUPPORTIVE, "default", "user.pizza",
    ...               "mushroom", "order", (("user.pizza", "mushroom"),), value="mushroom")
    >>> runner.run(trial).positive
    True
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import threading
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import numpy as np
from langchain_core.runnables import Runnable
from langgraph.errors import GraphBubbleUp

from langchain_tepa.core.errors import InvalidArgumentError
from langchain_tepa.core.values import canonical_json, safe_repr
from langchain_tepa.graph.trials import Trial, TrialKind, TrialResult

__all__ = ["ExecutorLike", "TrialExecutor", "coerce_success"]

ExecutorLike = Runnable[Any, Any] | Callable[[Trial], Any]


class _TimeoutError(Exception):
    pass


def coerce_success(result: Any) -> bool:
    """The success flag of an executor's answer.

    Raises:
        TypeError: If the answer is not a bool, ``{"success": bool}`` or has a bool ``success``.
    """
    if isinstance(result, bool | np.bool_):
        return bool(result)
    if isinstance(result, Mapping) and isinstance(result.get("success"), bool | np.bool_):
        return bool(result["success"])
    flag = getattr(result, "success", None)
    if isinstance(flag, bool | np.bool_):
        return bool(flag)
    raise TypeError(
        f"the executor returned {type(result).__name__}; return True/False, "
        "{'success': bool} or an object with a bool 'success' attribute"
    )


def _show(value: Any) -> str:
    if value is None:
        return "no value"
    text = value if isinstance(value, str) else canonical_json(value)
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _describe(trial: Trial, success: bool | None, competitor: bool | None) -> tuple[bool, str]:
    """Whether the trial is positive, and its one-line audit detail."""
    word = {True: "success", False: "failure", None: "no answer"}
    if trial.kind is TrialKind.COUNTERFACTUAL:
        positive = success is True and competitor is False
        if success is not True and competitor is None:
            text = "candidate failed the task, competitor not run"
        else:
            text = f"candidate {word[success]}, competitor {word[competitor]}"
        return positive, f"vs {_show(trial.value)} on {trial.task!r}: {text}"
    positive = success is True
    if trial.kind is TrialKind.POLLUTED:
        stale = ", ".join(_show(s) for s in trial.stale)
        return positive, f"with stale {stale} on {trial.task!r}: {word[success]}"
    return positive, f"on {trial.task!r}: {word[success]}"


class TrialExecutor:
    """Runs trials through the user's executor, counting errors and timeouts as negatives.

    A counterfactual trial makes two calls: the control run with the candidate
    (:meth:`Trial.control`), then, only if it succeeded, the run with the competitor; when the
    competitor is a revoked value (``trial.metadata["competitor_revoked"]``) it is run anyway,
    since its success where the candidate failed restores it. The timeout covers the whole
    trial. A sync call that times out is abandoned in its daemon thread
    (Python cannot stop a thread): make slow executors honour their own deadline too.

    Args:
        executor: A ``Runnable`` or a callable (sync or async) ``trial -> success``.
        timeout_s: Seconds per trial, or ``None`` for no limit.
        max_concurrency: Trials running at once through this object (sync and async).

    Example:
        >>> TrialExecutor(lambda trial: True, timeout_s=5.0).timeout_s
        5.0
    """

    def __init__(
        self,
        executor: ExecutorLike,
        *,
        timeout_s: float | None = None,
        max_concurrency: int = 4,
    ) -> None:
        if not (isinstance(executor, Runnable) or callable(executor)):
            raise InvalidArgumentError(
                "executor must be a LangChain Runnable or a callable taking a Trial and "
                f"returning success; got {type(executor).__name__}"
            )
        if timeout_s is not None:
            if isinstance(timeout_s, bool) or not isinstance(timeout_s, int | float):
                raise InvalidArgumentError(
                    f"timeout_s must be a number or None, got {safe_repr(timeout_s)}"
                )
            if not 0 < timeout_s < float("inf"):
                raise InvalidArgumentError(
                    f"timeout_s must be > 0 and finite, got {safe_repr(timeout_s)}"
                )
            timeout_s = float(timeout_s)
        if (
            isinstance(max_concurrency, bool)
            or not isinstance(max_concurrency, int)
            or max_concurrency < 1
        ):
            raise InvalidArgumentError(
                f"max_concurrency must be an integer >= 1, got {safe_repr(max_concurrency)}"
            )
        self.executor = executor
        self.timeout_s = timeout_s
        self.max_concurrency = max_concurrency
        self._gate = threading.BoundedSemaphore(max_concurrency)
        self._agates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )
        fn = executor if not isinstance(executor, Runnable) else None
        self._is_async = fn is not None and (
            inspect.iscoroutinefunction(fn)
            or inspect.iscoroutinefunction(getattr(fn, "__call__", None))  # noqa: B004
        )

    # ------------------------------------------------------------------ one call
    def _call(self, trial: Trial) -> bool:
        if isinstance(self.executor, Runnable):
            return coerce_success(self.executor.invoke(trial))
        out = self.executor(trial)
        if inspect.isawaitable(out):
            out = asyncio.run(_await(out))
        return coerce_success(out)

    async def _acall(self, trial: Trial) -> bool:
        if isinstance(self.executor, Runnable):
            return coerce_success(await self.executor.ainvoke(trial))
        if self._is_async:
            out = self.executor(trial)
        else:
            out = await asyncio.to_thread(self.executor, trial)
        if inspect.isawaitable(out):
            out = await out
        return coerce_success(out)

    # ------------------------------------------------------------------ one trial
    def _arms(self, trial: Trial) -> tuple[bool, bool | None]:
        if trial.kind is TrialKind.COUNTERFACTUAL and trial.control_facts is not None:
            control = self._call(trial.control())
            return control, (self._call(trial) if _competitor_runs(trial, control) else None)
        return self._call(trial), None

    async def _aarms(self, trial: Trial) -> tuple[bool, bool | None]:
        if trial.kind is TrialKind.COUNTERFACTUAL and trial.control_facts is not None:
            control = await self._acall(trial.control())
            run = _competitor_runs(trial, control)
            return control, (await self._acall(trial) if run else None)
        return await self._acall(trial), None

    def _finish(
        self,
        trial: Trial,
        arms: tuple[bool, bool | None] | None,
        error: str | None,
    ) -> TrialResult:
        competitor = trial.value if trial.kind is TrialKind.COUNTERFACTUAL else None
        if arms is None:
            return TrialResult(
                trial.id,
                trial.kind,
                False,
                error=error,
                detail=f"on {trial.task!r}: {error}",
                competitor=competitor,
            )
        positive, detail = _describe(trial, *arms)
        return TrialResult(
            trial.id, trial.kind, positive, arms[0], arms[1], None, detail, competitor
        )

    def run(self, trial: Trial) -> TrialResult:
        """Run one trial (blocking). Never raises for the executor's failures."""
        with self._gate:
            try:
                if self.timeout_s is None and not self._is_async:
                    arms = self._arms(trial)
                else:
                    arms = _in_thread(lambda: self._arms(trial), self.timeout_s)
            except GraphBubbleUp:
                raise
            except _TimeoutError:
                return self._finish(trial, None, f"timed out after {self.timeout_s:g} s")
            except Exception as exc:  # any executor failure is a failed trial
                return self._finish(trial, None, f"executor raised {type(exc).__name__}: {exc}")
        return self._finish(trial, arms, None)

    async def arun(self, trial: Trial) -> TrialResult:
        """Async twin of :meth:`run`."""
        loop = asyncio.get_running_loop()
        gate = self._agates.get(loop)
        if gate is None:
            gate = self._agates.setdefault(loop, asyncio.Semaphore(self.max_concurrency))
        async with gate:
            try:
                arms = await asyncio.wait_for(self._aarms(trial), self.timeout_s)
            except GraphBubbleUp:
                raise
            except asyncio.TimeoutError:
                return self._finish(trial, None, f"timed out after {self.timeout_s:g} s")
            except Exception as exc:  # any executor failure is a failed trial
                return self._finish(trial, None, f"executor raised {type(exc).__name__}: {exc}")
        return self._finish(trial, arms, None)


def _competitor_runs(trial: Trial, control: bool) -> bool:
    """Run the competitor arm: after a control success, or for a revoked competitor."""
    return control or bool(trial.metadata.get("competitor_revoked"))


async def _await(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def _in_thread(fn: Callable[[], Any], timeout_s: float | None) -> Any:
    """Run ``fn`` in a daemon thread (its own event loop is free); wait at most ``timeout_s``."""
    box: dict[str, Any] = {}
    done = threading.Event()
    context = contextvars.copy_context()  # callbacks and tracing follow the call

    def target() -> None:
        try:
            box["value"] = context.run(fn)
        except BaseException as exc:  # handed back to the caller
            box["error"] = exc
        finally:
            done.set()

    thread = threading.Thread(target=target, name="tepa-trial", daemon=True)
    thread.start()
    if not done.wait(timeout_s):
        raise _TimeoutError
    if "error" in box:
        raise box["error"]
    return box["value"]

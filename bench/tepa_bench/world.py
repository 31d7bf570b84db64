"""What every drift scenario provides: tasks, a world that executes actions, and its hidden state.

A scenario is a set of tasks, each governed by a hidden mechanism (a memory key) with a few
possible actions (values). The world decides whether an action succeeds; which action that is
changes over time. What a method may and may not see is split in two objects:

- the :class:`World` executes actions: ``execute(task_index, action)`` is one interaction with
  the world, returns only the observed outcome (with the world's noise) and advances that task's
  clock. Agents never hold it; trial executors get a :class:`WorldChannel` onto it, which can
  do nothing but execute (and log) actions.
- the :class:`Schedule` is the hidden state: which action works at each step of each task, the
  change points and the glitch bursts. Only the world's own outcome function and the scorer
  (:mod:`tepa_bench.scoring`) read it; the scorer rebuilds it from the scenario's
  config and seed, never from the world object.

Example:
    >>> task = Task(key="drift.t0", text="Task t0: open the valve.", actions=("a", "b", "c"))
    >>> task.actions[0]
    'a'
    >>> s = Schedule(horizon=4, right=(((0, "a"), (2, "b")),))
    >>> [s.right_action(0, t) for t in range(4)], s.change_points(0)
    (['a', 'a', 'b', 'b'], (2,))
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from langchain_tepa.core.errors import InvalidArgumentError

__all__ = [
    "PHASES",
    "HorizonReachedError",
    "Interaction",
    "Schedule",
    "Task",
    "TaskClocks",
    "World",
    "WorldChannel",
]

PHASES: tuple[str, str] = ("acquisition", "reversal")
"""The two phases of a one-change drift run, in order (the reversal starts at the change)."""


@dataclass(frozen=True)
class Task:
    """A task the agent is given: its mechanism key, its text and its possible actions.

    Attributes:
        key: The memory key of the hidden mechanism (``"export.sales.format"``).
        text: What the agent is asked (it is also the retrieval query).
        actions: The possible actions (values of the key).

    Example:
        >>> Task("export.sales.format", "Export sales.", ("csv", "json")).key
        'export.sales.format'
    """

    key: str
    text: str
    actions: tuple[str, ...]


@dataclass(frozen=True)
class Schedule:
    """The hidden state of a drift world: what works for each task at each step.

    Attributes:
        horizon: Interactions per task.
        right: Per task, the segments ``(start, action)``: from ``start`` on (until the next
            segment) ``action`` is the one that works. The first segment starts at 0; every later
            start is a change point.
        bursts: Per task, the glitch bursts ``(start, end)``: in ``start <= t < end`` the
            working action fails (a transient outage; the mechanism does not change).

    Example:
        >>> s = Schedule(horizon=6, right=(((0, "a"),),), bursts=(((2, 4),),))
        >>> [s.in_burst(0, t) for t in range(6)]
        [False, False, True, True, False, False]
    """

    horizon: int
    right: tuple[tuple[tuple[int, str], ...], ...]
    bursts: tuple[tuple[tuple[int, int], ...], ...] = ()
    _starts: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if any(not segs or segs[0][0] != 0 for segs in self.right):
            raise InvalidArgumentError("every task's first segment must start at 0")
        object.__setattr__(self, "_starts", tuple(tuple(s for s, _ in segs) for segs in self.right))

    @property
    def tasks(self) -> int:
        """Number of tasks."""
        return len(self.right)

    def right_action(self, task_index: int, t: int) -> str:
        """The action that works for task ``task_index`` at its ``t``-th interaction."""
        segs = self.right[task_index]
        return segs[bisect.bisect_right(self._starts[task_index], t) - 1][1]

    def change_points(self, task_index: int) -> tuple[int, ...]:
        """The steps at which the working action of a task changes."""
        return self._starts[task_index][1:]

    def in_burst(self, task_index: int, t: int) -> bool:
        """Whether step ``t`` of a task is inside a glitch burst."""
        if not self.bursts:
            return False
        return any(a <= t < b for a, b in self.bursts[task_index])


class HorizonReachedError(InvalidArgumentError):
    """A task's clock has reached the horizon: no interaction is left in its budget."""


class TaskClocks:
    """The clocks of a world's tasks: one step per interaction, within the budget.

    ``tick`` also accepts the ``(phase, episode)`` of the old ``execute`` signature, for scripts
    that still pass them; they must name the step the clock is at.

    Example:
        >>> clocks = TaskClocks(tasks=1, horizon=3, acquisition=2)
        >>> [clocks.tick(0), clocks.tick(0, "acquisition", 1), clocks.tick(0, "reversal", 0)]
        [0, 1, 2]
        >>> clocks.tick(0)
        Traceback (most recent call last):
        ...
        tepa_bench.world.HorizonReachedError: this task's interaction budget is used up
    """

    def __init__(self, tasks: int, horizon: int, acquisition: int) -> None:
        self.horizon = horizon
        self._acquisition = acquisition
        self._steps = [0] * tasks

    def now(self, task_index: int) -> int:
        """Interactions the task has had."""
        return self._steps[task_index]

    def tick(self, task_index: int, phase: str | None = None, episode: int | None = None) -> int:
        """The step of the next interaction of a task (and advance its clock).

        Raises:
            HorizonReachedError: When the task's budget is used up.
            InvalidArgumentError: When ``phase``/``episode`` name another step than the clock's.
        """
        t = self._steps[task_index]
        if phase is not None or episode is not None:
            if phase not in PHASES or episode is None:
                raise InvalidArgumentError(
                    f"phase must be one of {PHASES} with an episode, got {phase!r}"
                )
            expected = episode + (self._acquisition if phase == "reversal" else 0)
            if expected != t:
                raise InvalidArgumentError(
                    f"the world's clock of this task is at step {t}, not {phase} episode "
                    f"{episode}: worlds keep their own clock (one step per execute); call "
                    "execute(task, action)"
                )
        if t >= self.horizon:
            raise HorizonReachedError("this task's interaction budget is used up")
        self._steps[task_index] = t + 1
        return t


@runtime_checkable
class World(Protocol):
    """An environment of a drift scenario (one per seed and method).

    ``execute`` performs the action at the task's current step, returns whether it succeeded
    and advances the task's clock; ``close`` releases resources (temporary folders);
    ``describe`` returns what the JSON config records.
    """

    tasks: list[Task]
    horizon: int

    def execute(self, task_index: int, action: str, *, trial: bool = False) -> bool:
        """Perform ``action`` for a task: one interaction (``trial``: a sandbox run)."""
        ...

    def clock(self, task_index: int) -> int:
        """Interactions task ``task_index`` has had so far."""
        ...

    def close(self) -> None:
        """Release the world's resources."""
        ...

    def describe(self) -> dict[str, Any]:
        """The world's settings for the JSON config."""
        ...


@dataclass(frozen=True)
class Interaction:
    """One logged interaction with the world.

    Attributes:
        task: Task index.
        step: The task's clock before the interaction.
        action: The action executed.
        success: The observed outcome.
        trial: Whether it was a TEPA-Full trial (a charged extra execution).

    Example:
        >>> Interaction(task=0, step=4, action="csv", success=True, trial=False).step
        4
    """

    task: int
    step: int
    action: str
    success: bool
    trial: bool


class WorldChannel:
    """What a trial executor may use: execute an action in the world, and nothing else.

    Every execution is an interaction of the method: it advances the task's clock, counts in the
    method's interactions and its outcome counts in the score (the runner reads :attr:`log`).

    The channel holds no reference to the world in any attribute, private ones included: it
    keeps three functions (the tasks, the budget left, execute) made by the world's owner, so
    an executor that walks the channel's attributes finds no schedule and no future draws
    (issue 28; ``bench/tests/unit_tests/test_bench_isolation.py`` walks them). What no in-process
    benchmark can close is CPython's own introspection of those functions' closures; the
    tripwires of the isolation test catch any read of the hidden state made that way.

    Args:
        world: The world.
        on_execute: Called after each execution with the :class:`Interaction` (the runner's log).

    Example:
        >>> from tepa_bench.drift import DriftConfig, DriftWorld
        >>> log = []
        >>> channel = WorldChannel(DriftWorld(DriftConfig(tasks=1), seed=0), log.append)
        >>> ok = channel.execute(0, "alpha")
        >>> (log[0].step, log[0].trial, channel.remaining(0))
        (0, True, 199)
    """

    __slots__ = ("_ops",)

    def __init__(self, world: World, on_execute: Any) -> None:
        self._ops = _channel_ops(world, on_execute)

    @property
    def tasks(self) -> list[Any]:
        """The tasks (keys, texts, possible actions: what the agent is told)."""
        return list(self._ops[0]())

    def remaining(self, task_index: int) -> int:
        """Interactions left in the task's budget."""
        return int(self._ops[1](task_index))

    def execute(self, task_index: int, action: str) -> bool:
        """Run ``action`` as a trial in the world now; return the observed outcome.

        Raises:
            HorizonReachedError: When the task has no interaction left.
        """
        return bool(self._ops[2](task_index, action))


def _channel_ops(world: World, on_execute: Any) -> tuple[Any, Any, Any]:
    """The channel's three functions; the world is captured, never stored on the channel."""
    tasks = tuple(world.tasks)

    def listed() -> tuple[Task, ...]:
        return tasks

    def remaining(task_index: int) -> int:
        return world.horizon - world.clock(task_index)

    def execute(task_index: int, action: str) -> bool:
        if remaining(task_index) <= 0:
            raise HorizonReachedError("this task's interaction budget is used up")
        step = world.clock(task_index)
        ok = world.execute(task_index, action, trial=True)
        on_execute(Interaction(task_index, step, action, ok, True))
        return ok

    return listed, remaining, execute

"""The scorer: the only reader of a world's hidden state (its :class:`~.world.Schedule`).

It rebuilds the schedule of a run from the scenario's config and seed (never from the world
object the method acted on) and turns the interaction log into scores that need the truth:

- whether each action was the working one (the *correct-action* mask);
- the **transition cost** of each change: steps from the change until the first run of
  :data:`TRANSITION_RUN` consecutive correct actions (censored at the next change or the end);
- **false revocations**: an Active value revoked while it was the working action (a stable fact
  revoked by noise or by a glitch burst);
- the :class:`Oracle` that tells the oracle-reset baselines (and only them) when a task changed.

Example:
    >>> from tepa_bench.world import Schedule
    >>> s = Schedule(horizon=8, right=(((0, "a"), (4, "b")),))
    >>> transition_costs([["a", "a", "a", "a", "a", "b", "b", "b"]], s)
    [(1, False)]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench.world import Schedule

__all__ = [
    "TRANSITION_RUN",
    "Oracle",
    "RevocationEvent",
    "correct_mask",
    "count_false_revocations",
    "schedule_of",
    "transition_costs",
]

TRANSITION_RUN = 3
"""Consecutive correct actions that end a transition."""


def schedule_of(scenario: str, config: Any, seed: int) -> Schedule:
    """The hidden state of one run, rebuilt from the scenario's config and seed.

    Raises:
        InvalidArgumentError: For a scenario without a schedule.
    """
    if scenario == "drift":
        from tepa_bench.drift import drift_schedule

        return drift_schedule(config, seed)[0]
    if scenario == "filedrift":
        from tepa_bench.filedrift import filedrift_schedule

        return filedrift_schedule(config, seed)
    raise InvalidArgumentError(f"no schedule for scenario {scenario!r}")


class Oracle:
    """Tells the oracle-reset baselines when a task's mechanism changed (nothing else).

    Example:
        >>> oracle = Oracle(Schedule(horizon=6, right=(((0, "a"), (3, "b")),)))
        >>> [oracle.changes_at(0, t) for t in range(6)]
        [False, False, False, True, False, False]
    """

    def __init__(self, schedule: Schedule) -> None:
        self._points = [set(schedule.change_points(i)) for i in range(schedule.tasks)]

    def changes_at(self, task_index: int, step: int) -> bool:
        """Whether the task's mechanism changes at this step."""
        return step in self._points[task_index]


def correct_mask(actions: Sequence[Sequence[str]], schedule: Schedule) -> list[list[bool]]:
    """Whether each logged action (``actions[task][step]``) was the working one."""
    return [
        [a == schedule.right_action(i, t) for t, a in enumerate(row)]
        for i, row in enumerate(actions)
    ]


def transition_costs(
    actions: Sequence[Sequence[str]], schedule: Schedule, run: int = TRANSITION_RUN
) -> list[tuple[int, bool]]:
    """``(cost, censored)`` for every change of every task.

    The cost is the number of steps from the change until the first run of ``run`` consecutive
    correct actions starts; a change whose segment (until the next change or the end) holds no
    such run counts as the segment's length and is censored.
    """
    mask = correct_mask(actions, schedule)
    out = []
    for i, row in enumerate(mask):
        points = [*schedule.change_points(i), len(row)]
        for c, end in itertools.pairwise(points):
            streak = 0
            cost: int | None = None
            for t in range(c, end):
                streak = streak + 1 if row[t] else 0
                if streak == run:
                    cost = t + 1 - run - c
                    break
            out.append((end - c, True) if cost is None else (cost, False))
    return out


@dataclass(frozen=True)
class RevocationEvent:
    """An Active value revoked at a task's step (from the memory's audit).

    Example:
        >>> s = Schedule(horizon=4, right=(((0, "a"), (2, "b")),))
        >>> count_false_revocations([RevocationEvent(0, 1, "a"), RevocationEvent(0, 3, "a")], s)
        1
    """

    task: int
    step: int
    value: str


def count_false_revocations(events: Sequence[RevocationEvent], schedule: Schedule) -> int:
    """How many revocations hit the working action of their time (a stable fact revoked)."""
    return sum(1 for e in events if e.value == schedule.right_action(e.task, e.step))

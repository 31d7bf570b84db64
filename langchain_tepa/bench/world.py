"""What every drift scenario provides: tasks, and a world that executes actions on them.

A scenario is a set of tasks, each governed by a hidden mechanism (a memory key) with a few
possible actions (values). The world decides whether an action succeeds; which action that is
changes at the reversal.

Example:
    >>> task = Task(key="drift.t0", text="Task t0: open the valve.", actions=("a", "b", "c"))
    >>> task.actions[0]
    'a'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["PHASES", "Task", "World"]

PHASES: tuple[str, str] = ("acquisition", "reversal")
"""The two phases of a drift run, in order."""


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


@runtime_checkable
class World(Protocol):
    """An environment of a drift scenario (one per seed and method).

    ``execute`` performs the action and returns whether it succeeded; ``close`` releases
    resources (temporary folders). ``describe`` returns what the JSON config records.
    """

    tasks: list[Task]

    def correct_action(self, task_index: int, phase: str) -> str:
        """The action that works for a task in a phase (for reports and tests, not agents)."""
        ...

    def execute(self, task_index: int, action: str, phase: str, episode: int) -> bool:
        """Perform ``action`` for task ``task_index`` at its ``episode``-th visit of ``phase``."""
        ...

    def trial(self, task_index: int, action: str, phase: str) -> bool:
        """Run ``action`` as a TEPA-Full trial, outside the scored episodes (its own luck)."""
        ...

    def close(self) -> None:
        """Release the world's resources."""
        ...

    def describe(self) -> dict[str, Any]:
        """The world's settings for the JSON config."""
        ...

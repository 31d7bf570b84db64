"""Controlled hidden-mechanism drift: simulated tasks whose working action flips at the reversal.

Each task is governed by a hidden mechanism (a memory key) with a few possible actions. In the
acquisition phase one action works; at the reversal the mechanism flips and another action (drawn
per seed among the others) works. Outcomes are noisy: the working action succeeds with
probability ``p_right`` and any other with ``p_wrong``. The uniform draws behind the outcomes
come from the seed alone, so every method faces the same luck (common random numbers).

Example:
    >>> world = DriftWorld(DriftConfig(tasks=2, acquisition=3, reversal=3), seed=0)
    >>> right = world.correct_action(0, "acquisition")
    >>> right in world.tasks[0].actions
    True
    >>> right != world.correct_action(0, "reversal")
    True
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass
from typing import Any

from langchain_tepa.bench.world import PHASES, Task
from langchain_tepa.core.errors import InvalidArgumentError

__all__ = ["ACTION_NAMES", "DriftConfig", "DriftWorld"]

ACTION_NAMES: tuple[str, ...] = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta")
_MACHINES: tuple[str, ...] = (
    "boiler",
    "conveyor",
    "furnace",
    "mixer",
    "press",
    "pump",
    "sorter",
    "turbine",
    "valve",
    "winch",
)


@dataclass(frozen=True)
class DriftConfig:
    """Size and noise of the controlled drift scenario.

    Attributes:
        tasks: Number of tasks (hidden mechanisms, one memory key each).
        actions: Possible actions per task.
        acquisition: Episodes per task before the reversal.
        reversal: Episodes per task after it.
        p_right: Success probability of the working action.
        p_wrong: Success probability of any other action.

    Example:
        >>> DriftConfig().episodes_per_seed
        1200
    """

    tasks: int = 6
    actions: int = 3
    acquisition: int = 50
    reversal: int = 150
    p_right: float = 0.98
    p_wrong: float = 0.02

    def __post_init__(self) -> None:
        if not 1 <= self.tasks <= len(_MACHINES) * 10:
            raise InvalidArgumentError(f"tasks must be within 1..{len(_MACHINES) * 10}")
        if not 2 <= self.actions <= len(ACTION_NAMES):
            raise InvalidArgumentError(f"actions must be within 2..{len(ACTION_NAMES)}")
        if self.acquisition < 1 or self.reversal < 3:
            raise InvalidArgumentError("acquisition must be >= 1 and reversal >= 3 episodes")
        for name in ("p_right", "p_wrong"):
            p = getattr(self, name)
            if not 0.0 <= p <= 1.0:
                raise InvalidArgumentError(f"{name} must be within [0, 1], got {p}")

    @property
    def episodes_per_seed(self) -> int:
        """Episodes of one run (all tasks, both phases)."""
        return self.tasks * (self.acquisition + self.reversal)

    def to_dict(self) -> dict[str, Any]:
        """The config as a dict."""
        return asdict(self)


class DriftWorld:
    """The controlled world of one seed.

    Args:
        config: Scenario size and noise.
        seed: Picks the working actions and the outcome draws.

    Example:
        >>> world = DriftWorld(DriftConfig(tasks=1, p_right=1.0, p_wrong=0.0), seed=3)
        >>> world.execute(0, world.correct_action(0, "acquisition"), "acquisition", 0)
        True
    """

    def __init__(self, config: DriftConfig, seed: int) -> None:
        self.config = config
        rng = random.Random(f"drift-world-{seed}")
        names = ACTION_NAMES[: config.actions]
        self.tasks: list[Task] = []
        self._right: dict[tuple[int, str], str] = {}
        for i in range(config.tasks):
            machine = _MACHINES[i % len(_MACHINES)] + (str(i // len(_MACHINES)) if i >= 10 else "")
            self.tasks.append(
                Task(
                    key=f"drift.{machine}.control",
                    text=f"Operate the {machine}: which control setting makes it run?",
                    actions=names,
                )
            )
            first = rng.choice(names)
            second = rng.choice([a for a in names if a != first])
            self._right[(i, "acquisition")] = first
            self._right[(i, "reversal")] = second
        self._trial_rng = random.Random(f"drift-trials-{seed}")
        lengths = {"acquisition": config.acquisition, "reversal": config.reversal}
        self._draws = {
            (phase, i): [rng.random() for _ in range(lengths[phase])]
            for phase in PHASES
            for i in range(config.tasks)
        }

    def correct_action(self, task_index: int, phase: str) -> str:
        """The working action of a task in a phase."""
        return self._right[(task_index, phase)]

    def execute(self, task_index: int, action: str, phase: str, episode: int) -> bool:
        """Success with ``p_right`` for the working action, ``p_wrong`` for the others."""
        p = (
            self.config.p_right
            if action == self._right[(task_index, phase)]
            else self.config.p_wrong
        )
        return self._draws[(phase, task_index)][episode] < p

    def trial(self, task_index: int, action: str, phase: str) -> bool:
        """A trial run: same success probabilities, draws from a separate stream."""
        right = self._right[(task_index, phase)]
        p = self.config.p_right if action == right else self.config.p_wrong
        return self._trial_rng.random() < p

    def close(self) -> None:
        """Nothing to release."""

    def describe(self) -> dict[str, Any]:
        """The scenario settings."""
        return {"world": "controlled", **self.config.to_dict()}

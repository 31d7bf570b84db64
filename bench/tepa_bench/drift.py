"""Controlled hidden-mechanism drift: simulated tasks whose working action changes.

Each task is governed by a hidden mechanism (a memory key) with a few possible actions. One
action works at a time: the first change comes after ``acquisition`` steps, then (with
``change_every``) one every ``change_every`` steps; at each change another action (drawn per seed
among the others) starts to work. Outcomes are noisy: the working action succeeds with
probability ``p_right`` and any other with ``p_wrong`` (per task with ``noise_mix``); inside a
glitch burst (``burst_every``, ``burst_length``) the working action fails although nothing
changed. The uniform draws behind the outcomes depend on the seed, the task and the step only,
so every method faces the same luck at the same step (common random numbers).

Example:
    >>> world = DriftWorld(DriftConfig(tasks=2, acquisition=3, reversal=3), seed=0)
    >>> schedule, _ = drift_schedule(world.config, seed=0)   # the scorer's view only
    >>> schedule.right_action(0, 0) != schedule.right_action(0, 3)
    True
    >>> schedule.change_points(0)
    (3,)
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass
from typing import Any

from langchain_tepa.core.errors import InvalidArgumentError
from tepa_bench.world import PHASES, Schedule, Task, TaskClocks

__all__ = ["ACTION_NAMES", "BURST_CLEARANCE", "DriftConfig", "DriftWorld", "drift_schedule"]

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
BURST_CLEARANCE = 5
"""Glitch bursts start at least this many steps away from a change point (so that a burst is
never confused with a change by the scorer)."""


def _pair(value: Any) -> tuple[float, float]:
    try:
        right, wrong = (float(v) for v in value)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"noise_mix holds (p_right, p_wrong) pairs, got {value!r}"
        ) from None
    return right, wrong


@dataclass(frozen=True)
class DriftConfig:
    """Size, noise and drift of the controlled scenario.

    Attributes:
        tasks: Number of tasks (hidden mechanisms, one memory key each).
        actions: Possible actions per task.
        acquisition: Steps per task before the first change.
        reversal: Steps per task after it (the horizon is ``acquisition + reversal``).
        p_right: Success probability of the working action.
        p_wrong: Success probability of any other action.
        change_every: 0: one change (at ``acquisition``); ``n``: then a change every ``n`` steps.
        noise_mix: Per-task ``(p_right, p_wrong)`` pairs, task ``i`` taking pair ``i % len``
            (noise that differs across keys); empty: every task has ``p_right``/``p_wrong``.
        burst_every: Mean steps between glitch bursts of a task (0: none).
        burst_length: Steps of a glitch burst (the working action fails in all of them).

    Example:
        >>> DriftConfig().episodes_per_seed
        1200
        >>> DriftConfig(noise_mix=[[0.99, 0.01], [0.7, 0.3]]).noise(1)
        (0.7, 0.3)
    """

    tasks: int = 6
    actions: int = 3
    acquisition: int = 50
    reversal: int = 150
    p_right: float = 0.98
    p_wrong: float = 0.02
    change_every: int = 0
    noise_mix: tuple[tuple[float, float], ...] = ()
    burst_every: int = 0
    burst_length: int = 3

    def __post_init__(self) -> None:
        if not 1 <= self.tasks <= len(_MACHINES) * 10:
            raise InvalidArgumentError(f"tasks must be within 1..{len(_MACHINES) * 10}")
        if not 2 <= self.actions <= len(ACTION_NAMES):
            raise InvalidArgumentError(f"actions must be within 2..{len(ACTION_NAMES)}")
        if self.acquisition < 1 or self.reversal < 3:
            raise InvalidArgumentError("acquisition must be >= 1 and reversal >= 3 episodes")
        object.__setattr__(self, "noise_mix", tuple(_pair(p) for p in self.noise_mix))
        for right, wrong in ((self.p_right, self.p_wrong), *self.noise_mix):
            if not (0.0 <= right <= 1.0 and 0.0 <= wrong <= 1.0):
                raise InvalidArgumentError(
                    f"success probabilities must be within [0, 1], got {right}, {wrong}"
                )
        for name in ("change_every", "burst_every"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidArgumentError(f"{name} must be an integer >= 0, got {value!r}")
        if self.change_every and self.change_every < 3:
            raise InvalidArgumentError("change_every must be 0 (one change) or >= 3 steps")
        if not isinstance(self.burst_length, int) or self.burst_length < 1:
            raise InvalidArgumentError(f"burst_length must be >= 1, got {self.burst_length!r}")
        if self.burst_every and self.burst_every < 2 * self.burst_length:
            raise InvalidArgumentError("burst_every must be at least twice burst_length")

    @property
    def horizon(self) -> int:
        """Interactions per task."""
        return self.acquisition + self.reversal

    @property
    def episodes_per_seed(self) -> int:
        """Interactions of one run (all tasks)."""
        return self.tasks * self.horizon

    def noise(self, task_index: int) -> tuple[float, float]:
        """``(p_right, p_wrong)`` of a task."""
        if self.noise_mix:
            return self.noise_mix[task_index % len(self.noise_mix)]
        return self.p_right, self.p_wrong

    def to_dict(self) -> dict[str, Any]:
        """The config as a dict (JSON-ready)."""
        data = asdict(self)
        data["noise_mix"] = [list(p) for p in self.noise_mix]
        return data


def _task(i: int, names: tuple[str, ...]) -> Task:
    machine = _MACHINES[i % len(_MACHINES)] + (str(i // len(_MACHINES)) if i >= 10 else "")
    return Task(
        key=f"drift.{machine}.control",
        text=f"Operate the {machine}: which control setting makes it run?",
        actions=names,
    )


def _bursts(
    rng: random.Random, config: DriftConfig, changes: tuple[int, ...]
) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    every, length = config.burst_every, config.burst_length
    t = rng.randint(every // 2, every)
    while t + length <= config.horizon:
        if all(t + length + BURST_CLEARANCE <= c or t >= c + BURST_CLEARANCE for c in changes):
            out.append((t, t + length))
        t += length + rng.randint(every // 2, every + every // 2)
    return tuple(out)


def drift_schedule(config: DriftConfig, seed: int) -> tuple[Schedule, list[list[float]]]:
    """The hidden state of one seed and the uniform draws behind its outcomes.

    With one change, no noise mix and no bursts this gives exactly the worlds (and draws) of
    the original two-phase scenario. Returns ``(schedule, draws)`` with ``draws[task][step]``.
    """
    rng = random.Random(f"drift-world-{seed}")
    names = ACTION_NAMES[: config.actions]
    firsts: list[tuple[str, str]] = []
    for _ in range(config.tasks):
        first = rng.choice(names)
        second = rng.choice([a for a in names if a != first])
        firsts.append((first, second))
    lengths = {"acquisition": config.acquisition, "reversal": config.reversal}
    per_phase = {
        (phase, i): [rng.random() for _ in range(lengths[phase])]
        for phase in PHASES
        for i in range(config.tasks)
    }
    draws = [
        per_phase[("acquisition", i)] + per_phase[("reversal", i)] for i in range(config.tasks)
    ]
    more = random.Random(f"drift-changes-{seed}")
    right = []
    bursts = []
    for i, (first, second) in enumerate(firsts):
        segs = [(0, first), (config.acquisition, second)]
        t = config.acquisition + config.change_every
        while config.change_every and t < config.horizon:
            segs.append((t, more.choice([a for a in names if a != segs[-1][1]])))
            t += config.change_every
        right.append(tuple(segs))
        if config.burst_every:
            changes = tuple(s for s, _ in segs[1:])
            bursts.append(_bursts(random.Random(f"drift-bursts-{seed}-{i}"), config, changes))
    schedule = Schedule(config.horizon, tuple(right), tuple(bursts))
    return schedule, draws


class DriftWorld:
    """The controlled world of one seed.

    Args:
        config: Scenario size, noise and drift.
        seed: Picks the working actions, the change points, the bursts and the outcome draws.

    Example:
        >>> world = DriftWorld(DriftConfig(tasks=1, p_right=1.0, p_wrong=0.0), seed=3)
        >>> [world.execute(0, a) for a in world.tasks[0].actions].count(True)
        1
        >>> world.clock(0)
        3
    """

    def __init__(self, config: DriftConfig, seed: int) -> None:
        self.config = config
        self.horizon = config.horizon
        names = ACTION_NAMES[: config.actions]
        self.tasks: list[Task] = [_task(i, names) for i in range(config.tasks)]
        self.__schedule, self.__draws = drift_schedule(config, seed)
        self._clocks = TaskClocks(config.tasks, config.horizon, config.acquisition)

    def clock(self, task_index: int) -> int:
        """Interactions task ``task_index`` has had."""
        return self._clocks.now(task_index)

    def execute(
        self,
        task_index: int,
        action: str,
        phase: str | None = None,
        episode: int | None = None,
        *,
        trial: bool = False,
    ) -> bool:
        """One interaction: success with ``p_right`` for the working action, else ``p_wrong``.

        ``phase``/``episode`` (the old signature) are checked against the clock. A trial draws
        the same way: it is an interaction like any other.

        Raises:
            HorizonReachedError: When the task's budget is used up.
        """
        t = self._clocks.tick(task_index, phase, episode)
        return self.__outcome(task_index, action, t)

    def __outcome(self, task_index: int, action: str, t: int) -> bool:
        schedule = self.__schedule
        p_right, p_wrong = self.config.noise(task_index)
        if action == schedule.right_action(task_index, t):
            p = 0.0 if schedule.in_burst(task_index, t) else p_right
        else:
            p = p_wrong
        return self.__draws[task_index][t] < p

    def correct_action(self, task_index: int, phase: str) -> str:
        """The working action of a task at the start of a phase (for the scorer and notebooks).

        Agents and trial executors never hold the world; they cannot call this.
        """
        t = 0 if phase == "acquisition" else self.config.acquisition
        return self.__schedule.right_action(task_index, t)

    def close(self) -> None:
        """Nothing to release."""

    def describe(self) -> dict[str, Any]:
        """The scenario settings."""
        return {"world": "controlled", **self.config.to_dict()}
